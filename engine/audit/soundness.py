"""`metalogic audit`, part (a): soundness. Every world of a family (moves, objects, depth, view,
view-moves, map), each a trajectory of its own, answered truthfully through logic/truth/ (the rules
the oracle agent uses). A world in which an MR reports a violation is a counter-example, written as
facts `metalogic check` reproduces.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import clingo

from metalogic.engine.audit.verdicts import Verdict
from metalogic.engine.audit.worlds import (
    AUDIT_DIR,
    ENTRY,
    SHOW_FLAGGED,
    Family,
    counterexample,
    ground_audit,
    rename_case,
)
from metalogic.engine.rules.declarations import MR
from metalogic.engine.rules.loader import RuleSet

# The flagged worlds come first in each condition: grounding the conditions the other way round
# joined every query with every (not yet known) flag and took minutes once MR11 was loaded.
SHOW_QUERIES = (
    "audit_bad(W) :- audit_flagged(W, _, _, _, _).\n"
    "#show query(Q, K) : audit_bad(W), query_traj(Q, W), query(Q, K).\n"
    "#show form(Q, F) : audit_bad(W), query_traj(Q, W), form(Q, F).\n"
    "#show answer(A, Q, V) : audit_bad(W), query_traj(Q, W), answer(A, Q, V).\n"
    "#show audit_flagged/5.\n#show audit_cases(M, S, N) : audit_cases(M, S, N).\n"
)
COUNT_CASES = "audit_cases(M, S, N) :- mr_serves(M, S), N = #count{ C : testcase(C, M, S) }.\n"


def soundness(
    rules: RuleSet, family: Family, bound: int | None = None, mrs: Sequence[MR] | None = None
) -> list[Verdict]:
    """Every MR serving the family's capabilities (of `mrs`, by default all), checked on all its
    worlds in one grounding."""
    mrs = [m for m in (mrs or rules.mrs) if set(m.serves) & set(family.scs)]
    if not mrs:
        return []
    b = bound if bound is not None else family.default_bound
    t0 = time.perf_counter()
    symbols = _truthful_worlds(rules, family, mrs, b)
    secs = time.perf_counter() - t0
    cases = {
        (str(s.arguments[0]), str(s.arguments[1])): s.arguments[2].number
        for s in symbols
        if s.name == "audit_cases"
    }
    flagged: dict[tuple[str, str], list[clingo.Symbol]] = {}
    for s in symbols:
        if s.name == "audit_flagged":
            key = (str(s.arguments[2]), str(s.arguments[3]))
            flagged.setdefault(key, []).append(s)
    shown_bound = family.describe.format(b=b, b1=max(1, b - 1), d=(500 + (b - 1) * 250) / 1000)
    out = []
    for m in mrs:
        for sc in m.serves:
            if sc not in family.scs:
                continue
            subject = f"{m.id} {sc}"
            if (m.id, sc) in flagged:
                out.append(_unsound(subject, flagged[(m.id, sc)], symbols, shown_bound, secs))
                continue
            n = cases.get((m.id, sc), 0)
            if n == 0:
                detail = (
                    f"no test case arises in the {family.name} worlds; the probe questions do not "
                    "reach this MR"
                )
                out.append(Verdict("soundness", subject, "untested", detail, shown_bound, secs))
            else:
                detail = f"{n} test cases over all {family.name} worlds, none flagged"
                out.append(Verdict("soundness", subject, "sound", detail, shown_bound, secs))
    return out


def _truthful_worlds(rules: RuleSet, family: Family, mrs: Sequence[MR], bound: int) -> list[clingo.Symbol]:
    """The family's worlds answered truthfully, checked by `mrs`: their cases, what they flag and the
    flagged worlds' facts. Only those MR files are loaded; the others' parameter defaults are given
    as facts, since one MR may read a parameter that another declares."""
    ids = {m.id for m in mrs}
    foreign = "".join(
        f'param_default({name}, {rules.params[name].default}, "").\n'
        for name, owner in sorted(rules.param_owner.items())
        if owner not in ids and owner != "core" and name in rules.params
    )
    files = [ENTRY["soundness"], AUDIT_DIR / family.world, *[m.lp for m in mrs]]
    session = ground_audit(
        files,
        "trajectory(W, household) :- audit_world(W).\n" + foreign + COUNT_CASES + SHOW_FLAGGED + SHOW_QUERIES,
        {"bound": bound},
    )
    return session.symbols()


def _unsound(
    subject: str, hits: list[clingo.Symbol], symbols: list[clingo.Symbol], bound: str, secs: float
) -> Verdict:
    """The verdict on an MR and capability that flag truthful answers, with the first world's facts."""
    first = min(hits, key=lambda s: s.arguments[0].number)
    world = first.arguments[0]
    return Verdict(
        "soundness",
        subject,
        "unsound",
        f"{len(hits)} truthful case(s) flagged; first: "
        f"{rename_case(first.arguments[1], world)} ({first.arguments[4]})",
        bound,
        secs,
        counterexample(symbols, world),
    )
