"""The three worlds (household navigation, tabletop manipulation, a drone). Each lays out a world
from its random generator and says where the agent starts, what it is after, its actions, the poses
allowed, which actions bring it closer to its goal, and where the camera is for an agent pose."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from metalogic.extract.trajectory import GtObject, Pose
from metalogic.extract.world import ASSETS, Asset, CameraSpec, World

Rect = tuple[float, float, float, float]  # xmin, ymin, xmax, ymax in metres


def _overlaps(r: Rect, others: list[Rect], margin: float) -> bool:
    return any(
        r[0] < o[2] + margin and o[0] < r[2] + margin and r[1] < o[3] + margin and o[1] < r[3] + margin
        for o in others
    )


def _pastel(
    rng: np.random.Generator, lo: float = 0.55, hi: float = 0.95
) -> tuple[float, float, float, float]:
    r, g, b = (float(v) for v in rng.uniform(lo, hi, 3))
    return (r, g, b, 1.0)


def _to_agent(pose: Pose, x_mm: float, y_mm: float) -> tuple[float, float]:
    """A world point in the agent's frame: (forward, left) in millimetres."""
    dx, dy = x_mm - pose.x_mm, y_mm - pose.y_mm
    c, s = math.cos(math.radians(pose.yaw_deg)), math.sin(math.radians(pose.yaw_deg))
    return dx * c + dy * s, -dx * s + dy * c


@dataclass
class Scenario:
    """Base: a laid-out world with an agent start pose and a target object."""

    world: World
    rng: np.random.Generator
    name: str = ""
    step_mm: int = 250
    allowed: tuple[str, ...] = ()
    start: Pose = field(default_factory=lambda: Pose(0, 0, 0, 0))
    target: GtObject | None = None
    task: str = ""

    def camera(self, pose: Pose) -> Pose:
        return pose

    def valid(self, pose: Pose) -> bool:
        raise NotImplementedError

    def preferred(self, pose: Pose) -> list[str]:
        raise NotImplementedError

    def done(self, pose: Pose) -> bool:
        raise NotImplementedError

    def moved(self, pose: Pose) -> None:
        """Hook after each executed action (the arm follows its gripper)."""

    def _pick_target(self, pool: list[GtObject]) -> GtObject:
        return pool[int(self.rng.integers(len(pool)))]


# ---------------------------------------------------------------- household


@dataclass
class Household(Scenario):
    """A room with furniture and toys; EB-Navigation moves (0.25 m) and quarter turns, camera at
    about 1.3 m looking slightly down."""

    room: Rect = (0.0, 0.0, 6.0, 6.0)
    blocked: list[Rect] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.name = "household"
        self.step_mm = 250
        self.allowed = ("move_forward", "move_backward", "move_left", "move_right", "turn_left", "turn_right")
        self.cam_height = int(self.rng.integers(1200, 1501))
        self.pitch = int(self.rng.integers(-25, -14))
        self._build()

    def _build(self) -> None:
        w, rng = self.world, self.rng
        wx, wy = float(rng.choice(np.arange(5.0, 7.01, 0.5))), float(rng.choice(np.arange(5.0, 7.01, 0.5)))
        self.room = (0.0, 0.0, wx, wy)
        floor = w.box((wx / 2, wy / 2, -0.05), (wx / 2 + 0.5, wy / 2 + 0.5, 0.05), _pastel(rng, 0.35, 0.75))
        del floor
        wall_rgba = _pastel(rng)
        for c, h in [
            ((wx / 2, -0.05, 1.25), (wx / 2 + 0.1, 0.05, 1.25)),
            ((wx / 2, wy + 0.05, 1.25), (wx / 2 + 0.1, 0.05, 1.25)),
            ((-0.05, wy / 2, 1.25), (0.05, wy / 2 + 0.1, 1.25)),
            ((wx + 0.05, wy / 2, 1.25), (0.05, wy / 2 + 0.1, 1.25)),
        ]:
            w.box(c, h, wall_rgba)
        w.box(
            (float(rng.uniform(1.5, wx - 1.5)), float(rng.uniform(1.5, wy - 1.5)), 0.003),
            (float(rng.uniform(0.6, 1.2)), float(rng.uniform(0.5, 1.0)), 0.003),
            _pastel(rng, 0.2, 0.9),
        )  # a rug
        for _ in range(int(rng.integers(0, 3))):  # cabinets along the walls (unlabelled obstacles)
            self._cabinet(wx, wy)
        tops: list[tuple[Rect, float]] = []
        for cls, n in (("table", int(rng.integers(1, 3))), ("shelf", int(rng.integers(0, 2)))):
            for _ in range(n):
                placed = self._place_floor(cls, margin=0.6, scale=float(rng.uniform(*FURNITURE[cls])))
                if placed is not None and cls == "table":
                    tops.append(placed)
        for rect, z in tops:  # small things on the tables
            for _ in range(int(rng.integers(1, 3))):
                cls = str(rng.choice(["mug", "duck", "teddy"]))
                x, y = (
                    rng.uniform(rect[0] + 0.15, rect[2] - 0.15),
                    rng.uniform(rect[1] + 0.15, rect[3] - 0.15),
                )
                scale = float(rng.uniform(*ON_TABLE[cls]))
                uid = w.place(ASSETS[cls], float(x), float(y), float(rng.uniform(0, 2 * math.pi)), z, scale)
                w.label(uid, cls, ASSETS[cls].file)
            if rng.random() < 0.4:  # an unlabelled tray as a distractor
                x, y = rng.uniform(rect[0] + 0.2, rect[2] - 0.2), rng.uniform(rect[1] + 0.2, rect[3] - 0.2)
                w.place(DISTRACTORS["tray"], float(x), float(y), float(rng.uniform(0, 3)), z, 0.45)
        for _ in range(int(rng.integers(2, 5))):
            cls = str(rng.choice(["teddy", "ball", "robot", "duck", "car"]))
            self._place_floor(cls, margin=0.4, scale=float(rng.uniform(*ON_FLOOR[cls])))
        self._start()

    def _cabinet(self, wx: float, wy: float) -> None:
        rng = self.rng
        depth, width, height = 0.45, float(rng.uniform(0.6, 1.2)), float(rng.uniform(0.7, 1.1))
        side = int(rng.integers(4))
        along = float(rng.uniform(width / 2 + 0.1, (wx if side < 2 else wy) - width / 2 - 0.1))
        if side < 2:
            cx, cy, hx, hy = along, (depth / 2 if side == 0 else wy - depth / 2), width / 2, depth / 2
        else:
            cx, cy, hx, hy = (depth / 2 if side == 2 else wx - depth / 2), along, depth / 2, width / 2
        rect = (cx - hx, cy - hy, cx + hx, cy + hy)
        if not _overlaps(rect, self.blocked, 0.2):
            self.world.box((cx, cy, height / 2), (hx, hy, height / 2), _pastel(rng, 0.3, 0.8))
            self.blocked.append(rect)

    def _place_floor(self, cls: str, margin: float, scale: float) -> tuple[Rect, float] | None:
        w, rng = self.world, self.rng
        for _ in range(30):
            x = float(rng.uniform(self.room[0] + margin, self.room[2] - margin))
            y = float(rng.uniform(self.room[1] + margin, self.room[3] - margin))
            yaw = float(rng.choice([0.0, math.pi / 2, math.pi, 3 * math.pi / 2]) + rng.uniform(-0.2, 0.2))
            uid = w.place(ASSETS[cls], x, y, yaw, 0.0, scale)
            lo, hi = w.aabb(uid)
            rect = (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
            inside = (
                rect[0] > self.room[0] + 0.05
                and rect[2] < self.room[2] - 0.05
                and rect[1] > self.room[1] + 0.05
                and rect[3] < self.room[3] - 0.05
            )
            if inside and not _overlaps(rect, self.blocked, 0.3):
                self.blocked.append(rect)
                w.label(uid, cls, ASSETS[cls].file)
                return rect, float(hi[2])
            w.p.removeBody(uid)
        return None

    def _start(self) -> None:
        objs = self.world.objects
        grid = [
            (x, y)
            for x in range(500, int(self.room[2] * 1000) - 499, 250)
            for y in range(500, int(self.room[3] * 1000) - 499, 250)
        ]
        self.rng.shuffle(grid)
        pool = [o for o in objs if o.cls != "shelf"] or objs
        self.target = self._pick_target(pool)
        # The start: a free place at least 2.5 m from the target, facing the way that shows the most
        # labelled objects well inside the frame (the target counting double), so that the first
        # frames hold several tracked objects; ties go to the first place of the shuffled grid.
        best, most = None, -1
        for x, y in grid:
            if math.dist((x, y), self.target.position_mm[:2]) < 2500:
                continue
            for yaw in (0, 90, 180, 270):
                pose = Pose(x, y, self.cam_height, yaw, 0)
                if not self.valid(pose):
                    break
                n = sum((2 if o is self.target else 1) for o in objs if self._in_view(pose, o))
                if n > most:
                    best, most = pose, n
        self.start = best or Pose(*grid[0], self.cam_height, 0, 0)
        self.task = f"navigate to the {self.target.cls} and get as close as possible"

    def _in_view(self, pose: Pose, obj: GtObject) -> bool:
        """Whether an object's centre lies 1-4.5 m ahead, within the middle 70% of the frame's width."""
        f, left = _to_agent(pose, *obj.position_mm[:2])
        cam = self.world.cam
        half = math.atan(math.tan(math.radians(cam.vfov_deg) / 2) * cam.width / cam.height)
        return 1000 <= f <= 4500 and abs(math.atan2(left, f)) <= 0.7 * half

    def camera(self, pose: Pose) -> Pose:
        return Pose(pose.x_mm, pose.y_mm, pose.z_mm, pose.yaw_deg, self.pitch)

    def valid(self, pose: Pose) -> bool:
        x, y = pose.x_mm / 1000, pose.y_mm / 1000
        r = 0.25
        if not (self.room[0] + r <= x <= self.room[2] - r and self.room[1] + r <= y <= self.room[3] - r):
            return False
        return not _overlaps((x - r, y - r, x + r, y + r), self.blocked, 0.0)

    def preferred(self, pose: Pose) -> list[str]:
        assert self.target is not None
        f, left = _to_agent(pose, *self.target.position_mm[:2])
        bearing = math.degrees(math.atan2(left, f))
        turn = "turn_left" if bearing > 0 else "turn_right"
        side = "move_left" if left > 0 else "move_right"
        if abs(bearing) > 50:
            return [turn, side]
        if abs(left) > 350 and (abs(left) > 0.6 * f or f < 1200):
            return [side, "move_forward", turn]
        return ["move_forward", side, turn]

    def done(self, pose: Pose) -> bool:
        assert self.target is not None
        return math.dist((pose.x_mm, pose.y_mm), self.target.position_mm[:2]) <= 1000


FURNITURE = {"table": (0.8, 1.0), "shelf": (0.55, 0.75)}
ON_TABLE = {"mug": (1.4, 1.8), "duck": (1.8, 2.4), "teddy": (1.8, 2.4)}
ON_FLOOR = {
    "teddy": (3.0, 4.0),
    "ball": (0.28, 0.36),
    "robot": (0.9, 1.2),
    "duck": (2.5, 3.5),
    "car": (1.0, 1.4),
}


# ---------------------------------------------------------------- tabletop


@dataclass
class Tabletop(Scenario):
    """A Franka Panda over a table of objects; the gripper moves in 50 mm steps, watched by a fixed
    camera in front of the table. The gripper's frame is aligned with the camera's view (forward =
    away from the camera), so its moves read the way the camera sees them."""

    def __post_init__(self) -> None:
        self.name = "tabletop"
        self.step_mm = 50
        self.allowed = ("move_forward", "move_backward", "move_left", "move_right", "move_up", "move_down")
        self.phase = 0
        self._build()

    def _build(self) -> None:
        w, rng = self.world, self.rng
        w.box((0, 0, -0.05), (6, 6, 0.05), _pastel(rng, 0.3, 0.6))
        table = w.place(ASSETS["table"], 0.0, 0.0, math.pi / 2, 0.0, 1.0)
        w.label(table, "table", ASSETS["table"].file)
        _lo, hi = w.aabb(table)
        self.top = float(hi[2])
        self.panda = w.load("franka_panda/panda.urdf", (0.42, 0.0, self.top), (0.0, 0.0, math.pi), 1.0)
        taken: list[Rect] = [(0.27, -0.15, 0.6, 0.15)]  # the arm's base
        for _ in range(int(rng.integers(3, 6))):
            cls = str(rng.choice(["mug", "duck", "teddy", "ball", "car", "robot"]))
            for _try in range(30):
                x, y = float(rng.uniform(-0.3, 0.2)), float(rng.uniform(-0.4, 0.4))
                uid = w.place(
                    ASSETS[cls],
                    x,
                    y,
                    float(rng.uniform(0, 2 * math.pi)),
                    self.top,
                    float(rng.uniform(*ON_TABLETOP[cls])),
                )
                a, b = w.aabb(uid)
                rect = (float(a[0]), float(a[1]), float(b[0]), float(b[1]))
                if not _overlaps(rect, taken, 0.04):
                    taken.append(rect)
                    w.label(uid, cls, ASSETS[cls].file)
                    break
                w.p.removeBody(uid)
        for name in rng.choice(list(DISTRACTORS), size=int(rng.integers(1, 3)), replace=False):
            x, y = float(rng.uniform(-0.35, 0.2)), float(rng.uniform(-0.45, 0.45))
            uid = w.place(
                DISTRACTORS[str(name)],
                x,
                y,
                float(rng.uniform(0, 3)),
                self.top,
                0.4 if name == "tray" else 1.5,
            )
            a, b = w.aabb(uid)
            if _overlaps((float(a[0]), float(a[1]), float(b[0]), float(b[1])), taken, 0.02):
                w.p.removeBody(uid)
        pool = [o for o in w.objects if o.cls != "table"] or w.objects
        self.target = self._pick_target(pool)
        top = round(self.top * 1000)
        self.cam = Pose(
            -int(rng.integers(850, 1000)),
            int(rng.integers(-100, 101)),
            top + int(rng.integers(650, 800)),
            0,
            int(rng.integers(-46, -37)),
        )
        self.start = Pose(-50 * int(rng.integers(2, 6)), 50 * int(rng.integers(-5, 6)), top + 250, 0)
        self.task = f"pick up the {self.target.cls}"
        self.moved(self.start)

    def camera(self, pose: Pose) -> Pose:
        return self.cam

    def valid(self, pose: Pose) -> bool:
        top = round(self.top * 1000)
        return -350 <= pose.x_mm <= 200 and -400 <= pose.y_mm <= 400 and top + 60 <= pose.z_mm <= top + 450

    def _waypoints(self) -> list[tuple[int, int, int]]:
        """Above the target, down to it, and up again (grasp heights over its top)."""
        assert self.target is not None
        x, y, z = self.target.position_mm
        top = z + self.target.size_mm[2] // 2
        return [(x, y, top + 120), (x, y, top + 30), (x, y, top + 160)]

    def preferred(self, pose: Pose) -> list[str]:
        gx, gy, gz = self._waypoints()[min(self.phase, 2)]
        moves = []
        if abs(gx - pose.x_mm) >= 25:
            moves.append((abs(gx - pose.x_mm), "move_forward" if gx > pose.x_mm else "move_backward"))
        if abs(gy - pose.y_mm) >= 25:
            moves.append((abs(gy - pose.y_mm), "move_left" if gy > pose.y_mm else "move_right"))
        if abs(gz - pose.z_mm) >= 25 and (not moves or gz > pose.z_mm):  # descend only when above the goal
            moves.append(
                (abs(gz - pose.z_mm) + (0 if moves else 10_000), "move_up" if gz > pose.z_mm else "move_down")
            )
        return [m for _, m in sorted(moves, reverse=True)]

    def done(self, pose: Pose) -> bool:
        return self.phase >= 3

    def moved(self, pose: Pose) -> None:
        """Put the gripper at the pose (inverse kinematics, pointing down, fingers open), and move
        on to the next waypoint once this one is reached."""
        if self.phase < 3:
            gx, gy, gz = self._waypoints()[self.phase]
            if max(abs(gx - pose.x_mm), abs(gy - pose.y_mm), abs(gz - pose.z_mm)) < 25:
                self.phase += 1
        p, arm = self.world.p, self.panda
        target = [pose.x_mm / 1000, pose.y_mm / 1000, pose.z_mm / 1000]
        down = p.getQuaternionFromEuler((math.pi, 0.0, 0.0))
        for _ in range(20):
            q = p.calculateInverseKinematics(arm, PANDA_EE, target, down, maxNumIterations=100)
            for j in range(7):
                p.resetJointState(arm, j, q[j])
            got = p.getLinkState(arm, PANDA_EE)[4]
            if math.dist(got, target) < 0.003:
                break
        for j in (9, 10):
            p.resetJointState(arm, j, 0.04)


PANDA_EE = 11  # panda_grasptarget: the point between the fingertips
ON_TABLETOP = {
    "mug": (1.0, 1.3),
    "duck": (1.0, 1.4),
    "teddy": (1.0, 1.5),
    "ball": (0.12, 0.16),
    "car": (0.4, 0.5),
    "robot": (0.25, 0.32),
}


# ---------------------------------------------------------------- drone


@dataclass
class Drone(Scenario):
    """An open field with vehicles, robots and furniture; the drone flies 1 m steps forward, up or
    down and turns by 90 degrees; its camera looks down at 30-40 degrees."""

    def __post_init__(self) -> None:
        self.name = "drone"
        self.step_mm = 1000
        self.allowed = ("move_forward", "move_up", "move_down", "turn_left", "turn_right")
        self.pitch = int(self.rng.integers(-40, -29))
        self._build()

    def _build(self) -> None:
        w, rng = self.world, self.rng
        w.box((0, 0, -0.05), (40, 40, 0.05), _pastel(rng, 0.3, 0.6))
        for _ in range(int(rng.integers(2, 5))):  # roads and lawns
            long_x = rng.random() < 0.5
            half = (
                (25.0, float(rng.uniform(1.5, 4)), 0.005)
                if long_x
                else (float(rng.uniform(1.5, 4)), 25.0, 0.005)
            )
            w.box(
                (float(rng.uniform(-15, 15)), float(rng.uniform(-15, 15)), 0.005),
                half,
                _pastel(rng, 0.2, 0.8),
            )
        taken: list[Rect] = []
        for _ in range(int(rng.integers(1, 4))):  # unlabelled buildings
            x, y = float(rng.uniform(-18, 18)), float(rng.uniform(-18, 18))
            hx, hy, hz = (float(v) for v in rng.uniform((1.5, 1.5, 1.5), (4, 4, 5)))
            w.box((x, y, hz), (hx, hy, hz), _pastel(rng, 0.4, 0.9))
            taken.append((x - hx, y - hy, x + hx, y + hy))
        for _ in range(int(rng.integers(7, 12))):
            cls = str(rng.choice(list(IN_FIELD)))
            for _try in range(30):
                x, y = float(rng.uniform(-15, 15)), float(rng.uniform(-15, 15))
                uid = w.place(
                    ASSETS[cls],
                    x,
                    y,
                    float(rng.uniform(0, 2 * math.pi)),
                    0.0,
                    float(rng.uniform(*IN_FIELD[cls])),
                )
                a, b = w.aabb(uid)
                rect = (float(a[0]), float(a[1]), float(b[0]), float(b[1]))
                if not _overlaps(rect, taken, 1.5):
                    taken.append(rect)
                    w.label(uid, cls, ASSETS[cls].file)
                    break
                w.p.removeBody(uid)
        self.target = self._pick_target(w.objects)
        tx, ty = self.target.position_mm[:2]
        # The start: 8-14 m from the target, at the place and quarter heading (of 40 places drawn)
        # that shows the most labelled objects well inside the frame (the target counting double),
        # so that the first frames hold several tracked objects; the target need not be among them.
        best, most = None, -1
        for _ in range(40):
            x, y = int(rng.integers(-18, 19)) * 1000, int(rng.integers(-18, 19)) * 1000
            if not 8000 <= math.dist((x, y), (tx, ty)) <= 14000:
                continue
            for yaw in (0, 90, 180, 270):
                pose = Pose(x, y, 5000, yaw)
                n = sum((2 if o is self.target else 1) for o in w.objects if self._in_view(pose, o))
                if n > most:
                    best, most = pose, n
        x, y, yaw = (best.x_mm, best.y_mm, best.yaw_deg) if best else (0, 0, 0)
        self.start = Pose(x, y, int(rng.integers(4, 7)) * 1000, yaw)
        self.task = f"fly to the {self.target.cls}"

    def _in_view(self, pose: Pose, obj: GtObject) -> bool:
        """Whether an object lies 4-30 m ahead on the ground, within the middle 70% of the frame's width."""
        f, left = _to_agent(pose, *obj.position_mm[:2])
        cam = self.world.cam
        half = math.atan(math.tan(math.radians(cam.vfov_deg) / 2) * cam.width / cam.height)
        return 4000 <= f <= 30000 and abs(math.atan2(left, f)) <= 0.7 * half

    def camera(self, pose: Pose) -> Pose:
        return Pose(pose.x_mm, pose.y_mm, pose.z_mm, pose.yaw_deg, self.pitch)

    def valid(self, pose: Pose) -> bool:
        return 3000 <= pose.z_mm <= 8000 and abs(pose.x_mm) <= 20000 and abs(pose.y_mm) <= 20000

    def preferred(self, pose: Pose) -> list[str]:
        assert self.target is not None
        f, left = _to_agent(pose, *self.target.position_mm[:2])
        bearing = math.degrees(math.atan2(left, f))
        if abs(bearing) > 45:
            return ["turn_left" if bearing > 0 else "turn_right"]
        return ["move_forward", "move_down" if pose.z_mm > 5000 else "move_up"]

    def done(self, pose: Pose) -> bool:
        assert self.target is not None
        return math.dist((pose.x_mm, pose.y_mm), self.target.position_mm[:2]) <= max(3000, pose.z_mm)


IN_FIELD = {
    "car": (5.0, 7.0),
    "robot": (2.5, 3.5),
    "table": (1.5, 2.0),
    "shelf": (1.2, 1.6),
    "teddy": (8.0, 12.0),
    "ball": (1.5, 2.5),
}

DISTRACTORS = {
    "tray": Asset("tray", "tray/traybox.urdf", (0.4, 0.5)),
    "jenga": Asset("jenga", "jenga/jenga.urdf", (1.0, 1.5)),
    "lego": Asset("lego", "lego/lego.urdf", (1.5, 2.5)),
}

SCENARIO_TYPES: dict[str, type[Scenario]] = {"household": Household, "tabletop": Tabletop, "drone": Drone}


def make(name: str, cam: CameraSpec, rng: np.random.Generator) -> Scenario:
    world = World(cam, rng)
    try:
        return SCENARIO_TYPES[name](world, rng)
    except BaseException:
        world.close()
        raise
