"""`metalogic simulate`: episodes of an agent in a PyBullet world, written as trajectory folders.

Episode e of seed s is laid out from the random generator seeded with (s, e, scenario), so
every episode has its own layout and the same command always writes the same trajectories.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from metalogic.engine.errors import MetalogicError
from metalogic.extract.agent import Agent, apply
from metalogic.extract.importers import write_png
from metalogic.extract.scenarios import make
from metalogic.extract.scene_facts import intrinsics
from metalogic.extract.trajectory import State, Trajectory, frame_name, writing
from metalogic.extract.world import CLASSES, CameraSpec


def parse_size(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+)x(\d+)", text.strip())
    if not m or not (16 <= int(m.group(1)) <= 4096 and 16 <= int(m.group(2)) <= 4096):
        raise MetalogicError.single(
            f"bad frame size '{text}'",
            expected="WIDTHxHEIGHT in pixels, e.g. 320x240",
            fix="write the size as --size 320x240",
        )
    return int(m.group(1)), int(m.group(2))


def episode_rng(scenario: str, seed: int, episode: int) -> np.random.Generator:
    return np.random.default_rng([seed, episode, zlib.crc32(scenario.encode())])


def simulate_episode(
    scenario: str,
    seed: int,
    episode: int,
    steps: int,
    out: Path,
    cam: CameraSpec,
    on_frame: Callable[[int], None] | None = None,
) -> Path:
    """Render one episode into `out/<scenario>_s<seed>_e<episode>` and return its folder."""
    rng = episode_rng(scenario, seed, episode)
    sc = make(scenario, cam, rng)
    try:
        agent = Agent(sc.allowed, sc.step_mm, sc.valid, sc.preferred, rng)
        traj = Trajectory(
            id=f"{scenario}_s{seed}_e{episode}",
            scenario=scenario,
            image_size=(cam.width, cam.height),
            step_mm=sc.step_mm,
            camera=intrinsics(cam.width, cam.height, cam.vfov_deg),
            objects=list(sc.world.objects),
            task=sc.task,
            source={
                "kind": "simulator",
                "simulator": "pybullet",
                "renderer": "tiny",
                "seed": seed,
                "episode": episode,
                "target": sc.target.id if sc.target else None,
                "classes": list(CLASSES),
            },
        )
        with writing(out, traj) as w:
            pose = sc.start
            for s in range(steps + 1):
                cam_pose = sc.camera(pose)
                rgb, seg = sc.world.render(cam_pose)
                write_png(w.frame_path(s), rgb)
                last = s == steps or sc.done(pose)
                action = None if last else agent.next(pose)
                w.add_state(State(s, frame_name(s), action, pose, cam_pose, sc.world.gt_boxes(seg)))
                if on_frame:
                    on_frame(1)
                if action is None:
                    break
                pose = apply(pose, action, sc.step_mm)
                sc.moved(pose)
        assert traj.root is not None
        return traj.root
    finally:
        sc.world.close()


def simulate_episodes(
    scenario: str,
    *,
    episodes: int,
    steps: int,
    seed: int,
    out: Path,
    width: int = 320,
    height: int = 240,
    progress: bool = True,
) -> list[Path]:
    from tqdm import tqdm

    cam = CameraSpec(width, height)
    paths = []
    with tqdm(
        total=episodes * (steps + 1),
        unit="frame",
        desc=f"simulate {scenario}",
        disable=None if progress else True,
    ) as bar:
        for e in range(1, episodes + 1):
            paths.append(simulate_episode(scenario, seed, e, steps, out, cam, bar.update))
    return paths
