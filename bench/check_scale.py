"""How long `metalogic check` takes for 10k, 100k and 1M answer facts: clingo, SWI-Prolog and a
naive per-test-case Python loop, measured in one run.

The facts look like a real run folder (scene.lp, queries.lp, answers/<agent>.lp). A few template
household trajectories (8 states, 4 objects, quarter-turn moves) get ground truth and detections;
their truthful answers come from the project's own truth rules (metalogic.engine.truth), and the
templates are cloned under new trajectory and query ids until the answer count is reached. Each
trajectory asks ~240 questions of every kind (moves over one and two steps and back, object and
map relations and distances for every ordered pair in two frames, sizes, depths and distances from
the agent, and ~10% asked again in another form), answered by five agents: a truthful one, three
noisy ones (10%, 30% and 100% of answers replaced by random values, 1% invalid) and one named by a
string.

A second workload, `worlds` (bench/world_runs.py), is a run folder made by the project's own
pipeline: synthetic 3-D worlds with cameras and boxes, every question `metalogic generate` asks
about them, and five reference agents' answers from `metalogic ask`. It is the one where the MRs
that read boxes (mr5, mr7-mr11, mr16) make test cases; the household templates have no camera.

A third, `solo`, is the household templates answered by one agent (10% noise) instead of five: the
same number of answers asks five times as many questions, and so makes five times as many test
cases per answer. It is what a benchmark of a single model looks like, and where the per-case cost
of the rules (rather than the per-answer one) decides the time.

Measured per workload and size, in one run: clingo as one `check` in one process, phase by phase (reading the
facts in Python, parsing the program, grounding, solving, turning the model into result lines and
those into rows); `metalogic check --workers N` on the same facts (shards of whole trajectories
checked by N processes, timed from reading the facts to the rows); SWI-Prolog as one `check`; and
the naive baseline, ONE MR (MR2 symmetry on map directions) as a Python loop over its test cases
on facts parsed line by line (it exists only here). One clingo process needs about 12 GB for 1M
answers, so by default sizes above --one-process-limit (100k) and --prolog-limit (100k) run only
with --workers.

    .venv/bin/python bench/check_scale.py                    # 10k, 100k, 1M
    .venv/bin/python bench/check_scale.py --sizes 10000 100000 --prolog-limit 100000
    .venv/bin/python bench/check_scale.py --workloads worlds --sizes 100000
    .venv/bin/python bench/check_scale.py --keep /tmp/runs --reuse      # the folders of an earlier --keep

Prints a table and writes bench/results/check_scale.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scale_facts import AGENTS, SOLO, write_run

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "check_scale.json"
WORKLOADS = ("households", "worlds", "solo")


# ---------------------------------------------------------------------------------------------
# Measurements.


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def measure_clingo(folder: Path, detail: bool = True) -> dict[str, Any]:
    """The clingo path of `metalogic check` (engine/check/run.py with one process), phase by phase:
    detail=True as `check --out` (everything it writes), False as `check` (the score table).
    The facts are parsed by clingo on a second thread while they are read (backends.ClingoStream):
    `read_facts` is the reading with the parsing beside it, `clingo_parse` the wait for the parser
    after the last chunk."""
    from metalogic.engine.facts import read_facts
    from metalogic.engine.results import parse_output
    from metalogic.engine.rules.loader import load_ruleset
    from metalogic.engine.session.api import param_facts
    from metalogic.engine.session.runs import ClingoStream, EngineOutput, wanted

    rules, t_rules = timed(load_ruleset)
    with ClingoStream(rules, detail) as stream:
        facts, t_read = timed(lambda: read_facts(folder, sink=stream.feed))
        _, t_parse = timed(stream.parsed)
        session = stream.session
    session.add(param_facts({})).show(*wanted(detail).items())
    _, t_ground = timed(session.ground)
    symbols, t_solve = timed(session.symbols)
    out = EngineOutput("clingo")

    def to_lines() -> None:
        for s in symbols:
            out.lines[s.name].add(str(s))

    _, t_lines = timed(to_lines)
    rows, t_rows = timed(lambda: parse_output(out))
    total = t_rules + t_read + t_parse + t_ground + t_solve + t_lines + t_rows
    return {
        "load_rules": t_rules,
        "read_facts": t_read,
        "clingo_parse": t_parse,
        "ground": t_ground,
        "solve": t_solve,
        "result_lines": t_lines,
        "rows": t_rows,
        "total": total,
        "testcases": rows.case_count,
        "violations": rows.violation_count,
        "facts": len(facts),
    }


class ChildPeak:
    """The largest peak resident memory (VmHWM) of any worker process while the block runs, polled
    from /proc. getrusage(RUSAGE_CHILDREN) would not do: a child forked from a big parent counts
    the parent's pages it held before exec."""

    def __init__(self, every: float = 0.1) -> None:
        self.every, self.peak_kb, self._stop = every, 0, threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self) -> ChildPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _poll(self) -> None:
        me = os.getpid()
        while not self._stop.wait(self.every):
            for pid in _descendants(me):
                try:
                    # a child between fork and exec still shows this process's peak: only workers
                    # count, spawned ones or those forked by the fork server (their command lines
                    # name spawn_main or forkserver)
                    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                    if b"spawn_main" not in cmdline and b"forkserver" not in cmdline:
                        continue
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue  # ended meanwhile
                for line in status.splitlines():
                    if line.startswith("VmHWM:"):
                        self.peak_kb = max(self.peak_kb, int(line.split()[1]))

    @property
    def peak_mb(self) -> float:
        return self.peak_kb / 1024


def _descendants(pid: int) -> list[str]:
    """The processes below `pid` (workers are the fork server's children, not this process's)."""
    found: list[str] = []
    todo = [str(pid)]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*/children"):
            try:
                kids = task.read_text().split()
            except OSError:
                continue
            found += kids
            todo += kids
    return found


def measure_sharded(folder: Path, workers: int, detail: bool = True) -> dict[str, Any]:
    """`metalogic check --workers N` (detail=False) or `check --out --workers N` (detail=True, what
    it writes): the facts split into shards of whole trajectories, checked by N processes
    (engine/shards/run.py), timed from reading the facts to the result rows, pool start-up included;
    with the largest peak memory of one worker process and of this process (the facts, the merge)."""
    import resource

    from metalogic.engine.check.run import run_check
    from metalogic.engine.shards.plan import split_by_trajectory
    from metalogic.engine.shards.run import shard_count

    with ChildPeak() as children:
        res, total = timed(lambda: run_check(str(folder), workers=workers, detail=detail))
    return {
        "workers": workers,
        "peak_worker_rss_mb": children.peak_mb,
        # of this whole process so far (the generated facts included): an upper bound for `check`
        "peak_main_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "shards": len(split_by_trajectory(res.facts.facts, shard_count(len(res.facts), workers))),
        "total": total,
        "testcases": res.rows.case_count,
        "violations": res.rows.violation_count,
    }


def measure_prolog(folder: Path) -> dict[str, Any]:
    from metalogic.engine.facts import read_facts
    from metalogic.engine.results import parse_output
    from metalogic.engine.rules.loader import load_ruleset
    from metalogic.engine.session.runs import run_engine

    rules = load_ruleset()
    facts, t_read = timed(lambda: read_facts(folder))
    out, t_engine = timed(lambda: run_engine("prolog", rules, facts.program(), {}))
    rows, t_rows = timed(lambda: parse_output(out))
    return {
        "read_facts": t_read,
        "engine": t_engine,
        "rows": t_rows,
        "total": t_read + t_engine + t_rows,
        "testcases": rows.case_count,
        "violations": rows.violation_count,
    }


def naive_mr2_map(folder: Path) -> dict[str, Any]:
    """Baseline: MR2 symmetry on map directions as a plain Python loop over test cases. The inverse
    table comes from the rules (metalogic algebra); the facts are parsed line by line."""
    from metalogic.engine.algebra import inverse
    from metalogic.engine.terms import Fun, parse_fact_line, text

    t0 = time.perf_counter()
    inv = inverse("map")
    queries: dict[tuple[str, ...], list[str]] = {}
    answers: dict[str, dict[str, str]] = {}
    for path in sorted(folder.rglob("*.lp")):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                parsed = parse_fact_line(line)
                if parsed is None:
                    continue
                fact = parsed[0]
                assert isinstance(fact, Fun)
                if fact.name == "query" and isinstance(fact.args[1], Fun) and fact.args[1].name == "map_dir":
                    t, s, a, b = (text(x) for x in fact.args[1].args)
                    queries.setdefault((t, s, a, b), []).append(text(fact.args[0]))
                elif fact.name == "answer":
                    answers.setdefault(text(fact.args[1]), {})[text(fact.args[0])] = text(fact.args[2])
    t_read = time.perf_counter() - t0
    cases = violations = 0
    for (t, s, a, b), ids in queries.items():
        for q1 in ids:
            for q2 in queries.get((t, s, b, a), []):
                if a == b or not q1 < q2:
                    continue
                cases += 1
                for agent, v1 in answers.get(q1, {}).items():
                    v2 = answers.get(q2, {}).get(agent)
                    if v2 is None:
                        continue
                    if v1 == "invalid" or v2 == "invalid" or inv.get(v1) != v2:
                        violations += 1
    total = time.perf_counter() - t0
    return {
        "read_facts": t_read,
        "loop": total - t_read,
        "total": total,
        "testcases": cases,
        "violations": violations,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument(
        "--workloads",
        nargs="+",
        choices=WORKLOADS,
        default=list(WORKLOADS),
        help="households: cloned templates (no camera); worlds: the pipeline's own synthetic worlds; "
        "solo: the household templates answered by one agent (five times the questions per answer)",
    )
    ap.add_argument(
        "--one-process-limit",
        type=int,
        default=100_000,
        help="largest size checked as one clingo run (1M needs ~12 GB)",
    )
    ap.add_argument("--prolog-limit", type=int, default=100_000, help="largest size run on Prolog")
    ap.add_argument("--shard-answers", type=int, default=16_000, help="answers per shard")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--keep", type=Path, help="keep the generated run folders here")
    ap.add_argument(
        "--reuse",
        action="store_true",
        help="with --keep: check the folders an earlier --keep run left there instead of making them again",
    )
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="check_scale-"))
    probe_start = speed_probe()
    results: list[dict[str, Any]] = []
    try:
        for workload in args.workloads:
            for n in args.sizes:
                folder = (args.keep or tmp) / f"{workload}_{n}"
                results.append(measure_size(workload, n, args, folder))
                if not args.keep:
                    shutil.rmtree(folder)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print_table(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "load_avg_at_end": os.getloadavg(),
            "speed_probe_s": {"start": probe_start, "end": speed_probe()},
        },
        "target": "100k answers in 3 s in one clingo process; SWI-Prolog 100k in 15 s (issue 11)",
        "results": results,
    }
    tmp_out = args.out.with_suffix(".json.tmp")
    tmp_out.write_text(json.dumps(payload, indent=2) + "\n")
    os.replace(tmp_out, args.out)
    print(f"\nwrote {args.out}")


def speed_probe() -> float:
    """Seconds for a fixed pure-Python loop: this machine's speed at the moment. Shared machines
    vary (the same check took 25% longer an hour later on the machine of docs/performance.md), so
    each row records the probe next to its times."""
    t = time.perf_counter()
    total = 0
    for i in range(10_000_000):
        total += i
    return time.perf_counter() - t


def measure_size(workload: str, n: int, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    t0 = time.perf_counter()
    saved = folder.with_name(folder.name + ".counts.json")  # what a kept folder holds
    if args.reuse and saved.is_file() and folder.is_dir():
        counts = json.loads(saved.read_text())
    elif workload == "worlds":
        from world_runs import write_worlds_run

        counts = write_worlds_run(folder, n)
    else:
        agents = SOLO if workload == "solo" else AGENTS
        counts = write_run(folder, n, shard_answers=args.shard_answers, agents=agents)
    saved.write_text(json.dumps(counts))
    if workload == "worlds":
        folder = folder / "run"
    row: dict[str, Any] = {
        "workload": workload,
        "answers": counts["answers"],
        "counts": counts,
        "generate_s": time.perf_counter() - t0,
        "bytes": sum(p.stat().st_size for p in folder.rglob("*.lp")),
        "load_avg_before": os.getloadavg(),
        "speed_probe_s": speed_probe(),
    }
    row["clingo_one_process"] = measure_clingo(folder) if n <= args.one_process_limit else None
    # `metalogic check` without --out: the score table only (logic/core/detail.lp left out).
    row["clingo_scores"] = measure_clingo(folder, detail=False) if n <= args.one_process_limit else None
    row["clingo_sharded"] = measure_sharded(folder, args.workers)
    row["clingo_sharded_scores"] = measure_sharded(folder, args.workers, detail=False)
    row["prolog"] = measure_prolog(folder) if n <= args.prolog_limit else None
    row["naive_mr2_map"] = naive_mr2_map(folder)
    one, shd, pro, nv = row["clingo_one_process"], row["clingo_sharded"], row["prolog"], row["naive_mr2_map"]
    print(
        f"{workload} {row['answers']:>9} answers: clingo {fmt(one['total'] if one else None)} s one process, "
        f"{fmt(shd['total'])} s in {shd['shards']} shards x {shd['workers']} workers "
        f"({fmt(row['clingo_sharded_scores']['total'])} s for the score table alone); prolog "
        f"{fmt(pro['total'] if pro else None)} s; naive MR2 loop {fmt(nv['total'])} s",
        flush=True,
    )
    return row


def fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def print_table(results: list[dict[str, Any]]) -> None:
    print(
        "\nseconds per check (one run each; facts read from disk each time). scores: `check` (the score "
        "table only); clingo, clingo x2 (2 workers), prolog: `check --out` (everything it writes)"
    )
    cols = (
        "workload",
        "answers",
        "facts",
        "cases",
        "scores",
        "clingo",
        "clingo x2",
        "scores x2",
        "prolog",
        "naive*",
        "read",
        "parse",
        "ground",
        "solve",
        "lines",
        "rows",
    )
    print("".join(f"{c:>10}" for c in cols))
    for r in results:
        one, shd, pro, nv = r["clingo_one_process"], r["clingo_sharded"], r["prolog"], r["naive_mr2_map"]
        facts = sum(r["counts"][k] for k in ("answers", "queries", "scene"))
        cells = [
            r.get("workload", "households"),
            str(r["answers"]),
            str(facts),
            str(shd["testcases"]),
            fmt(r["clingo_scores"]["total"] if r.get("clingo_scores") else None),
            fmt(one["total"] if one else None),
            fmt(shd["total"]),
            fmt(r["clingo_sharded_scores"]["total"] if r.get("clingo_sharded_scores") else None),
            fmt(pro["total"] if pro else None),
            fmt(nv["total"]),
        ]
        if one:
            parse = one.get("program_text", 0.0) + one["clingo_parse"]  # (older runs: text, then parse)
            cells += [
                fmt(one["read_facts"]),
                fmt(parse),
                fmt(one["ground"]),
                fmt(one["solve"]),
                fmt(one["result_lines"]),
                fmt(one["rows"]),
            ]
        print("".join(f"{c:>10}" for c in cells))
    print(
        "clingo: one `check` in one process (phases on the right); clingo x2: the same facts as shards of "
        "trajectories (split by agent when too big)\nchecked by worker processes (scores x2: the score "
        "table alone);\n"
        "* naive: MR2 on map directions only (one MR, one capability) as a Python loop over its cases; "
        "the engines check all sixteen MRs on all eight capabilities."
    )
    probes = ", ".join(f"{r['workload']} {r['answers']}: {r['speed_probe_s']:.2f} s" for r in results)
    print(f"speed probe (a fixed Python loop, lower is faster) before each size: {probes}")


if __name__ == "__main__":
    main()
