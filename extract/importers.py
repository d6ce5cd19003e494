"""Importers: a folder of frames, a video file, and EmbodiedBench EB-Navigation logs, each turned
into a trajectory folder (docs/trajectories.md).

Every input is checked while it is read; the first problem stops the import with one message
naming the file (and line), and the half-built trajectory is removed, so whatever the output
folder held before is left exactly as it was.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from metalogic.engine.errors import MetalogicError, Problem
from metalogic.engine.facts import display_path
from metalogic.extract.rig import Rig
from metalogic.extract.scene_facts import intrinsics
from metalogic.extract.trajectory import Pose, State, Trajectory, frame_name, slug_id, writing
from metalogic.extract.world import quiet_native

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp")


def _err(where: str, what: str, expected: str, fix: str = "") -> MetalogicError:
    return MetalogicError([Problem(what, where=where, expected=expected, fix=fix)])


def _natural_key(p: Path) -> list[Any]:
    return [int(tok) if tok.isdigit() else tok for tok in re.split(r"(\d+)", p.name)]


def read_image(path: Path) -> np.ndarray:
    """An image file as RGB, or one clear error."""
    import cv2

    data = np.fromfile(str(path), dtype=np.uint8) if path.is_file() else None
    img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data is not None and data.size else None
    if img is None:
        raise _err(
            display_path(path),
            "cannot read image: the file is empty, damaged or not an image",
            "a PNG, JPEG, BMP or WebP image",
            "replace or remove the file",
        )
    return np.ascontiguousarray(img[:, :, ::-1])


def write_png(path: Path, rgb: np.ndarray) -> None:
    import cv2

    if not cv2.imwrite(str(path), np.ascontiguousarray(rgb[:, :, ::-1])):
        raise _err(display_path(path), "cannot write frame", "a writable output folder")


def _size_check(img: np.ndarray, size: tuple[int, int] | None, where: str) -> tuple[int, int]:
    got = (img.shape[1], img.shape[0])
    if size is not None and got != size:
        raise _err(
            where,
            f"image is {got[0]}x{got[1]}, the first frame was {size[0]}x{size[1]}",
            "frames of one size in one trajectory",
            "resize the frames, or import them separately",
        )
    return got


def _camera(size: tuple[int, int], fov: float | None) -> dict[str, float] | None:
    return intrinsics(size[0], size[1], fov) if fov else None


def _import(
    out: Path,
    traj: Trajectory,
    frames: Iterator[tuple[np.ndarray, str, State]],
    fov: float | None,
    progress: Callable[[int], None] | None = None,
    rig: Rig | None = None,
) -> Path:
    """Write frames and states into a new trajectory folder; the first frame fixes the size."""
    traj.rig = rig
    with writing(out, traj) as w:
        size: tuple[int, int] | None = None
        for img, where, st in frames:
            size = _size_check(img, size, where)
            write_png(w.frame_path(st.state), img)
            w.add_state(st)
            if progress:
                progress(1)
        if size is None:  # pragma: no cover - callers check for empty inputs first
            raise _err(str(out), "nothing to import", "at least one frame")
        traj.image_size = size
        traj.camera = _camera(size, fov)
    assert traj.root is not None
    return traj.root


def import_frames(
    folder: Path,
    out: Path,
    *,
    traj_id: str | None = None,
    every: int = 1,
    scenario: str = "video",
    fov: float | None = None,
    step_mm: int | None = None,
    progress: Callable[[int], None] | None = None,
    rig: Rig | None = None,
) -> Path:
    """A folder of images (sorted by name, numbers in natural order) as one trajectory."""
    if not folder.is_dir():
        raise _err(str(folder), "not a folder", "a folder of frames (PNG/JPEG)", "check the path")
    files = sorted(
        (p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()), key=_natural_key
    )[:: max(1, every)]
    if not files:
        raise _err(
            display_path(folder),
            "no images in the folder",
            "image files named so that they sort in time order (" + ", ".join(IMAGE_SUFFIXES) + ")",
            "point at the folder that holds the frames",
        )
    traj = Trajectory(
        id=traj_id or slug_id(folder.resolve().name),
        scenario=scenario,
        image_size=(1, 1),
        step_mm=step_mm,
        source={"kind": "frames", "path": str(folder.resolve()), "every": every},
    )

    def frames() -> Iterator[tuple[np.ndarray, str, State]]:
        for i, p in enumerate(files):
            yield read_image(p), display_path(p), State(i, frame_name(i))

    return _import(out, traj, frames(), fov, progress, rig)


def import_video(
    path: Path,
    out: Path,
    *,
    traj_id: str | None = None,
    every: int = 1,
    max_frames: int = 0,
    scenario: str = "video",
    fov: float | None = None,
    step_mm: int | None = None,
    progress: Callable[[int], None] | None = None,
    rig: Rig | None = None,
) -> Path:
    """Every `every`-th frame of a video file (OpenCV) as one trajectory. A video that ends before
    the frame count in its header is reported as truncated."""
    import cv2

    shown = display_path(path)
    if not path.is_file():
        raise _err(shown, "video file does not exist", "a video file (mp4, avi, mkv ...)", "check the path")
    with quiet_native():
        cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise _err(
            shown,
            "cannot open video: the file is damaged, truncated or in an unknown format",
            "a video OpenCV can decode (mp4, avi, mkv ...)",
            "re-encode it, e.g. ffmpeg -i IN -c:v libx264 OUT.mp4",
        )
    declared = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
    video_fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
    traj = Trajectory(
        id=traj_id or slug_id(path.stem),
        scenario=scenario,
        image_size=(1, 1),
        step_mm=step_mm,
        source={
            "kind": "video",
            "path": str(path.resolve()),
            "every": every,
            "fps": video_fps,
            "frames_declared": declared,
        },
    )

    def frames() -> Iterator[tuple[np.ndarray, str, State]]:
        read = kept = 0
        try:
            while max_frames <= 0 or kept < max_frames:
                with quiet_native():  # FFmpeg prints decoder complaints straight to stderr
                    ok, bgr = cap.read()
                if not ok:
                    break
                if read % max(1, every) == 0:
                    where = f"{shown} (frame {read})"
                    yield np.ascontiguousarray(bgr[:, :, ::-1]), where, State(kept, frame_name(kept))
                    kept += 1
                read += 1
        finally:
            cap.release()
        stopped_early = max_frames > 0 and kept >= max_frames
        if not stopped_early and declared > 0 and read < declared:
            raise _err(
                shown,
                f"video ends early: decoded {read} of the {declared} frames its header declares",
                "a complete video file",
                "the file is truncated or damaged; copy or re-encode it again",
            )
        if kept == 0:
            raise _err(
                shown,
                "no frames could be decoded",
                "a video with at least one frame",
                "check the file plays, or re-encode it",
            )

    return _import(out, traj, frames(), fov, progress, rig)


# ---------------------------------------------------------------- EmbodiedBench EB-Navigation

# EB-Navigation's discrete skill set, by action id, and the action names this project uses.
EB_ACTIONS: dict[int, tuple[str, str]] = {
    0: ("Move forward by 0.25", "move_forward"),
    1: ("Move backward by 0.25", "move_backward"),
    2: ("Move rightward by 0.25", "move_right"),
    3: ("Move leftward by 0.25", "move_left"),
    4: ("Rotate to the right by 90 degrees.", "turn_right"),
    5: ("Rotate to the left by 90 degrees.", "turn_left"),
    6: ("Tilt the camera upward by 30 degrees.", "tilt_up"),
    7: ("Tilt the camera downward by 30 degrees.", "tilt_down"),
}
EB_STEP_MM = 250
EB_FOV_DEG = 100.0  # EB-Navigation's default field of view
EB_TILT_DEG = 30  # what one of its tilt actions turns the camera by
LOG_RE = re.compile(r"episode_(\d+)(?:_step_(\d+))?\.json")
IMG_RE = re.compile(r"episode_(\d+)_step_(\d+)(?:_\d{8}_\d{6})?(?:_front)?\.(?:png|jpg|jpeg)")


def _norm(desc: str) -> str:
    return re.sub(r"[\s.]+", " ", desc.lower()).strip()


_BY_DESC = {_norm(d): name for d, name in EB_ACTIONS.values()}


@dataclass
class EbStep:
    env_step: int
    action: str
    ok: bool


def eb_episodes(log_dir: Path) -> dict[int, Path]:
    """Episode number -> its log file (the longest, if an episode was logged more than once)."""
    found: dict[int, tuple[int, Path]] = {}
    for p in log_dir.iterdir():
        m = LOG_RE.fullmatch(p.name)
        if m and p.is_file():
            ep, steps = int(m.group(1)), int(m.group(2) or 0)
            if ep not in found or steps > found[ep][0]:
                found[ep] = (steps, p)
    return {ep: p for ep, (_, p) in sorted(found.items())}


def _eb_action(rec: dict[str, Any]) -> str:
    aid = rec.get("action_id")
    if isinstance(aid, int) and not isinstance(aid, bool) and aid in EB_ACTIONS:
        return EB_ACTIONS[aid][1]
    desc = rec.get("action_description")
    if isinstance(desc, str) and _norm(desc) in _BY_DESC:
        return _BY_DESC[_norm(desc)]
    raise ValueError(f"unknown action (action_id {json.dumps(aid)}, action_description {json.dumps(desc)})")


def read_eb_log(path: Path) -> tuple[list[EbStep], str]:
    """The steps of one EB-Navigation episode log (JSON lines) and its instruction."""
    shown = display_path(path)
    steps: list[EbStep] = []
    instruction = ""
    expected = (
        'one JSON object per line with "env_step", "action_id", "action_description" and '
        '"last_action_success", as EB-Navigation writes them'
    )
    with path.open(encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line.rstrip("\r\n"))
            except RecursionError:
                rec = None  # nested past the recursion limit: not a JSON object (refused below)
            except json.JSONDecodeError as exc:
                raise _err(
                    f"{shown}:{lineno}:{exc.colno}",
                    f"malformed log line: {exc.msg}",
                    expected,
                    "repair or remove the line",
                ) from None
            try:
                if not isinstance(rec, dict):
                    raise ValueError("not a JSON object")
                step = rec.get("env_step")
                if not isinstance(step, int) or isinstance(step, bool) or step != len(steps) + 1:
                    raise ValueError(f"env_step {json.dumps(step)} out of order (expected {len(steps) + 1})")
                ok = rec.get("last_action_success")
                if not isinstance(ok, bool):
                    raise ValueError(f"last_action_success is {json.dumps(ok)}, not true or false")
                steps.append(EbStep(step, _eb_action(rec), ok))
            except ValueError as exc:
                raise _err(
                    f"{shown}:{lineno}", f"malformed log line: {exc}", expected, "repair the line"
                ) from None
            instruction = instruction or str(rec.get("instruction") or "")
    if not steps:
        raise _err(shown, "the log has no steps", expected, "point at a complete episode log")
    return steps, instruction


def _eb_images(log_dir: Path, episode: int) -> dict[int, Path]:
    images: dict[int, Path] = {}
    for p in log_dir.iterdir():
        m = IMG_RE.fullmatch(p.name)
        if m and int(m.group(1)) == episode:
            images.setdefault(int(m.group(2)), p)
    return images


def dead_reckon(pose: Pose, action: str, ok: bool) -> Pose:
    """The pose after an EB-Navigation action: moves are exact 250 mm steps in the agent frame,
    turns exact quarter turns; a failed (blocked) action leaves the pose unchanged."""
    if not ok:
        return pose
    import math

    yaw = math.radians(pose.yaw_deg)
    fwd, left = (math.cos(yaw), math.sin(yaw)), (-math.sin(yaw), math.cos(yaw))
    moves = {"move_forward": (1, 0), "move_backward": (-1, 0), "move_left": (0, 1), "move_right": (0, -1)}
    if action in moves:
        f, lft = moves[action]
        dx = EB_STEP_MM * (f * fwd[0] + lft * left[0])
        dy = EB_STEP_MM * (f * fwd[1] + lft * left[1])
        return Pose(pose.x_mm + round(dx), pose.y_mm + round(dy), pose.z_mm, pose.yaw_deg)
    turns = {"turn_left": 90, "turn_right": -90}
    if action in turns:
        return Pose(pose.x_mm, pose.y_mm, pose.z_mm, ((pose.yaw_deg + turns[action] + 180) % 360) - 180)
    return pose  # camera tilts do not move the agent


def import_eb_nav(
    log_dir: Path,
    out: Path,
    *,
    episodes: list[int] | None = None,
    fov: float = EB_FOV_DEG,
    prefix: str = "ebnav",
    progress: Callable[[int], None] | None = None,
    rig: Rig | None = None,
) -> list[Path]:
    """EB-Navigation episodes (per-step JSON lines + step images) as trajectories `<prefix>_e<N>`.
    Poses are dead-reckoned from the start pose (x = y = 0, yaw 0) through the successful actions."""
    if not log_dir.is_dir():
        raise _err(
            str(log_dir), "not a folder", "an EB-Navigation log folder (episode_N_step_M.json + images)"
        )
    logs = eb_episodes(log_dir)
    if not logs:
        raise _err(
            display_path(log_dir),
            "no EB-Navigation episode logs in the folder",
            "files named episode_<N>_step_<M>.json (or episode_<N>.json) with one JSON object per step",
            "point at the folder EB-Navigation wrote (running/eb_nav/<experiment>)",
        )
    wanted = episodes or list(logs)
    for ep in wanted:
        if ep not in logs:
            raise _err(
                display_path(log_dir), f"no log for episode {ep}", "one of " + ", ".join(map(str, logs))
            )
    written = []
    for ep in wanted:
        steps, instruction = read_eb_log(logs[ep])
        images = _eb_images(log_dir, ep)
        missing = [s for s in range(len(steps) + 1) if s not in images]
        if missing:
            raise _err(
                display_path(log_dir),
                f"episode {ep}: no image for step {missing[0]}"
                + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""),
                f"episode_{ep}_step_<M>_<timestamp>_front.png for every step 0..{len(steps)}",
                "copy the step images next to the log",
            )
        traj = Trajectory(
            id=f"{slug_id(prefix)}_e{ep}",
            scenario="household",
            image_size=(1, 1),
            step_mm=EB_STEP_MM,
            task=instruction,
            source={
                "kind": "eb_navigation",
                "log": str(logs[ep].resolve()),
                "episode": ep,
                "poses": "dead reckoning from the start pose through successful actions",
            },
        )
        tilts = replace(rig, tilt_step_deg=EB_TILT_DEG) if rig else None
        written.append(_import(out, traj, _eb_frames(steps, images), fov, progress, tilts))
    return written


def _eb_frames(steps: list[EbStep], images: dict[int, Path]) -> Iterator[tuple[np.ndarray, str, State]]:
    pose = Pose(0, 0, 0, 0)
    for s in range(len(steps) + 1):
        nxt = steps[s] if s < len(steps) else None
        action = nxt.action if nxt is not None and nxt.ok else None
        yield read_image(images[s]), display_path(images[s]), State(s, frame_name(s), action, pose)
        if nxt is not None:
            pose = dead_reckon(pose, nxt.action, nxt.ok)
