"""Rule tests as data tables: small fact sets and the results the rules must derive from them.

The tables live in tests/rules/*.txt, one file per MR (plus the input checks), written to be read
and checked by a person. A file holds cases:

    == a title saying what the case shows
    settings: eps=0.2              (optional: the CLI's -c overrides)
    query(q1, obj_dir(t, 0, a, b)).  ... facts, exactly as in a facts file
    expect: testcase(mr2(q1,q2), mr2, sc2a)
    expect: violation(ag, mr2(q1,q2), mr2, sc2a, not_inverse)
    expect: score(ag, sc2a, 1, 1)

Lines starting with '#' are comments. The `testcase`, `violation` and `input_error` lines a case
expects are the complete sets (none listed means none may appear); other result lines (score,
score_mr, invalid_cases, explain, ...) must be among the results. Every case runs on clingo and
on SWI-Prolog, and the two must produce identical results of every kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pytest

from metalogic.engine.check.run import resolve_params
from metalogic.engine.facts import read_facts
from metalogic.engine.rules.loader import RuleSet, load_ruleset
from metalogic.engine.session import ENGINES
from metalogic.engine.session.runs import RESULTS, EngineOutput, run_engine
from metalogic.engine.terms import parse_term, text

TABLES = Path(__file__).resolve().parent / "rules"
EXACT_KINDS = ("testcase", "violation", "input_error")


@dataclass
class Case:
    file: str
    line: int
    title: str
    settings: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    expect: dict[str, set[str]] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"tests/rules/{self.file}:{self.line}"


def canonical(term: str) -> str:
    return text(parse_term(term.strip()))


def load_cases(path: Path) -> list[Case]:
    cases: list[Case] = []
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("=="):
            cases.append(Case(path.name, lineno, line[2:].strip()))
            continue
        if not cases:
            raise ValueError(f"{path.name}:{lineno}: text before the first '== title' line")
        case = cases[-1]
        if line.startswith("settings:"):
            case.settings += line.split(":", 1)[1].replace(",", " ").split()
        elif line.startswith("expect:"):
            term = canonical(line.split(":", 1)[1])
            kind = term.split("(", 1)[0]
            if kind not in RESULTS:
                raise ValueError(f"{path.name}:{lineno}: unknown result kind {kind}")
            case.expect.setdefault(kind, set()).add(term)
        else:
            case.facts.append(raw)
    return cases


@lru_cache(maxsize=1)
def all_cases() -> list[Case]:
    return [c for p in sorted(TABLES.glob("*.txt")) for c in load_cases(p)]


@lru_cache(maxsize=1)
def ruleset() -> RuleSet:
    return load_ruleset()


def run_case(case: Case, tmp: Path) -> dict[str, EngineOutput]:
    (tmp / "case.lp").write_text("\n".join(case.facts) + "\n", encoding="utf-8")
    program = read_facts(tmp).program()  # the real reader: the tables hold valid facts files
    params = resolve_params(ruleset(), case.settings)
    return {e: run_engine(e, ruleset(), program, params) for e in ENGINES}


def mismatches(case: Case, out: EngineOutput) -> list[str]:
    problems = []
    for kind in RESULTS:
        want, got = case.expect.get(kind, set()), out.lines[kind]
        missing = sorted(want - got)
        extra = sorted(got - want) if kind in EXACT_KINDS else []
        problems += [f"  {out.engine} missing  {x}" for x in missing]
        problems += [f"  {out.engine} extra    {x}" for x in extra]
    return problems


@pytest.mark.parametrize("case", all_cases(), ids=lambda c: f"{c.file[:-4]}:{c.line}")
def test_rule_table(case: Case, tmp_path: Path) -> None:
    outs = run_case(case, tmp_path)
    problems = [p for out in outs.values() for p in mismatches(case, out)]
    clingo, prolog = outs["clingo"], outs["prolog"]
    for kind in RESULTS:
        for x in sorted(clingo.lines[kind] ^ prolog.lines[kind]):
            only = "clingo" if x in clingo.lines[kind] else "prolog"
            problems.append(f"  engines differ on {x} (only {only})")
    assert not problems, f"{case.where}: {case.title}\n" + "\n".join(problems)


def test_tables_cover_every_mr_and_capability_both_ways() -> None:
    """Each capability an MR serves has at least one case where the MR holds and one where it is
    violated (a case with the MR's test case and no violation of it, and one with a violation)."""
    holds: set[tuple[str, str]] = set()
    broken: set[tuple[str, str]] = set()
    for case in all_cases():
        cases = {}
        for t in case.expect.get("testcase", set()):
            c, mr, sc = _args(t)
            cases[c] = (mr, sc)
        violated = {_args(v)[1] for v in case.expect.get("violation", set())}
        for c, key in cases.items():
            (broken if c in violated else holds).add(key)
    served = {(m.id, sc) for m in ruleset().mrs for sc in m.serves}
    assert served - holds == set(), "no holding case for these (MR, capability) pairs"
    assert served - broken == set(), "no violated case for these (MR, capability) pairs"


def _args(line: str) -> list[str]:
    from metalogic.engine.results import split_args

    return split_args(line)


def test_table_files_parse_and_cases_have_titles() -> None:
    cases = all_cases()
    assert len(cases) >= 100
    titles = [(c.file, c.title) for c in cases]
    assert len(set(titles)) == len(titles), "two cases share a title"
    assert all(c.facts for c in cases)
