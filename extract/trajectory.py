"""The trajectory folder: the one format every world and importer writes (docs/trajectories.md).

A trajectory folder holds `trajectory.json` (what the trajectory is: id, scenario, image size,
step length, camera intrinsics, ground-truth objects), `states.jsonl` (one JSON object per state,
in time order: frame path, the action taken from it, and ground-truth poses and boxes where
known) and the frames themselves (PNG). Writers build the folder under a hidden temporary name
and rename it into place when complete, so a failed run never leaves half a trajectory behind and
never touches trajectories written before.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from metalogic.engine.errors import MetalogicError, Problem
from metalogic.engine.facts import display_path
from metalogic.engine.paths import inside
from metalogic.engine.schema import SCENARIOS
from metalogic.extract.rig import Rig, rig_from_json

FORMAT = "metalogic-trajectory/1"
META_FILE = "trajectory.json"
STATES_FILE = "states.jsonl"
FRAMES_DIR = "frames"
ID_RE = re.compile(r"[a-z][A-Za-z0-9_]*")


def triple(values: Any) -> tuple[int, int, int]:
    """Three numbers as integers (x, y, z)."""
    x, y, z = (_int(v, "coordinate") for v in values)
    return x, y, z


def frame_name(state: int) -> str:
    return f"{FRAMES_DIR}/{state:06d}.png"


def slug_id(name: str) -> str:
    """A trajectory id (a lower-case atom) made from any name, e.g. a folder or file name."""
    s = re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_")
    if not s or not s[0].isalpha():
        s = "t_" + s
    return s


@dataclass
class Pose:
    """A pose in the world frame (z up), millimetres and degrees; yaw counter-clockwise from +x,
    pitch positive upwards."""

    x_mm: int
    y_mm: int
    z_mm: int
    yaw_deg: int
    pitch_deg: int = 0

    def as_json(self, with_pitch: bool) -> dict[str, int]:
        d = {"x_mm": self.x_mm, "y_mm": self.y_mm, "z_mm": self.z_mm, "yaw_deg": self.yaw_deg}
        if with_pitch:
            d["pitch_deg"] = self.pitch_deg
        return d


@dataclass
class Box:
    """A ground-truth box of one object in one frame (pixels, x2/y2 inclusive)."""

    object: str
    cls: str
    box: tuple[int, int, int, int]
    pixels: int  # visible pixels of the object in the segmentation mask
    truncated: bool
    occluded: bool = False  # something nearer may hide part of the object's extent
    # something nearer borders the object and hides part of it, perhaps only inside its box (a mug
    # on a table): the box is whole, but a learned detector's box of it may be pulled off it
    partly_hidden: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "object": self.object,
            "class": self.cls,
            "box": list(self.box),
            "pixels": self.pixels,
            "truncated": self.truncated,
            "occluded": self.occluded,
            "partly_hidden": self.partly_hidden,
        }


@dataclass
class State:
    state: int
    frame: str
    action: str | None = None
    pose: Pose | None = None  # the agent (for the tabletop: the gripper)
    camera_pose: Pose | None = None
    boxes: list[Box] | None = None

    def as_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"state": self.state, "frame": self.frame, "action": self.action}
        if self.pose is not None:
            d["pose"] = self.pose.as_json(False)
        if self.camera_pose is not None:
            d["camera_pose"] = self.camera_pose.as_json(True)
        if self.boxes is not None:
            d["boxes"] = [b.as_json() for b in self.boxes]
        return d


@dataclass
class GtObject:
    id: str
    cls: str
    position_mm: tuple[int, int, int]  # centre of the bounding box, world frame
    size_mm: tuple[int, int, int]  # extent along x, y, z (z = height)
    asset: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "class": self.cls,
            "position_mm": list(self.position_mm),
            "size_mm": list(self.size_mm),
            "asset": self.asset,
        }


@dataclass
class Trajectory:
    """A trajectory folder in memory (states are read lazily by `states()`)."""

    id: str
    scenario: str
    image_size: tuple[int, int]
    step_mm: int | None = None
    camera: dict[str, float] | None = None  # fx, fy, cx, cy (pixels), optional vfov_deg
    objects: list[GtObject] = field(default_factory=list)
    source: dict[str, Any] = field(default_factory=dict)
    task: str = ""
    n_states: int = 0
    root: Path | None = None
    rig: Rig | None = None  # what the user stated of an imported trajectory's rig (extract/rig.py)

    def meta_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "id": self.id,
            "scenario": self.scenario,
            "image_size": list(self.image_size),
            "step_mm": self.step_mm,
            "camera": self.camera,
            "task": self.task,
            "source": self.source,
            "states": self.n_states,
            "objects": [o.as_json() for o in self.objects],
            **({"rig": self.rig.as_json()} if self.rig else {}),
        }

    def states(self) -> Iterator[State]:
        assert self.root is not None
        yield from read_states(self.root, self)


# ---------------------------------------------------------------- writing


class TrajectoryWriter:
    """Builds one trajectory folder under a hidden temporary name; `commit()` renames it into
    place (replacing an older folder of the same id), `abort()` removes it."""

    def __init__(self, out_dir: Path, traj: Trajectory) -> None:
        if not ID_RE.fullmatch(traj.id):
            raise MetalogicError.single(
                f"trajectory id '{traj.id}' is not a lower-case atom",
                expected="letters, digits and '_', starting with a lower-case letter",
                fix="choose another id, e.g. --id my_run",
            )
        self.out_dir = out_dir
        self.traj = traj
        out_dir.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix=f".{traj.id}.", suffix=".tmp", dir=out_dir))
        (self.tmp / FRAMES_DIR).mkdir()
        self._states = (self.tmp / STATES_FILE).open("w", encoding="utf-8")
        self.count = 0

    @property
    def final(self) -> Path:
        return self.out_dir / self.traj.id

    def frame_path(self, state: int) -> Path:
        return self.tmp / frame_name(state)

    def add_state(self, st: State) -> None:
        assert st.state == self.count, "states are written in order"
        self._states.write(json.dumps(st.as_json(), separators=(",", ":")) + "\n")
        self.count += 1

    def commit(self) -> Path:
        self._states.close()
        self.traj.n_states = self.count
        with (self.tmp / META_FILE).open("w", encoding="utf-8") as fh:
            json.dump(self.traj.meta_json(), fh, indent=1)
            fh.write("\n")
        final = self.final
        old = None
        if final.exists():
            old = self.out_dir / f".{self.traj.id}.old-{os.getpid()}"
            os.replace(final, old)
        os.replace(self.tmp, final)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        self.traj.root = final
        return final

    def abort(self) -> None:
        if not self._states.closed:
            self._states.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


@contextmanager
def writing(out_dir: Path, traj: Trajectory) -> Iterator[TrajectoryWriter]:
    """`with writing(out, traj) as w: ...` commits on success and leaves nothing on failure."""
    w = TrajectoryWriter(out_dir, traj)
    try:
        yield w
    except BaseException:
        w.abort()
        raise
    w.commit()


# ---------------------------------------------------------------- reading


def _json_line(line: str) -> object:
    """One JSON line; arrays nested past Python's recursion limit are a malformed line too."""
    try:
        return json.loads(line.rstrip("\r\n"))
    except RecursionError:
        raise json.JSONDecodeError("arrays or objects nested too deep", line, 0) from None


def _bad(where: str, what: str, expected: str, fix: str = "") -> MetalogicError:
    return MetalogicError([Problem(what, where=where, expected=expected, fix=fix)])


def find_trajectories(path: str | Path) -> list[Path]:
    """The trajectory folders at `path`: the folder itself, or its sub-folders holding one."""
    root = Path(path)
    if not root.exists():
        raise _bad(
            str(path),
            "trajectory folder does not exist",
            f"a folder holding {META_FILE} (or sub-folders that do)",
            "check the path, or create trajectories with 'metalogic simulate' or 'metalogic import'",
        )
    if (root / META_FILE).is_file():
        return [root]
    found = sorted(p.parent for p in root.glob(f"*/{META_FILE}") if not p.parent.name.startswith("."))
    if not found:
        raise _bad(
            display_path(root),
            "no trajectories here",
            f"a trajectory folder (holding {META_FILE}) or a folder of them",
            "create them with 'metalogic simulate' or 'metalogic import'",
        )
    return found


def _field(meta: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str, expected: str) -> Any:
    v = meta.get(key)
    if not isinstance(v, kind) or isinstance(v, bool):
        found = "nothing" if key not in meta else json.dumps(v)[:40]
        raise _bad(
            where,
            f"field '{key}' is wrong: found {found}",
            expected,
            "rewrite the trajectory with 'metalogic simulate' or 'metalogic import'",
        )
    return v


def load_trajectory(folder: str | Path) -> Trajectory:
    """Read and check `trajectory.json` of one trajectory folder."""
    root = Path(folder)
    meta_path = root / META_FILE
    where = display_path(meta_path)
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _bad(
            display_path(root),
            f"not a trajectory folder: {META_FILE} is missing",
            "a folder written by 'metalogic simulate' or 'metalogic import' (see docs/trajectories.md)",
            "point at a trajectory folder",
        ) from None
    except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, a 5000-digit number, nested too deep
        line = getattr(exc, "lineno", 1)
        why = "nested too deep" if isinstance(exc, RecursionError) else str(exc.args[0]).split(":")[0]
        raise _bad(
            f"{where}:{line}",
            f"not valid JSON ({why[:120]})",
            "the JSON object described in docs/trajectories.md",
        ) from None
    if not isinstance(meta, dict):
        raise _bad(where, "not a JSON object", "the JSON object described in docs/trajectories.md")
    if meta.get("format") != FORMAT:
        raise _bad(where, f"unknown format {json.dumps(meta.get('format'))}", f'"format": "{FORMAT}"')
    tid = _field(meta, "id", str, where, "a lower-case atom such as household_s0_e1")
    if not ID_RE.fullmatch(tid):
        raise _bad(where, f"id '{tid}' is not a lower-case atom", "letters, digits and '_', starting a-z")
    scen = _field(meta, "scenario", str, where, "one of " + ", ".join(SCENARIOS))
    if scen not in SCENARIOS:
        raise _bad(where, f"unknown scenario '{scen}'", "one of " + ", ".join(SCENARIOS))
    size = _field(meta, "image_size", list, where, "[width, height] in pixels")
    if len(size) != 2 or not all(type(v) is int and 0 < v <= 100_000 for v in size):
        raise _bad(where, f"field 'image_size' is wrong: found {size}", "[width, height] in pixels")
    step = meta.get("step_mm")
    if step is not None and not (type(step) is int and 0 < step < 2**31):
        raise _bad(
            where, f"field 'step_mm' is wrong: found {json.dumps(step)[:40]}", "a whole number of mm, above 0"
        )
    objects = [_object(o, where) for o in meta.get("objects") or []]
    return Trajectory(
        id=tid,
        scenario=scen,
        image_size=(size[0], size[1]),
        step_mm=meta.get("step_mm"),
        camera=meta.get("camera"),
        objects=objects,
        source=meta.get("source") or {},
        task=meta.get("task") or "",
        n_states=int(meta.get("states") or 0),
        root=root,
        rig=rig_from_json(meta.get("rig"), where),
    )


def _object(o: Any, where: str) -> GtObject:
    try:
        return GtObject(
            id=str(o["id"]),
            cls=str(o["class"]),
            position_mm=triple(o["position_mm"]),
            size_mm=triple(o["size_mm"]),
            asset=str(o.get("asset", "")),
        )
    except (KeyError, TypeError, ValueError):
        raise _bad(
            where,
            f"malformed object {json.dumps(o)[:60]}",
            'objects as {"id", "class", "position_mm": [x,y,z], "size_mm": [dx,dy,dz]}',
        ) from None


def _int(v: Any, name: str) -> int:
    """A number of a state as the facts take it: a whole number within the engines' 32-bit range."""
    n = int(v)
    if not -(2**31) < n < 2**31:
        raise ValueError(f"{name} {str(v)[:30]}{'...' if len(str(v)) > 30 else ''} is out of range")
    return n


def _pose(d: Any, with_pitch: bool) -> Pose:
    return Pose(
        _int(d["x_mm"], "x_mm"),
        _int(d["y_mm"], "y_mm"),
        _int(d["z_mm"], "z_mm"),
        _int(d["yaw_deg"], "yaw_deg"),
        _int(d["pitch_deg"], "pitch_deg") if with_pitch else 0,
    )


def _state(d: Any, expect: int) -> State:
    if not isinstance(d, dict):
        raise ValueError("not a JSON object")
    if d.get("state") != expect:
        raise ValueError(f"state {json.dumps(d.get('state'))} out of order (expected {expect})")
    frame = d.get("frame")
    if not isinstance(frame, str) or not frame:
        raise ValueError("missing 'frame'")
    action = d.get("action")
    if action is not None and not (isinstance(action, str) and ID_RE.fullmatch(action)):
        raise ValueError(f"action {json.dumps(action)} is not a lower-case name")
    boxes = None
    if d.get("boxes") is not None:
        boxes = [
            Box(
                str(b["object"]),
                str(b["class"]),
                tuple(_int(v, "box") for v in b["box"]),  # type: ignore[arg-type]
                _int(b.get("pixels", 0), "pixels"),
                bool(b.get("truncated", False)),
                bool(b.get("occluded", False)),
                bool(b.get("partly_hidden", b.get("occluded", False))),  # older folders: the same flag
            )
            for b in d["boxes"]
        ]
    return State(
        expect,
        frame,
        action,
        _pose(d["pose"], False) if d.get("pose") else None,
        _pose(d["camera_pose"], True) if d.get("camera_pose") else None,
        boxes,
    )


def _check_frame(root: Path, frame: str, where: str) -> None:
    """A state's frame must be a file inside the trajectory folder, also after following symlinks:
    states.jsonl is data, and a path out of the folder (absolute, '..', or a link) would hand any
    file on the machine to the detector, the facts and, from there, to a model server."""
    path = root / frame
    try:
        exists, confined = path.is_file(), inside(path, root)
    except OSError as exc:  # e.g. a name too long for the file system
        raise _bad(
            where, f"frame file '{frame[:120]}' cannot be used: {exc.strerror}", "a frame file name"
        ) from None
    if not exists:
        raise _bad(
            where,
            f"frame file '{frame}' does not exist",
            "every state's frame inside the trajectory folder",
            "restore the frame",
        )
    if not confined:
        raise _bad(
            where,
            f"frame file '{frame}' lies outside the trajectory folder (it is {path.resolve()})",
            "every state's frame inside the trajectory folder, also after following symbolic links",
            "copy the frame into the trajectory's frames/ folder and name it relative to the folder",
        )


def read_states(root: Path, traj: Trajectory | None = None) -> Iterator[State]:
    """The states of a trajectory folder in order; a malformed line is an error with file:line."""
    path = root / STATES_FILE
    where = display_path(path)
    if not path.is_file():
        raise _bad(
            display_path(root),
            f"{STATES_FILE} is missing",
            "one JSON object per state",
            "rewrite the trajectory",
        )
    expected = 'a JSON object per line: {"state": N, "frame": "frames/....png", "action": ...}'
    n = 0
    with path.open(encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                st = _state(_json_line(line), n)
            except json.JSONDecodeError as exc:
                raise _bad(
                    f"{where}:{lineno}:{exc.colno}",
                    f"malformed line: {exc.msg}",
                    expected,
                    "repair or remove the line, or rewrite the trajectory",
                ) from None
            except (ValueError, KeyError, TypeError) as exc:
                raise _bad(
                    f"{where}:{lineno}",
                    f"malformed state: {exc}",
                    expected,
                    "repair the line, or rewrite the trajectory",
                ) from None
            _check_frame(root, st.frame, f"{where}:{lineno}")
            n += 1
            yield st
    if n == 0:
        raise _bad(where, "no states", "at least one state", "rewrite the trajectory")
    if traj is not None and traj.n_states and n != traj.n_states:
        raise _bad(
            where,
            f"{n} states, but {META_FILE} says {traj.n_states}",
            "one line per state",
            "the folder is incomplete; rewrite the trajectory",
        )
