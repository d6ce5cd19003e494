"""The simulator: real PyBullet renders with exact ground truth (poses, intrinsics, boxes)."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from helpers import run_cli
from metalogic.extract import simulate as sim
from metalogic.extract.agent import actions
from metalogic.extract.trajectory import load_trajectory

STEP = {"household": 250, "tabletop": 50, "drone": 1000}


def _simulate(out: Path, scenario: str, steps: int, seed: int, size: str = "160x120") -> Path:
    code, stdout, err = run_cli(
        "simulate",
        "--scenario",
        scenario,
        "--episodes",
        "1",
        "--steps",
        str(steps),
        "--seed",
        str(seed),
        "--out",
        str(out),
        "--size",
        size,
    )
    assert code == 0, err
    assert stdout == f"wrote 1 trajectories to {out}: {scenario}_s{seed}_e1\n"
    return out / f"{scenario}_s{seed}_e1"


def _states(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "states.jsonl").read_text().splitlines()]


def _expected_delta(pose: dict, action: str, step: int) -> tuple[int, int, int, int]:
    """What an action must do to a pose, written out per action (not taken from the code under test)."""
    yaw = math.radians(pose["yaw_deg"])
    fx, fy = round(math.cos(yaw)), round(math.sin(yaw))  # heading
    rx, ry = fy, -fx  # right of the heading
    table = {
        "move_forward": (fx, fy, 0, 0),
        "move_backward": (-fx, -fy, 0, 0),
        "move_right": (rx, ry, 0, 0),
        "move_left": (-rx, -ry, 0, 0),
        "move_up": (0, 0, 1, 0),
        "move_down": (0, 0, -1, 0),
        "turn_left": (0, 0, 0, 90),
        "turn_right": (0, 0, 0, -90),
    }
    dx, dy, dz, dyaw = table[action]
    return dx * step, dy * step, dz * step, dyaw


@pytest.mark.parametrize(("scenario", "seed"), [("household", 5), ("tabletop", 2), ("drone", 4)])
def test_every_action_moves_the_pose_exactly(tmp_path: Path, scenario: str, seed: int) -> None:
    folder = _simulate(tmp_path, scenario, 10, seed)
    t = load_trajectory(folder)
    states = _states(folder)
    assert t.step_mm == STEP[scenario] and t.scenario == scenario
    seen = set()
    for a, b in itertools.pairwise(states):
        act = a["action"]
        assert act is not None
        seen.add(act)
        dx, dy, dz, dyaw = _expected_delta(a["pose"], act, STEP[scenario])
        p, q = a["pose"], b["pose"]
        assert (q["x_mm"] - p["x_mm"], q["y_mm"] - p["y_mm"], q["z_mm"] - p["z_mm"]) == (dx, dy, dz), act
        assert (q["yaw_deg"] - p["yaw_deg"]) % 360 == dyaw % 360, act
    assert states[-1]["action"] is None
    moves = {a for a in seen if a.startswith("move_")}
    assert moves, "the episode should move"
    if scenario != "tabletop":
        assert {"move_forward"} <= seen and seen & {"turn_left", "turn_right"}, seen


def test_household_camera_height_and_drone_camera_pitch(tmp_path: Path) -> None:
    hh = _states(_simulate(tmp_path, "household", 2, 1))
    assert all(1200 <= s["pose"]["z_mm"] <= 1500 for s in hh)
    assert all(-25 <= s["camera_pose"]["pitch_deg"] <= -15 for s in hh)
    dr = _states(_simulate(tmp_path, "drone", 2, 1))
    assert all(-40 <= s["camera_pose"]["pitch_deg"] <= -30 for s in dr)
    tt = _states(_simulate(tmp_path, "tabletop", 3, 1))
    assert len({json.dumps(s["camera_pose"]) for s in tt}) == 1  # the tabletop camera is fixed
    assert len({json.dumps(s["pose"]) for s in tt}) > 1  # while the gripper moves


def _project(cam: dict, intr: dict, point: tuple[float, float, float]) -> tuple[float, float] | None:
    """Pinhole projection, written independently of the renderer: z up, yaw from +x, pitch up."""
    yaw, pitch = math.radians(cam["yaw_deg"]), math.radians(cam["pitch_deg"])
    fwd = np.array([math.cos(pitch) * math.cos(yaw), math.cos(pitch) * math.sin(yaw), math.sin(pitch)])
    right = np.array([math.sin(yaw), -math.cos(yaw), 0.0])
    up = np.cross(right, fwd)
    d = np.array(point) - np.array([cam["x_mm"], cam["y_mm"], cam["z_mm"]], dtype=float)
    depth = d @ fwd
    if depth <= 0:
        return None
    return intr["cx"] + intr["fx"] * (d @ right) / depth, intr["cy"] - intr["fy"] * (d @ up) / depth


@pytest.mark.parametrize("scenario", ["household", "tabletop", "drone"])
def test_boxes_agree_with_poses_and_intrinsics(tmp_path: Path, scenario: str) -> None:
    """An object's centre, projected with the recorded camera pose and intrinsics, falls inside
    the box the segmentation mask gave it: poses, intrinsics and boxes describe one geometry."""
    folder = _simulate(tmp_path, scenario, 4, 6, size="320x240")
    t = load_trajectory(folder)
    centre = {o.id: o.position_mm for o in t.objects}
    inside = checked = 0
    for st in _states(folder):
        for b in st["boxes"]:
            x1, y1, x2, y2 = b["box"]
            assert 0 <= x1 <= x2 < 320 and 0 <= y1 <= y2 < 240
            assert b["truncated"] == (x1 == 0 or y1 == 0 or x2 == 319 or y2 == 239)
            if b["truncated"] or b["pixels"] < 200:
                continue
            uv = _project(st["camera_pose"], t.camera, centre[b["object"]])
            assert uv is not None
            checked += 1
            inside += x1 - 2 <= uv[0] <= x2 + 3 and y1 - 2 <= uv[1] <= y2 + 3
    assert checked >= 3
    assert inside >= 0.9 * checked, (inside, checked)


def test_same_seed_same_trajectory(tmp_path: Path) -> None:
    a = _simulate(tmp_path / "a", "household", 3, 9)
    b = _simulate(tmp_path / "b", "household", 3, 9)
    assert (a / "states.jsonl").read_text() == (b / "states.jsonl").read_text()
    assert all((a / "frames" / f.name).read_bytes() == f.read_bytes() for f in (b / "frames").iterdir())
    c = _simulate(tmp_path / "c", "household", 3, 10)
    assert (a / "states.jsonl").read_text() != (c / "states.jsonl").read_text()


def test_failed_episode_leaves_nothing_and_keeps_earlier_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "traj"
    real = sim.simulate_episode

    def crash_in_episode_two(scenario, seed, episode, steps, out_dir, cam, on_frame=None):
        if episode == 2:

            def boom(n: int) -> None:
                raise KeyboardInterrupt  # e.g. the user pressed Ctrl-C mid-episode

            return real(scenario, seed, episode, steps, out_dir, cam, boom)
        return real(scenario, seed, episode, steps, out_dir, cam, on_frame)

    monkeypatch.setattr(sim, "simulate_episode", crash_in_episode_two)
    with pytest.raises(KeyboardInterrupt):
        sim.simulate_episodes(
            "drone", episodes=3, steps=2, seed=0, out=out, width=96, height=72, progress=False
        )
    assert sorted(p.name for p in out.iterdir()) == ["drone_s0_e1"]  # no partial episode 2, no temp folder
    assert load_trajectory(out / "drone_s0_e1").n_states == 3


def test_action_names_come_from_the_answer_vocabulary() -> None:
    from metalogic.engine.vocab import vocabulary

    v = vocabulary()
    for name, a in actions().items():
        kind, _, word = name.partition("_")
        if kind == "move":
            assert v.vectors[("move", word)] == a.vector
        else:
            assert kind == "turn" and v.turns[word] % 4 == a.quarter_turns % 4
    assert {"move_forward", "move_up", "turn_left", "turn_right"} <= set(actions())


def test_bad_size_is_a_clear_error(tmp_path: Path) -> None:
    code, _, err = run_cli("simulate", "--scenario", "drone", "--out", str(tmp_path), "--size", "320by240")
    assert code == 2
    assert err == (
        "error: bad frame size '320by240'\n  expected: WIDTHxHEIGHT in pixels, e.g. 320x240\n"
        "  fix: write the size as --size 320x240\n"
    )


def test_occlusion_needs_a_clearly_nearer_neighbour() -> None:
    from metalogic.extract.world import hidden_by_nearer

    seg = np.full((6, 6), -1)
    seg[1:4, 1:4] = 5  # the object, 2 m away
    depth = np.full((6, 6), 9.0)
    depth[1:4, 1:4] = 2.0
    mask = seg == 5
    assert not hidden_by_nearer(mask, seg, depth)  # only far background around it
    seg[4, 1:4], depth[4, 1:4] = 7, 2.01  # the floor it stands on: continuous depth
    assert not hidden_by_nearer(mask, seg, depth)
    seg[0, 2], depth[0, 2] = 8, 2.5  # a farther body behind its top
    assert not hidden_by_nearer(mask, seg, depth)
    seg[2, 4], depth[2, 4] = 9, 1.5  # a nearer body at its right edge hides part of it
    assert hidden_by_nearer(mask, seg, depth)


def _table_scene(front: tuple[tuple[float, float, float], tuple[float, float, float]]) -> list:
    """A real PyBullet world: a floor, a labelled table-sized block 3 m ahead of a level camera at
    1.2 m, and an unlabelled block in front of it (centre, half extents); the boxes of one render."""
    from metalogic.extract.trajectory import Pose
    from metalogic.extract.world import CameraSpec, World

    world = World(CameraSpec(), np.random.default_rng(0))
    try:
        world.box((0.0, 0.0, -0.05), (10.0, 10.0, 0.05), (0.6, 0.6, 0.6, 1.0))
        table = world.box((3.0, 0.0, 0.4), (0.5, 0.8, 0.4), (0.8, 0.5, 0.3, 1.0))
        world.label(table, "table", "")
        world.box(front[0], front[1], (0.2, 0.3, 0.9, 1.0))
        _, seg = world.render(Pose(0, 0, 1200, 0, -10))
        return world.gt_boxes(seg)
    finally:
        world.close()


def test_a_body_in_front_flags_the_box_only_where_it_may_hide_the_extent() -> None:
    # A small block on the table's front edge is nearer and hides part of the table, but only
    # pixels inside the table's box: the box is the whole table's.
    (inside,) = _table_scene(((2.45, 0.0, 0.85), (0.05, 0.1, 0.05)))
    assert not inside.occluded and not inside.truncated
    assert inside.partly_hidden  # a learned detector's box of it is not trusted (below)
    # A tall block beside the table in front of its right end hides its corner: the box is short.
    (corner,) = _table_scene(((2.0, -0.6, 0.6), (0.1, 0.2, 0.6)))
    assert corner.occluded and corner.partly_hidden
    assert corner.box[2] < inside.box[2]  # the visible box ends before the table does


def test_exact_boxes_keep_what_only_a_learned_detector_loses() -> None:
    from metalogic.extract.boxes import Detection
    from metalogic.extract.scene_facts import occluded_detections
    from metalogic.extract.trajectory import Box, State

    # o1 has a mug standing on it (partly hidden, extent whole), o2 is cut by a nearer body.
    boxes = [
        Box("o1", "table", (10, 10, 90, 60), 3000, False, occluded=False, partly_hidden=True),
        Box("o2", "duck", (120, 20, 140, 40), 300, False, occluded=True, partly_hidden=True),
        Box("o3", "ball", (200, 20, 220, 40), 300, False),
    ]
    states = [State(0, "000000.png", boxes=boxes)]
    dets = [
        Detection(0, "o1", "table", 900, (10, 10, 90, 60)),
        Detection(0, "o2", "duck", 900, (120, 20, 140, 40)),
    ]
    dets.append(Detection(0, "o3", "ball", 900, (200, 20, 220, 40)))
    assert occluded_detections(states, dets, exact_boxes=True) == {(0, "o2")}
    assert occluded_detections(states, dets, exact_boxes=False) == {(0, "o1"), (0, "o2")}


def test_tabletop_arm_occludes_and_extract_flags_it(tmp_path: Path) -> None:
    traj = _simulate(tmp_path / "traj", "tabletop", 8, 0, size="320x240")
    boxes = [b for st in load_trajectory(traj).states() for b in st.boxes or []]
    hidden = [b for b in boxes if b.occluded]
    assert 0 < len(hidden) < len(boxes)
    code, _, err = run_cli(
        "extract", str(tmp_path / "traj"), "--out", str(tmp_path / "facts"), "--detector", "gt"
    )
    assert code == 0, err
    facts = (tmp_path / "facts" / f"{traj.name}.lp").read_text()
    assert facts.count("\noccluded(") == len(hidden)


def test_boxes_near_the_border_are_truncated_and_overlaps_count_without_ground_truth() -> None:
    from metalogic.extract.boxes import Detection, touches_border
    from metalogic.extract.scene_facts import occluded_detections
    from metalogic.extract.trajectory import State

    # The margin is 5% of the side: 16 columns and 12 rows of a 320 x 240 frame, 32 and 24 of 640 x 480.
    assert touches_border((1, 50, 40, 90), (320, 240))  # one pixel in from the left edge
    assert touches_border((10, 50, 40, 90), (320, 240))  # the detector's box of a shelf the border cuts
    assert touches_border((30, 50, 60, 227), (320, 240))  # 12 rows above the bottom edge
    assert not touches_border((17, 13, 302, 226), (320, 240))
    assert touches_border((17, 13, 302, 226), (640, 480))
    assert not touches_border((33, 25, 606, 454), (640, 480))
    states = [State(0, "000000.png")]
    dets = [
        Detection(0, 1, "mug", 900, (10, 10, 50, 50)),
        Detection(0, 2, "duck", 900, (50, 40, 90, 80)),  # shares the pixel (50, 40..50) with track 1
        Detection(0, 3, "ball", 900, (200, 10, 230, 40)),
    ]
    assert occluded_detections(states, dets) == {(0, 1), (0, 2)}
