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

import random
import re
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

from metalogic.engine.backends import (
    RESULTS,
    EngineOutput,
    EngineRun,
    listening,
    notify_engine_run,
    run_engine,
)
from metalogic.engine.errors import MetalogicError, Problem
from metalogic.engine.facts import display_path
from metalogic.engine.results import split_args
from metalogic.engine.rules import RuleSet, load_ruleset, select_mrs
from metalogic.engine.session import Session
from metalogic.engine.terms import Fun, parse_term
from metalogic.logic import CORE_DIR

# Shards stay about this small, so that memory per process stays bounded (about 0.5 GB for
# `check --out`). Not smaller: every shard grounds the rules' fixed part again (about 0.2 s for
# the tables and 2,000 rules with no facts), which at 20k facts a shard was a fifth of the work.
SHARD_FACTS = 50_000
_BY_QUERY = ("form", "answer", "raw_reply")  # facts tied to a trajectory through their query id
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


# The leading arguments of a fact when they are plain names or numbers (most facts): read with one
# match instead of splitting the whole fact; anything else (strings, compound ids) is split properly.
_ARG = r'\s*([^,()"\s]+)\s*'
_FIRST = re.compile(rf"[a-z]\w*\({_ARG}[,)]")
_SECOND = re.compile(rf"[a-z]\w*\({_ARG},{_ARG}[,)]")
_QUERY_TRAJ = re.compile(rf"query\({_ARG},\s*[a-z]\w*\({_ARG}[,)]")


def _arg(fact: str, i: int) -> str | None:
    """Argument i (0 or 1) of a fact, or None when it has none."""
    m = (_FIRST if i == 0 else _SECOND).match(fact)
    if m:
        return m.group(i + 1)
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
    return str(int(t)) if t.lstrip("-").isdigit() else t


def split_by_trajectory(facts: Sequence[str], shards: int) -> list[list[str]]:
    """Facts grouped into at most `shards` lists of whole trajectories, of similar sizes."""
    parent: dict[str, str] = {}

    def find(t: str) -> str:
        while parent.setdefault(t, t) != t:
            parent[t] = parent[parent[t]]
            t = parent[t]
        return t

    query_traj: dict[str, str] = {}
    owner: list[str | None] = []  # the trajectory of each fact, or None (resolved below)
    for fact in facts:
        name = _name(fact)
        if name in _BY_QUERY:
            owner.append(None)
        elif name == "query":
            qid, traj = _query_traj(fact)
            q, t = _key(qid), _key(traj) if traj else ""
            if q in query_traj and t:
                parent[find(t)] = find(query_traj[q])  # one id, two trajectories: keep them together
            elif t:
                query_traj[q] = t
            owner.append(t or None)
        else:
            first = _arg(fact, 0)
            owner.append(_key(first) if first is not None else None)
    groups: dict[str, list[str]] = defaultdict(list)
    orphans: list[str] = []
    for fact, own in zip(facts, owner, strict=True):
        if own is None and (kind := _name(fact)) in _BY_QUERY:
            ref = _arg(fact, 0 if kind == "form" else 1)
            own = query_traj.get(_key(ref)) if ref is not None else None
        if own is None:
            orphans.append(fact)  # e.g. an answer to a query that does not exist: one shard reports it
        else:
            groups[find(own)].append(fact)
    bins: list[list[str]] = [[] for _ in range(max(1, min(shards, len(groups))))]
    for _, group in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        min(bins, key=len).extend(group)
    bins[0].extend(orphans)
    return [b for b in bins if b] or [[]]


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


_RULES: RuleSet | None = None


def _init_worker(rules_dirs: Sequence[str], mrs: str | Sequence[str]) -> None:
    global _RULES
    _RULES = select_mrs(load_ruleset(rules_dirs), mrs)


def _check_shard(engine: str, facts: list[str], params: Mapping[str, int], detail: bool) -> EngineOutput:
    assert _RULES is not None
    return run_engine(engine, _RULES, "".join(f"{f}.\n" for f in facts), params, detail)


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
    parts = split_by_trajectory(facts, shard_count(len(facts), workers))
    # A fresh interpreter per worker: SWI-Prolog and clingo state must not be inherited by fork.
    with ProcessPoolExecutor(
        max_workers=min(workers, len(parts)),
        mp_context=get_context("spawn"),
        initializer=_init_worker,
        initargs=(list(rules_dirs), mrs),
    ) as pool:
        n = len(parts)
        outs = list(pool.map(_check_shard, [engine] * n, parts, [params] * n, [detail] * n))
    merged = merge_outputs(engine, outs, rules)
    if listening():
        ids = tuple(m.id for m in rules.mrs)
        notify_engine_run(EngineRun(engine, ids, 0, time.perf_counter() - t0, shards=len(parts)))
    return merged


def merge_outputs(engine: str, outs: Iterable[EngineOutput], rules: RuleSet) -> EngineOutput:
    """One run's lines from its shards' lines: what belongs to one shard is collected; the counts
    are merged by the rules of logic/core/merge.lp (which read the MRs' declarations for the kinds
    of evidence), the totals and the headline following as in one run."""
    merged = EngineOutput(engine)
    parts: list[Fun] = []
    for i, out in enumerate(outs):
        for kind, lines in out.lines.items():
            if kind in MERGE_INPUT:
                # as data, not program text: an agent's name is a string from the facts
                parts.extend(Fun("part", (i, parse_term(line))) for line in lines)
            elif kind not in MERGE_OUTPUT:
                merged.lines[kind] |= lines
    session = Session("clingo").load(CORE_DIR / "merge.lp", *(m.decl_file for m in rules.mrs))
    session.add(parts).show(*((k, RESULTS[k]) for k in MERGE_OUTPUT))
    for sym in session.symbols():
        merged.lines[sym.name].add(str(sym))
    return merged
