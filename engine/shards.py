"""Checking in shards of whole trajectories, in parallel processes.

Every test case lies inside one trajectory: each shipped MR joins queries that share the
trajectory (tests/test_shards.py probes them), a user's MRs are probed before sharding
(logic/core/one_trajectory.lp, refused with a clear error when a case joins two trajectories), and
the input checks keep to one trajectory too (a query id reused across trajectories ties those
trajectories together here). The facts therefore split by trajectory into shards that the engines
check independently, and the shards' result lines together are the lines of one big run:

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
import re
import signal
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import get_all_start_methods, get_context
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from metalogic.engine.backends import (
    RESULTS,
    EngineOutput,
    EngineRun,
    listening,
    notify_engine_run,
    run_engine,
)
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
from metalogic.engine.rules import RuleSet, load_ruleset, select_mrs
from metalogic.engine.session import Session
from metalogic.engine.terms import Fun
from metalogic.logic import CORE_DIR

if TYPE_CHECKING:
    from multiprocessing.context import ForkServerContext, SpawnContext

    import polars as pl

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
_BY_QUERY = ("form", "answer", "raw_reply")  # facts tied to a trajectory through their query id
_BY_AGENT = ("answer", "raw_reply")  # facts of one agent (its name the first argument)
# The shards' count rows that logic/core/merge.lp reads, and the rows it derives in their place.
MERGE_INPUT = (
    "score_mr",
    "score_pooled",
    "invalid_cases",
    "score_traj",
    "score_object",
    "case_count",
    "violation_count",
)
MERGE_OUTPUT = (*MERGE_INPUT, "score_set", "score", "score_from")


def _name(fact: str) -> str:
    return fact[: fact.index("(")].strip() if "(" in fact else fact.strip()


# The name and the leading arguments of a fact when they are plain names or numbers (most facts):
# read with one match instead of splitting the whole fact; anything else (strings, compound ids)
# is split properly. Each pattern is linear: no two parts can match the same characters.
_ARG = r'\s*([^,()"\s]+)\s*'
_STRING_OR_ARG = r'\s*("(?:[^"\\]|\\.)*"|[^,()"\s]+)\s*'  # a first argument may be a string (an agent)
_HEAD = re.compile(rf"([a-z]\w*)\({_STRING_OR_ARG}(?:,{_ARG})?[,)]")
_QUERY_TRAJ = re.compile(rf"query\({_ARG},\s*[a-z]\w*\({_ARG}[,)]")
_NUMERIC = frozenset("-0123456789")


def _arg(fact: str, head: re.Match[str] | None, i: int) -> str | None:
    """Argument i (0 or 1) of a fact, from its _HEAD match when that holds it; None when the fact
    has no such argument."""
    if head is not None and head.group(i + 2) is not None:
        return head.group(i + 2)
    args = split_args(fact) if "(" in fact else []
    return args[i] if len(args) > i else None


def _query_traj(fact: str) -> tuple[str, str]:
    """(query id, trajectory) of a query/2 fact; the trajectory is '' when the content has none."""
    m = _QUERY_TRAJ.match(fact)
    if m:
        return m.group(1), m.group(2)
    args = split_args(fact)
    content = args[1].strip() if len(args) > 1 else ""
    return args[0], split_args(content)[0] if "(" in content else ""


def _key(term: str) -> str:
    """An id as the engines see it: integers by value (`-0` is `0`), everything else as written."""
    t = term.strip()
    if t[:1] not in _NUMERIC:
        return t
    return str(int(t)) if t.lstrip("-").isdigit() else t


def split_by_trajectory(facts: Sequence[str], shards: int) -> list[list[str]]:
    """Facts grouped into at most `shards` lists of whole trajectories, of similar sizes."""
    return plan_shards(facts, shards, by_agent=False)[0]


def plan_shards(
    facts: Sequence[str], shards: int, by_agent: bool | Callable[[], bool] = True
) -> tuple[list[list[str]], list[int]]:
    """Facts grouped into lists of whole trajectories of similar sizes (about `shards` of them), and
    each list's group. With `by_agent`, a trajectory (with those that share a query id) bigger than
    a shard is split further by agent: each part holds the trajectory's scene and queries and some
    agents' answers, and the parts share a group (their test cases are the same: merge.lp counts
    them once per group). Otherwise every list is a group of its own. `by_agent` may be a function,
    asked only when some trajectory is too big (the probe of a user's MRs costs a few clingo runs).

    Read column-wise with polars (a Python loop over a million facts took 2 s): each fact's owner
    is its first argument, a query's owner the trajectory of its content, and a fact about a query
    (form, answer, raw_reply) belongs where the query does. The few facts whose leading arguments
    are not plain names, numbers or strings are read one by one."""
    import polars as pl

    df = pl.DataFrame({"fact": pl.Series(list(facts), dtype=pl.Utf8)}).with_row_index("i")
    head = pl.col("fact").str.extract_groups("^" + _HEAD.pattern).struct
    df = df.with_columns(name=head.field("1"), a0=head.field("2"), a1=head.field("3"))
    is_query = pl.col("name") == "query"
    qt = pl.col("fact").str.extract_groups("^" + _QUERY_TRAJ.pattern).struct
    queries = df.filter(is_query).select("i", qid=qt.field("1"), qt=qt.field("2"))
    odd = df.filter(
        pl.col("name").is_null() | (pl.col("name").is_in(["answer", "raw_reply"]) & pl.col("a1").is_null())
    )
    odd_queries = queries.filter(pl.col("qid").is_null())
    if odd.height or odd_queries.height:
        df, queries = _read_odd(df, queries, odd, odd_queries)
    queries = queries.with_columns(_as_key("qid"), _as_key("qt")).filter(pl.col("qt") != "")
    query_traj, parent = _query_trajectories(queries["qid"].to_list(), queries["qt"].to_list())
    about_query = pl.col("name").is_in(list(_BY_QUERY))
    ref = pl.when(pl.col("name") == "form").then(pl.col("a0")).otherwise(pl.col("a1"))
    df = df.with_columns(_as_key("a0"), _as_key("a1")).select(
        "i",
        "fact",
        "name",
        agent=pl.col("a0"),
        owner=pl.when(about_query)
        .then(ref.replace_strict(query_traj, default=None, return_dtype=pl.Utf8))
        .when(~is_query)
        .then(pl.col("a0")),
    )
    df = df.update(queries.select("i", owner="qt"), on="i")
    roots = {t: _find(parent, t) for t in df["owner"].drop_nulls().unique().to_list()}
    df = df.with_columns(root=pl.col("owner").replace_strict(roots, default=None, return_dtype=pl.Utf8))
    sizes = dict(df.filter(pl.col("root").is_not_null()).group_by("root").len().iter_rows())
    target = -(-sum(sizes.values()) // max(1, shards))
    big = {r for r, n in sizes.items() if n > target}
    if big and not (by_agent() if callable(by_agent) else by_agent):  # asked only when it matters
        big = set()
    small = {r: n for r, n in sizes.items() if r not in big}
    # the whole trajectories fill `shards` bins, or, beside split ones, as many as their facts need
    n_bins = max(1, min(shards, len(small), -(-sum(small.values()) // target) if big else shards))
    load = [0] * n_bins
    to_bin: dict[str, int] = {}
    rank: dict[str, int] = {}  # the biggest group first, each into the emptiest bin
    for k, (root, n) in enumerate(sorted(small.items(), key=lambda r: (-r[1], r[0]))):
        b = load.index(min(load))
        to_bin[root], rank[root] = b, k
        load[b] += n
    # A fact with no trajectory (e.g. an answer to a query that does not exist) goes last into the
    # first shard, which reports it.
    df = df.with_columns(
        bin=pl.col("root").replace_strict(to_bin, default=0, return_dtype=pl.Int64),
        rank=pl.col("root").replace_strict(rank, default=len(rank), return_dtype=pl.Int64),
    )
    bins: list[list[str]] = [[] for _ in range(n_bins)]
    rest = df.filter(~pl.col("root").is_in(list(big)).fill_null(False)) if big else df
    for (b,), part in rest.sort("bin", "rank", "i").group_by("bin", maintain_order=True):
        bins[int(b)] = part["fact"].to_list()
    groups = list(range(n_bins))
    for root in sorted(big, key=lambda r: (-sizes[r], r)):
        for part_facts in _split_by_agent(df.filter(pl.col("root") == root), target):
            bins.append(part_facts)
            groups.append(n_bins)  # every part holds the trajectory's queries: one group
        n_bins += 1
    kept = [(b, g) for b, g in zip(bins, groups, strict=True) if b]
    return [b for b, _ in kept] or [[]], [g for _, g in kept] or [0]


def _split_by_agent(df: pl.DataFrame, target: int) -> list[list[str]]:
    """The facts of one trajectory group too big for a shard, in parts of about `target` facts: the
    agents' answers (and raw replies) split by agent, the group's other facts (scene, queries) in
    every part. Exact when an agent's test cases and violations do not depend on other agents'
    answers (shards.agents_apart)."""
    import polars as pl

    by_agent = pl.col("name").is_in(list(_BY_AGENT))
    shared, own = df.filter(~by_agent), df.filter(by_agent)
    counts = sorted(own.group_by("agent").len().iter_rows(), key=lambda r: (-r[1], r[0]))
    # answers per part: what leaves a part about `target` facts, but never fewer than the shared
    # facts (every part grounds those again: when they are many, fewer and bigger parts)
    budget = max(target - shared.height, shared.height, 1)
    n_parts = max(1, min(len(counts), -(-own.height // budget)))
    load = [shared.height] * n_parts
    part_of: dict[str, int] = {}
    for agent, n in counts:
        p = load.index(min(load))
        part_of[agent], load[p] = p, load[p] + n
    own = own.with_columns(part=pl.col("agent").replace_strict(part_of, return_dtype=pl.Int64))
    return [
        pl.concat([shared.select("i", "fact"), own.filter(pl.col("part") == p).select("i", "fact")])
        .sort("i")["fact"]
        .to_list()
        for p in range(n_parts)
    ]


def _read_odd(
    df: pl.DataFrame, queries: pl.DataFrame, odd: pl.DataFrame, odd_queries: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The facts the patterns do not read, split one by one (their arguments spaced or compound)."""
    import polars as pl

    names, a0s, a1s = [], [], []
    for fact in odd["fact"]:
        names.append(_name(fact))
        a0s.append(_arg(fact, None, 0))
        a1s.append(_arg(fact, None, 1))
    text = pl.Utf8
    patch = pl.DataFrame(
        {"i": odd["i"], "name": names, "a0": a0s, "a1": a1s},
        schema_overrides={"name": text, "a0": text, "a1": text},
    )
    df = df.update(patch, on="i")
    new_queries = df.filter(pl.col("i").is_in(odd["i"].to_list()) & (pl.col("name") == "query"))["i"]
    redo = pl.concat([odd_queries["i"], new_queries]).unique()
    if redo.len():
        rows = df.filter(pl.col("i").is_in(redo.to_list()))
        pairs = [_query_traj(f) for f in rows["fact"]]
        fixed = pl.DataFrame(
            {"i": rows["i"], "qid": [q.strip() for q, _ in pairs], "qt": [t.strip() for _, t in pairs]},
            schema_overrides={"qid": text, "qt": text},
        )
        queries = pl.concat([queries.filter(~pl.col("i").is_in(redo.to_list())), fixed])
    return df, queries


def _as_key(col: str) -> pl.Expr:
    """A column of ids as the engines see them (_key): only ids that look numeric need a change."""
    import polars as pl

    c = pl.col(col)
    numeric = c.str.contains(r"^\s*[-0-9]") | c.str.contains(r"^\s|\s$")
    return (
        pl.when(numeric)
        .then(c.map_elements(_key, return_dtype=pl.Utf8, skip_nulls=True))
        .otherwise(c)
        .alias(col)
    )


def _query_trajectories(qids: list[str], trajs: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Each query's trajectory (its first), and the union-find parents of trajectories that share a
    query id (one id, two trajectories: they stay together)."""
    parent: dict[str, str] = {}
    query_traj: dict[str, str] = {}
    for q, t in zip(qids, trajs, strict=True):
        first = query_traj.setdefault(q, t)
        if first != t:
            parent[_find(parent, t)] = _find(parent, first)
    return query_traj, parent


def _find(parent: dict[str, str], t: str) -> str:
    while parent.setdefault(t, t) != t:
        parent[t] = parent[parent[t]]
        t = parent[t]
    return t


PROBE_SEEDS = 24  # probe worlds per check of a user's MRs (each two copies of a random trajectory)


def cross_trajectory_cases(rules: RuleSet, seeds: int = PROBE_SEEDS) -> dict[str, tuple[str, str, str]]:
    """The MRs of `rules` that make a test case from queries of two trajectories, each with one such
    case (case, trajectory, trajectory), found on probe worlds: two copies of one random trajectory
    (engine/randomfacts.py) that differ only in their ids, in one scene. An MR that joins the copies
    would lose those cases when the trajectories land in different shards."""
    from metalogic.engine.randomfacts import random_program

    program = ""
    for seed in range(seeds):
        for copy in ("a", "b"):
            traj = f"probe{seed}{copy}"
            program += f"trajectory({traj}, probe_scene).\n" + random_program(random.Random(seed), traj)
    session = Session("clingo").load(*rules.lp_files, CORE_DIR / "one_trajectory.lp")
    found: dict[str, tuple[str, str, str]] = {}
    for line in sorted(session.add(program).show(("case_across", 4)).rows("case_across", 4)):
        case, mr, t1, t2 = split_args(line)
        found.setdefault(mr, (case, t1, t2))
    return found


def agents_apart(rules: RuleSet, params: Mapping[str, int] | None = None) -> bool:
    """May a trajectory's answers be checked in parts, by agent? Only if its test cases do not depend
    on any answer and an agent's results do not depend on another agent's answers. The shipped MRs
    keep to both (tests/test_shards.py); a user's MRs are probed, and if they break either a big
    trajectory stays whole in one shard (exact, only slower)."""
    return all(m.shipped for m in rules.mrs) or agent_dependence(rules, params) is None


def agent_dependence(
    rules: RuleSet, params: Mapping[str, int] | None = None, seeds: int = PROBE_SEEDS
) -> str | None:
    """What shows, on probe worlds of two agents, that checking agents apart would change a result
    line (None when nothing does): the run of both agents against each agent's run alone."""
    from metalogic.engine.randomfacts import random_program

    program = "".join(
        f"trajectory(probe{seed}, probe_scene).\n" + random_program(random.Random(seed), f"probe{seed}")
        for seed in range(seeds)
    )
    lines = program.splitlines(keepends=True)
    params = params or {}
    both = run_engine("clingo", rules, program, params)

    def agent_of(line: str) -> str:
        return split_args(line.strip().removesuffix("."))[0]

    agents = sorted({agent_of(x) for x in lines if x.startswith("answer(")})
    for ag in agents:
        alone = "".join(x for x in lines if not x.startswith(("answer(", "raw_reply(")) or agent_of(x) == ag)
        one = run_engine("clingo", rules, alone, params)
        for kind in ("testcase", "case_count"):
            if one.lines[kind] != both.lines[kind]:
                return f"{kind} rows change when only agent {ag} answers"
        for kind, rows in both.lines.items():
            mine = {x for x in rows if x.startswith(f"{kind}({ag},")}
            if mine != {x for x in one.lines[kind] if x.startswith(f"{kind}({ag},")}:
                return f"{kind} rows of agent {ag} change when the other agents' answers are left out"
    return None


def refuse_cross_trajectory(rules: RuleSet) -> None:
    """Sharding is exact only if every case lies in one trajectory. The shipped MRs keep to that
    (tests/test_shards.py); a user's MRs are probed before their facts are sharded."""
    user = [m for m in rules.mrs if not m.shipped]
    if not user:
        return
    found = cross_trajectory_cases(rules)
    problems = [
        Problem(
            f"MR {m.id} makes test cases from queries of two trajectories (on a probe world: case "
            f"{found[m.id][0]} reads {found[m.id][1]} and {found[m.id][2]}), and --workers checks "
            "each trajectory apart, so such cases would be lost",
            where=display_path(m.lp),
            expected="with --workers, MRs whose test cases read queries of one trajectory",
            fix="check without --workers (one process sees every trajectory)",
        )
        for m in user
        if m.id in found
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
        rules = select_mrs(load_ruleset(rules_dirs), mrs)
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
    rules = select_mrs(load_ruleset(rules_dirs), mrs)
    refuse_cross_trajectory(rules)
    n = shard_count(len(facts), workers)
    parts, groups = plan_shards(facts, n, by_agent=lambda: agents_apart(rules, params))
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
    ctx.set_forkserver_preload(["metalogic.engine.shards", "clingo"])
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
