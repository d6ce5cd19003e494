"""The generated facts of the scale benches: template worlds (truth, detections and queries) copied
under fresh ids, answered by simulated agents. bench/check_scale.py and its siblings write their runs
with `write_run`; the same arguments give the same bytes.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

AGENTS = (("oracle", 0.0), ("noisy10", 0.1), ("noisy30", 0.3), ("random", 1.0), ('"gpt-4o"', 0.2))
SOLO = (("noisy10", 0.1),)  # the `solo` workload: one agent answers every question
STATES = 8
OBJECTS = ("mug", "duck", "ball", "lamp")
PAIR_STATES = (0, 4)
FX, WIDTH, HEIGHT = 320, 640, 480


# ---------------------------------------------------------------------------------------------
# Template worlds: ground truth, detections and queries, with @T and @Q placeholders for ids.


@dataclass
class Template:
    scene: list[str] = field(default_factory=list)  # fact lines with @T
    queries: list[tuple[str, str]] = field(default_factory=list)  # (local id, content with @T)
    forms: list[tuple[str, str]] = field(default_factory=list)
    truth: dict[str, str] = field(default_factory=dict)  # local id -> truthful value
    kinds: dict[str, str] = field(default_factory=dict)  # local id -> answer type


HEADINGS = {0: (1, 0), 1: (0, 1), 2: (-1, 0), 3: (0, -1)}  # quarter turns from east -> unit vector


def make_template(rng: random.Random) -> Template:
    tpl = Template()
    x, y, q = 0, 0, 1  # start at the origin facing north
    poses = []
    for _ in range(STATES):
        poses.append((x, y, q))
        act = rng.choice(["forward", "forward", "backward", "left", "right", "turn_left", "turn_right"])
        hx, hy = HEADINGS[q]
        if act == "forward":
            x, y = x + 250 * hx, y + 250 * hy
        elif act == "backward":
            x, y = x - 250 * hx, y - 250 * hy
        elif act == "left":
            x, y = x - 250 * hy, y + 250 * hx
        elif act == "right":
            x, y = x + 250 * hy, y - 250 * hx
        elif act == "turn_left":
            q = (q + 1) % 4
        else:
            q = (q + 3) % 4
    objs = {o: (rng.randint(-2500, 2500), rng.randint(-2500, 2500), rng.randint(100, 900)) for o in OBJECTS}
    tpl.scene += ["trajectory(@T,household).", "step_mm(@T,250).", f"image_size(@T,{WIDTH},{HEIGHT})."]
    for s, (px, py, pq) in enumerate(poses):
        tpl.scene.append(f"state(@T,{s}).")
        tpl.scene.append(f"gt_pose(@T,{s},{px},{py},1000,{pq * 90}).")
    for o, (ox, oy, h) in objs.items():
        tpl.scene.append(f"gt_object(@T,{o},{ox},{oy},{h // 2},{h}).")
    visible: dict[int, set[str]] = {s: set() for s in range(STATES)}
    for s, (px, py, pq) in enumerate(poses):
        hx, hy = HEADINGS[pq]
        for o, (ox, oy, h) in objs.items():
            depth = (ox - px) * hx + (oy - py) * hy
            lateral = (ox - px) * hy - (oy - py) * hx
            if depth < 300:
                continue
            cx = WIDTH // 2 + FX * lateral // depth
            ph = max(2, FX * h // depth)
            cy = HEIGHT // 2 + FX * (1000 - h // 2) // depth
            x1, x2 = cx - ph // 3, cx + ph // 3
            y1, y2 = cy - ph // 2, cy + ph // 2
            if x2 < 0 or x1 > WIDTH or y2 < 0 or y1 > HEIGHT:
                continue
            cut = x1 < 0 or y1 < 0 or x2 > WIDTH or y2 > HEIGHT
            x1, y1, x2, y2 = max(0, x1), max(0, y1), min(WIDTH, x2), min(HEIGHT, y2)
            if x2 <= x1 or y2 <= y1:
                continue
            tpl.scene.append(f"detection(@T,{s},{o},{o},{rng.randint(600, 990)},{x1},{y1},{x2},{y2}).")
            if cut:
                tpl.scene.append(f"truncated(@T,{s},{o}).")
            visible[s].add(o)
    _add_queries(tpl, rng, visible)
    return tpl


def _add_queries(tpl: Template, rng: random.Random, visible: dict[int, set[str]]) -> None:
    contents: list[tuple[str, str]] = []
    legs = (
        [(s, s + 1) for s in range(STATES - 1)]
        + [(s + 1, s) for s in range(0, STATES - 1, 2)]
        + [(s, s + 2) for s in range(0, STATES - 2, 2)]
    )
    for s1, s2 in legs:
        contents += [(f"move_dir(@T,{s1},{s2})", "move"), (f"move_dist(@T,{s1},{s2})", "steps")]
    for s in PAIR_STATES:
        for a in OBJECTS:
            for b in OBJECTS:
                if a != b:
                    contents += [
                        (f"obj_dir(@T,{s},{a},{b})", "ego"),
                        (f"obj_dist(@T,{s},{a},{b})", "mm"),
                        (f"map_dir(@T,{s},{a},{b})", "map"),
                        (f"map_dist(@T,{s},{a},{b})", "mm"),
                    ]
    for s in range(STATES):
        for o in sorted(visible[s]):
            contents += [(f"{k}(@T,{s},{o})", "mm") for k in ("size", "depth", "ego_dist")]
    again = rng.sample(contents, len(contents) // 10)
    for i, (c, ty) in enumerate(contents + again):
        qid = f"{i}"
        tpl.queries.append((qid, c))
        tpl.kinds[qid] = ty
        tpl.forms.append((qid, "choice" if i < len(contents) else "options(b,a,c)"))


def fill_truth(tpl: Template) -> None:
    """The truthful answers, from the project's truth rules (run once per template)."""
    from metalogic.engine.truth import true_answers

    ids = {f"tq{qid}": qid for qid, _ in tpl.queries}
    program = "".join(line.replace("@T", "tpl") + "\n" for line in tpl.scene)
    program += "".join(f"query(tq{qid},{c.replace('@T', 'tpl')}).\n" for qid, c in tpl.queries)
    for q, value in true_answers(program).items():
        tpl.truth[ids[q]] = value


def random_value(rng: random.Random, ty: str, names: dict[str, tuple[str, ...]], turns: list[str]) -> str:
    if ty == "move":
        return f"move({rng.choice(names['move'])},{rng.choice(turns)})"
    if ty in names:
        return rng.choice(names[ty])
    if ty == "steps":
        return str(rng.randint(0, 4))
    return str(rng.randint(0, 5000))


def write_run(
    folder: Path,
    n_answers: int,
    seed: int = 7,
    templates: int = 24,
    shard_answers: int = 50_000,
    agents: tuple[tuple[str, float], ...] = AGENTS,
) -> dict[str, int]:
    """Write a run folder with about `n_answers` answer facts; returns fact counts. Trajectories
    are written in groups of about `shard_answers` answers, each group in its own subfolder
    (shard_000/scene.lp, queries.lp, answers/<agent>.lp), only to keep single files small: every
    check reads the whole folder (`check --workers` makes its own shards)."""
    from metalogic.engine.vocab import vocabulary

    vocab = vocabulary()
    names, turns = vocab.names, list(vocab.turns)
    rng = random.Random(seed)
    tpls = [make_template(rng) for _ in range(templates)]
    for tpl in tpls:
        fill_truth(tpl)
    per_traj = sum(len(t.queries) for t in tpls) / len(tpls) * len(agents)
    n_traj = max(1, math.ceil(n_answers / per_traj))
    per_shard = max(1, round(shard_answers / per_traj))
    counts = {"trajectories": 0, "queries": 0, "answers": 0, "scene": 0, "shards": 0}
    for first in range(0, n_traj, per_shard):
        if counts["answers"] >= n_answers:
            break
        shard = folder / f"shard_{first // per_shard:03d}"
        (shard / "answers").mkdir(parents=True, exist_ok=True)
        counts["shards"] += 1
        with (shard / "scene.lp").open("w") as scene, (shard / "queries.lp").open("w") as queries:
            outs = {a: (shard / "answers" / f"{a.strip(chr(34))}.lp").open("w") for a, _ in agents}
            for i in range(first, min(first + per_shard, n_traj)):
                if counts["answers"] >= n_answers:
                    break
                _write_trajectory(
                    i, tpls[i % len(tpls)], rng, names, turns, n_answers, counts, scene, queries, outs, agents
                )
            for fh in outs.values():
                fh.close()
    return counts


def _write_trajectory(
    i: int,
    tpl: Template,
    rng: random.Random,
    names: dict[str, tuple[str, ...]],
    turns: list[str],
    n_answers: int,
    counts: dict[str, int],
    scene: Any,
    queries: Any,
    outs: dict[str, Any],
    agents: tuple[tuple[str, float], ...],
) -> None:
    t = f"t{i}"
    counts["trajectories"] += 1
    scene.writelines(line.replace("@T", t) + "\n" for line in tpl.scene)
    counts["scene"] += len(tpl.scene)
    for qid, content in tpl.queries:
        q = f"q{i}_{qid}"
        queries.write(f"query({q},{content.replace('@T', t)}).\n")
        counts["queries"] += 1
        truth = tpl.truth.get(qid)
        for agent, noise in agents:
            if counts["answers"] >= n_answers:
                break
            r = rng.random()
            if r < 0.01 and noise > 0:
                value = "invalid"
            elif truth is None or r < noise:
                value = random_value(rng, tpl.kinds[qid], names, turns)
            else:
                value = truth
            outs[agent].write(f"answer({agent},{q},{value}).\n")
            counts["answers"] += 1
    queries.writelines(f"form(q{i}_{qid},{form}).\n" for qid, form in tpl.forms)
