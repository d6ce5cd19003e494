"""The direction algebra as tables, read from the rules (never typed in Python).

`metalogic algebra` prints these so that anyone can audit them; tests compare the clingo and the
Prolog tables entry by entry.
"""

from __future__ import annotations

from metalogic.engine.session.api import Session
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
    return _tables(Session("clingo").load(CORE_DIR / "algebra_tables.lp").show(*TABLES.items()))


def prolog_tables() -> dict[str, set[str]]:
    return _tables(Session("prolog").load(CORE_DIR / "algebra.pl"))


def _tables(session: Session) -> dict[str, set[str]]:
    return {name: session.rows(name, arity) for name, arity in TABLES.items()}


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
