"""`metalogic audit`: machine-checked soundness, tightness and non-redundancy of the MR set.

Everything is decided by clingo over bounded worlds declared in logic/audit/:
(a) soundness: every world of a family (moves, objects, depth, map), each a trajectory of its own,
    answered truthfully through logic/truth/ (the rules the oracle agent uses). A world in which an
    MR reports a violation is a counter-example, written as facts `metalogic check` reproduces.
(b) tightness: every entry of every composition table is realised by some world (and no world
    realises an entry the tables leave out).
(c) non-redundancy: answers flagged by one MR while every other MR of the same capabilities has
    test cases there and flags nothing.
(d) engine agreement: clingo and SWI-Prolog on random fact sets.
Python only builds probe queries for (c), runs the solver, renames ids and writes the report.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import clingo

from metalogic.engine.declarations import MR
from metalogic.engine.rules import RuleSet
from metalogic.engine.session import Session
from metalogic.engine.truth import TRUTH_DIR
from metalogic.logic import CORE_DIR, LOGIC_DIR

AUDIT_DIR = LOGIC_DIR / "audit"
CHECK_CORE = [AUDIT_DIR / "check_core.lp"]  # the parts of the check's core the audit needs
TRUTH = [CORE_DIR / "trig.facts", TRUTH_DIR / "frames.lp", TRUTH_DIR / "answers.lp"]
WORLD_FACTS = (
    "step_mm",
    "state",
    "image_size",
    "camera",
    "camera_pitch",
    "box_slack",
    "gt_pose",
    "gt_camera",
    "gt_object",
    "detection",
    "truncated",
    "occluded",
    "persistent",
    "query",
    "form",
    "answer",
)


@dataclass(frozen=True)
class Family:
    """A kind of bounded world and the capabilities its questions serve."""

    name: str
    world: str
    scs: tuple[str, ...]
    default_bound: int
    describe: str  # what the bound means, for the report


FAMILIES = {
    "moves": Family(
        "moves",
        "worlds_moves.lp",
        ("sc1a", "sc1b"),
        1,
        "agent within {b} steps of the start, any quarter turn, floor or one step up",
    ),
    "objects": Family(
        "objects",
        "worlds_objects.lp",
        ("sc2a", "sc2b", "sc3a"),
        2,
        "two objects within {b} cells of 60 mm of a third (level or upright plane), two viewpoints",
    ),
    "depth": Family(
        "depth",
        "worlds_depth.lp",
        ("sc3b",),
        12,
        "depths 0.5 m to {d} m, focal 300 or 600 px, whole-pixel boxes",
    ),
    "view": Family(
        "view",
        "worlds_view.lp",
        ("sc2a", "sc2b", "sc3a", "sc3b", "sc4a", "sc4b"),
        1,
        "two upright boxes seen by a camera 1.3 m up, level or pitched down 25 or 45 degrees; one at 30 "
        "places 1.1-6 m ahead, 3 heights and 3 shapes; boxes rounded and moved by up to a pixel per edge",
    ),
    "view-moves": Family(
        "view-moves",
        "worlds_view_moves.lp",
        ("sc1a", "sc1b", "sc3b"),
        1,
        "a camera on the agent, level or pitched down, that stands still, steps 250 mm any way, goes up "
        "or turns; two upright boxes ahead at 24 places and 2 shapes, boxes rounded and moved by up to a "
        "pixel per edge",
    ),
    "map": Family(
        "map",
        "worlds_map.lp",
        ("sc4a", "sc4b"),
        2,
        "objects within {b} and {b1} cells of 100 mm of a third, any quarter turn",
    ),
}


def family_of(sc: str) -> Family | None:
    return next((f for f in FAMILIES.values() if sc in f.scs), None)


@dataclass
class Verdict:
    check: str  # soundness | tightness | non-redundancy | engines
    subject: str  # "mr1 sc2a", "map/star", "mr4"
    # sound | unsound | untested | tight | not tight | unsound table | witness | redundant | agree | disagree
    status: str
    detail: str
    bound: str = ""
    seconds: float = 0.0
    facts: str = ""  # counter-example or witness, as facts

    @property
    def ok(self) -> bool:
        return self.status in ("sound", "tight", "witness", "agree", "caught", "blind spot")


@dataclass
class AuditReport:
    verdicts: list[Verdict] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return all(v.ok for v in self.verdicts)


def _ground(files: Sequence[Path], program: str, consts: dict[str, int] | None = None) -> Session:
    """An audit program: the tables, `files` and `program`, with -c constants (bounds, samples)."""
    session = Session("clingo", consts=consts, failure="clingo failed on the audit program")
    return session.load(*files).add(program).ground()


# --- (a) soundness ------------------------------------------------------------------------------

_VARS = "ABCDEFGHIJ"
WORLD_SHOWS = (  # the facts of a world, by name and arity (all but query, form and answer)
    ("step_mm", 2),
    ("state", 2),
    ("image_size", 3),
    ("camera", 5),
    ("camera_pitch", 3),
    ("box_slack", 2),
    ("gt_pose", 6),
    ("gt_camera", 7),
    ("gt_object", 6),
    ("detection", 9),
    ("truncated", 3),
    ("occluded", 3),
    ("persistent", 2),
)
SHOW_FLAGGED = "".join(
    f"#show {name}({', '.join(v)}) : audit_bad({v[0]}), {name}({', '.join(v)}).\n"
    for name, v in ((name, ["W", *_VARS[: arity - 1]]) for name, arity in WORLD_SHOWS)
)
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
    worlds in one grounding. Only those MR files are loaded; the others' parameter defaults are
    given as facts, since one MR may read a parameter that another declares."""
    mrs = [m for m in (mrs or rules.mrs) if set(m.serves) & set(family.scs)]
    if not mrs:
        return []
    loaded = mrs
    ids = {m.id for m in mrs}
    foreign = "".join(
        f'param_default({name}, {rules.params[name].default}, "").\n'
        for name, owner in sorted(rules.param_owner.items())
        if owner not in ids and owner != "core" and name in rules.params
    )
    b = bound if bound is not None else family.default_bound
    t0 = time.perf_counter()
    files = [
        *TRUTH[:1],
        *CHECK_CORE,
        *TRUTH[1:],
        AUDIT_DIR / family.world,
        *[m.lp for m in loaded],
        AUDIT_DIR / "sound.lp",
    ]
    session = _ground(
        files,
        "trajectory(W, household) :- audit_world(W).\n" + foreign + COUNT_CASES + SHOW_FLAGGED + SHOW_QUERIES,
        {"bound": b},
    )
    symbols = session.symbols()
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
            n = cases.get((m.id, sc), 0)
            subject = f"{m.id} {sc}"
            if (m.id, sc) in flagged:
                first = min(flagged[(m.id, sc)], key=lambda s: s.arguments[0].number)
                world = first.arguments[0]
                facts = counterexample(symbols, world)
                out.append(
                    Verdict(
                        "soundness",
                        subject,
                        "unsound",
                        f"{len(flagged[(m.id, sc)])} truthful case(s) flagged; first: "
                        f"{_rename_case(first.arguments[1], world)} ({first.arguments[4]})",
                        shown_bound,
                        secs,
                        facts,
                    )
                )
            elif n == 0:
                out.append(
                    Verdict(
                        "soundness",
                        subject,
                        "untested",
                        f"no test case arises in the {family.name} worlds; the probe questions do not "
                        "reach this MR",
                        shown_bound,
                        secs,
                    )
                )
            else:
                out.append(
                    Verdict(
                        "soundness",
                        subject,
                        "sound",
                        f"{n} test cases over all {family.name} worlds, none flagged",
                        shown_bound,
                        secs,
                    )
                )
    return out


def _rename(sym: clingo.Symbol, world: clingo.Symbol) -> clingo.Symbol:
    """A world fact or query content with its trajectory (first argument) renamed to `w`."""
    if sym.type == clingo.SymbolType.Function and sym.arguments and sym.arguments[0] == world:
        return clingo.Function(sym.name, [clingo.Function("w"), *sym.arguments[1:]], sym.positive)
    return sym


def _qid(sym: clingo.Symbol, world: clingo.Symbol) -> clingo.Symbol:
    if sym.type == clingo.SymbolType.Number and sym.number // 100 == world.number:
        return clingo.Function(f"q{sym.number % 100}")
    return sym


def _rename_case(case: clingo.Symbol, world: clingo.Symbol) -> str:
    args = [_qid(a, world) for a in case.arguments]
    return str(clingo.Function(case.name, args))


def counterexample(
    symbols: Sequence[clingo.Symbol], world: clingo.Symbol, agent: str = "", head: str = ""
) -> str:
    """The facts of one audit world (renamed w, query ids q0..q99), and the answers of `agent` (all
    answers when empty), as a facts file `metalogic check` reads."""
    head = head or (
        f"% A world in which the answers of a distortion ({agent}) break no MR (an audit blind spot)."
        if agent
        else "% A world in which a truthful agent is flagged (metalogic audit)."
    )
    lines = [head, "% Reproduce with: metalogic check <this folder>", "trajectory(w, household)."]
    for s in symbols:
        if s.name not in WORLD_FACTS:
            continue
        if s.name in ("query", "form"):
            q = s.arguments[0]
            if q.type != clingo.SymbolType.Number or q.number // 100 != world.number:
                continue
            lines.append(f"{clingo.Function(s.name, [_qid(q, world), _rename(s.arguments[1], world)])}.")
        elif s.name == "answer":
            q = s.arguments[1]
            if q.type != clingo.SymbolType.Number or q.number // 100 != world.number:
                continue
            if agent and str(s.arguments[0]) != agent:
                continue
            who = clingo.String(agent) if agent else s.arguments[0]
            lines.append(f"{clingo.Function('answer', [who, _qid(q, world), s.arguments[2]])}.")
        elif s.arguments[0] == world:
            lines.append(f"{_rename(s, world)}.")
    return "\n".join(lines) + "\n"


# --- (e) completeness -----------------------------------------------------------------------------

COMPLETENESS_FAMILIES = ("view", "view-moves")
COMPLETENESS_SAMPLE = 7  # one world in this many: the distortions are caught or not everywhere alike


def completeness(rules: RuleSet, family: Family, sample: int = COMPLETENESS_SAMPLE) -> list[Verdict]:
    """Which systematic distortions of the truth (logic/audit/complete.lp) change answers of a
    capability without any of its cases flagging them, on the family's worlds: the blind spots."""
    t0 = time.perf_counter()
    files = [
        *TRUTH[:1],
        *CHECK_CORE,
        *TRUTH[1:],
        LOGIC_DIR / "truth" / "biased.lp",
        AUDIT_DIR / family.world,
        *[m.lp for m in rules.mrs],
        AUDIT_DIR / "complete.lp",
    ]
    shows = (
        "#show audit_survives/3.\n#show audit_changed/2.\n"
        + SHOW_FLAGGED
        + "audit_bad(W) :- audit_survives(_, _, W).\n"
        "#show query(Q, K) : audit_bad(W), query_traj(Q, W), query(Q, K).\n"
        "#show form(Q, F) : audit_bad(W), query_traj(Q, W), form(Q, F).\n"
        "#show answer(A, Q, V) : audit_bad(W), query_traj(Q, W), answer(A, Q, V).\n"
    )
    session = _ground(files, "trajectory(W, household) :- audit_world(W).\n" + shows, {"sample": sample})
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
            out.append(
                Verdict(
                    "completeness",
                    subject,
                    "caught",
                    f"flagged in the {family.name} worlds",
                    family.name,
                    secs,
                )
            )
            continue
        world = survives[(kind, sc)]
        facts = counterexample(symbols, world, agent=f"bias({kind})")
        detail = f"{kind} changes {sc} answers and no case of {sc} flags them (first world: {world})"
        out.append(Verdict("completeness", subject, "blind spot", detail, family.name, secs, facts))
    return out


# --- (b) tightness ------------------------------------------------------------------------------


def tightness(reach: int = 3, algebra: Path = CORE_DIR / "algebra.lp") -> list[Verdict]:
    """Compare the composition tables of `algebra` with what bounded worlds realise."""
    t0 = time.perf_counter()
    files = [
        *TRUTH[:1],
        algebra,
        *(CORE_DIR / f"{n}.lp" for n in ("queries", "params")),
        *TRUTH[1:],
        AUDIT_DIR / "tight.lp",
    ]
    shows = "".join(
        f"#show {n}/{a}.\n"
        for n, a in (
            ("realised", 5),
            ("realised_sign", 5),
            ("realised_move", 3),
            ("not_realised", 5),
            ("not_allowed", 5),
            ("not_realised_sign", 5),
            ("not_allowed_sign", 5),
            ("not_realised_move", 3),
            ("not_allowed_move", 3),
            ("compose_in", 5),
            ("sign_add", 4),
            ("move_compose", 3),
        )
    )
    syms = _ground(files, shows, {"reach": reach}).symbols()
    secs = time.perf_counter() - t0
    by: dict[str, list[clingo.Symbol]] = {}
    for s in syms:
        by.setdefault(s.name, []).append(s)
    bound = f"offsets up to {reach} cells (moves: 2 steps, 2 levels)"
    out = []

    def verdict(
        subject: str, total: int, missing: list[clingo.Symbol], extra: list[clingo.Symbol]
    ) -> Verdict:
        if extra:
            return Verdict(
                "tightness",
                subject,
                "unsound table",
                f"a world realises {len(extra)} entr(ies) the table leaves out, e.g. {extra[0]}",
                bound,
                secs,
            )
        if missing:
            return Verdict(
                "tightness",
                subject,
                "not tight",
                f"{len(missing)} of {total} entries realised by no world, e.g. {missing[0]}",
                bound,
                secs,
            )
        return Verdict(
            "tightness", subject, "tight", f"all {total} entries realised by some world", bound, secs
        )

    comp_star = [
        s for s in by.get("compose_in", []) if str(s.arguments[0]) == "star" and str(s.arguments[1]) == "map"
    ]
    out.append(verdict("map/star", len(comp_star), by.get("not_realised", []), by.get("not_allowed", [])))
    for cal, axes in (("band", ("lateral", "depth", "vertical")), ("exact", ("lateral",))):
        table = [s for s in by.get("sign_add", []) if str(s.arguments[0]) == cal]
        for axis in axes:
            miss = [
                s
                for s in by.get("not_realised_sign", [])
                if str(s.arguments[0]) == cal and str(s.arguments[1]) == axis
            ]
            extra = [
                s
                for s in by.get("not_allowed_sign", [])
                if str(s.arguments[0]) == cal and str(s.arguments[1]) == axis
            ]
            out.append(
                verdict(f"{'ego' if cal == 'band' else 'move'}/{cal} signs ({axis})", len(table), miss, extra)
            )
    out.append(
        verdict(
            "move/exact with turns",
            len(by.get("move_compose", [])),
            by.get("not_realised_move", []),
            by.get("not_allowed_move", []),
        )
    )
    return out


# --- (c) non-redundancy ---------------------------------------------------------------------------


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


# (world, depths, moves): worlds of the families with boxes in which the non-redundancy search looks for a
# witness, one at a time. Chosen to be varied: both objects whole in view with a level or pitched
# camera, one object cut by the border (where only the MRs that need no box apply), a step forward
# (level and pitched) and standing still; one world without its depth questions, where an MR that
# needs no depth answer (MR12) is the only one to hold two answers to each other; and one without
# its move questions, where the depths of two frames meet only each other and the boxes (MR16).
WITNESS_WORLDS = {
    "view": ((18, 1, 1), (315, 1, 1), (405, 1, 1), (135, 1, 1), (18, 0, 1)),
    "view-moves": ((458, 1, 0), (74, 1, 1), (458, 1, 1), (26, 1, 1), (62, 1, 1)),
}


def _witness_search(
    rules: RuleSet, mr: MR, fam: Family, world: int | None, depths: int = 1, moves: int = 1
) -> tuple[list[clingo.Symbol], list[str]] | None:
    """Answers in a probe (world None) or one world of the family that only `mr` flags, with the
    other MRs of the capabilities that have cases there; None when there are none."""
    peers = [m for m in rules.mrs if m.id != mr.id and set(m.serves) & set(fam.scs)]
    head = f"audit_mr({mr.id}).\n" + "".join(f"audit_peer({m.id}).\n" for m in peers)
    shows = "#show answer/3.\n#show query/2.\n#show form/2.\n#show violation/5.\n#show audit_other/1.\n"
    if world is None:
        files = [*CHECK_CORE, *[m.lp for m in rules.mrs], AUDIT_DIR / "redundant.lp"]
        session = _ground(files, probe(fam.name) + head + shows + "#show detection/9.\n")
        if not session.satisfiable:  # the first model is one witness, and one is enough
            return None
        shown = session.symbols()
        return shown, sorted(str(s.arguments[0]) for s in shown if s.name == "audit_other")
    files = [*TRUTH[:1], *CHECK_CORE, *TRUTH[1:], AUDIT_DIR / fam.world]
    files += [LOGIC_DIR / "truth" / "biased.lp", *[m.lp for m in rules.mrs], AUDIT_DIR / "redundant_world.lp"]
    world_shows = "".join(f"#show {n}/{a}.\n" for n, a in WORLD_SHOWS)
    program = "trajectory(W, household) :- audit_world(W).\n" + head + world_shows
    program += "#show query/2.\n#show form/2.\n#show audit_witness/1.\n#show audit_other/1.\n"
    program += "#show answer(A, Q, V) : answer(A, Q, V), audit_witness(A).\n"
    program += "#show violation(A, C, M, S, R) : violation(A, C, M, S, R), audit_witness(A).\n"
    symbols = _ground(files, program, {"world": world, "depths": depths, "moves": moves}).symbols()
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
        worlds: Sequence[tuple[int | None, int, int]] = WITNESS_WORLDS.get(fam.name, ((None, 1, 1),))
        for world, depths, moves in worlds:
            found = _witness_search(rules, mr, fam, world, depths, moves)
            if found is None:
                continue
            shown, others = found
            viol = sorted({str(s.arguments[1]) for s in shown if s.name == "violation"})
            kept = [s for s in shown if s.name not in ("violation", "audit_other")]
            head = f"% Answers only {mr.id} flags (metalogic audit, non-redundancy witness)."
            if world is None:
                facts = f"{head}\ntrajectory(w, household).\n" + "".join(
                    f"{s}.\n" for s in sorted(kept, key=str)
                )
            else:
                facts = counterexample(kept, clingo.Number(world), agent="witness", head=head)
            held = (
                (
                    f"{', '.join(others)} {'hold' if len(others) > 1 else 'holds'} all "
                    f"{'their' if len(others) > 1 else 'its'} cases there"
                )
                if others
                else "no other MR applies"
            )
            where = f"{fam.name} world" if world is None else f"{fam.name} world {world}"
            where += "" if depths else " without depth questions"
            where += "" if moves else " without move questions"
            return Verdict(
                "non-redundancy",
                mr.id,
                "witness",
                f"{where}: {mr.id} flags {viol[0]}; {held}",
                "",
                time.perf_counter() - t0,
                facts,
            )
    return Verdict(
        "non-redundancy",
        mr.id,
        "redundant",
        f"no answers are flagged by {mr.id} alone in the {', '.join(tried)} worlds: the other MRs "
        "already catch everything it catches there",
        "",
        time.perf_counter() - t0,
    )


# --- (d) engine agreement -------------------------------------------------------------------------


def engine_agreement(rules: RuleSet, samples: int, seed: int = 0) -> Verdict:
    from metalogic.engine.differential import differences, run_both
    from metalogic.engine.randomfacts import random_program

    t0 = time.perf_counter()
    rng = random.Random(seed)
    batch = 50
    for start in range(0, samples, batch):
        n = min(batch, samples - start)
        program = "".join(random_program(rng, f"r{start + i}") for i in range(n))
        diffs = differences(*run_both(rules, program, {}))
        if diffs:
            first = diffs[0]
            return Verdict(
                "engines",
                "clingo vs prolog",
                "disagree",
                f"random fact sets {start}..{start + n - 1} differ on {first.predicate}: "
                + "; ".join(first.sample()),
                f"{samples} random fact sets",
                time.perf_counter() - t0,
                program,
            )
    return Verdict(
        "engines",
        "clingo vs prolog",
        "agree",
        f"identical test cases, violations, scores and explanations on {samples} random fact sets",
        f"seed {seed}",
        time.perf_counter() - t0,
    )


# --- the whole audit ------------------------------------------------------------------------------


def merge_soundness(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """An MR and capability audited by several families: unsound if any family finds a flagged
    truthful world, sound if some family tests it and none flags it, untested only if none tests it."""
    out: list[Verdict] = []
    by_subject: dict[str, list[Verdict]] = {}
    for v in verdicts:
        if v.check != "soundness":
            out.append(v)
        else:
            by_subject.setdefault(v.subject, []).append(v)
    for subject, vs in by_subject.items():
        bad = [v for v in vs if v.status == "unsound"]
        good = [v for v in vs if v.status == "sound"]
        if bad:
            out += bad
        elif good:
            out.append(
                Verdict(
                    "soundness",
                    subject,
                    "sound",
                    "; ".join(v.detail for v in good),
                    "; ".join(v.bound for v in good),
                    sum(v.seconds for v in good),
                )
            )
        else:
            out.append(vs[0])
    return out


def merge_completeness(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """A distortion is a blind spot of a capability when no family catches it there."""
    out = [v for v in verdicts if v.check != "completeness"]
    by: dict[str, list[Verdict]] = {}
    for v in verdicts:
        if v.check == "completeness":
            by.setdefault(v.subject, []).append(v)
    for vs in by.values():
        caught = [v for v in vs if v.status == "caught"]
        out.append(caught[0] if caught else vs[0])
    return out


def _task(
    kind: str, arg: str, rules: RuleSet, only: tuple[str, ...], bound: int | None, samples: int
) -> list[Verdict]:
    mrs = [rules.by_id(m) for m in only] if only else rules.mrs
    if kind == "soundness":
        return soundness(rules, FAMILIES[arg], bound, mrs)
    if kind == "tightness":
        return tightness()
    if kind == "non-redundancy":
        return [non_redundancy(rules, rules.by_id(arg))]
    if kind == "completeness":
        return completeness(rules, FAMILIES[arg])
    return [engine_agreement(rules, samples)]


def run_audit(
    rules: RuleSet,
    *,
    only: Sequence[str] = (),
    bound: int | None = None,
    samples: int = 200,
    workers: int = 2,
    progress: Callable[[str], None] | None = None,
) -> AuditReport:
    """Run every part of the audit, spread over `workers` processes (each grounding is independent)."""
    import concurrent.futures as cf
    import multiprocessing

    say = progress or (lambda _msg: None)
    mrs = [rules.by_id(m) for m in only] if only else rules.mrs
    # With --mr, only the parts that say something about those MRs: the soundness of the families
    # that serve their capabilities, their non-redundancy and the engines' agreement. The blind
    # spots and the algebra's tightness are properties of the whole rule set and run without it.
    served = {sc for m in mrs for sc in m.serves}
    tasks = [("soundness", f) for f, fam in FAMILIES.items() if not only or served & set(fam.scs)]
    if not only:
        tasks += [("completeness", f) for f in COMPLETENESS_FAMILIES] + [("tightness", "")]
    tasks += [("non-redundancy", m.id) for m in mrs]
    if samples:
        tasks.append(("engines", ""))
    report = AuditReport()
    t0 = time.perf_counter()
    results: dict[int, list[Verdict]] = {}
    if workers <= 1:
        for i, (kind, arg) in enumerate(tasks):
            say(f"{kind} {arg}".strip())
            results[i] = _task(kind, arg, rules, tuple(only), bound, samples)
    else:
        ctx = multiprocessing.get_context("spawn")
        with cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            futures = {
                pool.submit(_task, kind, arg, rules, tuple(only), bound, samples): i
                for i, (kind, arg) in enumerate(tasks)
            }
            for fut in cf.as_completed(futures):
                i = futures[fut]
                results[i] = fut.result()
                say(f"done: {' '.join(tasks[i]).strip()}")
    collected = [v for i in range(len(tasks)) for v in results[i]]
    report.verdicts += merge_completeness(merge_soundness(collected))
    for m in mrs:
        if not any(family_of(sc) for sc in m.serves):
            report.verdicts.append(
                Verdict("soundness", m.id, "untested", "its capabilities have no audit worlds")
            )
    report.seconds = time.perf_counter() - t0
    return report
