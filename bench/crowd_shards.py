"""`check --workers 2` on a crowd: a few trajectories answered by many agents, so that a trajectory
holds more answers than a shard. Compares, in one run and on the same facts, the two ways to shard
it: whole trajectories only (one worker checks a whole trajectory, however big), and trajectories
too big for a shard split by agent (engine/shards/plan.py plan_shards; each part repeats the
trajectory's scene and questions). Both must give the same counts.

The crowd is made from a pipeline run (bench/world_runs.py, `--worlds` worlds of synthetic 3-D
scenes and the answers of five reference agents): each extra agent copies one reference agent's
answers under its own name, until the run holds `--answers` answers.

    .venv/bin/python bench/crowd_shards.py --worlds 3 --answers 1000000
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from check_scale import ChildPeak
from world_runs import ANSWERS_PER_WORLD, write_worlds_run

RESULTS = Path(__file__).resolve().parent / "results" / "crowd_shards.json"
_ANSWER = re.compile(r"answer\(\s*([^,]+?)\s*,\s*(\w+)\s*,\s*(.*)\)\.\s*$")


def write_crowd(folder: Path, worlds: int, answers: int) -> dict[str, int]:
    counts = write_worlds_run(folder, worlds * ANSWERS_PER_WORLD)
    run = folder / "run"
    per_agent: dict[str, list[tuple[str, str]]] = {}
    for path in sorted(run.glob("answers/*.lp")):
        for line in path.read_text(encoding="utf-8").splitlines():
            m = _ANSWER.match(line)
            if m:
                per_agent.setdefault(m.group(1), []).append((m.group(2), m.group(3)))
        path.unlink()
    sources = list(per_agent.values())
    written, k = 0, 0
    while written < answers:
        block = sources[k % len(sources)]
        with (run / "answers" / f"crowd{k // 100:03d}.lp").open("a", encoding="utf-8") as fh:
            fh.writelines(f"answer(crowd{k},{q},{v}).\n" for q, v in block)
        written, k = written + len(block), k + 1
    return {**counts, "answers": written, "agents": k}


def measure(folder: Path, split: bool) -> dict[str, Any]:
    from metalogic.engine.check.run import run_check
    from metalogic.engine.shards import run as shards

    real = shards.agents_apart
    if not split:
        shards.agents_apart = lambda rules, params=None, engine="clingo": False  # whole trajectories only
    try:
        with ChildPeak() as peak:
            t0 = time.perf_counter()
            res = run_check(str(folder), workers=2, detail=False)
            seconds = time.perf_counter() - t0
    finally:
        shards.agents_apart = real
    return {
        "seconds": seconds,
        "worker_peak_mb": peak.peak_mb,
        "cases": res.rows.case_count,
        "violations": sum(res.rows.violation_counts.values()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worlds", type=int, default=3, help="trajectories (synthetic worlds, at least 3)")
    ap.add_argument("--answers", type=int, default=1_000_000)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        counts = write_crowd(Path(tmp), args.worlds, args.answers)
        run = Path(tmp) / "run"
        rows = {"split by agent": measure(run, True), "whole trajectories": measure(run, False)}
    a, b = rows.values()
    if (a["cases"], a["violations"]) != (b["cases"], b["violations"]):
        raise SystemExit(f"the two shardings disagree: {rows}")
    n, agents, trajs = counts["answers"], counts["agents"], counts["trajectories"]
    print(f"{n:,} answers from {agents:,} agents in {trajs} trajectories")
    print(f"{'sharding':>20}{'seconds':>10}{'worker MB':>11}{'cases':>9}{'violations':>12}")
    for name, r in rows.items():
        print(
            f"{name:>20}{r['seconds']:>10.1f}{r['worker_peak_mb']:>11.0f}{r['cases']:>9}{r['violations']:>12}"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"counts": counts, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
