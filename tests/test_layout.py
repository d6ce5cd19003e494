"""The layout of the sources: only engine/session.py drives the engines directly.

Every other module loads rule files, adds facts and reads results through engine.session.Session,
so the logger, the error messages and the one embedded SWI-Prolog (and its lock) live in one place.
"""

from __future__ import annotations

import re
from pathlib import Path

from helpers import ROOT

# Modules that may still create a clingo Control or import pyswip, each for a stated reason.
ALLOWED = {
    "engine/session.py": "the one place that drives the engines",
    "bench/check_scale.py": "times parsing, grounding and solving apart, which a Session hides",
    "tests/test_rule_shapes.py": "asks the grounder which result atoms it could not decide (is_fact)",
}
CONTROL = re.compile(r"\bclingo\.Control\(|(?<![\w.])Control\(")
PYSWIP = re.compile(r"^\s*(from|import)\s+pyswip\b", re.M)


def sources() -> list[Path]:
    skip = {".venv", "build", ".git"}
    return sorted(p for p in ROOT.rglob("*.py") if not skip & set(p.relative_to(ROOT).parts))


def offenders(pattern: re.Pattern[str]) -> list[str]:
    found = []
    for path in sources():
        rel = path.relative_to(ROOT).as_posix()
        if rel not in ALLOWED and rel != "tests/test_layout.py" and pattern.search(path.read_text("utf-8")):
            found.append(rel)
    return found


def test_the_sources_are_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in sources()}
    assert {"engine/session.py", "engine/vocab.py", "memory/logic.py", "tests/test_layout.py"} <= names


def test_only_the_session_creates_a_clingo_control() -> None:
    assert offenders(CONTROL) == []


def test_only_the_session_imports_pyswip() -> None:
    assert offenders(PYSWIP) == []


def test_the_patterns_catch_what_they_are_for() -> None:
    assert CONTROL.search('ctl = clingo.Control(["--warn=none"])')
    assert CONTROL.search("from clingo import Control\nctl = Control([])")
    assert not CONTROL.search("ctl: clingo.Control | None = None")
    assert PYSWIP.search("    from pyswip.easy import Functor\n")
    assert not PYSWIP.search("# the pyswip engine\n")


def test_every_allowed_module_still_needs_its_exception() -> None:
    """An exception that is no longer used is dropped, so that it cannot hide a new offender."""
    for rel in ALLOWED:
        text = (ROOT / rel).read_text("utf-8")
        assert CONTROL.search(text) or PYSWIP.search(text), rel
