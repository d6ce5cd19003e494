"""Run the MR check on both engines and compare: the one place that says how they differ.

The two engines print terms alike (see engine/session/runs.py), so their results agree exactly when
every predicate has the same set of lines on both. The audit's engine agreement and the
randomized differential test read their verdicts from `differences`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from metalogic.engine.rules.loader import RuleSet
from metalogic.engine.session.runs import EngineOutput, run_engine


@dataclass(frozen=True)
class Difference:
    """One predicate's lines that only one engine derived (each list sorted)."""

    predicate: str
    only_first: list[str]
    only_second: list[str]

    def sample(self, n: int = 3) -> list[str]:
        """A few of the differing lines, from both sides, in sorted order."""
        return sorted(self.only_first + self.only_second)[:n]


def run_both(rules: RuleSet, program: str, params: Mapping[str, int]) -> tuple[EngineOutput, EngineOutput]:
    """The check's results on clingo, then on SWI-Prolog."""
    return run_engine("clingo", rules, program, params), run_engine("prolog", rules, program, params)


# What the rules say of the input itself. Where they find a fault, the check stops at it and reports
# nothing else, so the engines must agree on these first; the other results are only defined for
# input without faults (two answers to one question, two boxes of one object in one frame: an MR
# may read either, and the engines need not read them alike).
INPUT_CHECKS = ("rule_error", "input_error")


def differences(a: EngineOutput, b: EngineOutput, only: Sequence[str] | None = None) -> list[Difference]:
    """Every predicate (of `only`, when given) on which the two outputs differ, in the first output's
    order of predicates (then any the second alone has); empty when they agree."""
    kinds = list(a.lines) + [k for k in b.lines if k not in a.lines]
    if only is not None:
        kinds = [k for k in kinds if k in only]
    out = []
    for kind in kinds:
        mine, theirs = a.lines.get(kind, set()), b.lines.get(kind, set())
        if mine != theirs:
            out.append(Difference(kind, sorted(mine - theirs), sorted(theirs - mine)))
    return out
