"""Input facts for the memory rules, handed to the engines as data, never as program text.

The numbers and names the memory rules work on come from a bank (SQLite), from answers and from
replies: data that may have been written by anyone. So no value is ever pasted into a program or a
goal. Each input fact is a checked term (engine.terms: integers in clingo's 32-bit range, atoms and
compound terms of them) and reaches the engine through its API:

- clingo: one rule per input predicate, `cand(X1,X2,X3) :- (X1,X2,X3) = @input("cand",3).`, whose
  only variable part is the predicate's name and arity (atoms, checked); the facts themselves come
  back from the Python context function as clingo symbols while grounding, so they are facts to the
  grounder exactly as if they had been written in the program.
- SWI-Prolog: the list of facts is built as a Prolog term through the foreign interface (pyswip's
  Functor and putTerm) and passed as the argument of the rules' entry predicate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import clingo

from metalogic.engine.errors import MetalogicError
from metalogic.engine.terms import (
    INT_MAX,
    INT_MIN,
    MAX_DEPTH,
    RESERVED_ATOMS,
    Atom,
    Fun,
    ParseError,
    Str,
    Term,
    parse_term,
)

_NAME = re.compile(r"[a-z][A-Za-z0-9_]*")


def input_fact(fact: Fun | str) -> Fun:
    """A fact for the memory rules, checked: a compound term of atoms, integers and compound terms
    (a text is parsed as data by the strict term parser; it never runs)."""
    if isinstance(fact, str):
        try:
            fact = parse_term(fact)
        except ParseError as exc:
            raise _bad(fact, exc.what) from None
    if not isinstance(fact, Fun):
        raise _bad(fact, "not a compound term name(...)")
    problem = _problem(fact, 0)
    if problem:
        raise _bad(fact, problem)
    return fact


def _problem(t: Any, depth: int) -> str:
    if depth > MAX_DEPTH:
        return f"nested deeper than {MAX_DEPTH}"
    if type(t) is int:
        return "" if INT_MIN <= t <= INT_MAX else f"the integer {t} is outside clingo's 32-bit range"
    if isinstance(t, Atom):
        return "" if _NAME.fullmatch(t) and t not in RESERVED_ATOMS else f"{t!r} is not an atom"
    if isinstance(t, Fun) and t.args and _NAME.fullmatch(t.name):
        return next((p for p in (_problem(a, depth + 1) for a in t.args) if p), "")
    if isinstance(t, Str):
        return "strings are not memory input"
    return f"{t!r} ({type(t).__name__}) is not an atom, an integer or a compound term"


def _bad(fact: object, what: str) -> MetalogicError:
    shown = fact if isinstance(fact, str) else repr(fact)  # text() refuses what is not a term
    return MetalogicError.single(
        f"an input of the memory rules is not a fact of atoms and integers: {what} (in {shown[:80]!r})",
        expected="whole numbers in clingo's 32-bit range and lower-case names",
        fix="the memory bank may be damaged; run 'metalogic memory stats BANK' to check it",
    )


# ---- clingo --------------------------------------------------------------------------------------


def symbol(t: Term) -> clingo.Symbol:
    if isinstance(t, Fun):
        return clingo.Function(t.name, [symbol(a) for a in t.args])
    if isinstance(t, Str):
        return clingo.String(t)
    if isinstance(t, Atom):
        return clingo.Function(t)
    return clingo.Number(t)


class _Input:
    """The context of a grounding: `@input(Name, Arity)` gives the argument tuples of the input
    facts of that predicate."""

    def __init__(self, rows: dict[tuple[str, int], list[clingo.Symbol]]) -> None:
        self.rows = rows

    def input(self, name: clingo.Symbol, arity: clingo.Symbol) -> list[clingo.Symbol]:
        return self.rows.get((name.string, arity.number), [])


def ground_with_facts(ctl: clingo.Control, facts: Sequence[Fun | str]) -> None:
    """Ground `ctl`'s base program together with the input facts (passed as symbols)."""
    rows: dict[tuple[str, int], list[clingo.Symbol]] = {}
    for f in map(input_fact, facts):
        args = [symbol(a) for a in f.args]
        rows.setdefault((f.name, len(args)), []).append(args[0] if len(args) == 1 else clingo.Tuple_(args))
    ctl.add("base", [], "".join(_glue(name, n) for name, n in sorted(rows)))
    ctl.ground([("base", [])], context=_Input(rows))


def _glue(name: str, arity: int) -> str:
    assert _NAME.fullmatch(name)  # checked by input_fact; the only text that enters the program
    xs = ",".join(f"X{i}" for i in range(1, arity + 1))
    lhs = f"({xs})" if arity > 1 else xs
    return f'{name}({xs}) :- {lhs} = @input("{name}",{arity}).\n'


# ---- SWI-Prolog ----------------------------------------------------------------------------------


def prolog_lines(module: str, predicate: str, facts: Sequence[Fun | str]) -> list[str] | None:
    """Call `module:predicate(Facts, Lines)` with the input facts as a Prolog list built through the
    foreign interface; the result lines, or None when the call fails. The caller holds the lock of
    the process's one Prolog engine (metalogic.engine.backends._LOCK)."""
    from pyswip.core import PL_discard_foreign_frame, PL_exception, PL_open_foreign_frame
    from pyswip.easy import Functor, Query, Variable, getTerm
    from pyswip.easy import module as pl_module
    from pyswip.prolog import Prolog

    checked = [input_fact(f) for f in facts]
    Prolog._init_prolog_thread()
    frame = PL_open_foreign_frame()  # every term made here is released with the frame
    try:
        lines = Variable()
        Query(Functor(predicate, 2)([_prolog(f) for f in checked], lines), module=pl_module(module))
        try:
            if not Query.nextSolution():
                error = PL_exception(Query.qid)
                if error:
                    raise MetalogicError.single(
                        f"SWI-Prolog failed in {module}:{predicate}: {getTerm(error)}",
                        expected="memory rules that run without errors",
                        fix="check the rule file under logic/memory/",
                    )
                return None
            value = lines.value
        finally:
            Query.closeQuery()
    finally:
        PL_discard_foreign_frame(frame)
    return [x.decode("utf-8") if isinstance(x, bytes) else str(x) for x in value]


def _prolog(t: Term) -> Any:
    """A checked term as pyswip builds it: integers as integers, atoms as atoms (pyswip puts a
    Python str as an atom), compound terms through their functor."""
    from pyswip.easy import Functor

    if isinstance(t, Fun):
        return Functor(t.name, len(t.args))(*[_prolog(a) for a in t.args])
    if isinstance(t, Str):  # input_fact refuses strings: pyswip would make them atoms
        raise TypeError("strings are not memory input")
    return str(t) if isinstance(t, Atom) else t
