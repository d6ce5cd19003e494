"""MR declarations: what a `NAME.decl` file states, read as data and checked.

An MR's declarations (id, name, law, the capabilities it serves, its sets and parameters) are plain
ground facts, one a line, in `NAME.decl`; its twins `NAME.lp` (clingo) and `NAME.pl` (SWI-Prolog)
include that file (`#include "NAME.decl".` and `:- include('NAME.decl').`) and declare nothing
themselves, so both engines read the one file and the loader (engine/rules/loader.py) reads it as data:
engine/terms.py parses each line, and nothing in it is run. The core's parameters are declared the
same way, in logic/core/*.decl. This module refuses a missing or malformed declaration file and a
twin that does not include it or states a declaration of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from metalogic.engine.errors import Problem, did_you_mean
from metalogic.engine.facts import display_path
from metalogic.engine.terms import Atom, Fun, ParseError, Str, Term, parse_fact_line, text
from metalogic.engine.vocab import vocabulary

# What a declaration file may state: predicate -> the kind of each argument.
DECLARATIONS: dict[str, tuple[str, ...]] = {
    "mr": ("atom",),
    "mr_name": ("atom", "string"),
    "mr_law": ("atom", "string"),
    "mr_serves": ("atom", "atom"),
    "mr_set": ("atom", "any"),  # checked below, with a message of its own
    "param_default": ("atom", "integer", "string"),
    "param_scale": ("atom", "integer"),
}
DECL_EXAMPLE = 'mr(my_mr). mr_name(my_mr, "..."). mr_law(my_mr, "..."). mr_serves(my_mr, sc2a).'


@dataclass(frozen=True)
class Param:
    name: str
    default: int
    doc: str
    scale: int = 1  # a value given as a decimal is multiplied by this (1000 for ratios)


@dataclass(frozen=True)
class MR:
    id: str
    name: str
    law: str
    serves: tuple[str, ...]
    lp: Path
    pl: Path
    shipped: bool
    # mr_set/2: paper (the six published MRs), anchored, across, joint; user files: user
    sets: tuple[str, ...] = ()
    decl: Path | None = None  # NAME.decl, the declarations both twins include

    @property
    def decl_file(self) -> Path:
        return self.decl or self.lp.with_suffix(".decl")


Rows = list[tuple[list[str | int], int]]  # one predicate's declarations: (arguments, line)
Declarations = dict[str, Rows]  # predicate -> its rows


def read_declarations(path: Path) -> tuple[Declarations, list[Problem]]:
    """Read a declaration file as data: one ground fact a line, of the predicates DECLARATIONS
    names, with arguments of the kinds it names. Nothing is run."""
    shown = display_path(path)
    decl: Declarations = {}
    problems: list[Problem] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        return {}, [Problem(f"cannot read the declaration file: {exc}", where=shown)]
    for lineno, line in enumerate(lines, start=1):
        try:
            parsed = parse_fact_line(line)
        except ParseError as exc:
            problems.append(
                Problem(
                    exc.what,
                    where=f"{shown}:{lineno}:{exc.column}",
                    expected=exc.expected + " (a declaration file holds one ground fact a line)",
                    fix=exc.fix
                    or "write the declaration as a plain fact, e.g. " + DECL_EXAMPLE.split(" ")[0],
                )
            )
            continue
        if parsed is None:
            continue
        fact, col = parsed
        args = fact.args if isinstance(fact, Fun) else ()
        name = fact.name if isinstance(fact, Fun) else str(fact)
        kinds = DECLARATIONS.get(name)
        if kinds is None or len(kinds) != len(args):
            problems.append(
                Problem(
                    f"{name}/{len(args)} is not a declaration",
                    where=f"{shown}:{lineno}:{col}",
                    expected=", ".join(f"{n}/{len(k)}" for n, k in DECLARATIONS.items()),
                    fix="move rules and other facts into the .lp and .pl twins",
                )
            )
            continue
        bad = [i for i, (k, a) in enumerate(zip(kinds, args, strict=True)) if not _kind_ok(k, a)]
        if bad:
            i = bad[0]
            problems.append(
                Problem(
                    f"argument {i + 1} of {name}/{len(args)} is {text(args[i])}",
                    where=f"{shown}:{lineno}:{col}",
                    expected=f"{name}({', '.join(kinds)})",
                    fix="see docs/adding-an-mr.md",
                )
            )
            continue
        # A set's name as written (a string keeps its quotes), so that only a plain name passes.
        values: list[str | int] = [
            text(a) if name == "mr_set" else (a if isinstance(a, int) else str(a)) for a in args
        ]
        decl.setdefault(name, []).append((values, lineno))
    return decl, problems


def _kind_ok(kind: str, t: Term) -> bool:
    if kind == "atom":
        return isinstance(t, Atom)
    if kind == "string":
        return isinstance(t, Str)
    if kind == "integer":
        return isinstance(t, int) and not isinstance(t, bool)
    return True


_OWN_DECLARATION = re.compile(r"^(" + "|".join(DECLARATIONS) + r")\s*\(")


def _twin_problems(path: Path, decl: Path) -> list[Problem]:
    """A twin includes its declaration file and states no declaration of its own (a second copy
    that could drift from the file both engines read)."""
    shown = display_path(path)
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    problems = []
    for lineno, line in enumerate(lines, start=1):
        m = _OWN_DECLARATION.match(line)
        if m:
            problems.append(
                Problem(
                    f"{path.name} declares {m.group(1)} itself",
                    where=f"{shown}:{lineno}",
                    expected=f"the declarations only in {decl.name}, which both twins include",
                    fix=f"move this line into {decl.name} (and out of the other twin)",
                )
            )
    if path.suffix == ".lp":
        directive = f'#include "{decl.name}".'
        found = any(
            re.fullmatch(r'#include\s+"' + re.escape(decl.name) + r'"\s*\.\s*(%.*)?', x.strip())
            for x in lines
        )
    else:
        directive = f":- include('{decl.name}')."
        rx = r":-\s*include\(\s*(['\"])" + re.escape(decl.name) + r"\1\s*\)\s*\.\s*(%.*)?"
        found = any(re.fullmatch(rx, x.strip()) for x in lines)
    if not found:
        problems.append(
            Problem(
                f"{path.name} does not include its declarations",
                where=shown,
                expected=f"a line {directive} before the rules",
                fix=f"add {directive} at the top of {path.name} (see docs/adding-an-mr.md)",
            )
        )
    return problems


def declared_mr(lp: Path, pl: Path, shipped: bool) -> tuple[MR | None, Declarations, list[Problem]]:
    """The MR whose twins are `lp` and `pl`, as its declaration file (NAME.decl beside them) states
    it, with everything that file declares; or None and the problems that keep it from loading."""
    decl_path = lp.with_suffix(".decl")
    if not decl_path.is_file():
        return None, {}, [_missing_decl(lp, decl_path)]
    unreadable = [p for f in (decl_path, lp, pl) if (p := _encoding_problem(f)) is not None]
    if unreadable:
        return None, {}, unreadable
    errs = _twin_problems(lp, decl_path) + _twin_problems(pl, decl_path)
    decl, bad = read_declarations(decl_path)
    if errs or bad:
        return None, decl, errs + bad
    mr, errs = _metadata(lp, pl, decl_path, decl, shipped)
    return mr, decl, errs


def _at(shown: str, rows: Rows) -> str:
    """Where to point at: the line of the first of `rows`, or the whole file."""
    return f"{shown}:{rows[0][1]}" if rows else shown


def _metadata(
    lp: Path, pl: Path, decl_path: Path, decl: Declarations, shipped: bool
) -> tuple[MR | None, list[Problem]]:
    """The MR the declarations describe: one id, one name and one law, known capabilities and plain
    set names, or None and what is wrong."""
    shown = display_path(decl_path)
    ids = [str(d[0]) for d, _ in decl.get("mr", [])]
    if len(ids) != 1:
        return None, [
            Problem(
                f"a declaration file must declare exactly one mr(Id), found {len(ids)}",
                where=_at(shown, decl.get("mr", [])[1:]),
                expected=DECL_EXAMPLE,
                fix="add the declarations (see docs/adding-an-mr.md)",
            )
        ]
    mid = ids[0]
    rows = {n: [(d, line) for d, line in decl.get(n, []) if d[0] == mid] for n in DECLARATIONS}
    names = [str(d[1]) for d, _ in rows["mr_name"]]
    laws = [str(d[1]) for d, _ in rows["mr_law"]]
    serves = tuple(sorted(str(d[1]) for d, _ in rows["mr_serves"]))
    sets = tuple(sorted(str(d[1]) for d, _ in rows["mr_set"]))
    problems = _strays(mid, decl, shown)
    if len(names) != 1 or len(laws) != 1:
        problems.append(
            Problem(
                f"MR {mid} must declare one mr_name/2 and one mr_law/2 (strings)",
                where=_at(shown, (rows["mr_name"] + rows["mr_law"])[1:]),
                expected=f'mr_name({mid}, "a short name"). mr_law({mid}, "the law in one line").',
                fix="add the missing declaration" if len(names) < 1 or len(laws) < 1 else "keep one of each",
            )
        )
    problems += _capability_problems(mid, serves, rows["mr_serves"], shown)
    problems += _set_problems(mid, rows["mr_set"], shown, shipped)
    if problems:
        return None, problems
    return MR(mid, names[0], laws[0], serves, lp, pl, shipped, sets or ("user",), decl_path), []


def _strays(mid: str, decl: Declarations, shown: str) -> list[Problem]:
    """Declarations in MR `mid`'s file that name another MR."""
    strays = [
        (n, line)
        for n in ("mr_name", "mr_law", "mr_serves", "mr_set")
        for d, line in decl.get(n, [])
        if d[0] != mid
    ]
    return [
        Problem(
            f"{n} names another MR than {mid}",
            where=f"{shown}:{line}",
            expected=f"the declarations of {mid} only",
            fix=f"write {mid} as its first argument",
        )
        for n, line in strays
    ]


def _capability_problems(mid: str, serves: tuple[str, ...], rows: Rows, shown: str) -> list[Problem]:
    """No capability served, or one that logic/core/tables.facts does not name."""
    problems = []
    capabilities = tuple(vocabulary().capabilities)  # the ids of logic/core/tables.facts
    if not serves:
        problems.append(
            Problem(
                f"MR {mid} declares no capability",
                where=shown,
                expected=f"mr_serves({mid}, SC) with SC one of {', '.join(capabilities)}",
                fix="add mr_serves facts",
            )
        )
    for d, line in rows:
        sc = str(d[1])
        if sc not in capabilities:
            problems.append(
                Problem(
                    f"MR {mid} serves unknown capability '{sc}'",
                    where=f"{shown}:{line}",
                    expected="one of " + ", ".join(capabilities),
                    fix=did_you_mean(sc, capabilities) or "use a capability id such as sc2a",
                )
            )
    return problems


# The sets only metalogic's own MRs belong to: `paper` is the six published MRs, whose scores a
# paper reports (`--mrs paper`); a user's MR joining it would change those scores unseen.
SHIPPED_SETS = ("paper",)


def _set_problems(mid: str, rows: Rows, shown: str, shipped: bool = True) -> list[Problem]:
    """Set names that are not plain lower-case names, and a user's MR in a shipped-only set."""
    problems = []
    for d, line in rows:
        name = str(d[1])
        if not shipped and name in SHIPPED_SETS:
            problems.append(
                Problem(
                    f"MR {mid} is not one of metalogic's own MRs and cannot join the set '{name}' "
                    "(the six published MRs)",
                    where=f"{shown}:{line}",
                    expected="a set of your own, e.g. mr_set(" + mid + ", mine), or none (a user's MR is in "
                    "the set 'user')",
                    fix=f"remove mr_set({mid}, {name}) or name another set",
                )
            )
            continue
        # A set is named like an MR id: the headline orders sets by name on both engines, and
        # they order plain lower-case atoms alike (strings or numbers they would not).
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            problems.append(
                Problem(
                    f"MR {mid} names its set {name}",
                    where=f"{shown}:{line}",
                    expected="a lower-case name such as mine or my_checks",
                    fix=f"write mr_set({mid}, NAME) with a plain name",
                )
            )
    return problems


def _encoding_problem(path: Path) -> Problem | None:
    """A rule or declaration file that is not UTF-8, or starts with a byte order mark: clingo reads
    neither (its message quoting such bytes once stopped the whole process)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return Problem(f"cannot read {path.name}: {exc.strerror}", where=display_path(path))
    if data.startswith(b"\xef\xbb\xbf"):
        return Problem(
            f"{path.name} starts with a byte order mark (U+FEFF), which clingo cannot read",
            where=display_path(path),
            expected="a rule file saved as UTF-8 without a byte order mark",
            fix=f"save {path.name} as 'UTF-8' rather than 'UTF-8 with BOM' (or delete its first 3 bytes)",
        )
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return Problem(
            f"{path.name} is not UTF-8 text: byte {data[exc.start]:#04x} at offset {exc.start}",
            where=f"{display_path(path)}:{line}",
            expected="a rule file in UTF-8",
            fix=f"save {path.name} as UTF-8",
        )
    return None


def _missing_decl(lp: Path, decl: Path) -> Problem:
    return Problem(
        f"MR {lp.stem} has no declaration file: {decl.name} is missing next to it",
        where=display_path(lp),
        expected=f"{decl.name} with the MR's declarations, one fact a line: {DECL_EXAMPLE}",
        fix=f'write {decl.name}, and include it: #include "{decl.name}". in {lp.name} and '
        f":- include('{decl.name}'). in {lp.stem}.pl (see docs/adding-an-mr.md)",
    )
