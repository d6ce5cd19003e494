"""What a truthful agent answers: the truth semantics of logic/truth/, run by clingo.

The `oracle` agent answers with these values and the audit derives its worlds' answers from the
same rules, so the two can never drift apart. The `biased` reference agents answer with the same
truth distorted by the rules of logic/truth/biased.lp (`biased_answers`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import clingo

from metalogic.engine.backends import _param_facts
from metalogic.engine.errors import MetalogicError, Problem
from metalogic.engine.rules import SHARED_TABLES, _Log, clingo_problems
from metalogic.logic import CORE_DIR, LOGIC_DIR

TRUTH_DIR = LOGIC_DIR / "truth"
TRUTH_FILES = [
    CORE_DIR / "trig.facts",
    CORE_DIR / "algebra.lp",
    CORE_DIR / "queries.lp",
    CORE_DIR / "params.lp",
    TRUTH_DIR / "frames.lp",
    TRUTH_DIR / "answers.lp",
]
BIASED_RULES = TRUTH_DIR / "biased.lp"


def truth_control(
    program: str, params: Mapping[str, int] | None = None, extra: str = "", files: Sequence[Path] = ()
) -> clingo.Control:
    """A grounded clingo program holding the truth rules, the given facts, `extra` rules and the
    rule `files` that build on the truth (such as biased.lp)."""
    log = _Log()
    ctl = clingo.Control(["--warn=none"], logger=log, message_limit=20)
    ctl.load(str(SHARED_TABLES))
    for f in [*TRUTH_FILES, *files]:
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


def biased_answers(program: str, kind: str, params: Mapping[str, int] | None = None) -> dict[str, str]:
    """Query id -> the answer of an agent biased in the way `kind` names (a term of biased.lp's
    bias/1: constant, mirror, nearfar, updown, turnmap(R), stale), for every query with a truth.
    A query the rules give no distorted value for is absent."""
    ctl = truth_control(program, params, f"bias({kind}).\n#show biased/3.\n", files=[BIASED_RULES])
    out: dict[str, str] = {}
    clash: list[str] = []

    def on_model(m: clingo.Model) -> None:
        for s in m.symbols(shown=True):
            q, v = str(s.arguments[1]), str(s.arguments[2])
            if out.setdefault(q, v) != v:
                clash.append(f"{q}: {out[q]} and {v}")

    ctl.solve(on_model=on_model)
    if clash:  # a distortion is a function of the truth: two values mean a rule is wrong
        raise MetalogicError.single(
            f"biased.lp gives two answers to one query under bias({kind}) ({clash[0]})",
            fix="report this: the rules in logic/truth/biased.lp must give one value per query",
        )
    return out
