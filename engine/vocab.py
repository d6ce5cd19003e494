"""The answer vocabularies and query kinds, read from the shared logic tables.

Prompts and answer parsers use these lists; they come from logic/core/tables.facts (through clingo),
so a name added there is known everywhere at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from metalogic.engine.session.api import Session


@dataclass(frozen=True)
class QueryKind:
    name: str
    arity: int
    sc: str
    answer_type: str  # a direction vocabulary (move, ego, map) or a magnitude (steps, mm)


@dataclass(frozen=True)
class Vocabulary:
    query_kinds: dict[str, QueryKind]
    names: dict[str, tuple[str, ...]]  # vocabulary -> direction names
    vectors: dict[tuple[str, str], tuple[int, int, int]]  # (vocabulary, name) -> (lateral, depth, vertical)
    calculus: dict[str, str]
    turns: dict[str, int]  # turn name -> quarter turns counter-clockwise
    magnitudes: tuple[str, ...]
    capabilities: dict[str, str]  # id -> name, as tables and summaries print them (tables.facts)


@lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    kinds: dict[str, QueryKind] = {}
    names: dict[str, list[str]] = {}
    vectors: dict[tuple[str, str], tuple[int, int, int]] = {}
    calculus: dict[str, str] = {}
    turns: dict[str, int] = {}
    mags: list[str] = []
    caps: dict[str, str] = {}
    for s in Session("clingo").atoms():  # the tables alone
        a = s.arguments
        if s.name == "query_kind":
            kinds[a[0].name] = QueryKind(a[0].name, a[1].number, a[2].name, a[3].name)
        elif s.name == "dir_name":
            names.setdefault(a[0].name, []).append(a[1].name)
            vectors[(a[0].name, a[1].name)] = (a[2].number, a[3].number, a[4].number)
        elif s.name == "calculus":
            calculus[a[0].name] = a[1].name
        elif s.name == "turn":
            turns[a[0].name] = a[1].number
        elif s.name == "magnitude":
            mags.append(a[0].name)
        elif s.name == "capability":
            caps[a[0].name] = a[1].string
    ordered: dict[str, tuple[str, ...]] = {}
    for voc, ns in names.items():
        keyed = sorted((_name_order(vectors[(voc, n)], calculus[voc] == "star"), n) for n in ns)
        ordered[voc] = tuple(n for _, n in keyed)
    turns = dict(sorted(turns.items(), key=lambda kv: kv[1]))
    return Vocabulary(
        kinds, ordered, vectors, calculus, turns, tuple(sorted(mags)), dict(sorted(caps.items()))
    )


def _name_order(vec: tuple[int, int, int], compass: bool = False) -> tuple[int, ...]:
    """A reading order for option lists: the zero name last; on a compass (the map) clockwise
    from north; otherwise single directions before combinations, each clockwise from forward,
    up before down."""
    lateral, depth, vertical = vec
    nonzero = 0 if compass else sum(1 for c in vec if c)
    bearing = {(0, 1): 0, (1, 1): 1, (1, 0): 2, (1, -1): 3, (0, -1): 4, (-1, -1): 5, (-1, 0): 6, (-1, 1): 7}
    clockwise = bearing.get((lateral, depth), 8)
    return (vec == (0, 0, 0), nonzero, clockwise, -vertical)
