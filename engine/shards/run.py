"""Checking in shards of whole trajectories, in parallel processes.

Every test case lies inside one trajectory: each shipped MR joins queries that share the
trajectory (tests/test_shards.py probes them), a user's MRs are probed before sharding, on the
engine that checks them (refused with a clear error when a case joins two trajectories, or when
checking two trajectories apart changes a result line), and
the input checks keep to one trajectory too (a query id reused across trajectories ties those
trajectories together). The facts therefore split by trajectory into shards (engine/shards/plan.py)
that the engines check independently, and the shards' result lines together are the lines of one
big run:

- test cases, violations, explanations, per-answer rows and input
  errors belong to one shard each, and are simply collected;
- the count rows (score_mr, invalid_cases, score_traj, score_object, score_pooled for the agents,
  and the numbers of cases and violations, case_count and violation_count)
  are merged by the rules of logic/core/merge.lp, given as part(Shard, Row) facts: per-MR counts
  add up over shards, an agent that a shard does not know counts zero there, and the totals and
  the headline follow by the rules of one run (sets.lp, headline.lp).

No rule is evaluated here: the shards' engines do all the logic, this module only moves facts and
result lines. tests/test_shards.py checks that sharded and unsharded runs give identical lines.
"""

from __future__ import annotations

import os
import pickle
import random
import signal
import threading
import time
import traceback
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import get_all_start_methods, get_context
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from metalogic.engine.errors import MetalogicError, Problem
from metalogic.engine.facts import (
    MAX_PROBLEMS,
    FactSet,
    display_path,
    list_fact_files,
    read_facts,
    read_one_file,
)
from metalogic.engine.results import split_args
from metalogic.engine.rules.loader import RuleSet, load_ruleset, select_mrs
from metalogic.engine.session.api import Session
from metalogic.engine.session.runs import (
    RESULTS,
    EngineOutput,
    EngineRun,
    listening,
    notify_engine_run,
    run_engine,
)
from metalogic.engine.shards.plan import plan_shards
from metalogic.engine.terms import Fun
from metalogic.logic import CORE_DIR

if TYPE_CHECKING:
    from multiprocessing.context import ForkServerContext, SpawnContext

    WorkerContext = ForkServerContext | SpawnContext  # the fork server where there is one

# Shards stay about this small, so that memory per process stays bounded (a `check --out`
# worker at 1M answers peaks near 0.4 GB on households, 0.5 GB on the pipeline's worlds). Not much
# smaller: every shard parses and grounds the rules' fixed part again (the tables and about 2,000
# rules with no facts: 0.05 s now, 0.2 s before the rules lost their two-sided bounds), and fewer,
# bigger shards balance worse.
SHARD_FACTS = 50_000
# Every shard is checked by a fresh worker process: clingo keeps every symbol it ever made until
# its process ends (potassco/clingo#203), so a worker that checks several shards grows with each
# (about 0.2 GB a shard of synthetic worlds) and grounds more slowly as it grows. Measured on the
# 1M-answer worlds (32 shards, two workers): 8 shards a worker 31.6 s, 4 27.6 s, 2 23.7 s, 1 22.5 s.
# Processes, not threads: clingo grounds without Python's lock, but it makes every symbol under one
# mutex of the whole process, and two Controls grounding at once on two threads wait on each other
# at every symbol: on the 100k-answer worlds two threads took 40.9 s where one Control took 5.8 s
# and two processes 3.1 s (bench/shard_threads.py).
# The shards' count rows that logic/core/merge.lp reads, and the rows it derives in their place.
MERGE_INPUT = (
    "score_mr",
    "score_pooled",
    "invalid_cases",
    "score_traj",
    "score_object",
    "case_count",
    "violation_count",
    "tested_answers",
)
MERGE_OUTPUT = (*MERGE_INPUT, "score_set", "score", "score_from")


PROBE_SEEDS = 24  # probe worlds per check of a user's MRs (each two copies of a random trajectory)


def probe_copies(seeds: int = PROBE_SEEDS) -> tuple[str, str]:
    """Probe worlds for the one-trajectory law: for each seed, two copies of one random trajectory
    (engine/audit/random_facts.py) in one scene, with the same questions and boxes under other ids and
    other answers; the `a` copies and the `b` copies as two facts programs. An MR that joins the
    copies would lose those cases (or change their verdicts) when the trajectories land in
    different shards."""
    from metalogic.engine.audit.random_facts import random_program

    def copies(copy: str, answer_seed: int) -> str:
        return "".join(
            random_program(
                random.Random(seed),
                f"probe{seed}{copy}",
                answers=random.Random(answer_seed + seed),
                scene="probe_scene",
            )
            for seed in range(seeds)
        )

    return copies("a", 10_000), copies("b", 20_000)


def cross_trajectory_cases(rules: RuleSet, seeds: int = PROBE_SEEDS) -> dict[str, tuple[str, str, str]]:
    """The MRs of `rules` whose .lp rules make a test case from queries of two trajectories (that
    read them through case_query/2 or case_support/2), each with one such case (case, trajectory,
    trajectory), found on the probe worlds by logic/core/one_trajectory.lp."""
    session = Session("clingo").load(*rules.lp_files, CORE_DIR / "one_trajectory.lp")
    found: dict[str, tuple[str, str, str]] = {}
    a, b = probe_copies(seeds)
    for line in sorted(session.add(a + b).show(("case_across", 4)).rows("case_across", 4)):
        case, mr, t1, t2 = split_args(line)
        found.setdefault(mr, (case, t1, t2))
    return found


ENGINE_LABELS = {"clingo": "clingo", "prolog": "SWI-Prolog"}
# Where a result line names its MR (the rows that do not are totals over MRs).
_MR_ARG = {"testcase": 1, "violation": 2, "score_mr": 2}


def trajectory_dependence(
    rules: RuleSet, params: Mapping[str, int] | None = None, seeds: int = PROBE_SEEDS, engine: str = "clingo"
) -> dict[str, str]:
    """The MRs whose result lines on `engine` change when the probe worlds' two copies of each
    trajectory are checked apart and merged as shards are, each with the first line that differs.
    This sees what the rules do, not how they say it: a case that joins the copies, and also a
    violation that reads another trajectory's answers without naming them as its case's queries.
    A difference no MR's row shows (a total) is reported under every MR of `rules`."""
    a, b = probe_copies(seeds)
    params = params or {}
    whole = run_engine(engine, rules, a + b, params)
    apart = merge_outputs(engine, [run_engine(engine, rules, part, params) for part in (a, b)], rules)
    found: dict[str, str] = {}
    totals: list[str] = []
    for kind in [*_MR_ARG, *sorted({*whole.lines, *apart.lines} - _MR_ARG.keys())]:
        for line in sorted(whole.lines[kind] ^ apart.lines[kind]):
            when = "they are checked together" if line in whole.lines[kind] else "they are checked apart"
            why = f"the line {line} comes only when {when}"
            if kind in _MR_ARG:
                found.setdefault(split_args(line)[_MR_ARG[kind]], why)
            else:
                totals.append(why)
    if totals and not found:
        found = dict.fromkeys((m.id for m in rules.mrs), totals[0])
    return found


def agents_apart(rules: RuleSet, params: Mapping[str, int] | None = None, engine: str = "clingo") -> bool:
    """May a trajectory's answers be checked in parts, by agent? Only if its test cases do not depend
    on any answer and an agent's results do not depend on another agent's answers. The shipped MRs
    keep to both (tests/test_shards.py); a user's MRs are probed on the engine that checks them (a
    user's .lp and .pl may differ), and if they break either a big trajectory stays whole in one
    shard (exact, only slower)."""
    return all(m.shipped for m in rules.mrs) or agent_dependence(rules, params, engine=engine) is None


def agent_dependence(
    rules: RuleSet, params: Mapping[str, int] | None = None, seeds: int = PROBE_SEEDS, engine: str = "clingo"
) -> str | None:
    """What shows, on probe worlds of two agents, that checking agents apart would change a result
    line of `engine` (None when nothing does): the run of both agents against each agent's run
    alone."""
    from metalogic.engine.audit.random_facts import random_program

    program = "".join(
        random_program(random.Random(seed), f"probe{seed}", scene="probe_scene") for seed in range(seeds)
    )
    lines = program.splitlines(keepends=True)
    params = params or {}
    both = run_engine(engine, rules, program, params)

    def agent_of(line: str) -> str:
        return split_args(line.strip().removesuffix("."))[0]

    agents = sorted({agent_of(x) for x in lines if x.startswith("answer(")})
    for ag in agents:
        alone = "".join(x for x in lines if not x.startswith(("answer(", "raw_reply(")) or agent_of(x) == ag)
        one = run_engine(engine, rules, alone, params)
        for kind in ("testcase", "case_count"):
            if one.lines[kind] != both.lines[kind]:
                return f"{kind} rows change when only agent {ag} answers"
        for kind, rows in both.lines.items():
            mine = {x for x in rows if x.startswith(f"{kind}({ag},")}
            if mine != {x for x in one.lines[kind] if x.startswith(f"{kind}({ag},")}:
                return f"{kind} rows of agent {ag} change when the other agents' answers are left out"
    return None


def refuse_cross_trajectory(
    rules: RuleSet, params: Mapping[str, int] | None = None, engine: str = "clingo"
) -> None:
    """Sharding is exact only if every case lies in one trajectory. The shipped MRs keep to that
    (tests/test_shards.py); a user's MRs are probed before their facts are sharded, on the engine
    that checks them (a user's .lp and .pl may differ): by what their .lp rules say a case reads
    (clingo), and by whether the engine's result lines change when trajectories are checked apart."""
    user = {m.id: m for m in rules.mrs if not m.shipped}
    if not user:
        return
    evidence: dict[str, str] = {}
    if engine == "clingo":
        evidence = {
            mr: f"case {c} reads {t1} and {t2}" for mr, (c, t1, t2) in cross_trajectory_cases(rules).items()
        }
    for mr, why in trajectory_dependence(rules, params, engine=engine).items():
        evidence.setdefault(mr, f"on {ENGINE_LABELS[engine]}, {why}")
    problems = [
        Problem(
            f"MR {m.id} makes test cases from queries of two trajectories (on a probe world: "
            f"{evidence[m.id]}), and --workers checks each trajectory apart, so such cases would be lost",
            where=display_path(m.lp if engine == "clingo" else m.pl),
            expected="with --workers, MRs whose test cases read queries of one trajectory",
            fix="check without --workers (one process sees every trajectory)",
        )
        for m in user.values()
        if m.id in evidence
    ]
    if problems:
        raise MetalogicError(problems)


def _check_in_fresh_process(
    conn: Connection,
    rules_dirs: Sequence[str],
    mrs: str | Sequence[str],
    engine: str,
    facts: list[str],
    params: Mapping[str, int],
    detail: bool,
) -> None:
    """A worker's whole life: check one shard, send back its output (or the error that stopped it),
    and end at once: the interpreter's teardown would free clingo's symbols one by one (1.5 s for
    0.7 GB, measured), which the system reclaims in one go."""
    try:
        rules = select_mrs(load_ruleset(rules_dirs, engine=engine), mrs)
        conn.send((True, run_engine(engine, rules, "".join(f"{f}.\n" for f in facts), params, detail)))
    except BaseException as exc:  # any failure goes back to the caller
        conn.send((False, _sendable(exc)))
    finally:
        conn.close()
        os._exit(0)


def read_facts_in_parallel(folder: str | Path, workers: int) -> FactSet:
    """read_facts(folder) with its files read by `workers` processes at once, the biggest first:
    the same facts in the same order, and the same problems (the first MAX_PROBLEMS over all files,
    in file order, and how many more). A million answers: 3.5 s read in one process."""
    root, files = list_fact_files(folder)
    if len(files) < 2 or workers < 2:
        return read_facts(folder)
    biggest_first = sorted(range(len(files)), key=lambda i: -_size(files[i]))
    with ProcessPoolExecutor(max_workers=min(workers, len(files)), mp_context=_worker_context()) as pool:
        futures = {
            i: pool.submit(read_one_file, files[i].resolve(), display_path(files[i])) for i in biggest_first
        }
        parts = [futures[i].result() for i in range(len(files))]
    fs = FactSet(root=root, files=files)
    problems: list[Problem] = []
    more = 0
    for facts, counts, found, not_listed in parts:
        fs.facts.extend(facts)
        fs.counts.update(counts)
        room = MAX_PROBLEMS - len(problems)
        problems += found[:room]
        more += len(found[room:]) + not_listed
    if problems:
        raise MetalogicError(problems, more)
    return fs


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # the reader reports it
        return 0


def shard_count(n_facts: int, workers: int) -> int:
    """A multiple of the workers (they finish together), with at most about SHARD_FACTS facts each."""
    return workers * max(1, -(-n_facts // (SHARD_FACTS * workers)))


def run_sharded(
    engine: str,
    rules_dirs: Sequence[str],
    facts: Sequence[str],
    params: Mapping[str, int],
    workers: int,
    mrs: str | Sequence[str] = "all",
    detail: bool = True,
) -> EngineOutput:
    """The engine's output for `facts`, computed in shards by `workers` processes."""
    t0 = time.perf_counter()
    rules = select_mrs(load_ruleset(rules_dirs, engine=engine), mrs)
    refuse_cross_trajectory(rules, params, engine)
    n = shard_count(len(facts), workers)
    parts, groups = plan_shards(facts, n, by_agent=lambda: agents_apart(rules, params, engine))
    outs = _check_shards(engine, rules_dirs, mrs, parts, params, workers, detail)
    n_shards = len(parts)
    del parts  # the facts stay with the caller; the shards' copies are not needed
    merged = merge_outputs(engine, outs, rules, groups)
    if listening():
        ids = tuple(m.id for m in rules.mrs)
        notify_engine_run(EngineRun(engine, ids, 0, time.perf_counter() - t0, shards=n_shards))
    return merged


def _sendable(exc: BaseException) -> BaseException:
    """The worker's error as the caller can receive it: itself where it survives pickling (as a
    MetalogicError does), otherwise its type, message and traceback as text."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # an exception class whose arguments do not pickle
        return RuntimeError("".join(traceback.format_exception(exc)))
    return exc


def _check_shards(
    engine: str,
    rules_dirs: Sequence[str],
    mrs: str | Sequence[str],
    parts: list[list[str]],
    params: Mapping[str, int],
    workers: int,
    detail: bool,
) -> list[EngineOutput]:
    """Each shard's output, in order. Every shard gets a fresh process (clingo never frees a
    symbol, and SWI-Prolog's state must not be shared), and `workers` of them run at once: the next
    shard starts as soon as one ends, with no rounds to wait for. A failed shard stops the run: the
    shards not yet started are dropped, and its error is raised once the running ones end."""
    n_workers = min(workers, len(parts))
    failed = threading.Event()

    def check(i: int, part: list[str]) -> EngineOutput:
        if failed.is_set():  # started after a shard failed: dropped (its error is raised below)
            raise _Dropped
        try:
            return _check_in_worker(i, engine, rules_dirs, mrs, part, params, detail)
        except BaseException:
            failed.set()
            raise

    with ThreadPoolExecutor(max_workers=n_workers) as slots:  # threads that only wait on workers
        futures = [slots.submit(check, i, part) for i, part in enumerate(parts)]
        try:
            # shards start in order, so a failed shard comes before any shard dropped after it
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            raise


class _Dropped(Exception):
    """A shard not started because an earlier one failed."""


def _worker_context() -> WorkerContext:
    """Workers forked from a fork server that has imported the engines' Python side (and nothing
    else: no rules run, no SWI-Prolog started), which starts one in about 10 ms, where a spawned
    interpreter takes about 120 ms to import them. Spawned where there is no fork server."""
    if "forkserver" not in get_all_start_methods():
        return get_context("spawn")
    ctx = get_context("forkserver")
    ctx.set_forkserver_preload(["metalogic.engine.shards.run", "clingo"])
    return ctx


def start_worker(ctx: WorkerContext, args: tuple[Any, ...]) -> tuple[BaseProcess, Connection]:
    """A started worker process and the end of the pipe its output comes back on."""
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_check_in_fresh_process, args=(send, *args), daemon=True)
    proc.start()
    send.close()
    return proc, receive


def _check_in_worker(
    index: int,
    engine: str,
    rules_dirs: Sequence[str],
    mrs: str | Sequence[str],
    facts: list[str],
    params: Mapping[str, int],
    detail: bool,
) -> EngineOutput:
    proc, receive = start_worker(_worker_context(), (list(rules_dirs), mrs, engine, facts, params, detail))
    try:
        ok, got = receive.recv()
    except EOFError:
        proc.join()
        raise MetalogicError.single(
            f"the worker process checking shard {index + 1} ended without a result ({_how_ended(proc)})",
            expected="every worker to send back its shard's result lines",
            fix="if it ran out of memory, check with fewer --workers (or without --workers)",
        ) from None
    finally:
        receive.close()
    proc.join()
    if not ok:
        raise got
    assert isinstance(got, EngineOutput)
    return got


def _how_ended(proc: BaseProcess) -> str:
    code = proc.exitcode
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def merge_outputs(
    engine: str, outs: list[EngineOutput], rules: RuleSet, groups: Sequence[int] | None = None
) -> EngineOutput:
    """One run's lines from its shards' lines, emptying `outs` (each shard's output is let go once
    merged, so a big run holds its lines once): what belongs to one shard is collected; the counts
    are merged by the rules of logic/core/merge.lp (which read the MRs' declarations for the kinds
    of evidence), the totals and the headline following as in one run."""
    merged = EngineOutput(engine)
    # shards that hold the same trajectories (split by agent) share a group: their cases count once
    session = Session("clingo").load(CORE_DIR / "merge.lp", *(m.decl_file for m in rules.mrs))
    session.add([Fun("group", (i, g)) for i, g in enumerate(groups or range(len(outs)))])
    outs.reverse()
    i = -1
    while outs:
        out, i = outs.pop(), i + 1
        for kind, lines in out.lines.items():
            if kind in MERGE_INPUT:  # as data, not program text: an agent's name is a string from the facts
                session.add_printed("part", ((i, line) for line in lines))
            elif kind not in MERGE_OUTPUT:
                merged.lines[kind] |= lines
    session.show(*((k, RESULTS[k]) for k in MERGE_OUTPUT))
    for sym in session.symbols():
        merged.lines[sym.name].add(str(sym))
    return merged
