"""Synthetic worlds laid out analytically: random cuboids seen by a moving pinhole camera, written
as the scene facts and ground truth `metalogic extract` writes, with no rendering at all.

The PyBullet worlds are few and alike; these are many and varied (object sizes, distances, camera
heights, pitches and fields of view drawn per world), and their boxes are the exact bounding boxes of
the projected cuboids, so the MRs that read pixels can be measured against a truthful agent on them
(bench/pixel_fp.py).

Conventions (those of docs/trajectories.md and logic/truth/frames.lp):

- World frame: x east, y north, z up, millimetres. Yaw in degrees counter-clockwise from +x; the
  agent only ever faces a quarter turn. Pitch in degrees, positive up; one pitch per trajectory.
- Camera frame at yaw a, pitch p: forward (cos a cos p, sin a cos p, sin p), right (sin a, -cos a, 0),
  up (-cos a sin p, -sin a sin p, cos p). A point at right X, up Y, depth D projects to
  u = cx + f X / D, v = cy - f Y / D in pixel-edge coordinates: the image spans [0, W) x [0, H) and
  the principal point (cx, cy) = (W / 2, H / 2).
- A box is the bounding box of the 8 projected corners, its continuous edges rounded to the nearest
  pixel edge and written as inclusive pixel indices: X1 = floor(xmin + 1/2),
  X2 = floor(xmax + 1/2) - 1 (likewise Y), clamped to the image. It is drawn only when all 8
  corners lie in front of the camera, and dropped when under 4 pixels or outside the image. With
  noise n, each edge then moves by an integer from -n..n, and box_slack is n + 1 (else 1: the
  rounding). `truncated`: cut by the border or within its margin (extract/boxes.py border_margin,
  as in `metalogic extract`); `occluded`: another object's silhouette (clipped at the camera)
  overlaps it and that object's nearest point is nearer than its farthest."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from metalogic.engine.terms import Atom, Fun, Term, text
from metalogic.extract.boxes import border_margin, touches_border

MIN_BOX_PX = 4  # boxes narrower or lower than this are dropped (a detector would miss them)
NEAR_MM = 1.0  # a corner must lie this far in front of the camera for a box to be drawn
PERSISTENT_STATES = 3  # as metalogic extract: a track seen in this many states is persistent
TABLE_SHARE = 0.3  # share of objects standing on a table rather than on the floor
CLEARANCE_MM = 300  # the agent never walks closer than this to an object's footprint
TURN_SHARE = 0.1  # share of moves that are quarter turns
MOVES = ("move_forward", "move_backward", "move_left", "move_right")
MOVE_WEIGHTS = (0.35, 0.15, 0.25, 0.25)
# A move in the agent's frame: (forward, left) in steps.
MOVE_AXES = {"move_forward": (1, 0), "move_backward": (-1, 0), "move_left": (0, 1), "move_right": (0, -1)}


@dataclass(frozen=True)
class WorldSpec:
    """The ranges a world is drawn from (lengths in metres, angles in degrees)."""

    width: int = 640
    height: int = 480
    vfov_deg: tuple[float, float] = (45.0, 60.0)
    cam_height_m: tuple[float, float] = (1.0, 1.6)
    pitch_deg: tuple[int, int] = (0, 0)
    objects: tuple[int, int] = (3, 8)
    dist_m: tuple[float, float] = (0.8, 7.0)  # from the camera's start to an object's centre
    states: int = 12
    step_mm: int = 250
    noise_px: int = 0  # each box edge moves by an integer drawn from -noise_px..noise_px
    scenario: str = "household"


def drone_spec(**overrides: object) -> WorldSpec:
    """A drone-like camera 3-8 m up, looking down; objects farther away so that the floor is in range."""
    base: dict[str, object] = {
        "cam_height_m": (3.0, 8.0),
        "pitch_deg": (-60, -30),
        "dist_m": (2.0, 12.0),
        "scenario": "drone",
    }
    base.update(overrides)
    return WorldSpec(**base)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Camera:
    width: int
    height: int
    f: float  # focal length in pixels (square pixels: fx = fy)
    z_mm: int
    pitch_deg: int

    @property
    def cx(self) -> float:
        return self.width / 2

    @property
    def cy(self) -> float:
        return self.height / 2


@dataclass(frozen=True)
class Cuboid:
    """An upright cuboid: centre (mm), width and depth along its own axes, height, yaw (degrees)."""

    id: str
    x: int
    y: int
    z: int
    w: int
    d: int
    h: int
    yaw_deg: float

    def corners(self) -> np.ndarray:
        """The 8 corners (8 x 3, mm); corner i has signs from its bits (width, depth, height)."""
        a = math.radians(self.yaw_deg)
        ca, sa = math.cos(a), math.sin(a)
        out = np.empty((8, 3))
        for i in range(8):
            u = (self.w / 2) * (1 if i & 1 else -1)
            v = (self.d / 2) * (1 if i & 2 else -1)
            out[i] = (
                self.x + u * ca - v * sa,
                self.y + u * sa + v * ca,
                self.z + (self.h / 2) * (1 if i & 4 else -1),
            )
        return out

    @property
    def radius(self) -> float:
        """Half the footprint's diagonal: a circle around the centre that holds the footprint."""
        return math.hypot(self.w, self.d) / 2


@dataclass(frozen=True)
class Pose:
    x: int
    y: int
    yaw_deg: int  # a multiple of 90


@dataclass
class World:
    id: str
    camera: Camera
    objects: list[Cuboid]
    poses: list[Pose]
    actions: list[str]  # actions[s] leads from state s to s + 1
    noise_px: int = 0
    noise_seed: int = 0
    step_mm: int = 250
    scenario: str = "household"
    info: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Obs:
    """One object's box in one state (inclusive pixel indices) and its flags."""

    object: str
    box: tuple[int, int, int, int]
    truncated: bool
    occluded: bool


# ---- drawing a world ---------------------------------------------------------------------------


def make_world(traj_id: str, seed: int | Sequence[int], spec: WorldSpec = WorldSpec()) -> World:
    """A random world: camera, objects in view of the start pose, and a walk among them."""
    rng = np.random.default_rng(seed)
    vfov = float(rng.uniform(*spec.vfov_deg))
    f = (spec.height / 2) / math.tan(math.radians(vfov) / 2)
    pitch = int(rng.integers(spec.pitch_deg[0], spec.pitch_deg[1] + 1))
    cam = Camera(spec.width, spec.height, f, round(rng.uniform(*spec.cam_height_m) * 1000), pitch)
    start = Pose(int(rng.integers(-5000, 5001)), int(rng.integers(-5000, 5001)), int(rng.integers(0, 4)) * 90)
    objects: list[Cuboid] = []
    for _ in range(int(rng.integers(spec.objects[0], spec.objects[1] + 1))):
        obj = _place_object(rng, spec, cam, start, objects, f"o{len(objects) + 1}")
        if obj is not None:
            objects.append(obj)
    poses, actions = _walk(rng, spec, start, objects)
    info: dict[str, object] = {
        "vfov_deg": round(vfov, 3),
        "seed": seed if isinstance(seed, int) else list(seed),
    }
    return World(
        traj_id,
        cam,
        objects,
        poses,
        actions,
        spec.noise_px,
        int(rng.integers(0, 2**31)),
        spec.step_mm,
        spec.scenario,
        info,
    )


def _place_object(
    rng: np.random.Generator, spec: WorldSpec, cam: Camera, start: Pose, placed: list[Cuboid], oid: str
) -> Cuboid | None:
    """An object whose centre is dist_m away from the camera's start and projects into the first
    frame, clear of the other objects and of the agent; preferably one the first frame shows whole
    (else most near objects would be cut by the border in every frame and test nothing). None if no
    such place turns up."""
    hfov = 2 * math.atan(cam.cx / cam.f)
    fallback = None
    for _ in range(200):
        w, d = (int(v) for v in rng.integers(50, 601, size=2))
        h = int(rng.integers(50, 1501))
        base = int(rng.integers(700, 801)) if rng.random() < TABLE_SHARE else 0
        z = base + h // 2
        dist = rng.uniform(*spec.dist_m) * 1000
        dz = z - cam.z_mm
        if dist <= abs(dz) + 100:
            continue
        level = math.sqrt(dist * dist - dz * dz)
        # Bearings a little beyond the field of view, so that some objects start cut by the border.
        bearing = math.radians(start.yaw_deg) + rng.uniform(-0.55, 0.55) * hfov
        x = round(start.x + level * math.cos(bearing))
        y = round(start.y + level * math.sin(bearing))
        obj = Cuboid(oid, x, y, z, w, d, h, float(rng.uniform(0, 180)))
        if math.hypot(x - start.x, y - start.y) < obj.radius + CLEARANCE_MM:
            continue
        if any(math.hypot(x - o.x, y - o.y) < obj.radius + o.radius + 50 for o in placed):
            continue
        u, v, depth = project(cam, start, np.array([[x, y, z]], dtype=float))
        if not (depth[0] > NEAR_MM and 0 <= u[0] < cam.width and 0 <= v[0] < cam.height):
            continue
        if _whole_in_view(cam, start, obj):
            return obj
        fallback = fallback or obj
    return fallback


def _whole_in_view(cam: Camera, pose: Pose, obj: Cuboid) -> bool:
    """Whether the object's box lies inside the image clear of the border margin (a pixel more, for
    the rounding of its edges)."""
    ext = visible_extent(cam, pose, obj)
    mx, my = border_margin((cam.width, cam.height))
    return (
        ext is not None
        and _all_in_front(cam, pose, obj)
        and ext[0] > mx + 1
        and ext[1] > my + 1
        and ext[2] < cam.width - mx - 1
        and ext[3] < cam.height - my - 1
    )


def _walk(
    rng: np.random.Generator, spec: WorldSpec, start: Pose, objects: list[Cuboid]
) -> tuple[list[Pose], list[str]]:
    """EB-Navigation-like moves of one step, now and then a quarter turn; a turn away from the
    starting heading is undone by the next turn, so the objects come back into view."""
    poses, actions = [start], []
    for _ in range(spec.states - 1):
        pose = poses[-1]
        if rng.random() < TURN_SHARE:
            act = _turn_back(pose, start) or ("turn_left" if rng.random() < 0.5 else "turn_right")
            nxt = _apply(pose, act, spec.step_mm)
        else:
            order = rng.choice(len(MOVES), size=len(MOVES), replace=False, p=MOVE_WEIGHTS)
            act, nxt = "", pose
            for i in order:
                cand = _apply(pose, MOVES[int(i)], spec.step_mm)
                if all(math.hypot(cand.x - o.x, cand.y - o.y) >= o.radius + CLEARANCE_MM for o in objects):
                    act, nxt = MOVES[int(i)], cand
                    break
            if not act:  # boxed in: turning never collides
                act = "turn_left"
                nxt = _apply(pose, act, spec.step_mm)
        actions.append(act)
        poses.append(nxt)
    return poses, actions


def _turn_back(pose: Pose, start: Pose) -> str | None:
    off = (pose.yaw_deg - start.yaw_deg) % 360
    return None if off == 0 else ("turn_right" if off == 90 else "turn_left")


def _apply(pose: Pose, act: str, step: int) -> Pose:
    if act in ("turn_left", "turn_right"):
        return Pose(pose.x, pose.y, (pose.yaw_deg + (90 if act == "turn_left" else -90)) % 360)
    fwd, left = MOVE_AXES[act]
    a = math.radians(pose.yaw_deg)
    ca, sa = round(math.cos(a)), round(math.sin(a))  # quarter turns: exact unit vectors
    return Pose(pose.x + step * (fwd * ca - left * sa), pose.y + step * (fwd * sa + left * ca), pose.yaw_deg)


# ---- seeing it ---------------------------------------------------------------------------------


def camera_axes(yaw_deg: float, pitch_deg: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(right, up, forward) unit vectors of the camera in the world frame."""
    a, p = math.radians(yaw_deg), math.radians(pitch_deg)
    ca, sa, cp, sp = math.cos(a), math.sin(a), math.cos(p), math.sin(p)
    return (
        np.array([sa, -ca, 0.0]),
        np.array([-ca * sp, -sa * sp, cp]),
        np.array([ca * cp, sa * cp, sp]),
    )


def to_camera(cam: Camera, pose: Pose, points: np.ndarray) -> np.ndarray:
    """World points (n x 3, mm) as (right, up, depth) in the camera frame."""
    right, up, fwd = camera_axes(pose.yaw_deg, cam.pitch_deg)
    rel = points - np.array([pose.x, pose.y, cam.z_mm], dtype=float)
    return np.stack([rel @ right, rel @ up, rel @ fwd], axis=1)


def project(cam: Camera, pose: Pose, points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(u, v, depth) of world points: pixel-edge coordinates, and the depth in mm (points behind the
    camera get meaningless u, v; check the depth)."""
    c = to_camera(cam, pose, points)
    d = c[:, 2]
    safe = np.where(np.abs(d) < 1e-9, 1e-9, d)
    return cam.cx + cam.f * c[:, 0] / safe, cam.cy - cam.f * c[:, 1] / safe, d


# Edges of a cuboid: corners whose indices differ in one bit.
EDGES = [(i, i | b) for i in range(8) for b in (1, 2, 4) if not i & b]


def visible_extent(
    cam: Camera, pose: Pose, obj: Cuboid
) -> tuple[float, float, float, float, float, float] | None:
    """(xmin, ymin, xmax, ymax, dmin, dmax): the continuous image extent of the part of the object
    in front of the camera (the cuboid clipped at NEAR_MM) and its least and greatest depth; None
    when nothing of it is in front. Objects partly behind the camera still hide what is behind them."""
    c = to_camera(cam, pose, obj.corners())
    pts = [c[i] for i in range(8) if c[i, 2] >= NEAR_MM]
    for i, j in EDGES:
        di, dj = c[i, 2] - NEAR_MM, c[j, 2] - NEAR_MM
        if di * dj < 0:
            pts.append(c[i] + (c[j] - c[i]) * (di / (di - dj)))
    if not pts:
        return None
    p = np.array(pts)
    u = cam.cx + cam.f * p[:, 0] / p[:, 2]
    v = cam.cy - cam.f * p[:, 1] / p[:, 2]
    return (
        float(u.min()),
        float(v.min()),
        float(u.max()),
        float(v.max()),
        float(p[:, 2].min()),
        float(p[:, 2].max()),
    )


def pixel_box(
    cam: Camera, ext: tuple[float, float, float, float], jitter: Sequence[int] = (0, 0, 0, 0)
) -> tuple[tuple[int, int, int, int], bool] | None:
    """The inclusive pixel box of a continuous extent (with each edge moved by `jitter`), clamped to
    the image, and whether clamping cut it; None if it lies outside or is under MIN_BOX_PX."""
    xmin, ymin, xmax, ymax = ext
    if xmax <= 0 or ymax <= 0 or xmin >= cam.width or ymin >= cam.height:
        return None
    clipped = xmin < 0 or ymin < 0 or xmax > cam.width or ymax > cam.height
    x1 = min(max(_edge(xmin) + jitter[0], 0), cam.width - 1)
    y1 = min(max(_edge(ymin) + jitter[1], 0), cam.height - 1)
    x2 = min(max(_edge(xmax) - 1 + jitter[2], 0), cam.width - 1)
    y2 = min(max(_edge(ymax) - 1 + jitter[3], 0), cam.height - 1)
    if x2 - x1 + 1 < MIN_BOX_PX or y2 - y1 + 1 < MIN_BOX_PX:
        return None
    return (x1, y1, x2, y2), clipped


def _edge(x: float) -> int:
    """The pixel edge nearest to x (halves up, unlike round(), whose ties go to even)."""
    return math.floor(x + 0.5)


def _overlap(a: tuple[float, ...], b: tuple[float, ...], cam: Camera) -> bool:
    """Whether two continuous extents share some area inside the image."""
    lo_x, hi_x = max(a[0], b[0], 0.0), min(a[2], b[2], float(cam.width))
    lo_y, hi_y = max(a[1], b[1], 0.0), min(a[3], b[3], float(cam.height))
    return lo_x < hi_x and lo_y < hi_y


def observe(world: World) -> list[list[Obs]]:
    """The boxes of every state. A box is drawn only when all 8 corners are in front of the camera.
    An object counts as occluded when some other object's silhouette may cover part of it: their
    extents overlap in the image and the other's nearest point is nearer than its farthest (a
    necessary condition for hiding anything, so the flag is never missing where it should be)."""
    rng = np.random.default_rng(world.noise_seed)
    cam, n = world.camera, world.noise_px
    out = []
    for pose in world.poses:
        exts = {o.id: visible_extent(cam, pose, o) for o in world.objects}
        seen = []
        for o in world.objects:
            ext = exts[o.id]
            # Draw the noise for every object in every state, so one object's box never changes
            # another's noise.
            jitter = [int(j) for j in rng.integers(-n, n + 1, size=4)] if n else [0, 0, 0, 0]
            if ext is None or not _all_in_front(cam, pose, o):
                continue
            got = pixel_box(cam, ext[:4], jitter)
            if got is None:
                continue
            box, clipped = got
            hidden = any(
                e is not None and p != o.id and e[4] < ext[5] and _overlap(e, ext, cam)
                for p, e in exts.items()
            )
            seen.append(Obs(o.id, box, clipped or touches_border(box, (cam.width, cam.height)), hidden))
        out.append(seen)
    return out


def _all_in_front(cam: Camera, pose: Pose, obj: Cuboid) -> bool:
    return bool((to_camera(cam, pose, obj.corners())[:, 2] > NEAR_MM).all())


def depth_mm(world: World, state: int, oid: str) -> float:
    """The depth of an object's centre along the optical axis in a state (what `depth` asks)."""
    o = next(o for o in world.objects if o.id == oid)
    return float(to_camera(world.camera, world.poses[state], np.array([[o.x, o.y, o.z]], dtype=float))[0, 2])


# ---- writing it --------------------------------------------------------------------------------


def _fact(name: str, *args: Term) -> str:
    return text(Fun(name, tuple(args))) + "."


def _yaw180(deg: int) -> int:
    d = ((deg + 180) % 360) - 180
    return 180 if d == -180 else d


def facts_text(world: World) -> str:
    """The facts file of a world: scene facts as `metalogic extract` writes them (without frames:
    there are no images), then the ground truth."""
    t, cam = Atom(world.id), world.camera
    seen = observe(world)
    slack = 1 if world.noise_px == 0 else world.noise_px + 1
    lines = [
        f"% synthetic world {world.id} (metalogic.extract.synthetic): {len(world.objects)} cuboids, "
        f"camera {cam.z_mm} mm up, pitch {cam.pitch_deg}, f {cam.f:.3f} px, noise {world.noise_px} px",
        _fact("trajectory", t, Atom(world.scenario)),
        _fact("image_size", t, cam.width, cam.height),
        _fact("box_slack", t, slack),
        _fact("step_mm", t, world.step_mm),
        _fact("camera", t, round(cam.f), round(cam.f), round(cam.cx), round(cam.cy)),
    ]
    for s in range(len(world.poses)):
        lines.append(_fact("state", t, s))
        if s < len(world.actions):
            lines.append(_fact("action", t, s, Atom(world.actions[s])))
        lines.append(_fact("camera_pitch", t, s, cam.pitch_deg))
        lines.append(_fact("camera_height", t, s, cam.z_mm))
    counts: dict[str, int] = {}
    for s, obs in enumerate(seen):
        for ob in obs:
            counts[ob.object] = counts.get(ob.object, 0) + 1
            lines.append(_fact("detection", t, s, Atom(ob.object), Atom("box"), 1000, *ob.box))
            if ob.truncated:
                lines.append(_fact("truncated", t, s, Atom(ob.object)))
            if ob.occluded:
                lines.append(_fact("occluded", t, s, Atom(ob.object)))
    need = min(PERSISTENT_STATES, len(world.poses))
    lines += [_fact("persistent", t, Atom(o.id)) for o in world.objects if counts.get(o.id, 0) >= need]
    # Each cuboid's support for MR17 (the floor or a table top: its bottom) and its footprint's reach.
    for o in world.objects:
        lines.append(_fact("support", t, Atom(o.id), o.z - o.h // 2))
        lines.append(_fact("footprint", t, Atom(o.id), math.ceil(o.radius) + 1))
    for s, p in enumerate(world.poses):
        lines.append(_fact("gt_pose", t, s, p.x, p.y, cam.z_mm, _yaw180(p.yaw_deg)))
        lines.append(_fact("gt_camera", t, s, p.x, p.y, cam.z_mm, _yaw180(p.yaw_deg), cam.pitch_deg))
    # The cuboid's centre is the centre of its axis-aligned bounding box too (it is symmetric).
    lines += [_fact("gt_object", t, Atom(o.id), o.x, o.y, o.z, o.h) for o in world.objects]
    return "\n".join(lines) + "\n"


def write_worlds(worlds: Sequence[World], out_dir: str | Path) -> list[Path]:
    """One facts file per world under `out_dir`, and synthetic.json describing each world."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for w in worlds:
        path = out / f"{w.id}.lp"
        path.write_text(facts_text(w), encoding="utf-8")
        paths.append(path)
    (out / "synthetic.json").write_text(json.dumps([describe(w) for w in worlds], indent=1) + "\n")
    return paths


def describe(world: World) -> dict[str, object]:
    """A world's parameters as JSON-ready values."""
    return {
        "id": world.id,
        "camera": {**asdict(world.camera), "f": round(world.camera.f, 3)},
        "noise_px": world.noise_px,
        "objects": [asdict(o) for o in world.objects],
        "actions": world.actions,
        **world.info,
    }
