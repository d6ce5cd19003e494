"""Reading facts folders: every `*.lp` under a folder, checked line by line against the schema.

Facts files are data. Nothing in them is ever passed to an engine unchecked: each line must be a
single ground fact of a declared predicate (engine/schema.py), and only the fact itself (never a
comment or anything after it) is handed on. A problem is reported with file:line:column, the line
and a caret, what was expected and how to fix it.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from metalogic.engine import schema
from metalogic.engine.errors import MetalogicError, Problem
from metalogic.engine.terms import Fun, ParseError, Term, parse_fact_line, text

MAX_PROBLEMS = 10
# read_facts(sink=...) hands on the facts in chunks of this many as they are read.
SINK_CHUNK = 8192
# Bounds that keep a hostile file from costing unbounded memory: the longest line the reader takes
# (the longest fact metalogic writes, a raw reply of 4000 characters, needs at most 32 kB).
MAX_LINE_BYTES = 100_000
BOM = b"\xef\xbb\xbf"

_FAST: dict[str, list[tuple[re.Pattern[str], list[Callable[[str], bool]], str]]] = {}
for _pred in schema.PREDICATES:
    _rx, _checks = schema.fast_regex(_pred)
    _FAST.setdefault(_pred.name, []).append((_rx, _checks, _pred.key))


def display_path(p: Path) -> str:
    """A path as the user would write it: relative to the working directory when inside it."""
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)


@dataclass
class FactSet:
    """The validated facts of a folder (or of a single file)."""

    root: Path
    files: list[Path]
    facts: list[str] = field(default_factory=list)  # one fact per item, without the final '.'
    counts: Counter[str] = field(default_factory=Counter)  # per predicate key, e.g. "answer/3"

    def program(self) -> str:
        """The facts as program text for either engine: one fact per line, each once (facts form a
        set: clingo merges a repeated line, Prolog would assert it twice)."""
        return "".join(f"{f}.\n" for f in dict.fromkeys(str(f) for f in self.facts))

    def __len__(self) -> int:
        return len(self.facts)

    def locate(self, fact: Term, *, prefix: bool = False) -> tuple[str, str] | None:
        """Where a fact stands: ("path:line:col", the line), or None if no file holds it. With
        prefix=True, `fact` may give only the first arguments: answer(ag, q9) finds answer(ag, q9, n)."""
        want = text(fact)
        name = fact.name if isinstance(fact, Fun) else str(fact)
        first = [text(a) for a in fact.args] if isinstance(fact, Fun) else []
        for path in self.files:
            for lineno, line in _lines(path):
                if name not in line:
                    continue
                try:
                    parsed = parse_fact_line(line)
                except ParseError:
                    continue
                if not parsed:
                    continue
                got = parsed[0]
                if text(got) == want or (
                    prefix
                    and isinstance(got, Fun)
                    and got.name == name
                    and [text(a) for a in got.args[: len(first)]] == first
                ):
                    return f"{display_path(path)}:{lineno}:{parsed[1]}", line
        return None


# A fact after a '\r' inside a comment line: what a file with '\r'-only line endings looks like.
HIDDEN_FACT = re.compile(r"\r[ \t]*[a-z][A-Za-z0-9_]*\(.*?\)[ \t]*\.")


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    with path.open("rb") as fh:
        for lineno, raw in enumerate(raw_lines(fh), start=1):
            if raw is not None:
                yield lineno, raw.decode("utf-8", errors="replace")


def raw_lines(fh: BinaryIO) -> Iterator[bytes | None]:
    """The lines of a binary file as the engines see them: ended by '\n' alone (a '\r' before it
    stays on the line), never by the other characters Python's str.splitlines() breaks at (U+2028,
    U+0085, form feed, ...), which both engines read as ordinary text. A UTF-8 byte order mark at
    the start of the file is dropped. A line longer than MAX_LINE_BYTES is skipped without being
    held in memory, and yielded as None."""
    first = True
    while True:
        line = fh.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):  # skip the rest of the line in bounded pieces
                line = fh.readline(MAX_LINE_BYTES)
            yield None
        else:
            yield line[len(BOM) :] if first and line.startswith(BOM) else line
        first = False


def list_fact_files(folder: str | Path) -> tuple[Path, list[Path]]:
    root = Path(folder)
    if not root.exists():
        raise MetalogicError.single(
            f"facts folder '{folder}' does not exist",
            expected="a folder holding facts files (*.lp)",
            fix="check the path, e.g. metalogic check examples/facts/",
        )
    if root.is_file():
        return root, [root]
    files = sorted(
        p
        for p in root.rglob("*.lp")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )
    inside = root.resolve()
    for p in files:
        target = p.resolve()
        if not target.is_relative_to(inside):
            raise MetalogicError.single(
                f"facts file '{p}' is a link to '{target}', outside the facts folder",
                expected="facts files that lie inside the folder being read, also after following links",
                fix="copy the file into the folder instead of linking to it, or name that file itself",
            )
    if not files:
        raise MetalogicError.single(
            f"no facts files (*.lp) under '{folder}'",
            expected="at least one *.lp file of ground facts (see docs/facts.md)",
            fix="point at the folder that holds the facts, or write them there first",
        )
    return root, files


def read_facts(
    folder: str | Path,
    *,
    keep: Callable[[str], bool] | None = None,
    sink: Callable[[list[str]], None] | None = None,
) -> FactSet:
    """Read and check every facts file under `folder`. Raises MetalogicError listing the first
    problems found; returns the facts otherwise. `keep` may drop facts by their text. `sink` is
    given the checked facts in chunks as the reading goes (every fact once, in order; a chunk
    never holds an unchecked line), so that an engine can parse them meanwhile; after a
    problem it is given nothing more."""
    root, files = list_fact_files(folder)
    fs = FactSet(root=root, files=files)
    if sink is None:
        _raise_problems(p for path in files for p in _read_file(path, fs, keep, None))
        return fs
    seen: list[Problem] = []
    handed_on = sink

    def guarded(chunk: list[str]) -> None:
        if not seen:  # after a problem nothing more goes to the engine
            handed_on(chunk)

    def watched() -> Iterator[Problem]:
        for path in files:
            for p in _read_file(path, fs, keep, guarded):
                seen.append(p)
                yield p

    _raise_problems(watched())
    return fs


def facts_from_text(parts: Mapping[str, str], root: str = "<memory>") -> FactSet:
    """Facts held in memory (name -> text, as the files would hold them), checked line by line
    exactly as read_facts checks files; nothing is written to disk. The FactSet has no files, so
    problems are located by the names given."""
    fs = FactSet(root=Path(root), files=[])
    _raise_problems(
        p
        for name, body in parts.items()
        for p in _read_lines(raw_lines(io.BytesIO(body.encode("utf-8"))), name, fs, None)
    )
    return fs


def _raise_problems(found: Iterable[Problem]) -> None:
    """Raise the first MAX_PROBLEMS problems (and how many more there were), if there are any."""
    problems, more = first_problems(found)
    if problems:
        raise MetalogicError(problems, more)


def first_problems(found: Iterable[Problem]) -> tuple[list[Problem], int]:
    """The first MAX_PROBLEMS problems, and how many more there were."""
    problems: list[Problem] = []
    more = 0
    for problem in found:
        if len(problems) < MAX_PROBLEMS:
            problems.append(problem)
        else:
            more += 1
    return problems, more


def read_one_file(path: Path, shown: str) -> tuple[list[str], Counter[str], list[Problem], int]:
    """One facts file's facts, counts per predicate, first problems and how many more, as
    read_facts reads it (`shown` names it in the problems). For readers in other processes."""
    fs = FactSet(root=path, files=[path])
    problems, more = first_problems(_read_file_as(path, shown, fs, None))
    return fs.facts, fs.counts, problems, more


def _read_file(
    path: Path, fs: FactSet, keep: Callable[[str], bool] | None, sink: Callable[[list[str]], None] | None
) -> Iterable[Problem]:
    return _read_file_as(path, display_path(path), fs, keep, sink)


def _read_file_as(
    path: Path,
    shown: str,
    fs: FactSet,
    keep: Callable[[str], bool] | None,
    sink: Callable[[list[str]], None] | None = None,
) -> Iterable[Problem]:
    try:
        fh = path.open("rb")
    except OSError as exc:
        yield _unreadable(shown, exc)
        return
    with fh:
        try:
            yield from _read_lines(raw_lines(fh), shown, fs, keep, sink)
        except OSError as exc:  # e.g. a folder named *.lp, or a read error halfway
            yield _unreadable(shown, exc)


def _unreadable(shown: str, exc: OSError) -> Problem:
    return Problem(
        f"cannot read facts file: {exc.strerror or exc}",
        where=shown,
        expected="a readable file",
        fix="check the file's permissions",
    )


def _read_lines(
    lines: Iterable[bytes | None],
    shown: str,
    fs: FactSet,
    keep: Callable[[str], bool] | None,
    sink: Callable[[list[str]], None] | None = None,
) -> Iterable[Problem]:
    facts, counts = fs.facts, fs.counts
    sent = len(facts)  # facts before this index have gone to the sink
    for lineno, raw in enumerate(lines, start=1):
        if raw is None:
            yield Problem(
                f"line is longer than {MAX_LINE_BYTES:,} bytes",
                where=f"{shown}:{lineno}:1",
                expected=f"one fact per line, each at most {MAX_LINE_BYTES:,} bytes long (docs/facts.md)",
                fix="shorten the line (a long string is the usual cause), or split it into several facts",
            )
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield Problem(
                "bytes that are not UTF-8 text",
                where=f"{shown}:{lineno}:{exc.start + 1}",
                expected="a UTF-8 text file",
                fix="re-save the file as UTF-8",
            )
            return
        body = _fast_accept(line, counts)
        if body is None:
            stripped = line.lstrip()
            if not stripped or stripped.startswith("%"):
                hidden = HIDDEN_FACT.search(line)
                if hidden:  # a file with '\r'-only line endings: its facts would vanish in a comment
                    yield Problem(
                        "a fact after a carriage return inside a comment: the file ends its lines with "
                        "'\\r' alone (old Mac line endings), so the engines read the fact as comment text",
                        where=f"{shown}:{lineno}:{hidden.start() + 2}",
                        expected="lines ended by '\\n' (or '\\r\\n')",
                        fix="convert the line endings, e.g. tr '\\r' '\\n' < OLD > NEW",
                    )
                    return
                continue
            try:
                body = _slow_accept(line, counts)
            except _LineProblem as lp:
                yield Problem(
                    lp.what,
                    where=f"{shown}:{lineno}:{lp.column}",
                    source_line=line,
                    column=lp.column,
                    expected=lp.expected,
                    fix=lp.fix,
                )
                continue
            if body is None:
                continue
        if keep is None or keep(body):
            facts.append(body)
            if sink is not None and len(facts) - sent >= SINK_CHUNK:
                sink(facts[sent:])
                sent = len(facts)
    if sink is not None and len(facts) > sent:
        sink(facts[sent:])


def _fast_accept(line: str, counts: Counter[str]) -> str | None:
    paren = line.find("(")
    if paren <= 0:
        return None
    candidates = _FAST.get(line[:paren].strip())
    if not candidates:
        return None
    for rx, checks, key in candidates:
        m = rx.fullmatch(line)
        if m is None:
            continue
        if checks and not all(chk(g) for chk, g in zip(checks, m.groups()[1:], strict=True)):
            return None
        counts[key] += 1
        return m.group(1)
    return None


class _LineProblem(Exception):
    def __init__(self, column: int, what: str, expected: str, fix: str) -> None:
        super().__init__(what)
        self.column, self.what, self.expected, self.fix = column, what, expected, fix


def _slow_accept(line: str, counts: Counter[str]) -> str | None:
    try:
        parsed = parse_fact_line(line)
    except ParseError as pe:
        raise _LineProblem(pe.column, f"syntax error: {pe.what}", pe.expected, pe.fix) from None
    if parsed is None:
        return None
    fact, col = parsed
    bad = schema.check_fact(fact)
    if bad is not None:
        arg_index, what, expected, fix = bad
        column = argument_column(line, col, arg_index) if arg_index else col
        raise _LineProblem(column, what, expected, fix)
    assert isinstance(fact, Fun)
    counts[f"{fact.name}/{len(fact.args)}"] += 1
    return text(fact)


_ARG_SCAN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[(),]')


def argument_column(line: str, fact_col: int, index: int) -> int:
    """The 1-based column where top-level argument `index` (1-based) of the fact starts."""
    depth, seen = 0, 0
    for m in _ARG_SCAN.finditer(line, fact_col - 1):
        tok = m.group()
        if tok == "(":
            depth += 1
            if depth == 1:
                seen = 1
                if seen == index:
                    return _skip_space(line, m.end()) + 1
        elif tok == ")":
            depth -= 1
        elif tok == "," and depth == 1:
            seen += 1
            if seen == index:
                return _skip_space(line, m.end()) + 1
    return fact_col


def _skip_space(line: str, i: int) -> int:
    while i < len(line) and line[i] in " \t":
        i += 1
    return i
