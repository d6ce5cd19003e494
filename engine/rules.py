"""Rule sets: the core rule files plus every MR, shipped or added with --rules.

An MR is three files with the same stem: `NAME.decl`, its declarations (id, name, law, the
capabilities it serves, its sets and parameters) as plain ground facts, one a line; `NAME.lp` for
clingo and `NAME.pl` for SWI-Prolog, which include the declarations (`#include "NAME.decl".` and
`:- include('NAME.decl').`) and declare nothing themselves. The declarations are stated once: both
engines read that one file, and the loader reads it as data (engine/terms.py parses each line;
nothing in it is run). The core's parameters are declared the same way, in logic/core/*.decl. The
loader refuses a missing or malformed declaration file, a twin that does not include it or states a
declaration of its own, a file that does not parse, a helper predicate that two MR files both
define, and (for user files) a predicate that nothing defines (usually a typo).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import clingo
import clingo.ast

from metalogic.engine import schema
from metalogic.engine.entries import included, twin
from metalogic.engine.errors import MetalogicError, Problem, did_you_mean
from metalogic.engine.facts import display_path
from metalogic.engine.session import SHARED_TABLES as SHARED_TABLES  # read from here by many modules
from metalogic.engine.session import Session
from metalogic.engine.terms import Atom, Fun, ParseError, Str, Term, parse_fact_line, text
from metalogic.engine.vocab import vocabulary
from metalogic.logic import CORE_DIR, MRS_DIR

CORE_ENTRY = CORE_DIR / "check.lp"  # the core files of the check, in load order
CORE_FILES = included(CORE_ENTRY)
# The core's declarations (its parameters), included by the core rule files of both engines.
CORE_DECLS = tuple(sorted(CORE_DIR.glob("*.decl")))
CORE_NAMES = tuple(p.stem for p in CORE_FILES if p.suffix == ".lp")
# What only `check --out` writes (explanations, per trajectory/object/answer counts): clingo grounds
# it only when asked; the Prolog driver loads it always and asks it only when asked.
DETAIL = "detail"
DETAIL_FILE = CORE_DIR / f"{DETAIL}.lp"
TRIG = CORE_DIR / "trig.facts"
COMPAT = CORE_DIR / "compat.facts"  # MR12's table, derived by scripts/gen_compat.py

# Predicates every MR file may add clauses to (in both engines).
HOOKS = frozenset(
    {
        "testcase/3",
        "case_query/2",
        "case_support/2",
        "violates/3",
        "vacuous/2",
        "explain/3",
        "mr/1",
        "mr_name/2",
        "mr_law/2",
        "mr_serves/2",
        "param_default/3",
        "param_scale/2",
        "frac_need/4",
        "obs_frac_need/4",  # comparisons of observations only, which a rule may negate (clingo)
        "ivl_need/2",
        "need_compose/3",  # the composition pairs a rule looks up (logic/core/algebra.lp)
        "need_move_compose/2",
        "mr_set/2",
    }
)

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
    sets: tuple[str, ...] = ()  # mr_set/2: paper (the six published MRs), anchored, across; user files: user
    decl: Path | None = None  # NAME.decl, the declarations both twins include

    @property
    def decl_file(self) -> Path:
        return self.decl or self.lp.with_suffix(".decl")


@dataclass
class RuleSet:
    mrs: list[MR]
    params: dict[str, Param] = field(default_factory=dict)
    param_owner: dict[str, str] = field(default_factory=dict)  # parameter -> MR id, or "core"

    @property
    def lp_files(self) -> list[Path]:
        return [*CORE_FILES, *(m.lp for m in self.mrs)]

    @property
    def detail_lp_files(self) -> list[Path]:
        """lp_files and the rules of what only `check --out` writes."""
        return [*self.lp_files, DETAIL_FILE]

    @property
    def pl_files(self) -> list[Path]:
        return [*map(twin, CORE_FILES), twin(DETAIL_FILE), *(m.pl for m in self.mrs)]

    @property
    def decl_files(self) -> list[Path]:
        """The declaration files both engines' rule files include (the core's, then each MR's)."""
        return [*CORE_DECLS, *(m.decl_file for m in self.mrs)]

    def by_id(self, mr_id: str) -> MR:
        for m in self.mrs:
            if m.id == mr_id:
                return m
        raise MetalogicError.single(
            f"unknown MR '{mr_id}'",
            expected="one of " + ", ".join(m.id for m in self.mrs),
            fix=did_you_mean(mr_id, [m.id for m in self.mrs]) or "run 'metalogic mrs'",
        )


def mr_order(m: MR) -> tuple[str, int, str]:
    """mr2 before mr10: ids in their number's order."""
    head = m.id.rstrip("0123456789")
    tail = m.id[len(head) :]
    return (head, int(tail) if tail else -1, m.id)


def _pairs(folder: Path, shipped: bool) -> list[tuple[Path, Path]]:
    where = display_path(folder)
    if not folder.is_dir():
        raise MetalogicError.single(
            f"rules folder '{where}' does not exist",
            expected="a folder of MR rule files",
            fix="check the --rules path",
        )
    lps = {p.stem: p for p in folder.glob("*.lp")}
    pls = {p.stem: p for p in folder.glob("*.pl")}
    if not lps and not pls:
        raise MetalogicError.single(
            f"no rule files (*.lp, *.pl) in '{where}'",
            expected="pairs NAME.lp (clingo) and NAME.pl (SWI-Prolog)",
            fix="see docs/adding-an-mr.md",
        )
    problems = []
    for stem in sorted(set(lps) ^ set(pls)):
        have, miss = (lps[stem], f"{stem}.pl") if stem in lps else (pls[stem], f"{stem}.lp")
        problems.append(
            Problem(
                f"MR file without its twin: {miss} is missing next to it",
                where=display_path(have),
                expected="each MR as a pair: NAME.lp for clingo and NAME.pl for SWI-Prolog",
                fix=f"write {miss} with the same law (see docs/adding-an-mr.md)",
            )
        )
    if problems:
        raise MetalogicError(problems)
    return [(lps[s], pls[s]) for s in sorted(lps)]


Declarations = dict[str, list[tuple[list[str | int], int]]]  # predicate -> (arguments, line)


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


def head_signatures(lp: Path) -> dict[str, int]:
    """The predicates a clingo file defines (name/arity -> first line)."""
    heads: dict[str, int] = {}

    def visit(stm: clingo.ast.AST) -> None:
        if stm.ast_type != clingo.ast.ASTType.Rule:
            return
        for atom in _head_atoms(stm.head):
            heads.setdefault(atom, stm.location.begin.line)

    clingo.ast.parse_files([str(lp)], visit)
    return heads


def _head_atoms(head: clingo.ast.AST) -> list[str]:
    if head.ast_type == clingo.ast.ASTType.Literal and head.atom.ast_type == clingo.ast.ASTType.SymbolicAtom:
        sym = head.atom.symbol
        if sym.ast_type == clingo.ast.ASTType.Function:
            return [f"{sym.name}/{len(sym.arguments)}"]
        if sym.ast_type == clingo.ast.ASTType.Pool:
            return [
                f"{a.name}/{len(a.arguments)}"
                for a in sym.arguments
                if a.ast_type == clingo.ast.ASTType.Function
            ]
    return []


def _metadata(
    lp: Path, pl: Path, decl_path: Path, decl: Declarations, shipped: bool
) -> tuple[MR | None, list[Problem]]:
    shown = display_path(decl_path)

    def at(rows: list[tuple[list[str | int], int]]) -> str:
        return f"{shown}:{rows[0][1]}" if rows else shown

    ids = [str(d[0]) for d, _ in decl.get("mr", [])]
    if len(ids) != 1:
        return None, [
            Problem(
                f"a declaration file must declare exactly one mr(Id), found {len(ids)}",
                where=at(decl.get("mr", [])[1:]),
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
    problems = []
    strays = [
        (n, line)
        for n in ("mr_name", "mr_law", "mr_serves", "mr_set")
        for d, line in decl.get(n, [])
        if d[0] != mid
    ]
    for n, line in strays:
        problems.append(
            Problem(
                f"{n} names another MR than {mid}",
                where=f"{shown}:{line}",
                expected=f"the declarations of {mid} only",
                fix=f"write {mid} as its first argument",
            )
        )
    if len(names) != 1 or len(laws) != 1:
        problems.append(
            Problem(
                f"MR {mid} must declare one mr_name/2 and one mr_law/2 (strings)",
                where=at((rows["mr_name"] + rows["mr_law"])[1:]),
                expected=f'mr_name({mid}, "a short name"). mr_law({mid}, "the law in one line").',
                fix="add the missing declaration" if len(names) < 1 or len(laws) < 1 else "keep one of each",
            )
        )
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
    for d, line in rows["mr_serves"]:
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
    for d, line in rows["mr_set"]:
        name = str(d[1])
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
    if problems:
        return None, problems
    return MR(mid, names[0], laws[0], serves, lp, pl, shipped, sets or ("user",), decl_path), []


def _missing_decl(lp: Path, decl: Path) -> Problem:
    return Problem(
        f"MR {lp.stem} has no declaration file: {decl.name} is missing next to it",
        where=display_path(lp),
        expected=f"{decl.name} with the MR's declarations, one fact a line: {DECL_EXAMPLE}",
        fix=f'write {decl.name}, and include it: #include "{decl.name}". in {lp.name} and '
        f":- include('{decl.name}'). in {lp.stem}.pl (see docs/adding-an-mr.md)",
    )


def load_ruleset(extra: Sequence[str | Path] = ()) -> RuleSet:
    """Find, check and describe the MRs: the shipped ones plus those in each `extra` folder."""
    pairs = [(lp, pl, True) for lp, pl in _pairs(MRS_DIR, shipped=True)]
    for folder in extra:
        pairs += [(lp, pl, False) for lp, pl in _pairs(Path(folder), shipped=False)]
    problems: list[Problem] = []
    mrs: list[MR] = []
    params: dict[str, Param] = {}
    owner_of_param: dict[str, str] = {}
    # The shipped files pass these checks (tests load user MRs beside them, which checks all):
    # they are parsed and walked again only when a user's file needs comparing with them.
    verify_all = any(not shipped for _, _, shipped in pairs)
    core_heads = (
        {h for n in (*CORE_NAMES, DETAIL) for h in head_signatures(CORE_DIR / f"{n}.lp")} - HOOKS
        if verify_all
        else set()
    )
    for path in CORE_DECLS:
        decl, errs = read_declarations(path)
        problems += errs
        _add_params(decl, "core", params, owner_of_param)
    owner: dict[str, Path] = {}
    for lp, pl, shipped in pairs:
        decl_path = lp.with_suffix(".decl")
        if not decl_path.is_file():
            problems.append(_missing_decl(lp, decl_path))
            continue
        errs = _twin_problems(lp, decl_path) + _twin_problems(pl, decl_path)
        decl, bad = read_declarations(decl_path)
        if errs or bad:
            problems += errs + bad
            continue
        mr, errs = _metadata(lp, pl, decl_path, decl, shipped)
        problems += errs
        if mr is None:
            continue
        if any(m.id == mr.id for m in mrs):
            other = next(m for m in mrs if m.id == mr.id)
            problems.append(
                Problem(
                    f"MR id {mr.id} is declared twice",
                    where=display_path(decl_path),
                    expected=f"a new id (already used by {display_path(other.decl_file)})",
                    fix="rename the id in mr/1 and the other declarations",
                )
            )
            continue
        if verify_all:
            try:  # parse the clingo twin (with the declarations it includes) before reading its heads
                Session("clingo", tables=False, message_limit=50).load(lp)
            except MetalogicError as exc:
                problems += exc.problems
                continue
            problems += _clashes(lp, core_heads, owner) + unmet_needs(lp)
        for d, line in decl.get("param_default", []):
            n = str(d[0])
            if n in params:
                problems.append(
                    Problem(
                        f"parameter {n} is declared again",
                        where=f"{display_path(decl_path)}:{line}",
                        expected=f"a parameter name of its own (already declared by {owner_of_param[n]})",
                        fix=f"rename it, e.g. {mr.id}_{n}",
                    )
                )
        mrs.append(mr)
        _add_params(decl, mr.id, params, owner_of_param)
    if problems:
        raise MetalogicError(problems)
    rs = RuleSet(
        mrs=sorted(mrs, key=mr_order), params=dict(sorted(params.items())), param_owner=owner_of_param
    )
    if any(not m.shipped for m in mrs):
        _check_defined(rs)
    return rs


def _add_params(decl: Declarations, owner: str, params: dict[str, Param], owners: dict[str, str]) -> None:
    scales = {str(d[0]): int(d[1]) for d, _ in decl.get("param_scale", [])}
    for (name, default, doc), _ in decl.get("param_default", []):
        if str(name) in params:
            continue  # reported by the caller
        params[str(name)] = Param(str(name), int(default), str(doc), scales.get(str(name), 1))
        owners[str(name)] = owner


# A clingo rule that reads a composition table must say which pairs it needs: the tables are ground
# only for needed pairs (logic/core/algebra.lp), so a lookup without a need would find nothing.
_TABLE_NEEDS = {
    "compose/4": "need_compose/3",
    "compose_in/5": "need_compose/3",
    "universal/3": "need_compose/3",
    "move_compose/3": "need_move_compose/2",
}


def unmet_needs(lp: Path) -> list[Problem]:
    """Lookups of a composition table (compose/4, compose_in/5, universal/3, move_compose/3) in a
    file that never states the need."""
    heads: set[str] = set()
    reads: dict[str, int] = {}

    def visit(stm: clingo.ast.AST) -> None:
        if stm.ast_type != clingo.ast.ASTType.Rule:
            return
        heads.update(_head_atoms(stm.head))
        for sig in _body_signatures(stm.body):
            if sig in _TABLE_NEEDS:
                reads.setdefault(sig, stm.location.begin.line)

    clingo.ast.parse_files([str(lp)], visit)
    return [
        Problem(
            f"the rules read {sig} but never state {_TABLE_NEEDS[sig]}, so the table would be empty",
            where=f"{display_path(lp)}:{line}",
            expected=f"a rule deriving {_TABLE_NEEDS[sig]} for the pairs this file looks up",
            fix="see 'Composition tables' in docs/adding-an-mr.md",
        )
        for sig, line in sorted(reads.items())
        if _TABLE_NEEDS[sig] not in heads
    ]


def _body_signatures(node: object) -> list[str]:
    """name/arity of every function term in a rule body (its atoms, inside aggregates and
    conditions too)."""
    if isinstance(node, clingo.ast.AST):
        found = []
        if node.ast_type == clingo.ast.ASTType.Function:
            found.append(f"{node.name}/{len(node.arguments)}")
        for key in node.child_keys:
            found += _body_signatures(getattr(node, key))
        return found
    if isinstance(node, str | int) or node is None:
        return []
    try:
        return [sig for child in node for sig in _body_signatures(child)]  # type: ignore[attr-defined]
    except TypeError:
        return []


def _clashes(lp: Path, core_heads: set[str], owner: dict[str, Path]) -> list[Problem]:
    problems = []
    for sig, line in head_signatures(lp).items():
        if sig in HOOKS:
            continue
        where = f"{display_path(lp)}:{line}"
        if sig in core_heads or sig in schema.BY_KEY:
            problems.append(
                Problem(
                    f"rule file defines {sig}, which belongs to the core or the facts schema",
                    where=where,
                    expected="new helper predicates with their own names",
                    fix=f"rename the helper, e.g. {lp.stem}_{sig.split('/')[0]}",
                )
            )
        elif sig in owner and owner[sig] != lp:
            problems.append(
                Problem(
                    f"helper predicate {sig} is also defined in {display_path(owner[sig])}",
                    where=where,
                    expected="helper predicates unique to one MR file",
                    fix=f"prefix the helper with the MR's name, e.g. {lp.stem}_{sig.split('/')[0]}",
                )
            )
        else:
            owner[sig] = lp
    return problems


def _check_defined(rs: RuleSet) -> None:
    """Ground the whole program without facts and report atoms no rule or fact can define."""
    session = Session("clingo", warn=True, message_limit=200).load(*rs.detail_lp_files).ground()
    user = {str(m.lp) for m in rs.mrs if not m.shipped} | {
        display_path(m.lp) for m in rs.mrs if not m.shipped
    }
    problems = [p for p in session.problems(undefined=True) if p.where.rsplit(":", 2)[0] in user]
    if problems:
        for p in problems:
            object.__setattr__(p, "where", _shown_where(p.where))
        raise MetalogicError(problems)


def _shown_where(where: str) -> str:
    path, sep, rest = where.partition(":")
    return display_path(Path(path)) + sep + rest


MR_SETS = ("paper", "anchored", "across", "user")


def select_mrs(rules: RuleSet, spec: str | Sequence[str] = "all") -> RuleSet:
    """The rule set restricted to some MRs: `all`, set names (`paper` = the six published MRs,
    `anchored` = those checking answers against the frames, `across` = those relating two
    capabilities, `user` = MRs added with --rules) and MR ids, comma-separated."""
    items = [spec] if isinstance(spec, str) else list(spec)
    words = [w.strip() for item in items for w in item.split(",") if w.strip()]
    if not words or "all" in words:
        return rules
    ids = {m.id for m in rules.mrs}
    chosen: set[str] = set()
    for w in words:
        if w in MR_SETS:
            chosen |= {m.id for m in rules.mrs if w in m.sets}
        elif w in ids:
            chosen.add(w)
        else:
            names = ["all", *MR_SETS, *sorted(ids)]
            raise MetalogicError.single(
                f"unknown MR or set of MRs '{w}' in --mrs",
                expected="all, " + ", ".join(MR_SETS) + ", or MR ids such as mr1 (comma-separated)",
                fix=did_you_mean(w, names) or "run 'metalogic mrs' to list the MRs and their sets",
            )
    if not chosen:
        raise MetalogicError.single(
            f"--mrs {','.join(words)} selects no MR", fix="run 'metalogic mrs' to list the MRs and their sets"
        )
    mrs = [m for m in rules.mrs if m.id in chosen]
    owners = {n: o for n, o in rules.param_owner.items() if o in chosen or o == "core"}
    return RuleSet(mrs=mrs, params={n: rules.params[n] for n in owners}, param_owner=owners)
