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
import math
import os
import platform
import random
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "check_scale.json"
WORKLOADS = ("households", "worlds", "solo")

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


# ---------------------------------------------------------------------------------------------
# Measurements.


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def measure_clingo(folder: Path, detail: bool = True) -> dict[str, Any]:
    """The clingo path of `metalogic check` (engine/check.py with one process), phase by phase:
    detail=True as `check --out` (everything it writes), False as `check` (the score table).
    The facts are parsed by clingo on a second thread while they are read (backends.ClingoStream):
    `read_facts` is the reading with the parsing beside it, `clingo_parse` the wait for the parser
    after the last chunk."""
    from metalogic.engine.backends import ClingoStream, EngineOutput, wanted
    from metalogic.engine.facts import read_facts
    from metalogic.engine.results import parse_output
    from metalogic.engine.rules import load_ruleset
    from metalogic.engine.session import param_facts

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
    (engine/shards.py), timed from reading the facts to the result rows, pool start-up included;
    with the largest peak memory of one worker process and of this process (the facts, the merge)."""
    import resource

    from metalogic.engine.check import run_check
    from metalogic.engine.shard_plan import split_by_trajectory
    from metalogic.engine.shards import shard_count

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
    from metalogic.engine.backends import run_engine
    from metalogic.engine.facts import read_facts
    from metalogic.engine.results import parse_output
    from metalogic.engine.rules import load_ruleset

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
