"""The answer vocabularies and query kinds, read from the shared logic tables.

Prompts and answer parsers use these lists; they come from logic/core/tables.facts (through clingo),
so a name added there is known everywhere at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import clingo

from metalogic.engine.rules import SHARED_TABLES


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
    capabilities: dict[str, str]


@lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    ctl = clingo.Control(["--warn=none"])
    ctl.load(str(SHARED_TABLES))
    ctl.ground([("base", [])])
    kinds, names, vectors, calculus, turns, mags, caps = {}, {}, {}, {}, {}, [], {}
    for sa in ctl.symbolic_atoms:
        s = sa.symbol
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
    return Vocabulary(kinds, {k: tuple(v) for k, v in names.items()}, vectors, calculus, turns, tuple(mags), caps)
