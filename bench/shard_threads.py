"""Why `check --workers` checks shards in processes and not in threads of one process.

clingo does not hold Python's lock while it parses or grounds, so two Controls on two threads could
ground two shards at once. This script measures, on the same facts and in one run, four ways to
check them (each in a fresh interpreter, so that no way finds symbols another has made):

- `one`: one Control grounds all the facts (what `metalogic check` does);
- `threads`: the shards of engine/shards/plan.py plan_shards, one Control each, on N threads of one
  process, merged by logic/core/merge.lp;
- `threads_warm`: the same threads after one Control has made every symbol of the check once;
- `processes`: the same shards in N worker processes (`check --workers N`).

Every way must give the same counts. On the machine of docs/performance.md (2 cores, 100k answers of the
worlds) the threads took 7x as long as one Control, and 0.7x where the symbols existed already;
two processes 0.53x. clingo makes every symbol (a constant, a string, a term) under one mutex of
the whole process: two threads that make new symbols all the time wait on each other at every
one. Processes share nothing.

    .venv/bin/python bench/shard_threads.py /tmp/worlds_100k/run          # a run folder
    .venv/bin/python bench/shard_threads.py --worlds 20                    # make one (bench/world_runs.py)

Prints a table and writes bench/results/shard_threads.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "shard_threads.json"
WAYS = ("one", "threads", "threads_warm", "processes")


def measure(folder: Path, way: str, n: int) -> dict[str, Any]:
    """One way to check the facts under `folder` (the score table only), in this process."""
    from metalogic.engine.check.run import resolve_params
    from metalogic.engine.facts import read_facts
    from metalogic.engine.results import parse_output
    from metalogic.engine.rules.loader import load_ruleset, select_mrs
    from metalogic.engine.session.runs import run_clingo
    from metalogic.engine.shards.plan import plan_shards
    from metalogic.engine.shards.run import merge_outputs, run_sharded, shard_count

    rules = select_mrs(load_ruleset(), "all")
    params = resolve_params(rules, [])
    facts = read_facts(folder).facts
    parts, groups = plan_shards(facts, n)
    texts = ["".join(f"{f}.\n" for f in part) for part in parts]
    whole = "".join(f"{f}.\n" for f in facts)
    if way == "threads_warm":  # every symbol of the check made once, by one Control
        run_clingo(rules, whole, params, detail=False)
    t = time.perf_counter()
    if way == "one":
        out = run_clingo(rules, whole, params, detail=False)
    elif way == "processes":
        out = run_sharded("clingo", (), facts, params, n, detail=False)
    else:
        with ThreadPoolExecutor(max_workers=n) as pool:
            outs = list(pool.map(lambda text: run_clingo(rules, text, params, detail=False), texts))
        out = merge_outputs("clingo", outs, rules, groups)
    seconds = time.perf_counter() - t
    rows = parse_output(out)
    return {
        "way": way,
        "seconds": seconds,
        "shards": {"one": 1, "processes": shard_count(len(facts), n)}.get(way, len(parts)),
        "cases": rows.case_count,
        "violations": rows.violation_count,
        "scores": [list(r) for r in rows.scores],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", type=Path, nargs="?", help="a run folder (scene.lp, queries.lp, answers/)")
    ap.add_argument("--worlds", type=int, default=20, help="without a folder: make a run of this many worlds")
    ap.add_argument("-n", type=int, default=2, help="threads, processes and shards")
    ap.add_argument("--way", choices=WAYS, help=argparse.SUPPRESS)  # one way, in a fresh interpreter
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    if args.way:
        print(json.dumps(measure(args.folder, args.way, args.n)))
        return
    with tempfile.TemporaryDirectory(prefix="shard_threads-") as tmp:
        folder = args.folder
        if folder is None:
            sys.path.insert(0, str(HERE))
            from world_runs import ANSWERS_PER_WORLD, write_worlds_run

            write_worlds_run(Path(tmp), args.worlds * ANSWERS_PER_WORLD)
            folder = Path(tmp) / "run"
        rows = []
        for way in WAYS:
            cmd = [sys.executable, __file__, str(folder), "--way", way, "-n", str(args.n)]
            done = subprocess.run(cmd, check=True, capture_output=True, text=True)
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    first = rows[0]
    for row in rows[1:]:  # the same verdicts, or the comparison means nothing
        same = all(row[k] == first[k] for k in ("cases", "violations", "scores"))
        if not same:
            raise SystemExit(f"{row['way']} gave other counts than one Control")
    print(f"{'way':<14} {'shards':>6} {'seconds':>8} {'vs one':>7}")
    for row in rows:
        ratio = row["seconds"] / first["seconds"]
        print(f"{row['way']:<14} {row['shards']:>6} {row['seconds']:>8.2f} {ratio:>6.2f}x")
    print(f"\n{first['cases']} test cases, {first['violations']} violations, the same in every way")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for row in rows:
        del row["scores"]
    args.out.write_text(json.dumps({"folder": str(folder), "n": args.n, "rows": rows}, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
