"""Reading a TOML run configuration key by key: each problem is reported at the line of the key
it concerns (in the [[table]] entry being read), with what was expected and how to fix it.

The TOML parser keeps no positions, so lines are found in the text; app/runconfig.py says which
keys there are and what each may hold.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from metalogic.engine.errors import MetalogicError, Problem, did_you_mean
from metalogic.engine.facts import display_path


class Reader:
    """One configuration's text, and the problems found in it so far."""

    def __init__(self, path: Path, text: str) -> None:
        self.path, self.lines, self.problems = path, text.splitlines(), []  # type: ignore[var-annotated]
        self.scope: tuple[str, int] | None = None  # the [[table]] entry being read: (name, 1-based)

    def where(self, key: str) -> tuple[str, str, int]:
        """The line that sets `key` (or opens the table `[key]`): within the [[table]] entry being
        read (the second agent's `name` is on its own line, not the first agent's), else the first."""
        start = self._scope_start()
        first = start or 0
        for i, line in enumerate(self.lines[first:], start=first + 1):
            s = line.strip()
            if start is not None and i > first + 1 and s.startswith("["):
                break  # the entry ended
            if s.startswith((f"{key} ", f"{key}=", f"[{key}]", f"[[{key}]]")):
                return f"{display_path(self.path)}:{i}", line, line.find(key) + 1
        if start is not None:  # a key the entry does not set (spec missing): the entry's header
            return f"{display_path(self.path)}:{first + 1}", self.lines[first], 1
        return display_path(self.path), "", 0

    def _scope_start(self) -> int | None:
        """The 0-based index of the line opening the entry in scope (None: no scope, or not found)."""
        if self.scope is None:
            return None
        name, n = self.scope
        seen = 0
        for i, line in enumerate(self.lines):
            if line.strip().startswith(f"[[{name}]]"):
                seen += 1
                if seen == n:
                    return i
        return None

    def fail(self, key: str, what: str, expected: str, fix: str = "") -> None:
        where, src, col = self.where(key)
        self.problems.append(
            Problem(what, where=where, source_line=src, column=col, expected=expected, fix=fix)
        )

    def keys(self, table: dict[str, Any], allowed: set[str], section: str) -> None:
        for k in table:
            if k not in allowed:
                hint = did_you_mean(k, sorted(allowed))
                self.fail(
                    k,
                    f"unknown key '{k}' in [{section}]",
                    "one of " + ", ".join(sorted(allowed)),
                    hint or f"remove '{k}'",
                )

    def typed(self, table: dict[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
        v = table.get(key)
        bool_ok = kind is bool or (isinstance(kind, tuple) and bool in kind)
        if v is not None and (not isinstance(v, kind) or (isinstance(v, bool) and not bool_ok)):
            self.fail(key, f"'{key}' is {type(v).__name__} {v!r}", what)
            return None
        return v


def line_of(problem: Problem) -> int:
    """The line a problem is at (problems with no line come last)."""
    number = problem.where.rpartition(":")[2]
    return int(number) if number.isdigit() else 1 << 30


def valid(r: Reader, key: str, check: Callable[[Any], object], value: Any) -> None:
    """Run one of the stages' own checks on a setting now, before anything runs; its error is
    reported at the setting's line."""
    try:
        check(value)
    except MetalogicError as err:
        first = err.problems[0]
        r.fail(key, first.what, first.expected, first.fix)


def strings(r: Reader, table: dict[str, Any], key: str, what: str) -> list[str] | None:
    """A setting that is a string or a list of strings."""
    v = table.get(key)
    if v is None:
        return None
    items = [v] if isinstance(v, str) else v
    if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
        r.fail(key, f"'{key}' is {type(v).__name__} {shown(v)}", what)
        return None
    return items


def shown(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def table(r: Reader, data: dict[str, Any], name: str, allowed: set[str]) -> dict[str, Any]:
    t = data.get(name, {})
    if not isinstance(t, dict):
        r.fail(name, f"'{name}' must be a table", f"[{name}] with keys " + ", ".join(sorted(allowed)))
        return {}
    r.keys(t, allowed, name)
    return t
