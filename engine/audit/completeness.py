"""`metalogic audit`, part (e): completeness. The systematic distortions of the truth that no MR
catches on the worlds with boxes: the MR set's blind spots (listed in docs/mrs.md), each with a
world in which the distorted answers break no MR.
"""

from __future__ import annotations

import time

import clingo

from metalogic.engine.audit.verdicts import Verdict
from metalogic.engine.audit.worlds import (
    AUDIT_DIR,
    ENTRY,
    SHOW_FLAGGED,
    Family,
    counterexample,
    ground_audit,
)
from metalogic.engine.rules.loader import RuleSet

COMPLETENESS_FAMILIES = ("view", "view-moves")
COMPLETENESS_SAMPLE = 7  # one world in this many: the distortions are caught or not everywhere alike
# The worlds in which a distortion survives come first in each condition, for the reason
# audit.soundness.SHOW_QUERIES gives.
SHOW_SURVIVORS = (
    "audit_bad(W) :- audit_survives(_, _, W).\n"
    "#show query(Q, K) : audit_bad(W), query_traj(Q, W), query(Q, K).\n"
    "#show form(Q, F) : audit_bad(W), query_traj(Q, W), form(Q, F).\n"
    "#show answer(A, Q, V) : audit_bad(W), query_traj(Q, W), answer(A, Q, V).\n"
)


def completeness(rules: RuleSet, family: Family, sample: int = COMPLETENESS_SAMPLE) -> list[Verdict]:
    """Which systematic distortions of the truth (logic/audit/complete.lp) change answers of a
    capability without any of its cases flagging them, on the family's worlds: the blind spots."""
    t0 = time.perf_counter()
    files = [ENTRY["completeness"], AUDIT_DIR / family.world, *[m.lp for m in rules.mrs]]
    shows = "#show audit_survives/3.\n#show audit_changed/2.\n" + SHOW_FLAGGED + SHOW_SURVIVORS
    session = ground_audit(files, "trajectory(W, household) :- audit_world(W).\n" + shows, {"sample": sample})
    symbols = session.symbols()
    secs = time.perf_counter() - t0
    survives: dict[tuple[str, str], clingo.Symbol] = {}
    for s in symbols:
        if s.name == "audit_survives":
            key = (str(s.arguments[0]), str(s.arguments[1]))
            if key not in survives or s.arguments[2].number < survives[key].number:
                survives[key] = s.arguments[2]
    changed = sorted((str(s.arguments[0]), str(s.arguments[1])) for s in symbols if s.name == "audit_changed")
    out = []
    for kind, sc in changed:
        subject = f"{kind} {sc}"
        if (kind, sc) not in survives:
            detail = f"flagged in the {family.name} worlds"
            out.append(Verdict("completeness", subject, "caught", detail, family.name, secs))
            continue
        world = survives[(kind, sc)]
        facts = counterexample(symbols, world, agent=f"bias({kind})")
        detail = f"{kind} changes {sc} answers and no case of {sc} flags them (first world: {world})"
        out.append(Verdict("completeness", subject, "blind spot", detail, family.name, secs, facts))
    return out
