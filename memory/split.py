"""Environment and deployment splits of a run folder, disjoint by trajectory.

The memory is built on the environment split and evaluated read-only on the deployment split, so no
trajectory (no scene) the memory has seen is ever asked about again.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from metalogic.agents.rundir import _read_meta
from metalogic.engine.errors import MetalogicError
from metalogic.engine.facts import display_path, read_facts
from metalogic.engine.results import split_args
from metalogic.engine.whole_files import write_text_whole


def _first(fact: str) -> str:
    return split_args(fact)[0] if "(" in fact else ""


def split_run(
    run_dir: str | Path, env_dir: str | Path, deploy_dir: str | Path, fraction: float = 0.5, seed: int = 42
) -> tuple[list[str], list[str]]:
    """Write two run folders holding disjoint sets of the run's trajectories; returns their ids."""
    root = Path(run_dir)
    for name in ("scene.lp", "queries.lp"):
        if not (root / name).is_file():
            raise MetalogicError.single(
                f"{display_path(root / name)} is missing",
                expected="a run folder written by 'metalogic generate'",
                fix="run 'metalogic generate FACTS_DIR --out RUN_DIR' first",
            )
    if not 0 < fraction < 1:
        raise MetalogicError.single(
            f"bad value '{fraction}' for --fraction",
            expected="a decimal between 0 and 1",
            fix="e.g. --fraction 0.5",
        )
    outs = [Path(env_dir), Path(deploy_dir)]
    if outs[0].resolve() == outs[1].resolve() or root.resolve() in (outs[0].resolve(), outs[1].resolve()):
        raise MetalogicError.single(
            "the split folders must differ from each other and from RUN_DIR",
            fix="give --env and --deploy two new folders",
        )
    for out in outs:
        if (out / "scene.lp").exists() or (out / "queries.lp").exists():
            raise MetalogicError.single(f"{display_path(out)} already holds a run", fix="choose a new folder")
    scene = read_facts(root / "scene.lp").facts
    queries = read_facts(root / "queries.lp").facts
    trajs = sorted({_first(split_args(f)[1]) for f in queries if f.startswith("query(")})
    if len(trajs) < 2:
        raise MetalogicError.single(
            f"{display_path(root)} asks about {len(trajs)} trajectory; a split needs two",
            fix="generate questions for more trajectories",
        )
    order = trajs[:]
    random.Random(seed).shuffle(order)
    n_env = min(len(order) - 1, max(1, round(fraction * len(order))))
    env, deploy = sorted(order[:n_env]), sorted(order[n_env:])
    meta = _read_meta(root)
    scene_root = str((root / str(meta.get("scene_root") or ".")).resolve())
    for out, part, other in ((outs[0], env, "environment"), (outs[1], deploy, "deployment")):
        keep = set(part)
        qs = [f for f in queries if f.startswith("query(") and _first(split_args(f)[1]) in keep]
        ids = {_first(f) for f in qs}
        qs += [f for f in queries if f.startswith("form(") and _first(f) in ids]
        out.mkdir(parents=True, exist_ok=True)
        write_text_whole(out / "scene.lp", "".join(f"{f}.\n" for f in scene if _first(f) in keep))
        write_text_whole(out / "queries.lp", "".join(f"{f}.\n" for f in qs))
        info = {
            **meta,
            "scene_root": scene_root,
            "split": {
                "of": str(root.resolve()),
                "part": other,
                "trajectories": part,
                "seed": seed,
                "fraction": fraction,
            },
        }
        write_text_whole(out / "run.json", json.dumps(info, indent=1) + "\n")
    return env, deploy
