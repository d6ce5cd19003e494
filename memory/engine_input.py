"""Input facts for the memory rules, handed to the engines as data, never as program text.

The numbers and names the memory rules work on come from a bank (SQLite), from answers and from
replies: data that may have been written by anyone. So no value is ever pasted into a program or a
goal. Each input fact is a checked term (engine.terms: integers in clingo's 32-bit range, atoms and
compound terms of them) and reaches the engine through its API:

- clingo (engine.session.Session.add with terms): one rule per input predicate,
  `cand(X1,X2,X3) :- (X1,X2,X3) = @input("cand",3).`, whose only variable part is the predicate's
  name and arity (atoms, checked); the facts themselves come back from the Python context function
  as clingo symbols while grounding, so they are facts to the grounder exactly as if they had been
  written in the program.
- SWI-Prolog (engine.session.Session.call): the list of facts is built as a Prolog term through the
  foreign interface (pyswip's Functor and putTerm) and passed as the argument of the rules' entry
  predicate.

This module checks the facts; engine/session/api.py hands them over.
"""

from __future__ import annotations

import re
from typing import Any

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
