"""What a truthful agent answers: the truth semantics of logic/truth/, run by clingo.

The `oracle` agent answers with these values and the audit derives its worlds' answers from the
same rules, so the two can never drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping

import clingo

from metalogic.engine.backends import _param_facts
from metalogic.engine.errors import MetalogicError, Problem
from metalogic.engine.rules import SHARED_TABLES, _Log, clingo_problems
from metalogic.logic import CORE_DIR, LOGIC_DIR

TRUTH_DIR = LOGIC_DIR / "truth"
TRUTH_FILES = [
    TRUTH_DIR / "trig.facts",
    CORE_DIR / "algebra.lp",
    CORE_DIR / "queries.lp",
    CORE_DIR / "params.lp",
    TRUTH_DIR / "frames.lp",
    TRUTH_DIR / "answers.lp",
]


def truth_control(program: str, params: Mapping[str, int] | None = None, extra: str = "") -> clingo.Control:
    """A grounded clingo program holding the truth rules, the given facts and `extra` rules."""
    log = _Log()
    ctl = clingo.Control(["--warn=none"], logger=log, message_limit=20)
    ctl.load(str(SHARED_TABLES))
    for f in TRUTH_FILES:
        ctl.load(str(f))
    ctl.add("base", [], program + _param_facts(params or {}) + extra)
    try:
        ctl.ground([("base", [])])
    except RuntimeError:
        raise MetalogicError(clingo_problems(log) or [Problem("clingo failed on the truth rules")]) from None
    return ctl


def true_answers(program: str, params: Mapping[str, int] | None = None) -> dict[str, str]:
    """Query id (canonical text) -> the truthful answer (canonical text), for every query whose
    ground truth is known from the facts in `program`."""
    ctl = truth_control(program, params, "#show truth/2.\n")
    out: dict[str, str] = {}

    def on_model(m: clingo.Model) -> None:
        for s in m.symbols(shown=True):
            out[str(s.arguments[0])] = str(s.arguments[1])

    ctl.solve(on_model=on_model)
    return out
