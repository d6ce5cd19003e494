"""Entry files: a rule program named by a file of `#include "file".` lines instead of a Python list.

clingo loads an entry itself (it resolves each include against the including file's folder); the
Python side reads the same list where it must treat the files one by one: SWI-Prolog loads and
unloads each .pl twin by its path, and the rule set reads the core files' declarations per file.
"""

from __future__ import annotations

import re
from pathlib import Path

from metalogic.engine.errors import MetalogicError
from metalogic.engine.facts import display_path

_INCLUDE = re.compile(r'^#include\s+"([^"]+)"\s*\.\s*$')


def included(entry: Path) -> list[Path]:
    """The rule files an entry file names with `#include "file".` lines, in order, each relative
    to the entry's folder as clingo resolves them; an included entry is expanded in its place.
    For what must list the files one by one: SWI-Prolog loads and unloads the .pl twins by path,
    and the rule set reads the core files' declarations one file at a time."""
    out: list[Path] = []
    for lineno, raw in enumerate(entry.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.split("%", 1)[0].strip()
        if not line:
            continue
        m = _INCLUDE.match(line)
        if m is None:
            raise MetalogicError.single(
                "an entry file holds only #include lines",
                where=f"{display_path(entry)}:{lineno}",
                expected='#include "file.lp".',
                fix="move the rule into a file of its own and include it",
            )
        path = (entry.parent / m.group(1)).resolve()
        if not path.is_file():
            raise MetalogicError.single(
                f"the entry file includes {m.group(1)}, which does not exist",
                where=f"{display_path(entry)}:{lineno}",
                expected="a path relative to the entry file's folder",
                fix="check the file name",
            )
        out += included(path) if _is_entry(path) else [path]
    return out


def _is_entry(path: Path) -> bool:
    if path.suffix != ".lp":
        return False
    lines = [x.split("%", 1)[0].strip() for x in path.read_text(encoding="utf-8").splitlines()]
    return any(lines) and all(_INCLUDE.match(x) for x in lines if x)


def twin(path: Path) -> Path:
    """The SWI-Prolog file of a clingo rule file (NAME.lp -> NAME.pl); a .facts file serves both."""
    return path.with_suffix(".pl") if path.suffix == ".lp" else path
