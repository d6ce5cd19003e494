"""Helpers for the memory tests (no tests here): scenes with ground truth, run folders made by the
real `metalogic generate`, banks filled through the real embedder and the TRS rules, and digests
of a bank folder.

The scene is a small household: an agent with a level pinhole camera walks a fixed pattern of
steps and quarter turns among objects; detections are the objects' boxes projected into the image,
so the boxes agree with the ground truth the oracle reads.
"""

from __future__ import annotations

import hashlib
import math
import random
from pathlib import Path

FX, CX, CY, W, H = 277, 160, 120, 320, 240
OBJECTS = {  # name: (width mm, height mm)
    "mug": (90, 110),
    "duck": (120, 100),
    "ball": (220, 220),
    "box": (300, 250),
    "lamp": (200, 450),
}
# (dx, dy, turn) per step in the agent's frame: forward steps, a step right, a left turn, a step back
PATTERN = [("forward", 0), ("forward", 0), ("right", 0), ("none", 1), ("forward", 0), ("backward", 0)]


def scene_facts(traj: str, seed: int) -> str:
    rng = random.Random(seed)
    step = 250
    objs = {}
    for name in rng.sample(sorted(OBJECTS), 4):
        objs[name] = (rng.randint(-900, 900), rng.randint(1500, 3200), rng.randint(300, 1100))
    x, y, yaw = 0, 0, 90
    poses = [(x, y, yaw)]
    for move, turn in PATTERN:
        fx, fy = round(math.cos(math.radians(yaw))), round(math.sin(math.radians(yaw)))
        rx, ry = fy, -fx  # right of the heading
        dx, dy = {"forward": (fx, fy), "backward": (-fx, -fy), "right": (rx, ry), "none": (0, 0)}[move]
        x, y, yaw = x + dx * step, y + dy * step, (yaw + 90 * turn) % 360
        poses.append((x, y, yaw))
    lines = [
        f"trajectory({traj}, household).",
        f"step_mm({traj}, {step}).",
        f"image_size({traj}, {W}, {H}).",
        f"camera({traj}, {FX}, {FX}, {CX}, {CY}).",
    ]
    for name, (ox, oy, oz) in objs.items():
        lines.append(f"gt_object({traj}, {name}, {ox}, {oy}, {oz}, {OBJECTS[name][1]}).")
        lines.append(f"persistent({traj}, {name}).")
    for s, (px, py, pyaw) in enumerate(poses):
        lines += [f"state({traj}, {s}).", f"gt_pose({traj}, {s}, {px}, {py}, 1000, {pyaw})."]
        c, sn = math.cos(math.radians(pyaw)), math.sin(math.radians(pyaw))
        for name, (ox, oy, oz) in objs.items():
            dx, dy, dz = ox - px, oy - py, oz - 1000
            fwd, right = dx * c + dy * sn, dx * sn - dy * c
            if fwd < 400:
                continue
            w, h = OBJECTS[name]
            u, v = CX + FX * right / fwd, CY - FX * dz / fwd
            hw, hh = FX * w / 2 / fwd, FX * h / 2 / fwd
            x1, y1, x2, y2 = round(u - hw), round(v - hh), round(u + hw), round(v + hh)
            if x1 < 0 or y1 < 0 or x2 >= W or y2 >= H or x2 <= x1 or y2 <= y1:
                continue
            lines.append(f"detection({traj}, {s}, {name}, {name}, 900, {x1}, {y1}, {x2}, {y2}).")
    return "\n".join(lines) + "\n"


def make_run(tmp: Path, trajectories: int, per_trajectory: int = 12, seed: int = 0) -> Path:
    """A run folder of `trajectories` household scenes, with questions from `metalogic generate`."""
    from metalogic.engine.generate.run import generate

    facts = tmp / "facts"
    facts.mkdir(parents=True, exist_ok=True)
    for i in range(trajectories):
        (facts / f"h{i}.lp").write_text(scene_facts(f"h{i}", seed * 100 + i), encoding="utf-8")
    run = tmp / "run"
    generate(facts, run, max_per_trajectory=per_trajectory, seed=seed)
    return run


def digest(folder: Path) -> dict[str, str]:
    """Every file under a folder (names relative to it) with the SHA-256 of its bytes."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def add_cards(bank: object, cards: list[tuple[str, str, str, str]]) -> list[int]:
    """Write cards (kind, task, summary, lesson) with real embeddings of their tasks and the TRS the
    rules give a new card."""
    from metalogic.memory.bank import Bank, NewCard
    from metalogic.memory.embed import get_embedder
    from metalogic.memory.logic import initial_trs

    assert isinstance(bank, Bank)
    vecs = get_embedder(bank.embedder).encode([c[1] for c in cards])
    v0 = initial_trs()
    ids = []
    with bank.transaction() as conn:
        for (kind, task, summary, lesson), vec in zip(cards, vecs, strict=True):
            ids.append(bank.insert_card(conn, NewCard(kind, task, summary, lesson, {"test": True}), vec, v0))
    bank.index_cards(ids)
    return ids


def give_visits(bank: object, card: int, rewards: list[int], pass_no: int = 1) -> None:
    """Visit a card with rewards (thousandths), statistics from the TRS rules, one visit at a time."""
    from metalogic.memory.bank import Bank, Visit
    from metalogic.memory.logic import trs_update

    assert isinstance(bank, Bank)
    stats = bank.stats_of([card])[card]
    visits = []
    for k, r in enumerate(rewards):
        st = trs_update({card: stats}, [(card, k, r)])[card]
        stats = (st.n, st.c)
        visits.append(Visit(card, pass_no, f"test/{k}", "truth", r, st))
    with bank.transaction() as conn:
        bank.record_visits(conn, visits)
