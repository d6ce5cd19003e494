"""Discrete actions and the simulated agent that takes them.

Action names are built from the shared answer vocabulary (logic/core/tables.facts): `move_<d>` for
every single-axis translation `d` of the move vocabulary (forward, backward, left, right, up,
down) and `turn_<t>` for the quarter turns, so a logged action and the answer that describes it
use the same words. Poses are integers (millimetres, degrees) and yaw stays a multiple of 90, so
the ground truth is exact: a step forward moves the agent exactly `step_mm` along its heading.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from metalogic.extract.trajectory import Pose

_COS = {0: 1, 90: 0, 180: -1, 270: 0}
_SIN = {0: 0, 90: 1, 180: 0, 270: -1}


@dataclass(frozen=True)
class Action:
    name: str
    vector: tuple[int, int, int]  # (lateral = right, depth = forward, vertical = up), unit steps
    quarter_turns: int  # counter-clockwise


@lru_cache(maxsize=1)
def actions() -> dict[str, Action]:
    from metalogic.engine.vocab import vocabulary

    v = vocabulary()
    out: dict[str, Action] = {}
    for name in v.names["move"]:
        vec = v.vectors[("move", name)]
        if sum(abs(c) for c in vec) == 1:
            out[f"move_{name}"] = Action(f"move_{name}", vec, 0)
    for name, q in v.turns.items():
        if q in (1, 3):
            out[f"turn_{name}"] = Action(f"turn_{name}", (0, 0, 0), 1 if q == 1 else -1)
    return out


def inverse(name: str) -> str:
    """The action that undoes `name` (move_left <-> move_right, turn_left <-> turn_right)."""
    a = actions()[name]
    for b in actions().values():
        if b.vector == tuple(-c for c in a.vector) and b.quarter_turns == -a.quarter_turns:
            return b.name
    raise KeyError(name)  # pragma: no cover - every action in the table has an inverse


def apply(pose: Pose, name: str, step_mm: int) -> Pose:
    """The pose after an action: translations in the agent's frame, turns by 90 degrees."""
    a = actions()[name]
    yaw = pose.yaw_deg % 360
    c, s = _COS[yaw], _SIN[yaw]
    lat, dep, ver = a.vector
    # heading = (c, s); right = (s, -c)
    dx = step_mm * (dep * c + lat * s)
    dy = step_mm * (dep * s - lat * c)
    new_yaw = (yaw + 90 * a.quarter_turns) % 360
    return Pose(pose.x_mm + dx, pose.y_mm + dy, pose.z_mm + step_mm * ver, new_yaw, pose.pitch_deg)


@dataclass
class Agent:
    """A goal-directed agent with a human-looking gait: it mostly takes the action that brings it
    closest to its goal, but sometimes detours (a sidestep or a step back) and sometimes makes a
    redundant pair of moves that cancel out (look left then right, up then down)."""

    allowed: Sequence[str]
    step_mm: int
    valid: Callable[[Pose], bool]
    preferred: Callable[[Pose], list[str]]
    rng: np.random.Generator
    detour: float = 0.12
    redundant: float = 0.08
    queue: list[str] = field(default_factory=list)

    def _ok(self, pose: Pose, name: str) -> bool:
        return self.valid(apply(pose, name, self.step_mm))

    def next(self, pose: Pose) -> str | None:
        if self.queue:
            name = self.queue.pop(0)
            if self._ok(pose, name):
                return name
            self.queue.clear()
        valid = [a for a in self.allowed if self._ok(pose, a)]
        if not valid:
            return None
        best = [a for a in self.preferred(pose) if a in valid]
        r = self.rng.random()
        if r < self.redundant:
            pairs = [
                a
                for a in valid
                if inverse(a) in self.allowed and self._ok(apply(pose, a, self.step_mm), inverse(a))
            ]
            if pairs:
                first = str(self.rng.choice(pairs))
                self.queue.append(inverse(first))
                return first
        if r < self.redundant + self.detour or not best:
            others = [a for a in valid if not best or a != best[0]]
            # A detour is a step aside, up or back; turning away is left to the redundant pairs.
            steps = [a for a in others if actions()[a].quarter_turns == 0]
            if steps or others:
                return str(self.rng.choice(steps or others))
        return best[0]
