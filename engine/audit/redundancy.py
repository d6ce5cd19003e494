"""`metalogic audit`, part (c): non-redundancy. For each MR, answers that it flags while every other
MR of the same capabilities has test cases there and flags nothing: a witness that the MR catches
something no other MR does. Python builds the probe questions the search starts from.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import clingo

from metalogic.engine.audit.verdicts import Verdict
from metalogic.engine.audit.worlds import (
    AUDIT_DIR,
    ENTRY,
    FAMILIES,
    WORLD_SHOWS,
    Family,
    counterexample,
    ground_audit,
)
from metalogic.engine.rules.declarations import MR
from metalogic.engine.rules.loader import RuleSet


def _q(qid: str, content: str, form: str) -> str:
    return f"query({qid}, {content}).\nform({qid}, {form}).\n"


def _pairs(items: Sequence[str]) -> list[tuple[str, str]]:
    return [(a, b) for a in items for b in items if a != b]


def probe(family: str) -> str:
    """The questions of one world of a family, with plain ids (for the non-redundancy search)."""
    out = ["trajectory(w, household).\n", "step_mm(w, 250).\n"]
    if family == "moves":
        for s1, s2 in _pairs(["0", "1", "2"]):
            out += [
                _q(f"md{s1}{s2}", f"move_dir(w, {s1}, {s2})", "choice"),
                _q(f"ms{s1}{s2}", f"move_dist(w, {s1}, {s2})", "choice"),
            ]
        out += [_q("md01b", "move_dir(w, 0, 1)", "reversed"), _q("ms01b", "move_dist(w, 0, 1)", "reversed")]
    elif family == "objects":
        for a, b in _pairs(["a", "b", "c"]):
            out += [
                _q(f"od{a}{b}", f"obj_dir(w, 0, {a}, {b})", "choice"),
                _q(f"ot{a}{b}", f"obj_dist(w, 0, {a}, {b})", "choice"),
            ]
        for s in ("0", "1"):
            out += [_q(f"sz{s}{o}", f"size(w, {s}, {o})", "choice") for o in ("a", "b", "c")]
        # A cycle of four relations in frame 2 with no triple of questions around it (MR18's kind).
        out += [
            _q(f"oc{a}{b}", f"obj_dir(w, 2, {a}, {b})", "choice")
            for a, b in (("a", "b"), ("b", "c"), ("c", "d"), ("d", "a"))
        ]
        out += [
            _q("od1ab", "obj_dir(w, 1, a, b)", "choice"),
            _q("odabb", "obj_dir(w, 0, a, b)", "reversed"),
            _q("otabb", "obj_dist(w, 0, a, b)", "reversed"),
            _q("sz0ab", "size(w, 0, a)", "reversed"),
        ]
    elif family == "depth":
        out += [_q(f"dp{s}{o}", f"depth(w, {s}, {o})", "choice") for s in ("0", "1") for o in ("a", "b")]
        out.append(_q("dp0ab", "depth(w, 0, a)", "reversed"))
        out += [
            f"detection(w, {s}, {o}, thing, 1000, 100, 100, 120, {100 + h}).\n"
            for s, o, h in (("0", "a", 100), ("1", "a", 50), ("0", "b", 80), ("1", "b", 40))
        ]
    elif family == "map":
        for s in ("0", "1"):
            out += [
                _q(f"mp{s}{a}{b}", f"map_dir(w, {s}, {a}, {b})", "choice") for a, b in _pairs(["a", "b", "c"])
            ]
        for a, b in _pairs(["a", "b", "c"]):
            out.append(_q(f"mt{a}{b}", f"map_dist(w, 0, {a}, {b})", "choice"))
        out += [_q(f"eg{o}", f"ego_dist(w, 0, {o})", "choice") for o in ("a", "b", "c")]
        out += [
            _q("mv01", "move_dir(w, 0, 1)", "choice"),
            _q("mpabb", "map_dir(w, 0, a, b)", "reversed"),
            _q("mtabb", "map_dist(w, 0, a, b)", "reversed"),
            _q("egab", "ego_dist(w, 0, a)", "reversed"),
        ]
    return "".join(out)


# (world, depths, moves, ground): worlds of the families with boxes in which the non-redundancy
# search looks for a witness, one at a time. Chosen to be varied: both objects whole in view with a
# level or pitched camera, one object cut by the border (where only the MRs that need no box apply),
# a step forward (level and pitched) and standing still; one world without its depth questions,
# where an MR that needs no depth answer (MR12) is the only one to hold two answers to each other;
# and one without its move questions, where the depths of two frames meet only each other and the
# boxes (MR16).
# Some are searched again without the camera's height (ground = 0: a rig that does not know it),
# where MR17 reads nothing and the MRs that hold sizes, depths and moves to the boxes alone (MR10,
# MR16, MR11) are the only ones to see them, and MR12 the only one to hold a map direction to
# anything (MR17 places anchored objects on the map from the ground).
WITNESS_WORLDS: dict[str, tuple[tuple[int | None, int, int, int], ...]] = {
    "view": (
        (18, 1, 1, 1),
        (315, 1, 1, 1),
        (405, 1, 1, 1),
        (135, 1, 1, 1),
        (18, 0, 1, 1),
        (18, 1, 1, 0),
        (18, 0, 1, 0),
    ),
    "view-moves": (
        (458, 1, 0, 1),
        (74, 1, 1, 1),
        (458, 1, 1, 1),
        (26, 1, 1, 1),
        (62, 1, 1, 1),
        (458, 1, 0, 0),
        (458, 1, 1, 0),
    ),
}


def _witness_search(
    rules: RuleSet, mr: MR, fam: Family, world: int | None, depths: int = 1, moves: int = 1, ground: int = 1
) -> tuple[list[clingo.Symbol], list[str]] | None:
    """Answers in a probe (world None) or one world of the family that only `mr` flags, with the
    other MRs of the capabilities that have cases there; None when there are none."""
    peers = [m for m in rules.mrs if m.id != mr.id and set(m.serves) & set(fam.scs)]
    head = f"audit_mr({mr.id}).\n" + "".join(f"audit_peer({m.id}).\n" for m in peers)
    shows = "#show answer/3.\n#show query/2.\n#show form/2.\n#show violation/5.\n#show audit_other/1.\n"
    if world is None:
        files = [ENTRY["redundancy_probe"], *[m.lp for m in rules.mrs]]
        session = ground_audit(files, probe(fam.name) + head + shows + "#show detection/9.\n")
        if not session.satisfiable:  # the first model is one witness, and one is enough
            return None
        shown = session.symbols()
        return shown, sorted(str(s.arguments[0]) for s in shown if s.name == "audit_other")
    files = [ENTRY["redundancy"], AUDIT_DIR / fam.world, *[m.lp for m in rules.mrs]]
    world_shows = "".join(f"#show {n}/{a}.\n" for n, a in WORLD_SHOWS)
    program = "trajectory(W, household) :- audit_world(W).\n" + head + world_shows
    program += "#show query/2.\n#show form/2.\n#show audit_witness/1.\n#show audit_other/1.\n"
    program += "#show answer(A, Q, V) : answer(A, Q, V), audit_witness(A).\n"
    program += "#show violation(A, C, M, S, R) : violation(A, C, M, S, R), audit_witness(A).\n"
    consts = {"world": world, "depths": depths, "moves": moves, "ground": ground}
    symbols = ground_audit(files, program, consts).symbols()
    witnesses = sorted((s.arguments[0] for s in symbols if s.name == "audit_witness"), key=str)
    if not witnesses:
        return None
    first = witnesses[0]
    kept = [s for s in symbols if s.name not in ("answer", "violation") or s.arguments[0] == first]
    renamed = [
        clingo.Function(s.name, [clingo.Function("witness"), *s.arguments[1:]])
        if s.name in ("answer", "violation")
        else s
        for s in kept
    ]
    return renamed, sorted(str(s.arguments[0]) for s in symbols if s.name == "audit_other")


def non_redundancy(rules: RuleSet, mr: MR) -> Verdict:
    """Answers that `mr` flags while every other MR of its capabilities holds all its cases there:
    searched in the probe questions of each family, then in single worlds of the families with
    boxes (where the truth gives the values to start from)."""
    t0 = time.perf_counter()
    tried = []
    for fam in FAMILIES.values():
        if not set(mr.serves) & set(fam.scs):
            continue
        tried.append(fam.name)
        worlds: Sequence[tuple[int | None, int, int, int]] = WITNESS_WORLDS.get(fam.name, ((None, 1, 1, 1),))
        for world, depths, moves, ground in worlds:
            found = _witness_search(rules, mr, fam, world, depths, moves, ground)
            if found is None:
                continue
            shown, others = found
            viol = sorted({str(s.arguments[1]) for s in shown if s.name == "violation"})
            kept = [s for s in shown if s.name not in ("violation", "audit_other")]
            facts = _witness_facts(mr, kept, world)
            where = f"{fam.name} world" if world is None else f"{fam.name} world {world}"
            where += "" if depths else " without depth questions"
            where += "" if moves else " without move questions"
            where += "" if ground else " without the camera's height"
            detail = f"{where}: {mr.id} flags {viol[0]}; {_held(others)}"
            return Verdict("non-redundancy", mr.id, "witness", detail, "", time.perf_counter() - t0, facts)
    return Verdict(
        "non-redundancy",
        mr.id,
        "redundant",
        f"no answers are flagged by {mr.id} alone in the {', '.join(tried)} worlds: the other MRs "
        "already catch everything it catches there",
        "",
        time.perf_counter() - t0,
    )


def _witness_facts(mr: MR, kept: list[clingo.Symbol], world: int | None) -> str:
    """The witness as a facts file: the probe's questions and answers, or the world's facts."""
    head = f"% Answers only {mr.id} flags (metalogic audit, non-redundancy witness)."
    if world is None:
        return f"{head}\ntrajectory(w, household).\n" + "".join(f"{s}.\n" for s in sorted(kept, key=str))
    return counterexample(kept, clingo.Number(world), agent="witness", head=head)


def _held(others: list[str]) -> str:
    """What the other MRs of the capabilities did with the witness's answers."""
    if not others:
        return "no other MR applies"
    many = len(others) > 1
    return f"{', '.join(others)} {'hold' if many else 'holds'} all {'their' if many else 'its'} cases there"
