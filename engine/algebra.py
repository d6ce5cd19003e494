"""The direction algebra as tables, read from the rules (never typed in Python).

`metalogic algebra` prints these so that anyone can audit them; tests compare the clingo and the
Prolog tables entry by entry.
"""

from __future__ import annotations

import clingo

from metalogic.engine.backends import _LOCK, prolog
from metalogic.engine.rules import SHARED_TABLES
from metalogic.logic import CORE_DIR

CALCULI = ("exact", "band", "star")
PLANAR = ("n", "ne", "e", "se", "s", "sw", "w", "nw", "eq")

# Goals whose every solution is one table row; the same predicate names exist in both engines.
TABLES = {
    "compose_in": 5,
    "compose": 4,
    "universal": 3,
    "inverse": 3,
    "rotate": 4,
    "move_compose": 3,
    "move_inverse": 2,
    "sign_add": 4,
    "dir_name": 5,
}


def clingo_tables() -> dict[str, set[str]]:
    ctl = clingo.Control(["--warn=none"])
    ctl.load(str(SHARED_TABLES))
    ctl.load(str(CORE_DIR / "algebra.lp"))
    ctl.add("base", [], "".join(f"#show {n}/{a}.\n" for n, a in TABLES.items()))
    ctl.ground([("base", [])])
    out: dict[str, set[str]] = {n: set() for n in TABLES}

    def on_model(m: clingo.Model) -> None:
        for s in m.symbols(shown=True):
            out[s.name].add(str(s))

    ctl.solve(on_model=on_model)
    return out


def prolog_tables() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    with _LOCK:
        pl = prolog()
        pl.use_rules([CORE_DIR / "algebra.pl"])
        for name, arity in TABLES.items():
            args = ", ".join(f"A{i}" for i in range(arity))
            goal = f"{name}({args})"
            res = pl._call(f"ml_query_lines({goal}, {goal}, L)")
            out[name] = {x.decode() if isinstance(x, bytes) else str(x) for x in res[0]["L"]}
    return out


def tables(engine: str = "clingo") -> dict[str, set[str]]:
    return clingo_tables() if engine == "clingo" else prolog_tables()


def composition(
    calculus: str, vocab: str = "map", engine: str = "clingo"
) -> dict[tuple[str, str], list[str]]:
    """(first, second) -> possible results, for every pair of names of a vocabulary."""
    from metalogic.engine.results import split_args

    table: dict[tuple[str, str], list[str]] = {}
    for line in tables(engine)["compose_in"]:
        cal, voc, a, b, c = split_args(line)
        if cal == calculus and voc == vocab:
            table.setdefault((a, b), []).append(c)
    return table


def inverse(vocab: str = "map", engine: str = "clingo") -> dict[str, str]:
    from metalogic.engine.results import split_args

    out = {}
    for line in tables(engine)["inverse"]:
        voc, a, b = split_args(line)
        if voc == vocab:
            out[a] = b
    return out


def order(names: list[str] | set[str]) -> list[str]:
    return sorted(names, key=lambda n: PLANAR.index(n) if n in PLANAR else len(PLANAR))
