"""The candidate combinations of `metalogic generate`: enumerated by the rules, sampled in Python.

Which combinations of states and objects make a test case, and which queries (content + surface
form) each asks, is declared in logic/generate/*.lp; clingo derives them one trajectory at a time.
The sample of up to N per trajectory is drawn here, seeded, so the same seed gives the same bytes.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import clingo

from metalogic.engine.errors import MetalogicError, did_you_mean
from metalogic.engine.facts import FactSet
from metalogic.engine.results import split_args
from metalogic.engine.session.api import Session
from metalogic.logic import LOGIC_DIR

GEN_DIR = LOGIC_DIR / "generate"
ENUMERATE = GEN_DIR / "enumerate.lp"  # the files the combinations come from (not the tally)
STRATEGIES = ("share", "spread")

Query = tuple[str, str]  # (content, form) as canonical text


@dataclass(frozen=True)
class Combo:
    """One candidate combination: c(T, SC, MR, Key) and the queries it asks."""

    key: str
    traj: str
    sc: str
    mr: str
    shape: str  # the functor of Key: win, pair, tri, view, ego, two, same
    queries: tuple[Query, ...]


# ---- enumeration (logic) ---------------------------------------------------------------------


def shown_symbols(files: Sequence[Path], program: str, shows: Sequence[str]) -> list[clingo.Symbol]:
    """The atoms of `shows` (name/arity) that clingo derives from `files` and `program`."""
    session = Session("clingo").load(*files)
    return session.add(program + "".join(f"#show {s}.\n" for s in shows)).symbols()


def by_trajectory(facts: FactSet) -> dict[str, str]:
    """The scene program split by trajectory (the first argument of every scene predicate): the
    combination rules never relate two trajectories, so each is enumerated on its own."""
    parts: dict[str, list[str]] = {}
    for f in facts.facts:
        parts.setdefault(split_args(f)[0].strip(), []).append(f"{f}.\n")
    return {t: "".join(lines) for t, lines in sorted(parts.items())}


def enumerate_combos(facts: FactSet, scs: Sequence[str], params: dict[str, int]) -> list[Combo]:
    """The candidate combinations the rules in logic/generate derive from the scene."""
    extra = "".join(f"want({sc}).\n" for sc in scs)
    extra += "".join(f"gen_param_override({k},{v}).\n" for k, v in sorted(params.items()))
    combos: list[Combo] = []
    for program in by_trajectory(facts).values():
        combos += _combos_of(program + extra)
    return combos


def _combos_of(program: str) -> list[Combo]:
    forms: dict[tuple[str, str], str] = {}
    needs: dict[str, set[tuple[str, str, str]]] = {}
    for sym in shown_symbols([ENUMERATE], program, ["need/4", "form_for/3"]):
        atom = str(sym)
        if atom.startswith("form_for("):
            kind, role, form = split_args(atom)
            forms[(kind, role)] = form
        else:
            key, kind, content, role = _split_need(atom)
            needs.setdefault(key, set()).add((kind, content, role))
    combos = []
    for key in sorted(needs):
        t, sc, mr, shape = key[2:-1].split(",", 3)  # c(T,SC,MR,Key): T, SC and MR have no commas
        queries = tuple(sorted({(x, forms[(k, r)]) for k, x, r in needs[key]}))
        combos.append(Combo(key, t, sc, mr, shape.split("(")[0], queries))
    return combos


def _split_need(atom: str) -> tuple[str, str, str, str]:
    """need(Key,Kind,Content,Role) -> its four arguments. A query content has only identifiers and
    integers as arguments, so its '(' is the last one before Role; plain string search is enough
    (and many times faster than converting clingo symbols piece by piece)."""
    head, _, role = atom[5:-1].rpartition(",")
    paren = head.rfind("(")
    comma = head.rfind(",", 0, paren)
    kind_at = head.rfind(",", 0, comma)
    return head[:kind_at], head[kind_at + 1 : comma], head[comma + 1 :], role


# ---- sampling (Python: seeded and reproducible) ----------------------------------------------


def check_strategy(strategy: str) -> None:
    if strategy not in STRATEGIES:
        raise MetalogicError.single(
            f"unknown strategy '{strategy}'",
            expected=" or ".join(STRATEGIES),
            fix=did_you_mean(strategy, STRATEGIES),
        )


def _rank(seed: int, key: str) -> str:
    return hashlib.sha256(f"{seed}\x00{key}".encode()).hexdigest()


def sample(combos: Sequence[Combo], limit: int | None, seed: int, strategy: str = "share") -> list[Combo]:
    """Up to `limit` combinations per trajectory, taken in turn from each (SC, MR, shape) group, each
    group getting a share of the limit in proportion to its candidates (and at least one where there
    is room), so a sample keeps the whole's mix. `share` takes, within a group, a combination that
    needs the fewest queries not chosen yet (ties in seeded order); `spread` takes them in seeded
    order. A combination whose queries are all chosen already is a test case for free and is not counted."""
    check_strategy(strategy)
    if limit is None:
        return list(combos)
    by_traj: dict[str, list[Combo]] = {}
    for c in combos:
        by_traj.setdefault(c.traj, []).append(c)
    picked: list[Combo] = []
    for traj in sorted(by_traj):
        picked += _sample_one(by_traj[traj], limit, seed, share=strategy == "share")
    return picked


def _quotas(sizes: dict[tuple[str, str, str], int], limit: int) -> dict[tuple[str, str, str], int]:
    """Split `limit` picks over the groups in proportion to their candidates (largest remainders
    first, ties by group), so a sample keeps the mix of the whole: the MRs that check answers
    against the frames keep their share next to those that compare answers with each other."""
    total = sum(sizes.values())
    if total <= limit:
        return dict(sizes)
    base = {g: 1 if limit >= len(sizes) else 0 for g in sizes}  # each group served when there is room
    spare = limit - sum(base.values())
    exact = {g: spare * (n - base[g]) / (total - sum(base.values())) for g, n in sizes.items()}
    quota = {g: base[g] + int(x) for g, x in exact.items()}
    rest = sorted(sizes, key=lambda g: (-(exact[g] - int(exact[g])), g))
    for g in rest[: limit - sum(quota.values())]:
        quota[g] += 1
    return quota


def _sample_one(combos: list[Combo], limit: int, seed: int, *, share: bool) -> list[Combo]:
    ranks = [_rank(seed, c.key) for c in combos]
    groups: dict[tuple[str, str, str], list[tuple[int, str, int]]] = {}
    users: dict[Query, list[int]] = {}
    for i, c in enumerate(combos):
        groups.setdefault((c.sc, c.mr, c.shape), []).append((len(c.queries) if share else 0, ranks[i], i))
        for q in c.queries:
            users.setdefault(q, []).append(i)
    quota = _quotas({g: len(h) for g, h in groups.items()}, limit)
    for heap in groups.values():
        heapq.heapify(heap)
    chosen: set[Query] = set()
    done = [False] * len(combos)
    taken = dict.fromkeys(groups, 0)

    def cost(i: int) -> int:
        return sum(q not in chosen for q in combos[i].queries)

    def pop_best(heap: list[tuple[int, str, int]]) -> int | None:
        while heap:
            stored, _, i = heapq.heappop(heap)
            if done[i] or (share and stored != cost(i)):
                continue  # taken, or a stale entry (a cheaper one was pushed when its cost fell)
            done[i] = True
            if cost(i) > 0:
                return i
        return None

    picked: list[Combo] = []
    active = sorted(groups)
    while active and len(picked) < limit:
        # Once every group has had its share, the groups that still have candidates fill the rest.
        full = all(taken[g] >= quota[g] for g in active)
        for g in list(active):
            if len(picked) >= limit:
                break
            best = pop_best(groups[g]) if full or taken[g] < quota[g] else None
            if best is None:
                if full or not groups[g]:
                    active.remove(g)
                continue
            taken[g] += 1
            picked.append(combos[best])
            new = [q for q in combos[best].queries if q not in chosen]
            chosen.update(new)
            if share:
                for q in new:
                    for j in users[q]:
                        if not done[j]:
                            c = combos[j]
                            heapq.heappush(groups[(c.sc, c.mr, c.shape)], (cost(j), ranks[j], j))
    return picked
