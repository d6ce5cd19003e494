"""What a user knows of the camera rig of an imported trajectory: the camera's height above the
floor, its pitch, and which classes of object stand on which surface.

The simulator knows all of this for its own worlds; for frames, a video or an EB-Navigation log the
user states it at import (`--camera-height`, `--pitch`, `--support CLASS=MM`), as a robot knows its
mount. It is kept in `trajectory.json` under "rig", and `metalogic extract` turns it into the
camera_height/3, camera_pitch/3 and support/3 facts that anchor depths and sizes on the ground
plane (MR17). Nothing is guessed: a state whose pitch is not known (after a tilt of unknown size)
gets no camera_pitch fact, and a track whose class has no support gets no support fact.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from metalogic.engine.errors import MetalogicError

TILT_ACTIONS = {"tilt_up": 1, "tilt_down": -1}
ANY_CLASS = "*"  # in --support, every class not named on its own
MAX_MM = 100_000
CLASS_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_ -]*|\*")


def class_atom(name: str) -> str:
    """A detector's class name as a lower-case atom ("dining table" -> dining_table), as the facts
    write it; --support names are read the same way."""
    s = re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_")
    return s if s and s[0].isalpha() else f"c_{s}"


@dataclass(frozen=True)
class Rig:
    camera_height_mm: int | None = None  # the camera's optical centre above the floor
    pitch_deg: int | None = None  # in the first state, positive upwards
    tilt_step_deg: int | None = None  # what one tilt_up / tilt_down action turns the camera by
    supports: dict[str, int] = field(default_factory=dict)  # class -> surface height (0: the floor)

    def __bool__(self) -> bool:
        return self.camera_height_mm is not None or self.pitch_deg is not None or bool(self.supports)

    def as_json(self) -> dict[str, Any]:
        return {
            "camera_height_mm": self.camera_height_mm,
            "pitch_deg": self.pitch_deg,
            "tilt_step_deg": self.tilt_step_deg,
            "supports": dict(sorted(self.supports.items())),
        }

    def pitches(self, actions: Sequence[str | None]) -> list[int | None]:
        """The camera's pitch in each state, given the action taken after each state: the first
        state's pitch turned by every tilt before; unknown after a tilt of unknown size."""
        if self.pitch_deg is None:
            return [None] * len(actions)
        out: list[int | None] = []
        pitch: int | None = self.pitch_deg
        for action in actions:
            out.append(pitch if pitch is not None and -89 <= pitch <= 89 else None)
            turn = TILT_ACTIONS.get(action or "")
            if turn and pitch is not None:
                pitch = pitch + turn * self.tilt_step_deg if self.tilt_step_deg is not None else None
        return out

    def support_of(self, cls: str) -> int | None:
        return self.supports.get(cls, self.supports.get(ANY_CLASS))


def _problem(where: str, what: str, expected: str, fix: str) -> MetalogicError:
    return MetalogicError.single(f"{where}: {what}", expected=expected, fix=fix)


def rig_from_json(d: Any, where: str) -> Rig | None:
    """The "rig" field of trajectory.json, checked (it is data a user may have edited)."""
    if d is None:
        return None
    fix = "write it as docs/trajectories.md shows, or import the trajectory again"
    if not isinstance(d, dict) or set(d) - {"camera_height_mm", "pitch_deg", "tilt_step_deg", "supports"}:
        raise _problem(where, f"field 'rig' is wrong: found {json.dumps(d)[:60]}", RIG_EXPECTED, fix)

    def whole(key: str, low: int, high: int) -> int | None:
        v = d.get(key)
        if v is not None and not (type(v) is int and low <= v <= high):
            raise _problem(
                where,
                f"field 'rig.{key}' is wrong: found {json.dumps(v)[:40]}",
                f"a whole number {low}..{high}",
                fix,
            )
        return v

    supports = d.get("supports") or {}
    if not isinstance(supports, dict):
        raise _problem(where, "field 'rig.supports' is not an object", "{class: height in mm}", fix)
    for cls, mm in supports.items():
        if not CLASS_RE.fullmatch(cls) or not (type(mm) is int and 0 <= mm <= MAX_MM):
            raise _problem(
                where,
                f"field 'rig.supports' is wrong at {json.dumps(cls)[:40]}",
                "{class: 0..100000 mm}",
                fix,
            )
    return Rig(
        camera_height_mm=whole("camera_height_mm", 1, MAX_MM),
        pitch_deg=whole("pitch_deg", -89, 89),
        tilt_step_deg=whole("tilt_step_deg", 1, 89),
        supports=dict(supports),
    )


RIG_EXPECTED = '{"camera_height_mm": MM, "pitch_deg": DEG, "tilt_step_deg": DEG, "supports": {CLASS: MM}}'


def parse_support(text: str) -> tuple[str, int]:
    """One --support value: CLASS=MM (the class's objects stand on a surface MM above the floor)."""
    name, sep, mm = text.partition("=")
    name = name.strip()
    if not sep or not CLASS_RE.fullmatch(name) or not mm.strip().isdigit() or int(mm) > MAX_MM:
        raise MetalogicError.single(
            f"--support {text!r} is not CLASS=MM",
            expected="a detector class and the height in mm of the surface its objects stand on, 0..100000 "
            "(0: the floor; * for every class not named), e.g. --support chair=0 --support cup=750",
            fix="write it as CLASS=MM",
        )
    return (name if name == ANY_CLASS else class_atom(name)), int(mm)


def make_rig(
    camera_height_mm: int | None,
    pitch_deg: int | None,
    supports: Sequence[str],
    tilt_step_deg: int | None = None,
) -> Rig | None:
    """The rig the import options describe, or None when they say nothing."""
    table: dict[str, int] = {}
    for text in supports:
        cls, mm = parse_support(text)
        if table.get(cls, mm) != mm:
            raise MetalogicError.single(
                f"--support gives class '{cls}' two heights ({table[cls]} and {mm} mm)",
                expected="one surface height per class",
                fix=f"keep one --support {cls}=MM",
            )
        table[cls] = mm
    rig = Rig(camera_height_mm, pitch_deg, None, table)
    return rig if rig else None
