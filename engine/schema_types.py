"""The argument types of the facts schema (engine/schema.py): how one argument position is checked.

Each type checks a parsed term and also offers a strict regular expression, so that the reader can
accept the common well-formed line without building terms; any line the fast path does not accept
is parsed fully, which either accepts it or explains precisely what is wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from metalogic.engine.terms import Atom, Fun, Str, Term, kind_name, text

ATOM_RE = r"(?!not\b)[a-z][A-Za-z0-9_]*"
STRING_RE = r'"(?:[^"\\\x00-\x08\x0a-\x1f]|\\["\\n])*"'
ID_INT_RE = r"-?(?:0|[1-9][0-9]{0,8})"  # up to 9 digits: always inside clingo's 32-bit range


def _int_re(lo: int, hi: int) -> str:
    """A regex for integers; exact for ranges 0..10^k-1, otherwise a superset to check after."""
    if lo == 0 and hi > 0 and str(hi + 1) == "1" + "0" * (len(str(hi + 1)) - 1):
        return rf"(?:0|[1-9][0-9]{{0,{len(str(hi)) - 1}}})"
    return r"-?(?:0|[1-9][0-9]{0,9})" if lo < 0 else r"(?:0|[1-9][0-9]{0,9})"


def _exact_int_range(lo: int, hi: int) -> bool:
    return lo == 0 and str(hi + 1) == "1" + "0" * (len(str(hi + 1)) - 1)


@dataclass(frozen=True)
class ArgType:
    """How one argument position is checked."""

    label: str  # what the user must write, e.g. "a non-negative integer"

    def check(self, t: Term) -> str | None:  # pragma: no cover - overridden
        raise NotImplementedError

    def fragment(self) -> tuple[str, Callable[[str], bool] | None]:
        """A regex for the fast path and, when the regex alone is not enough, a check of the
        matched text (False sends the line to the full parser)."""
        raise NotImplementedError  # pragma: no cover


@dataclass(frozen=True)
class IdType(ArgType):
    """Identifiers: an atom or an integer (strings are kept out so that both engines order ids
    the same way)."""

    label: str = "an identifier (a lower-case atom or an integer)"

    def check(self, t: Term) -> str | None:
        if isinstance(t, Atom | int) and not isinstance(t, Str):
            return None
        return f"found {kind_name(t)}"

    def fragment(self) -> tuple[str, Callable[[str], bool] | None]:
        return f"(?:{ATOM_RE}|{ID_INT_RE})", None


@dataclass(frozen=True)
class AgentType(ArgType):
    label: str = 'an agent name (a lower-case atom or a "string")'

    def check(self, t: Term) -> str | None:
        return None if isinstance(t, Atom | Str) else f"found {kind_name(t)}"

    def fragment(self) -> tuple[str, Callable[[str], bool] | None]:
        return f"(?:{ATOM_RE}|{STRING_RE})", None


@dataclass(frozen=True)
class AtomType(ArgType):
    choices: tuple[str, ...] = ()

    def check(self, t: Term) -> str | None:
        if not isinstance(t, Atom):
            return f"found {kind_name(t)}"
        if self.choices and t not in self.choices:
            return f"found '{t}'"
        return None

    def fragment(self) -> tuple[str, Callable[[str], bool] | None]:
        if self.choices:
            return "(?:" + "|".join(self.choices) + r")\b", None
        return ATOM_RE, None


@dataclass(frozen=True)
class IntType(ArgType):
    lo: int = 0
    hi: int = 1_000_000

    def check(self, t: Term) -> str | None:
        if not isinstance(t, int) or isinstance(t, Str | Atom):
            return f"found {kind_name(t)}"
        if not self.lo <= t <= self.hi:
            return f"found {t}, outside {self.lo}..{self.hi}"
        return None

    def fragment(self) -> tuple[str, Callable[[str], bool] | None]:
        lo, hi = self.lo, self.hi
        if _exact_int_range(lo, hi):
            return _int_re(lo, hi), None
        return f"({_int_re(lo, hi)})", lambda s: lo <= int(s) <= hi


@dataclass(frozen=True)
class StringType(ArgType):
    label: str = 'a "string"'

    def check(self, t: Term) -> str | None:
        return None if isinstance(t, Str) else f"found {kind_name(t)}"

    def fragment(self) -> tuple[str, Callable[[str], bool] | None]:
        return STRING_RE, None


@dataclass(frozen=True)
class ValueType(ArgType):
    """An answer value: a name (left, ne ...), a compound of names (move(forward, left)), a
    non-negative integer up to `hi`, or the atom `invalid`. Whether it fits its query is checked
    by the rules (logic/core/input.lp), which know the vocabularies."""

    hi: int = 1_000_000

    def check(self, t: Term) -> str | None:
        if isinstance(t, Str):
            return "found a string"
        return self._ints_ok(t)

    def _ints_ok(self, t: Term) -> str | None:
        if isinstance(t, Fun):
            for a in t.args:
                err = self._ints_ok(a)
                if err:
                    return err
            return None
        if isinstance(t, int) and not isinstance(t, Atom | Str) and not 0 <= t <= self.hi:
            return f"found {t}, outside 0..{self.hi}"
        if isinstance(t, Str):
            return "found a string inside the value"
        return None

    def fragment(self) -> tuple[str, Callable[[str], bool] | None]:
        hi = self.hi
        comp = rf"{ATOM_RE}\((?:{ATOM_RE})(?:\s*,\s*{ATOM_RE})*\)"
        regex = rf"({comp}|{ATOM_RE}|{_int_re(0, hi)})"
        return regex, lambda s: not s[0].isdigit() or int(s) <= hi


@dataclass(frozen=True)
class ContentType(ArgType):
    """A query content: one of the declared query kinds with typed arguments."""

    kinds: dict[str, tuple[ArgType, ...]] = field(default_factory=dict)

    def check(self, t: Term) -> str | None:
        if not isinstance(t, Fun) or t.name not in self.kinds:
            shown = text(t) if not isinstance(t, Fun) else f"{t.name}/{len(t.args)}"
            return f"found {shown}"
        want = self.kinds[t.name]
        if len(t.args) != len(want):
            return f"{t.name} takes {len(want)} arguments, found {len(t.args)}"
        for i, (a, ty) in enumerate(zip(t.args, want, strict=True), start=1):
            err = ty.check(a)
            if err:
                return f"argument {i} of {t.name} must be {ty.label}, {err}"
        return None

    def fragment(self) -> tuple[str, Callable[[str], bool] | None]:
        alts = []
        for name, tys in self.kinds.items():
            frags = [ty.fragment() for ty in tys]
            assert all(chk is None for _, chk in frags), "content arguments need exact regexes"
            parts = [frag for frag, _ in frags]
            alts.append(name + r"\(\s*" + r"\s*,\s*".join(parts) + r"\s*\)")
        return "(?:" + "|".join(alts) + ")", None


@dataclass(frozen=True)
class TermType(ArgType):
    """Any ground term of atoms and integers (no strings), e.g. a surface form."""

    label: str = "an atom, an integer or a compound term of them"

    def check(self, t: Term) -> str | None:
        if isinstance(t, Str):
            return "found a string"
        if isinstance(t, Fun):
            for a in t.args:
                err = self.check(a)
                if err:
                    return err
        return None

    def fragment(self) -> tuple[str, Callable[[str], bool] | None]:
        atomic = f"(?:{ATOM_RE}|{ID_INT_RE})"
        return rf"(?:{ATOM_RE}\(\s*{atomic}(?:\s*,\s*{atomic})*\s*\)|{atomic})", None
