"""Does any MR's grounding grow faster than the answers? Each MR is ground alone (with the core)
on one agent's answers to the household templates of bench/check_scale.py (the `solo` workload),
at N and 2N answers.

A rule whose join pairs an agent's answers with each other (two answer literals that clingo reads
before the case that links them) grows with the square of one agent's answers: its time beyond the
core about quadruples when the answers double, where a linear rule's doubles. Five agents sharing
the answers hide it (each has a fifth of them). MR4's legs were such a rule until they were read in
two rules (CHANGES.md): at 50k and 100k answers 2N/N was 3.9 before, 1.9 after.

    .venv/bin/python bench/mr_growth.py                 # 25k and 50k answers, every MR
    .venv/bin/python bench/mr_growth.py --answers 50000 --mrs mr1 mr4

Prints a table and writes bench/results/mr_growth.json.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
RESULTS = HERE / "results" / "mr_growth.json"
BASELINE = "mr12"  # an MR with no case on the household templates: its time is the core's
NOISE_S = 0.05  # an MR that adds less than this to the core at N has no growth to read


def ground_seconds(program: str, mr: str, reps: int) -> float:
    """Best of `reps` groundings of the core and one MR on the facts."""
    from metalogic.engine.check.run import resolve_params
    from metalogic.engine.rules.loader import load_ruleset, select_mrs
    from metalogic.engine.session.api import Session, param_facts

    rules = select_mrs(load_ruleset(), mr)
    best = math.inf
    for _ in range(reps):
        session = (
            Session("clingo").load(*rules.lp_files).add(program + param_facts(resolve_params(rules, [])))
        )
        t0 = time.perf_counter()
        session.ground()
        best = min(best, time.perf_counter() - t0)
    return best


def facts_program(folder: Path) -> str:
    from metalogic.engine.facts import read_facts

    return "".join(f"{f}.\n" for f in read_facts(folder).facts)


def main() -> None:
    from scale_facts import SOLO, write_run

    from metalogic.engine.rules.loader import load_ruleset

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--answers", type=int, default=25_000, help="N: the smaller size (the larger is 2N)")
    ap.add_argument("--reps", type=int, default=2, help="groundings per measurement (the best counts)")
    ap.add_argument("--mrs", nargs="+", help="only these MRs (default: every shipped MR)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    mrs = args.mrs or [m.id for m in load_ruleset().mrs]
    with tempfile.TemporaryDirectory(prefix="mr_growth-") as tmp:
        small, large = Path(tmp, "small"), Path(tmp, "large")
        write_run(small, args.answers, agents=SOLO)
        write_run(large, 2 * args.answers, agents=SOLO)
        programs = {"n": facts_program(small), "2n": facts_program(large)}
    times = {
        key: {mr: ground_seconds(p, mr, args.reps) for mr in {*mrs, BASELINE}} for key, p in programs.items()
    }
    rows: list[dict[str, Any]] = []
    for mr in mrs:
        extra = {key: times[key][mr] - times[key][BASELINE] for key in times}
        growth = extra["2n"] / extra["n"] if extra["n"] > NOISE_S else None
        rows.append({"mr": mr, "n_s": extra["n"], "2n_s": extra["2n"], "growth": growth})
    print(f"seconds of grounding beyond the core ({BASELINE} alone), one agent, N = {args.answers} answers")
    print(f"{'mr':>6}{'N':>8}{'2N':>8}{'2N/N':>8}")
    for r in rows:
        g = "-" if r["growth"] is None else f"{r['growth']:.2f}"
        print(f"{r['mr']:>6}{r['n_s']:>8.2f}{r['2n_s']:>8.2f}{g:>8}")
    core = {k: times[k][BASELINE] for k in times}
    print(f"core: {core['n']:.2f} s at N, {core['2n']:.2f} s at 2N (2N/N near 2 is linear, near 4 quadratic)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"answers": args.answers, "core_s": core, "mrs": rows}, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
