"""The facts schema: every predicate a facts file may hold, with typed arguments.

This module is the one place that declares the public facts contract (docs/facts.md is generated
from it: `metalogic schema --format markdown`). Each argument's type (engine/schema_types.py) checks a
parsed term and also offers a strict regular expression, so that the reader can accept the common
well-formed line without building terms; any line the fast path does not accept is parsed fully,
which either accepts it or explains precisely what is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from metalogic.engine.schema_types import (
    AgentType,
    ArgType,
    AtomType,
    ContentType,
    IdType,
    IntType,
    StringType,
    TermType,
    ValueType,
)
from metalogic.engine.terms import Fun, Term

EDGES = ("left", "top", "right", "bottom")  # a box's edges, as class_slack/4 names them


@dataclass(frozen=True)
class Arg:
    name: str
    type: ArgType
    doc: str


@dataclass(frozen=True)
class Predicate:
    name: str
    args: tuple[Arg, ...]
    doc: str
    group: str

    @property
    def key(self) -> str:
        return f"{self.name}/{len(self.args)}"

    @property
    def signature(self) -> str:
        return f"{self.name}({', '.join(a.name for a in self.args)})"


ID = IdType()
NAT = IntType("a non-negative integer", 0, 9_999_999)
STATE = IntType("a state index (a non-negative integer)", 0, 9_999_999)
# Frames up to 20,000 pixels a side and focal lengths up to 50,000 pixels: the rules that read boxes
# multiply pixels by depths and trig values, and must stay inside clingo's 32-bit integers.
PIXEL = IntType("a pixel coordinate (an integer 0..19999)", 0, 19_999)
FOCAL = IntType("a focal length in pixels (1..50000)", 1, 50_000)
MM = IntType("a length in millimetres (an integer)", -999_999_999, 999_999_999)
# The worlds metalogic simulates (extract/scenarios.py lays each out), and every kind a trajectory
# may come from: imported frames and videos are "video". Stated here once; the rest read these.
SIMULATED = ("household", "tabletop", "drone")
SCENARIOS = (*SIMULATED, "video")

QUERY_KINDS: dict[str, tuple[ArgType, ...]] = {
    "move_dir": (ID, STATE, STATE),
    "move_dist": (ID, STATE, STATE),
    "obj_dir": (ID, STATE, ID, ID),
    "obj_dist": (ID, STATE, ID, ID),
    "size": (ID, STATE, ID),
    "depth": (ID, STATE, ID),
    "map_dir": (ID, STATE, ID, ID),
    "map_dist": (ID, STATE, ID, ID),
    "ego_dist": (ID, STATE, ID),
}


def _p(group: str, name: str, doc: str, *args: tuple[str, ArgType, str]) -> Predicate:
    return Predicate(name, tuple(Arg(n, t, d) for n, t, d in args), doc, group)


PREDICATES: tuple[Predicate, ...] = (
    _p(
        "scene",
        "trajectory",
        "a trajectory and the kind of world it comes from",
        ("T", ID, "trajectory id"),
        (
            "Scenario",
            AtomType("one of " + ", ".join(SCENARIOS), SCENARIOS),
            "household, tabletop, drone or video",
        ),
    ),
    _p(
        "scene",
        "state",
        "a state (frame) of a trajectory, numbered in time order from 0",
        ("T", ID, "trajectory id"),
        ("S", STATE, "state index"),
    ),
    _p(
        "scene",
        "step_mm",
        "the length of one movement step",
        ("T", ID, "trajectory id"),
        ("Mm", IntType("a positive length in millimetres", 1, 1_000_000), "millimetres"),
    ),
    _p(
        "scene",
        "image_size",
        "the size of the trajectory's frames",
        ("T", ID, "trajectory id"),
        ("W", IntType("a width in pixels (1..20000)", 1, 20_000), "pixels"),
        ("H", IntType("a height in pixels (1..20000)", 1, 20_000), "pixels"),
    ),
    _p(
        "scene",
        "frame",
        "the image file of a state, relative to the trajectory folder",
        ("T", ID, "trajectory id"),
        ("S", STATE, "state index"),
        ("Path", StringType(), "file path"),
    ),
    _p(
        "scene",
        "action",
        "the action the agent took from state S to S+1",
        ("T", ID, "trajectory id"),
        ("S", STATE, "state index"),
        ("Action", AtomType("an action name"), "e.g. move_forward"),
    ),
    _p(
        "scene",
        "camera",
        "pinhole intrinsics of the trajectory's camera, in pixels",
        ("T", ID, "trajectory id"),
        ("Fx", FOCAL, "pixels"),
        ("Fy", FOCAL, "pixels"),
        ("Cx", PIXEL, "pixels"),
        ("Cy", PIXEL, "pixels"),
    ),
    _p(
        "scene",
        "box_slack",
        "how many pixels a box edge of this trajectory may lie off the object's silhouette (the "
        "tracker's accuracy); the MRs that read boxes allow that much (default: the box_slack_px parameter)",
        ("T", ID, "trajectory id"),
        ("Px", IntType("a number of pixels (0..100)", 0, 100), "pixels"),
    ),
    _p(
        "scene",
        "class_slack",
        "how many pixels the Edge of a box of an object of class Class may lie off its silhouette in "
        "this trajectory, in place of box_slack (a detector is more accurate on some classes and edges "
        "than on others; metalogic extract writes its card's figures)",
        ("T", ID, "trajectory id"),
        ("Class", AtomType("a class name (lower-case atom)"), "object class"),
        ("Edge", AtomType("one of " + ", ".join(EDGES), EDGES), "the box's edge"),
        ("Px", IntType("a number of pixels (0..100)", 0, 100), "pixels"),
    ),
    _p(
        "scene",
        "class_centre",
        "the middle part of a whole box of an object of class Class, in thousandths of the box's width "
        "(W) and height (H), that holds the projection of the object's centre, in place of the "
        "centre_span_permille parameter (metalogic simulate writes what its own objects showed)",
        ("T", ID, "trajectory id"),
        ("Class", AtomType("a class name (lower-case atom)"), "object class"),
        ("W", IntType("thousandths (1..1000)", 1, 1000), "thousandths of the width"),
        ("H", IntType("thousandths (1..1000)", 1, 1000), "thousandths of the height"),
    ),
    _p(
        "scene",
        "exact_boxes",
        "the trajectory's boxes are its objects' own silhouettes (the simulator's), so box_slack bounds "
        "their error; without it the boxes are a detector's, whose slack is an estimate from its "
        "validation that a rare box (one that takes in what stands behind it) exceeds",
        ("T", ID, "trajectory id"),
    ),
    _p(
        "scene",
        "camera_pitch",
        "the tilt of the camera's optical axis in state S, as the rig or its IMU reports it "
        "(positive upwards); the MRs that place objects on a level map need it",
        ("T", ID, "trajectory id"),
        ("S", STATE, "state index"),
        ("PitchDeg", IntType("an angle in degrees (-89..89)", -89, 89), "degrees"),
    ),
    _p(
        "scene",
        "camera_height",
        "the height of the camera's optical centre above the floor in state S, as the rig knows it "
        "(a robot's mount, a drone's altimeter); with support/3 it anchors depths on the ground plane",
        ("T", ID, "trajectory id"),
        ("S", STATE, "state index"),
        ("Mm", IntType("a height in millimetres (1..100000)", 1, 100_000), "millimetres"),
    ),
    _p(
        "scene",
        "support",
        "object O stands on a level surface this high above the floor (0: the floor itself), so "
        "the bottom of its box shows where it meets that surface",
        ("T", ID, "trajectory id"),
        ("O", ID, "track id"),
        ("Mm", IntType("a height in millimetres (-100000..100000)", -100_000, 100_000), "millimetres"),
    ),
    _p(
        "scene",
        "footprint",
        "no point of object O's footprint lies farther than this from its centre (half the diagonal "
        "of its base; a class list or the simulator knows it); MR17 uses ground_reach_mm without it",
        ("T", ID, "trajectory id"),
        ("O", ID, "track id"),
        ("Mm", IntType("a length in millimetres (0..100000)", 0, 100_000), "millimetres"),
    ),
    _p(
        "scene",
        "detection",
        "a tracked box of object O in state S",
        ("T", ID, "trajectory id"),
        ("S", STATE, "state index"),
        ("O", ID, "track id, stable across the trajectory"),
        ("Class", AtomType("a class name (lower-case atom)"), "object class"),
        (
            "ConfMilli",
            IntType("a confidence in thousandths (0..1000)", 0, 1000),
            "detector confidence x 1000",
        ),
        ("X1", PIXEL, "first pixel column inside the box"),
        ("Y1", PIXEL, "first pixel row inside the box"),
        ("X2", PIXEL, "last pixel column inside the box (inclusive: width X2 - X1 + 1)"),
        ("Y2", PIXEL, "last pixel row inside the box (inclusive: height Y2 - Y1 + 1)"),
    ),
    _p(
        "scene",
        "truncated",
        "the box of O in state S comes within the border margin (5% of the image side; see Boxes above), "
        "so the border may cut it",
        ("T", ID, "trajectory id"),
        ("S", STATE, "state index"),
        ("O", ID, "track id"),
    ),
    _p(
        "scene",
        "occluded",
        "something nearer hides part of O in state S, so its box may be smaller than the object",
        ("T", ID, "trajectory id"),
        ("S", STATE, "state index"),
        ("O", ID, "track id"),
    ),
    _p(
        "scene",
        "persistent",
        "object O is tracked in enough states to build test cases on",
        ("T", ID, "trajectory id"),
        ("O", ID, "track id"),
    ),
    _p(
        "truth",
        "gt_pose",
        "ground-truth camera pose in state S (world frame, z up, yaw counter-clockwise from +x)",
        ("T", ID, "trajectory id"),
        ("S", STATE, "state index"),
        ("Xmm", MM, "mm"),
        ("Ymm", MM, "mm"),
        ("Zmm", MM, "mm"),
        ("YawDeg", IntType("an angle in degrees (-360..360)", -360, 360), "degrees"),
    ),
    _p(
        "truth",
        "gt_object",
        "ground-truth position (centre) and height of object O",
        ("T", ID, "trajectory id"),
        ("O", ID, "object id"),
        ("Xmm", MM, "mm"),
        ("Ymm", MM, "mm"),
        ("Zmm", MM, "mm"),
        ("HeightMm", IntType("a height in millimetres", 0, 999_999_999), "mm"),
    ),
    _p(
        "truth",
        "gt_box",
        "ground-truth box of object O in state S, from the segmentation mask",
        ("T", ID, "trajectory id"),
        ("S", STATE, "state index"),
        ("O", ID, "object id"),
        ("X1", PIXEL, "left"),
        ("Y1", PIXEL, "top"),
        ("X2", PIXEL, "right"),
        ("Y2", PIXEL, "bottom"),
    ),
    _p(
        "queries",
        "query",
        "a question; its content names the kind, the trajectory, states and objects",
        ("Q", ID, "query id"),
        (
            "Content",
            ContentType(
                "a query content: " + ", ".join(f"{k}/{len(v)}" for k, v in QUERY_KINDS.items()), QUERY_KINDS
            ),
            "e.g. obj_dir(t1, 4, o2, o5)",
        ),
    ),
    _p(
        "queries",
        "form",
        "the surface form a query was asked in (MR3 compares forms)",
        ("Q", ID, "query id"),
        ("Form", TermType(), "e.g. choice or options(b, a, c)"),
    ),
    _p(
        "answers",
        "answer",
        "an agent's answer to a query",
        ("Agent", AgentType(), "agent name"),
        ("Q", ID, "query id"),
        (
            "Value",
            ValueType(
                "an answer value (a name such as left, move(forward, none), an integer 0..1000000, "
                "or invalid)"
            ),
            "see the vocabularies",
        ),
    ),
    _p(
        "answers",
        "raw_reply",
        "the raw text of a reply that could not be used (kept for inspection)",
        ("Agent", AgentType(), "agent name"),
        ("Q", ID, "query id"),
        ("Text", StringType(), "the reply"),
    ),
    # Appended by the extract slice: the camera is not always the agent (the tabletop's fixed camera
    # watches the gripper; the drone's camera looks down), and tracks need tying to objects.
    _p(
        "truth",
        "gt_camera",
        "ground-truth camera pose in state S (world frame, z up; yaw counter-clockwise "
        "from +x, pitch positive upwards); the agent's own pose is gt_pose",
        ("T", ID, "trajectory id"),
        ("S", STATE, "state index"),
        ("Xmm", MM, "mm"),
        ("Ymm", MM, "mm"),
        ("Zmm", MM, "mm"),
        ("YawDeg", IntType("an angle in degrees (-360..360)", -360, 360), "degrees"),
        ("PitchDeg", IntType("an angle in degrees (-90..90)", -90, 90), "degrees"),
    ),
    _p(
        "truth",
        "gt_track",
        "track O of the detections is ground-truth object G (the object whose boxes it "
        "overlaps, IoU >= 0.5, in most of its states)",
        ("T", ID, "trajectory id"),
        ("O", ID, "track id"),
        ("G", ID, "ground-truth object id (as in gt_object)"),
    ),
)

BY_KEY: dict[str, Predicate] = {p.key: p for p in PREDICATES}
BY_NAME: dict[str, list[Predicate]] = {}
for _pred in PREDICATES:
    BY_NAME.setdefault(_pred.name, []).append(_pred)

# The result predicates of `metalogic check` (name -> arity): what both engines derive and report
# (engine/session/runs.py asks for these, and the Prolog driver prints them, logic/core/driver.pl).
RESULTS: dict[str, int] = {
    "testcase": 3,
    "violation": 5,
    "score": 4,
    "score_pooled": 4,
    "score_set": 5,
    "score_from": 3,
    "score_mr": 5,
    "invalid_cases": 3,
    "case_count": 1,
    "violation_count": 2,
    "score_traj": 4,
    "score_object": 5,
    "query_score": 4,
    "explain": 3,
    "input_error": 1,
    "rule_error": 1,
    # What blame starts from (logic/core/conflicts.lp) and what it decides (engine/check/blame.py).
    "conflict_set": 4,
    "answer_held": 4,
    "answer_mr": 5,
    "tested_answers": 3,
    "untested_suspect": 2,
    "blamed": 3,
    "blame_count": 5,
    "blame_rate": 3,
    "blame_residual": 3,
}
# made by engine/check/blame.py, after the check
BLAME_RESULTS = {"blamed": 3, "blame_count": 5, "blame_rate": 3, "blame_residual": 3}

# Predicates that `metalogic check` derives; a facts file giving them is a mistake worth naming:
# the results, and what the rules derive or are given along the way.
DERIVED = frozenset(RESULTS) | frozenset(
    {"case_query", "case_support", "violates", "conflict", "applicable", "param_override", "param_default"}
)


def fast_regex(pred: Predicate) -> tuple[re.Pattern[str], list[Callable[[str], bool]]]:
    """A full-line regex accepting the common spelling of a well-formed fact of `pred`, and the
    checks to run on its capture groups."""
    parts, checks = [], []
    for a in pred.args:
        frag, chk = a.type.fragment()
        parts.append(frag)
        if chk is not None:
            checks.append(chk)
    body = pred.name + r"\(\s*" + r"\s*,\s*".join(parts) + r"\s*\)"
    return re.compile(r"[ \t]*(" + body + r")[ \t]*\.[ \t]*(?:%.*)?\r?\n?"), checks


def check_fact(t: Term) -> tuple[int, str, str, str] | None:
    """Check a parsed fact against the schema. Returns None, or (argument index (0 = the whole
    fact), what is wrong, what was expected, how to fix it)."""
    import difflib

    if not isinstance(t, Fun):
        name, arity = str(t), 0
    else:
        name, arity = t.name, len(t.args)
    key = f"{name}/{arity}"
    if key in BY_KEY:
        pred = BY_KEY[key]
        assert isinstance(t, Fun)
        for i, (a, arg) in enumerate(zip(t.args, pred.args, strict=True), start=1):
            err = arg.type.check(a)
            if err:
                return (
                    i,
                    f"argument {i} ({arg.name}) of {key} is wrong: {err}",
                    f"{arg.type.label} in {pred.signature}",
                    f"change {arg.name}; 'metalogic schema' lists every predicate's arguments",
                )
        return None
    if name in BY_NAME:
        takes = " or ".join(f"{p.key} as {p.signature}" for p in BY_NAME[name])
        return (
            0,
            f"{key} has the wrong number of arguments",
            f"{takes}",
            "give it exactly these arguments, in this order",
        )
    if name in DERIVED:
        return (
            0,
            f"{key} is derived by metalogic, not given as a fact",
            "input facts only (see docs/facts.md)",
            "remove it; metalogic check computes it",
        )
    known = sorted(BY_KEY)
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6) or difflib.get_close_matches(
        name, [p.name for p in PREDICATES], n=1, cutoff=0.6
    )
    fix = (
        f"did you mean {BY_NAME[close[0]][0].key if close[0] in BY_NAME else close[0]}?"
        if close
        else "see docs/facts.md or run 'metalogic schema' for the predicates a facts file may hold"
    )
    return (0, f"unknown predicate {key}", "one of " + ", ".join(known), fix)
