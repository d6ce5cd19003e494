"""Ground terms as plain Python values, their canonical text, and a strict parser.

The grammar is the common ground of clingo and SWI-Prolog: lower-case atoms, integers, double-quoted
strings and compound terms ``name(arg, ...)``. Anything else (variables, operators, floats, rules,
directives, block comments) is rejected with the column where it starts. The canonical text is
exactly how clingo prints a symbol, which the Prolog driver reproduces (``ml_write/2``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

INT_MIN, INT_MAX = -(2**31) + 1, 2**31 - 1  # clingo integers are 32-bit and wrap silently
# How deeply compound terms may nest. The schema needs three levels (form(q, options(move(a, b)))),
# and the limit keeps the recursive parser, printer and checks far from Python's recursion limit.
MAX_DEPTH = 20


class Atom(str):
    """A lower-case constant such as ``left``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Atom({str.__repr__(self)})"


class Str(str):
    """A double-quoted string such as ``"gpt-4o"``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Str({str.__repr__(self)})"


@dataclass(frozen=True, slots=True)
class Fun:
    """A compound term ``name(args...)`` with at least one argument."""

    name: str
    args: tuple[Term, ...]

    def __str__(self) -> str:
        return text(self)


Term = int | Atom | Str | Fun

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n"}


def quote(s: str) -> str:
    return '"' + "".join(_ESCAPES.get(ch, ch) for ch in s) + '"'


def text(t: Term) -> str:
    """The canonical text of a term (clingo's own rendering)."""
    if isinstance(t, Str):
        return quote(t)
    if isinstance(t, Fun):
        return f"{t.name}({','.join(text(a) for a in t.args)})"
    if isinstance(t, bool):
        raise TypeError("booleans are not terms")
    return str(t)


def kind_name(t: Term) -> str:
    if isinstance(t, Str):
        return "a string"
    if isinstance(t, Atom):
        return "an atom"
    if isinstance(t, Fun):
        return f"a compound term {t.name}/{len(t.args)}"
    return "an integer"


class ParseError(Exception):
    """A syntax problem at a 1-based column of one line."""

    def __init__(self, column: int, what: str, expected: str, fix: str = "") -> None:
        super().__init__(what)
        self.column = column
        self.what = what
        self.expected = expected
        self.fix = fix


_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r]+)
  | (?P<name>[a-z][A-Za-z0-9_]*)
  | (?P<int>-?(?:0|[1-9][0-9]*)(?![0-9A-Za-z_'])(?!\.[0-9]))
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<open>\()
  | (?P<close>\))
  | (?P<comma>,)
  | (?P<rule>:-|:~)
  | (?P<dot>\.(?![0-9]))
  | (?P<comment>%.*)
  | (?P<var>[A-Z_][A-Za-z0-9_]*)
  | (?P<float>-?[0-9]+\.[0-9]+(?:[eE][-+]?[0-9]+)?)
  | (?P<badnum>-?[0-9][0-9A-Za-z_']*)
  | (?P<unterminated>"[^"\n]*$)
  | (?P<other>.)
    """,
    re.VERBOSE,
)

RESERVED_ATOMS = frozenset({"not"})  # a keyword in clingo: it cannot be a constant there

_STRING_ESCAPE = re.compile(r"\\(.)")


def _unescape(body: str, column: int) -> str:
    def repl(m: re.Match[str]) -> str:
        ch = m.group(1)
        if ch == "n":
            return "\n"
        if ch in '"\\':
            return ch
        raise ParseError(
            column + m.start(),
            f"unsupported escape '\\{ch}' in a string",
            'only \\" (quote), \\\\ (backslash) and \\n (newline) inside strings',
            "write the character itself, or one of the three escapes",
        )

    for i, ch in enumerate(body):
        if ord(ch) < 32 and ch != "\t":
            raise ParseError(
                column + i, "control character in a string", "printable text inside strings", "use \\n"
            )
    return _STRING_ESCAPE.sub(repl, body)


class _Tokens:
    def __init__(self, line: str) -> None:
        self.items: list[tuple[str, str, int]] = []
        for m in _TOKEN.finditer(line):
            kind = m.lastgroup or "other"
            if kind in ("ws", "comment"):
                continue
            self.items.append((kind, m.group(), m.start() + 1))
        self.pos = 0
        self.end_col = len(line.rstrip("\n")) + 1

    def peek(self) -> tuple[str, str, int]:
        if self.pos < len(self.items):
            return self.items[self.pos]
        return ("eol", "", self.end_col)

    def take(self) -> tuple[str, str, int]:
        tok = self.peek()
        self.pos += 1
        return tok


def _describe(kind: str, value: str) -> str:
    return "end of the line" if kind == "eol" else f"'{value}'"


def _bad_token(kind: str, value: str, col: int, expected: str) -> ParseError:
    if kind == "var":
        return ParseError(
            col,
            f"variable '{value}' in a fact",
            "ground facts only: no variables",
            'write a lower-case atom, an integer or a "string" instead',
        )
    if kind == "rule":
        return ParseError(
            col,
            f"rule or directive '{value}' in a facts file",
            "facts only ('head.'), never rules ('head :- body.') or directives",
            "move rules into a rule file loaded with --rules",
        )
    if kind == "float":
        return ParseError(
            col,
            f"decimal number '{value}'",
            "integers only (lengths in millimetres, confidences in thousandths)",
            "scale the value to an integer",
        )
    if kind == "badnum":
        return ParseError(col, f"malformed number '{value}'", "a plain decimal integer such as 42 or -7", "")
    if kind == "unterminated":
        return ParseError(col, "string is not closed", 'a closing " on the same line', 'add the missing "')
    what = "unexpected " + _describe(kind, value)
    fix = ""
    if value == "#":
        what = f"directive '{value}' in a facts file"
        fix = "facts files hold facts only; remove the directive"
    elif value in ("[", "]", "{", "}", ";", "|"):
        fix = "lists, sets and alternatives are not facts; write one fact per line"
    elif kind == "other" and value.isalpha():
        fix = "atoms use the letters a-z, A-Z, digits and '_', starting with a lower-case letter"
    elif value == "/":
        fix = "comments start with '%' and run to the end of the line"
    elif kind == "eol":
        fix = "write the whole fact on one line: close every '(' and end it with '.'"
    return ParseError(col, what, expected, fix)


def _term(tk: _Tokens, depth: int = 0) -> Term:
    kind, value, col = tk.take()
    if kind == "int":
        n = int(value)
        if not INT_MIN <= n <= INT_MAX:
            raise ParseError(
                col, f"integer {value} is out of range", f"an integer from {INT_MIN} to {INT_MAX}"
            )
        return n
    if kind == "str":
        return Str(_unescape(value[1:-1], col + 1))
    if kind == "name":
        nxt = tk.peek()
        if nxt[0] == "open" and nxt[2] == col + len(value):
            if depth >= MAX_DEPTH:
                raise ParseError(
                    col,
                    f"terms nested more than {MAX_DEPTH} deep",
                    f"compound terms at most {MAX_DEPTH} levels deep (docs/facts.md)",
                    "flatten the term: metalogic's facts need three levels at most",
                )
            tk.take()
            args = [_term(tk, depth + 1)]
            while True:
                k2, v2, c2 = tk.take()
                if k2 == "comma":
                    args.append(_term(tk, depth + 1))
                elif k2 == "close":
                    return Fun(value, tuple(args))
                else:
                    raise _bad_token(k2, v2, c2, "',' or ')'")
        if nxt[0] == "open":
            raise ParseError(
                nxt[2], f"space between '{value}' and '('", f"'{value}(' with no space", "remove the space"
            )
        if value in RESERVED_ATOMS:
            raise ParseError(
                col, f"'{value}' is a reserved word", "an atom other than 'not'", "quote it as a string"
            )
        return Atom(value)
    raise _bad_token(kind, value, col, 'a term: an atom, an integer, a "string" or name(...)')


def parse_fact_line(line: str) -> tuple[Term, int] | None:
    """Parse one line holding a single fact (or nothing). Returns (fact, column) or None for a blank
    or comment line; raises ParseError otherwise."""
    tk = _Tokens(line)
    if tk.peek()[0] == "eol":
        return None
    kind, value, col = tk.peek()
    if kind != "name":
        raise _bad_token(kind, value, col, "a fact such as answer(agent, q1, left).")
    fact = _term(tk)
    k2, v2, c2 = tk.take()
    if k2 != "dot":
        raise _bad_token(k2, v2, c2, "'.' at the end of the fact")
    k3, v3, c3 = tk.peek()
    if k3 != "eol":
        if k3 == "name":
            raise ParseError(
                c3, "second fact on one line", "one fact per line", "put each fact on its own line"
            )
        raise _bad_token(k3, v3, c3, "the end of the line after the fact")
    return fact, col


def parse_term(s: str) -> Term:
    """Parse a single ground term (no trailing dot), e.g. a result line or a CLI argument."""
    tk = _Tokens(s)
    t = _term(tk)
    kind, value, col = tk.take()
    if kind != "eol":
        raise _bad_token(kind, value, col, "the end of the term")
    return t
