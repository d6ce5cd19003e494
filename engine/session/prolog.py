"""The process's one embedded SWI-Prolog (pyswip cannot start a second one), behind PrologEngine
handles that share it under LOCK. engine/session/api.py's Session is the way in; the rule sets it
asks for are swapped in here, and `resident` modules (such as the memory rules) stay loaded.
"""

from __future__ import annotations

import re
import tempfile
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from metalogic.engine import schema
from metalogic.engine.errors import MetalogicError, Problem
from metalogic.engine.facts import display_path
from metalogic.engine.terms import Atom, Fun, Str, Term
from metalogic.logic import CORE_DIR, SHARED_TABLES

NAME = re.compile(r"[a-z][A-Za-z0-9_]*")  # a predicate or module name passed into a goal


@dataclass
class _Embedded:
    """What the one SWI-Prolog of the process holds: the MR rule set now loaded (the tables
    first, always kept) and the resident modules."""

    prolog: Any
    indicators: str
    loaded: list[Path] = field(default_factory=list)
    resident: set[Path] = field(default_factory=set)


_EMBEDDED: _Embedded | None = None
LOCK = threading.Lock()  # held by whoever uses the engine: its loaded files and facts are global


class PrologEngine:
    """A handle on the process's one embedded SWI-Prolog (created on first use). Handles are
    cheap and all share the engine; use them while holding LOCK."""

    def __init__(self) -> None:
        global _EMBEDDED
        if _EMBEDDED is None:
            from pyswip import Prolog

            indicators = ", ".join(f"{p.name}/{len(p.args)}" for p in schema.PREDICATES)
            _EMBEDDED = _Embedded(Prolog(), f"[{indicators}]")
            self._state = _EMBEDDED
            self._call(f"load_files('{_esc(CORE_DIR / 'driver.pl')}', [])")
            self._call(f"ml_declare_facts([{indicators}])")
            self._load(SHARED_TABLES)
        self._state = _EMBEDDED

    @property
    def indicators(self) -> str:
        """The schema's fact predicates as a Prolog list of Name/Arity."""
        return self._state.indicators

    def _call(self, goal: str) -> list[dict[str, Any]]:
        return list(self._state.prolog.query(goal))

    def _load(self, path: Path) -> None:
        res = self._call(f"ml_load_rules('{_esc(path)}', M)")
        messages = [_text(m) for m in res[0]["M"]] if res else ["the file could not be loaded"]
        if messages:
            self._call(f"ml_unload_rules('{_esc(path)}')")
            raise MetalogicError([_load_problem(m, path) for m in messages])
        self._state.loaded.append(path)

    def use_rules(self, files: Sequence[Path]) -> None:
        """Make `files` (after the tables) the rule set loaded, swapping out the previous one."""
        # Absolute paths: SWI-Prolog keeps its own working folder, which does not follow a later
        # os.chdir of the Python process, so a relative --rules path would resolve elsewhere.
        wanted = [Path(f).resolve() for f in files]
        state = self._state
        if [SHARED_TABLES, *wanted] == state.loaded:
            return
        for f in reversed(state.loaded[1:]):
            self._call(f"ml_unload_rules('{_esc(f)}')")
        state.loaded = state.loaded[:1]
        for f in wanted:
            self._load(f)

    def load_resident(self, path: Path) -> None:
        """Load a module file once; rule set swaps leave it alone (it is not in `loaded`)."""
        path = Path(path).resolve()
        if path in self._state.resident:
            return
        self._load(path)
        self._state.loaded.remove(path)
        self._state.resident.add(path)

    def run_check(self, program: str, detail: bool) -> dict[str, set[str]]:
        """ml_run on the loaded rule set (the facts asserted for the run, then retracted): its
        result lines by predicate. The driver writes the big predicates to files of their own,
        NAME.txt, and the rest to results.txt."""
        with tempfile.TemporaryDirectory(prefix="metalogic-") as tmp:
            facts, out = Path(tmp, "facts.pl"), Path(tmp, "out")
            facts.write_text(program, encoding="utf-8")
            out.mkdir()
            try:
                self._call(f"ml_reset({self.indicators})")
                self._call(f"ml_load_facts('{_esc(facts)}')")
                self._call(f"ml_run('{_esc(out)}', {str(detail).lower()})")
            except Exception as exc:  # pyswip's PrologError: a rule file failed while running
                raise self._runtime_error(exc) from None
            finally:
                self._call(f"ml_reset({self.indicators})")
            # One result a line: split at newlines only (str.splitlines would also split at the
            # line separators a string may hold, such as U+2028).
            lines = {p.stem: set(p.read_text(encoding="utf-8").split("\n")) - {""} for p in out.iterdir()}
            for line in lines.pop("results", ()):
                lines.setdefault(line[: line.index("(")], set()).add(line)
            return lines

    def rows(self, name: str, arity: int) -> set[str]:
        """The true atoms name/arity of the loaded rule set, as canonical text."""
        found = self._call(f"ml_rows('{_esc(name)}', {arity}, L)")
        return {_text(x) for x in found[0]["L"]}

    def run_lines(self, goal: str, lines: Iterable[str]) -> set[str]:
        """Call the resident predicate `goal`(In, Out) (module:name) on a file of input lines (read by
        Prolog as data, never called); the lines it writes to Out."""
        module, _, name = goal.partition(":")
        if not (NAME.fullmatch(module) and NAME.fullmatch(name)):
            raise ValueError(goal)
        with tempfile.TemporaryDirectory(prefix="metalogic-") as tmp:
            src, out = Path(tmp, "in.pl"), Path(tmp, "out.txt")
            src.write_text("".join(f"{line}.\n" for line in lines), encoding="utf-8")
            try:
                self._call(f"{module}:{name}('{_esc(src)}', '{_esc(out)}')")
            except Exception as exc:
                raise self._runtime_error(exc) from None
            return set(out.read_text(encoding="utf-8").split("\n")) - {""}

    def declarations(self) -> list[str]:
        return sorted(_text(x) for x in self._call("ml_declarations(L)")[0]["L"])

    def undefined_calls(self, files: Sequence[Path]) -> list[Problem]:
        """The calls in the clauses of `files` (loaded) to predicates nothing defines, as problems
        at the calling clause's line."""
        names = ", ".join(f"'{_esc(Path(f).resolve())}'" for f in files)
        problems = []
        for line in (_text(x) for x in self._call(f"ml_undefined_calls([{names}], L)")[0]["L"]):
            callee, caller, path, lineno = line.rsplit("|", 3)
            problems.append(
                Problem(
                    f"SWI-Prolog: {callee} is called by {caller} but no rule or fact defines it",
                    where=f"{display_path(Path(path))}:{lineno}",
                    expected="a predicate defined by a rule file or declared in docs/facts.md",
                    fix="check the spelling of the predicate in the .pl file",
                )
            )
        return problems

    def _runtime_error(self, exc: Exception) -> MetalogicError:
        """One clear message for a rule file that fails while running; usually a .pl file calling
        a predicate that nothing defines (a typo), named with the file and line of the caller."""
        msg = str(exc)
        m = re.search(r"existence_error\(procedure, /\((\w+), (\d+)\)\), context\(/\((\w+), (\d+)\)", msg)
        if m is None:
            detail = msg.split("Returned: ", 1)[-1].strip(" .'")
            return MetalogicError.single(
                f"SWI-Prolog failed while running the rules: {detail}",
                expected="rule files that run without errors",
                fix="check the .pl files loaded with --rules",
            )
        name, arity, caller, caller_arity = m.groups()
        found = self._call(f"ml_predicate_place('{_esc(caller)}', {caller_arity}, F, L)")
        where = f"{display_path(Path(_text(found[0]['F'])))}:{found[0]['L']}" if found else ""
        return MetalogicError.single(
            f"SWI-Prolog: {name}/{arity} is called by {caller}/{caller_arity} but no rule or fact defines it",
            where=where,
            expected="a predicate defined by a rule file or declared in docs/facts.md",
            fix="check the spelling of the predicate in the .pl file",
        )


def call_with_terms(module: str, predicate: str, facts: Sequence[Fun]) -> list[str] | None:
    from pyswip.core import PL_discard_foreign_frame, PL_exception, PL_open_foreign_frame
    from pyswip.easy import Functor, Query, Variable, getTerm
    from pyswip.easy import module as pl_module
    from pyswip.prolog import Prolog

    Prolog._init_prolog_thread()
    frame = PL_open_foreign_frame()  # every term made here is released with the frame
    try:
        lines = Variable()
        Query(Functor(predicate, 2)([_prolog_term(f) for f in facts], lines), module=pl_module(module))
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
    return [_text(x) for x in value]


def _prolog_term(t: Term) -> Any:
    """A term as pyswip builds it: integers as integers, atoms as atoms (pyswip puts a Python
    str as an atom), compound terms through their functor."""
    from pyswip.easy import Functor

    if isinstance(t, Fun):
        return Functor(t.name, len(t.args))(*[_prolog_term(a) for a in t.args])
    if isinstance(t, Str):  # pyswip would make a string an atom: refuse rather than change it
        raise TypeError("strings cannot be passed to SWI-Prolog as data")
    return str(t) if isinstance(t, Atom) else t


def _esc(p: Path | str) -> str:
    return str(p).replace("\\", "\\\\").replace("'", "\\'")


def _text(v: object) -> str:
    return v.decode("utf-8") if isinstance(v, bytes) else str(v)


def _load_problem(message: str, path: Path) -> Problem:
    """A message of SWI-Prolog loading a rule file, `kind|text`, as a problem."""
    kind, _, body = message.partition("|")
    where, what = _split_location(body.strip(), path)
    return Problem(
        f"SWI-Prolog {kind}: {what}",
        where=where,
        expected="a rule file that loads without errors or warnings",
        fix="fix the clause at that place",
    )


def _split_location(body: str, path: Path) -> tuple[str, str]:
    first, _, rest = body.partition("\n")
    shown = display_path(path)
    head, sep, what = first.partition(": ")
    if sep and str(path.resolve()) in head:  # SWI-Prolog names files by their absolute path
        where = head.replace(str(path.resolve()), shown)
    elif sep and str(path) in head:
        where = head.replace(str(path), shown)
    else:
        where, what = shown, first
    return where, (what + ("; " + rest.strip().replace("\n", "; ") if rest.strip() else "")).strip()
