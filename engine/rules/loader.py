"""Rule sets: the core rule files plus every MR, shipped or added with --rules.

An MR is three files with the same stem: `NAME.decl`, its declarations (id, name, law, the
capabilities it serves, its sets and parameters) as plain ground facts, one a line; `NAME.lp` for
clingo and `NAME.pl` for SWI-Prolog, which include the declarations and declare nothing themselves
(engine/rules/declarations.py reads and checks them). The loader refuses a folder without rule files or
with an MR file missing its twin, an id or a parameter declared twice, a file that does not parse, a
helper predicate that two MR files both define, a table lookup without its need
(engine/rules/syntax.py), and (for user files) a predicate that nothing defines (usually a typo).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from metalogic.engine import schema
from metalogic.engine.errors import MetalogicError, Problem, did_you_mean
from metalogic.engine.facts import display_path
from metalogic.engine.rules.declarations import MR, Declarations, Param, declared_mr, read_declarations
from metalogic.engine.rules.entries import included, twin
from metalogic.engine.rules.syntax import head_signatures, unmet_needs
from metalogic.engine.session.api import Session
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
        "map_region/5",  # the level regions a rule tests against a map cone (map_miss/5, algebra.lp)
        "mr_set/2",
        "conflict/4",  # the answers of a violated case that cannot all be right (logic/core/conflicts.lp)
    }
)


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


def load_ruleset(extra: Sequence[str | Path] = (), engine: str = "clingo") -> RuleSet:
    """Find, check and describe the MRs: the shipped ones plus those in each `extra` folder. The
    clingo twins of a user's MRs are grounded (without facts) to find predicates nothing defines
    unless `engine` is "prolog", which never runs them (engine/check/run.py checks the .pl twins of a
    run that uses SWI-Prolog)."""
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
        mr, decl, errs = declared_mr(lp, pl, shipped)
        problems += errs
        if mr is None:
            continue
        if any(m.id == mr.id for m in mrs):
            problems.append(_declared_twice(mr, next(m for m in mrs if m.id == mr.id)))
            continue
        if verify_all:
            try:  # parse the clingo twin (with the declarations it includes) before reading its heads
                Session("clingo", tables=False, message_limit=50).load(lp)
            except MetalogicError as exc:
                problems += exc.problems
                continue
            problems += _clashes(lp, core_heads, owner) + unmet_needs(lp)
        problems += _params_declared_again(mr, decl, owner_of_param)
        mrs.append(mr)
        _add_params(decl, mr.id, params, owner_of_param)
    if problems:
        raise MetalogicError(problems)
    rs = RuleSet(
        mrs=sorted(mrs, key=mr_order), params=dict(sorted(params.items())), param_owner=owner_of_param
    )
    if any(not m.shipped for m in mrs) and engine != "prolog":
        _check_defined(rs)
    return rs


def _declared_twice(mr: MR, other: MR) -> Problem:
    return Problem(
        f"MR id {mr.id} is declared twice",
        where=display_path(mr.decl_file),
        expected=f"a new id (already used by {display_path(other.decl_file)})",
        fix="rename the id in mr/1 and the other declarations",
    )


def _params_declared_again(mr: MR, decl: Declarations, owners: dict[str, str]) -> list[Problem]:
    """The parameters `mr` declares that the core or an MR loaded before it already declares."""
    return [
        Problem(
            f"parameter {d[0]} is declared again",
            where=f"{display_path(mr.decl_file)}:{line}",
            expected=f"a parameter name of its own (already declared by {owners[str(d[0])]})",
            fix=f"rename it, e.g. {mr.id}_{d[0]}",
        )
        for d, line in decl.get("param_default", [])
        if str(d[0]) in owners
    ]


def _add_params(decl: Declarations, owner: str, params: dict[str, Param], owners: dict[str, str]) -> None:
    scales = {str(d[0]): int(d[1]) for d, _ in decl.get("param_scale", [])}
    for (name, default, doc), _ in decl.get("param_default", []):
        if str(name) in params:
            continue  # reported by the caller
        params[str(name)] = Param(str(name), int(default), str(doc), scales.get(str(name), 1))
        owners[str(name)] = owner


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
    # every fact predicate the rules read and no fact gives is one message (skipped below); clingo
    # stops reporting at the limit, which must not hide a user's misspelt atom behind them
    session = Session("clingo", warn=True, message_limit=10_000).load(*rs.detail_lp_files).ground()
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


def set_names(rules: RuleSet) -> list[str]:
    """The MR sets `--mrs` accepts: each set an MR of `rules` declares (mr_set/2 in its .decl, a
    user's own sets included) and `user` (the MRs added with --rules): the shipped MRs' sets first,
    then the users', each in the order the MRs name them. The declarations are the list: a new set
    needs no name added here."""
    ordered = sorted(rules.mrs, key=lambda m: not m.shipped)  # stable: MR order within each part
    return list(dict.fromkeys([*(s for m in ordered for s in m.sets), "user"]))


def select_mrs(rules: RuleSet, spec: str | Sequence[str] = "all") -> RuleSet:
    """The rule set restricted to some MRs: `all`, set names (`paper` = the six published MRs,
    `anchored` = those checking answers against the frames, `across` = those relating two
    capabilities, `joint` = those asking one placement of many answers, `user` = MRs added with
    --rules) and MR ids, comma-separated."""
    items = [spec] if isinstance(spec, str) else list(spec)
    words = [w.strip() for item in items for w in item.split(",") if w.strip()]
    if not words or "all" in words:
        return rules
    ids = {m.id for m in rules.mrs}
    sets = set_names(rules)
    chosen: set[str] = set()
    for w in words:
        if w in sets:
            chosen |= {m.id for m in rules.mrs if w in m.sets}
        elif w in ids:
            chosen.add(w)
        else:
            names = ["all", *sets, *sorted(ids)]
            raise MetalogicError.single(
                f"unknown MR or set of MRs '{w}' in --mrs",
                expected="all, " + ", ".join(sets) + ", or MR ids such as mr1 (comma-separated)",
                fix=did_you_mean(w, names) or "run 'metalogic mrs' to list the MRs and their sets",
            )
    if not chosen:
        raise MetalogicError.single(
            f"--mrs {','.join(words)} selects no MR", fix="run 'metalogic mrs' to list the MRs and their sets"
        )
    mrs = [m for m in rules.mrs if m.id in chosen]
    owners = {n: o for n, o in rules.param_owner.items() if o in chosen or o == "core"}
    return RuleSet(mrs=mrs, params={n: rules.params[n] for n in owners}, param_owner=owners)
