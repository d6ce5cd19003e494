"""The bounded worlds of `metalogic audit`, shared by every part of it.

Each family of worlds (moves, objects, depth, view, view-moves, map) is declared in logic/audit/ and
serves some capabilities. This module names the families and the rule files an audit program
grounds them with, grounds such a program, and writes one world of a grounded program back as a
facts file that `metalogic check` reads (a counter-example, a blind spot or a witness).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import clingo

from metalogic.engine.session.api import Session
from metalogic.logic import LOGIC_DIR

AUDIT_DIR = LOGIC_DIR / "audit"
_BOUND = re.compile(r"^#const\s+bound\s*=\s*(\d+)\s*\.", re.M)
# Each part's program as an entry file of #include lines (logic/audit/entry_*.lp): the part adds only
# what varies, a family's worlds and the MRs under audit.
PARTS = ("soundness", "completeness", "redundancy", "redundancy_probe", "tightness")
ENTRY = {part: AUDIT_DIR / f"entry_{part}.lp" for part in PARTS}
WORLD_FACTS = (
    "step_mm",
    "state",
    "image_size",
    "camera",
    "camera_pitch",
    "camera_height",
    "support",
    "footprint",
    "box_slack",
    "class_slack",
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
    describe: str  # what the bound means, for the report

    @property
    def default_bound(self) -> int:
        """The bound the family's world file declares (`#const bound = N.`): the rule file states it,
        and Python reads it there. 1 for a file without one (its worlds do not grow with a bound)."""
        found = _BOUND.search((AUDIT_DIR / self.world).read_text(encoding="utf-8"))
        return int(found.group(1)) if found else 1


FAMILIES = {
    "moves": Family(
        "moves",
        "worlds_moves.lp",
        ("sc1a", "sc1b"),
        "agent within {b} steps of the start, any quarter turn, floor or one step up",
    ),
    "objects": Family(
        "objects",
        "worlds_objects.lp",
        ("sc2a", "sc2b", "sc3a"),
        "two objects within {b} cells of 60 mm of a third (level or upright plane), two viewpoints",
    ),
    "depth": Family(
        "depth",
        "worlds_depth.lp",
        ("sc3b",),
        "depths 0.5 m to {d} m, focal 300 or 600 px, whole-pixel boxes",
    ),
    "view": Family(
        "view",
        "worlds_view.lp",
        ("sc2a", "sc2b", "sc3a", "sc3b", "sc4a", "sc4b"),
        "two upright boxes seen by a camera 1.3 m up, level or pitched down 25 or 45 degrees; one at 30 "
        "places 1.1-6 m ahead, 3 heights and 3 shapes; boxes rounded and moved by up to a pixel per edge",
    ),
    "view-moves": Family(
        "view-moves",
        "worlds_view_moves.lp",
        ("sc1a", "sc1b", "sc3b"),
        "a camera on the agent, level or pitched down, that stands still, steps 250 mm any way, goes up "
        "or turns; two upright boxes ahead at 24 places and 2 shapes, boxes rounded and moved by up to a "
        "pixel per edge",
    ),
    "map": Family(
        "map",
        "worlds_map.lp",
        ("sc4a", "sc4b"),
        "objects within {b} and {b1} cells of 100 mm of a third, any quarter turn",
    ),
}


def family_of(sc: str) -> Family | None:
    return next((f for f in FAMILIES.values() if sc in f.scs), None)


def ground_audit(files: Sequence[Path], program: str, consts: dict[str, int] | None = None) -> Session:
    """An audit program: the tables, `files` and `program`, with -c constants (bounds, samples)."""
    session = Session("clingo", consts=consts, failure="clingo failed on the audit program")
    return session.load(*files).add(program).ground()


_VARS = "ABCDEFGHIJ"
WORLD_SHOWS = (  # the facts of a world, by name and arity (all but query, form and answer)
    ("step_mm", 2),
    ("state", 2),
    ("image_size", 3),
    ("camera", 5),
    ("camera_pitch", 3),
    ("camera_height", 3),
    ("support", 3),
    ("footprint", 3),
    ("box_slack", 2),
    ("class_slack", 4),
    ("gt_pose", 6),
    ("gt_camera", 7),
    ("gt_object", 6),
    ("detection", 9),
    ("truncated", 3),
    ("occluded", 3),
    ("persistent", 2),
)
# The world facts of the worlds an audit program marks audit_bad/1 (flagged, or a blind spot).
SHOW_FLAGGED = "".join(
    f"#show {name}({', '.join(v)}) : audit_bad({v[0]}), {name}({', '.join(v)}).\n"
    for name, v in ((name, ["W", *_VARS[: arity - 1]]) for name, arity in WORLD_SHOWS)
)


def _rename(sym: clingo.Symbol, world: clingo.Symbol) -> clingo.Symbol:
    """A world fact or query content with its trajectory (first argument) renamed to `w`."""
    if sym.type == clingo.SymbolType.Function and sym.arguments and sym.arguments[0] == world:
        return clingo.Function(sym.name, [clingo.Function("w"), *sym.arguments[1:]], sym.positive)
    return sym


def _qid(sym: clingo.Symbol, world: clingo.Symbol) -> clingo.Symbol:
    if sym.type == clingo.SymbolType.Number and sym.number // 100 == world.number:
        return clingo.Function(f"q{sym.number % 100}")
    return sym


def rename_case(case: clingo.Symbol, world: clingo.Symbol) -> str:
    """A test case of `world`, its query ids renamed as in the world's counter-example (q0..q99)."""
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
