"""Where the time of a one-process clingo check goes, layer by layer, and what one ground atom costs.

For each workload of bench/check_scale.py (households, worlds, solo) at one size, the facts of the
same run folder are taken through the check program in growing layers, each ground in a fresh
clingo session (best of --reps):

    read     the fact reader (Python): every line checked against the schema
    parse    clingo parsing the facts (what `check` overlaps with the reading)
    facts    grounding the facts with no rule
    core     grounding the core rules (query contents, bookkeeping, scores) with no MR and no answer
    cases    grounding the core and every MR with no answer: enumerating the test cases
    check    grounding the core and every MR on every fact: `metalogic check` without --out

and each layer's ground atoms. `cases` is what a workload costs before a single answer is read;
`check - cases` is what its answers add, and (cases - core) / test cases what one case costs.
Dividing a layer's time by its atoms gives what one ground atom costs clingo on this machine: the
figure that bounds any encoding of the same test cases.

    .venv/bin/python bench/check_layers.py                        # 100k answers, every workload
    .venv/bin/python bench/check_layers.py --answers 10000 --workloads solo
    .venv/bin/python bench/check_layers.py --from /tmp/runs       # folders of check_scale.py --keep

Prints a table and writes bench/results/check_layers.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
RESULTS = HERE / "results" / "check_layers.json"
ANSWER_FACTS = ("answer(", "raw_reply(")  # what an agent contributes to a run's facts
TARGET_S = 3.0  # issue 11: 100k answers in one clingo process


def best_of(reps: int, fn: Callable[[], Any]) -> tuple[Any, float]:
    out, best = None, math.inf
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def ground_layer(files: list[Path], program: str, reps: int) -> dict[str, Any]:
    """Ground the rule files on the program (facts and parameters) `reps` times: the best time and
    the ground atoms per predicate."""
    from metalogic.engine.session.api import Session

    seconds, session = math.inf, None
    for _ in range(reps):
        session = Session("clingo").load(*files)
        session.parse(program)  # parsed here, so that the time below is the grounding alone
        t0 = time.perf_counter()
        session.ground()
        seconds = min(seconds, time.perf_counter() - t0)
    assert session is not None
    atoms = Counter(f"{a.name}/{len(a.arguments)}" for a in session.atoms())
    return {"seconds": seconds, "atoms": sum(atoms.values()), "top_atoms": dict(atoms.most_common(12))}


def measure(folder: Path, reps: int) -> dict[str, Any]:
    from metalogic.engine.check.run import resolve_params
    from metalogic.engine.facts import read_facts
    from metalogic.engine.rules.loader import RuleSet, load_ruleset
    from metalogic.engine.session.api import Session, param_facts

    rules = load_ruleset()
    params = param_facts(resolve_params(rules, []))
    fact_set, t_read = best_of(reps, lambda: read_facts(folder))
    lines = [f"{f}.\n" for f in fact_set.facts]
    every = "".join(lines)
    no_answers = "".join(line for line in lines if not line.startswith(ANSWER_FACTS))
    _, t_parse = best_of(reps, lambda: Session("clingo", tables=False).parse(every))
    core = RuleSet(mrs=[], params=rules.params, param_owner=rules.param_owner)
    layers = {
        "facts": ground_layer([], every, reps),
        "core": ground_layer(core.lp_files, no_answers + params, reps),
        "cases": ground_layer(rules.lp_files, no_answers + params, reps),
        "check": ground_layer(rules.lp_files, every + params, reps),
    }
    cases = layers["cases"]["top_atoms"].get("testcase/3")
    if cases is None:  # not among the commonest atoms
        cases = count_testcases(rules.lp_files, no_answers + params)
    answers = sum(line.startswith("answer(") for line in lines)
    return {
        "folder": str(folder),
        "facts": len(lines),
        "answers": answers,
        "testcases": cases,
        "read_s": t_read,
        "parse_s": t_parse,
        "layers": layers,
        "us_per_atom_check": 1e6 * layers["check"]["seconds"] / layers["check"]["atoms"],
        "us_per_case": 1e6 * (layers["cases"]["seconds"] - layers["core"]["seconds"]) / max(cases, 1),
        "atoms_per_case": (layers["cases"]["atoms"] - layers["core"]["atoms"]) / max(cases, 1),
        "answers_add_s": layers["check"]["seconds"] - layers["cases"]["seconds"],
        "before_any_answer_s": t_read + t_parse + layers["cases"]["seconds"],
    }


def count_testcases(files: list[Path], program: str) -> int:
    from metalogic.engine.session.api import Session

    atoms = Session("clingo").load(*files).add(program).atoms()
    return sum(1 for a in atoms if a.name == "testcase" and len(a.arguments) == 3)


def make_folder(workload: str, n: int, root: Path, source: Path | None) -> Path:
    """The run folder of a workload: taken from an earlier check_scale.py --keep, or made now."""
    from scale_facts import AGENTS, SOLO, write_run

    folder = (source or root) / f"{workload}_{n}"
    if source is None:
        if workload == "worlds":
            from world_runs import write_worlds_run

            write_worlds_run(folder, n)
        else:
            write_run(folder, n, agents=SOLO if workload == "solo" else AGENTS)
    elif not folder.is_dir():
        raise SystemExit(f"{folder} does not exist: make it with bench/check_scale.py --keep {source}")
    return folder / "run" if workload == "worlds" else folder


def print_table(rows: list[dict[str, Any]]) -> None:
    print(f"\nseconds (best of the reps; one clingo process); target {TARGET_S:.0f} s for the whole check")
    head = ("workload", "answers", "cases", "read", "parse", "facts", "core", "cases", "check")
    print(f"{head[0]:10} {head[1]:>8} {head[2]:>8} " + " ".join(f"{h:>6}" for h in head[3:]), end="")
    tail = ("atoms", "us/atom", "us/case", "atoms/case", "answers add", "before any answer")
    print(" " + " ".join(f"{h:>{max(len(h), 9)}}" for h in tail))
    for r in rows:
        ly = r["layers"]
        times = [r["read_s"], r["parse_s"], *(ly[k]["seconds"] for k in ("facts", "core", "cases", "check"))]
        cells = [ly["check"]["atoms"], r["us_per_atom_check"], r["us_per_case"], r["atoms_per_case"]]
        cells += [r["answers_add_s"], r["before_any_answer_s"]]
        print(f"{r['workload']:10} {r['answers']:>8} {r['testcases']:>8} ", end="")
        print(" ".join(f"{t:6.2f}" for t in times), end=" ")
        widths = [max(len(h), 9) for h in tail]
        shown = [f"{c:>{w}.{0 if isinstance(c, int) else 2}f}" for w, c in zip(widths, cells, strict=True)]
        print(" ".join(shown))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--answers", type=int, default=100_000)
    workloads = ["households", "worlds", "solo"]
    ap.add_argument("--workloads", nargs="+", choices=workloads, default=workloads)
    ap.add_argument("--reps", type=int, default=2, help="runs per layer (the best counts)")
    ap.add_argument("--from", dest="source", type=Path, help="the folder of an earlier check_scale.py --keep")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="check_layers-") as tmp:
        for workload in args.workloads:
            folder = make_folder(workload, args.answers, Path(tmp), args.source)
            rows.append({"workload": workload, **measure(folder, args.reps)})
            print(f"{workload}: done", flush=True)
    print_table(rows)
    payload = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_end": os.getloadavg()},
        "results": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
