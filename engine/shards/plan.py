"""Planning the shards of a check: which facts go together.

Facts are grouped by trajectory: each fact's owner is its first argument, a query's owner the
trajectory of its content, and a fact about a query (form, answer, raw_reply) belongs where the
query does; trajectories that share a query id stay together. Trajectories fill shards of similar
sizes, and a trajectory bigger than a shard is split by agent (every part holding its scene and
questions). engine/shards/run.py checks the shards and merges their lines; nothing here runs a rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from metalogic.engine.results import split_args

if TYPE_CHECKING:
    import polars as pl

_BY_QUERY = ("form", "answer", "raw_reply")  # facts tied to a trajectory through their query id
_BY_AGENT = ("answer", "raw_reply")  # facts of one agent (its name the first argument)


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
