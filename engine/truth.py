"""What a truthful agent answers: the truth semantics of logic/truth/, run by clingo.

The `oracle` agent answers with these values and the audit derives its worlds' answers from the
same rules, so the two can never drift apart. The `biased` reference agents answer with the same
truth distorted by the rules of logic/truth/biased.lp (`biased_answers`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from metalogic.engine.errors import MetalogicError
from metalogic.engine.session.api import Session, param_facts
from metalogic.logic import LOGIC_DIR

TRUTH_DIR = LOGIC_DIR / "truth"
TRUTH_ENTRY = TRUTH_DIR / "truth.lp"  # the truth rules and the core files they build on
BIASED_RULES = TRUTH_DIR / "biased.lp"


def truth_session(
    program: str, params: Mapping[str, int] | None = None, extra: str = "", files: Sequence[Path] = ()
) -> Session:
    """A clingo session holding the truth rules, the given facts, `extra` rules and the rule
    `files` that build on the truth (such as biased.lp)."""
    session = Session("clingo", failure="clingo failed on the truth rules")
    return session.load(TRUTH_ENTRY, *files).add(program + param_facts(params or {}) + extra)


def true_answers(program: str, params: Mapping[str, int] | None = None) -> dict[str, str]:
    """Query id (canonical text) -> the truthful answer (canonical text), for every query whose
    ground truth is known from the facts in `program`."""
    shown = truth_session(program, params, "#show truth/2.\n").symbols()
    return {str(s.arguments[0]): str(s.arguments[1]) for s in shown}


def biased_answers(program: str, kind: str, params: Mapping[str, int] | None = None) -> dict[str, str]:
    """Query id -> the answer of an agent biased in the way `kind` names (a term of biased.lp's
    bias/1: constant, mirror, nearfar, updown, turnmap(R), stale), for every query with a truth.
    A query the rules give no distorted value for is absent."""
    session = truth_session(program, params, f"bias({kind}).\n#show biased/3.\n", files=[BIASED_RULES])
    out: dict[str, str] = {}
    clash: list[str] = []
    for s in session.symbols():
        q, v = str(s.arguments[1]), str(s.arguments[2])
        if out.setdefault(q, v) != v:
            clash.append(f"{q}: {out[q]} and {v}")
    if clash:  # a distortion is a function of the truth: two values mean a rule is wrong
        raise MetalogicError.single(
            f"biased.lp gives two answers to one query under bias({kind}) ({clash[0]})",
            fix="report this: the rules in logic/truth/biased.lp must give one value per query",
        )
    return out
