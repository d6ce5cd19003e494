"""The memory's laws, decided by the engines: TRS update, candidate ranking and visit rewards.

The rules live in logic/memory/ (trs, rank, reward; each as a clingo .lp and an SWI-Prolog .pl
twin). Python only builds the input facts, runs one engine (or both, insisting they agree) and
reads the result lines back; it never recomputes a score. The input facts hold values read from a
bank, so they reach the engines as data through their APIs (memory/engine_input.py), never as
program text.

SWI-Prolog runs in the process's one shared engine (metalogic.engine.session.api), under its lock.
The memory files are modules of their own, loaded once beside whatever MR rules are loaded
(resident files of the session), so the MR rule swapping of `metalogic check` never touches them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from metalogic.engine.errors import MetalogicError, Problem, did_you_mean
from metalogic.engine.results import split_args
from metalogic.engine.session import ENGINE_CHOICES
from metalogic.engine.session.api import Session
from metalogic.engine.terms import Atom, Fun, ParseError, Term, parse_term
from metalogic.logic import LOGIC_DIR
from metalogic.memory.engine_input import input_fact

MEMORY_LOGIC = LOGIC_DIR / "memory"
PROGRAMS = ("trs", "rank", "reward")
LOGIC_ENGINES = ENGINE_CHOICES
DEFAULT_ENGINE = "prolog"  # in-process and fast for the small programs run at every retrieval
_NEEDS_TABLES = {"reward"}


def lp_file(name: str) -> Path:
    return MEMORY_LOGIC / f"{name}.lp"


def pl_file(name: str) -> Path:
    return MEMORY_LOGIC / f"{name}.pl"


def check_engine(engine: str) -> str:
    if engine not in LOGIC_ENGINES:
        raise MetalogicError.single(
            f"unknown logic engine '{engine}'",
            expected=" or ".join(LOGIC_ENGINES),
            fix=did_you_mean(engine, LOGIC_ENGINES) or "use --engine prolog",
        )
    return engine


def run_program(name: str, facts: Sequence[Fun | str], engine: str = DEFAULT_ENGINE) -> set[str]:
    """Run one memory program on ground facts (terms, or texts such as 'cand(1,2,3)' read by the
    strict term parser): its result lines.

    With engine 'both' the two engines must produce identical lines."""
    check_engine(engine)
    facts = [input_fact(f) for f in facts]
    if engine == "both":
        a, b = _run_clingo(name, facts), _run_prolog(name, facts)
        if a != b:
            diff = sorted(a - b)[:3] + sorted(b - a)[:3]
            raise MetalogicError.single(
                f"clingo and SWI-Prolog disagree on logic/memory/{name}: " + "; ".join(diff),
                expected="identical results from the two twins",
                fix=f"make {name}.lp and {name}.pl agree",
            )
        out = a
    else:
        out = _run_clingo(name, facts) if engine == "clingo" else _run_prolog(name, facts)
    errors = sorted(line for line in out if line.startswith("error("))
    if errors:
        raise MetalogicError(
            [
                Problem(
                    f"the memory rules ({name}) reject their input: {e[6:-1]}",
                    where=str(lp_file(name)),
                    expected="input within the documented ranges",
                    fix="the bank may be damaged; run 'metalogic memory stats BANK'",
                )
                for e in errors[:5]
            ],
            more=max(0, len(errors) - 5),
        )
    return out


def _run_clingo(name: str, facts: Sequence[Fun]) -> set[str]:
    failure = f"clingo failed on logic/memory/{name}.lp"
    session = Session("clingo", tables=name in _NEEDS_TABLES, failure=failure)
    return session.load(lp_file(name)).add(facts).lines()


def _run_prolog(name: str, facts: Sequence[Fun]) -> set[str]:
    session = Session("prolog").load(pl_file(name), resident=True)
    lines = session.call(f"metalogic_memory_{name}", f"{name}_lines", facts)
    if lines is None:
        raise MetalogicError.single(
            f"SWI-Prolog found no answer for logic/memory/{name}.pl",
            expected="a list of result lines",
            fix="check the rule file",
        )
    return set(lines)


# ---- TRS ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stats:
    """A card's visit statistics: n visits, cumulative reward c (thousandths), TRS v (millionths)."""

    n: int
    c: int
    v: int


def trs_update(
    before: Mapping[int, tuple[int, int]],
    visits: Iterable[tuple[int, int, int]],
    engine: str = DEFAULT_ENGINE,
    params: Mapping[str, int] | None = None,
) -> dict[int, Stats]:
    """Statistics after new visits. `before`: card -> (n, c); `visits`: (card, visit key, reward in
    thousandths). Cards without visits come back unchanged in n and c, with their TRS."""
    facts = [Fun("stats", (i, n, c)) for i, (n, c) in sorted(before.items())]
    facts += [Fun("visit", (i, key, r)) for i, key, r in visits]
    facts += _params(params)
    out: dict[int, Stats] = {}
    for line in run_program("trs", facts, engine):
        if line.startswith("trs("):
            i, n, c, v = (int(x) for x in split_args(line))
            out[i] = Stats(n, c, v)
    return out


def initial_trs(engine: str = DEFAULT_ENGINE, params: Mapping[str, int] | None = None) -> int:
    """The TRS of a card nobody has visited yet (v0, in millionths), as the rules define it."""
    return trs_update({0: (0, 0)}, [], engine, params)[0].v


# ---- ranking --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ranked:
    card: int
    rank: int  # 1 = best; 0 for a candidate scored but not kept
    score: int  # millionths of a standard deviation
    z_sim: int  # thousandths of a standard deviation
    z_trs: int


def param_defaults(name: str) -> dict[str, int]:
    """The parameters of a memory program and their defaults, read as data from its declaration
    file logic/memory/NAME.decl (which both of its rule files include): the one place they are set."""
    from metalogic.engine.rules.declarations import read_declarations

    path = MEMORY_LOGIC / f"{name}.decl"
    decl, problems = read_declarations(path)
    if problems:
        raise MetalogicError(problems)
    return {str(d[0]): int(d[1]) for d, _ in decl.get("param_default", [])}


def rank_candidates(
    cands: Sequence[tuple[int, int, int]],
    *,
    eta: int | None = None,
    k: int | None = None,
    floor: int | None = None,
    engine: str = DEFAULT_ENGINE,
) -> list[Ranked]:
    """Rank candidates (card, similarity in millionths, TRS in millionths); eta and floor in
    thousandths, each left to the rules' default (logic/memory/rank.decl) when not given. Returns
    every candidate above the floor, kept ones first in rank order."""
    if not cands:
        return []
    facts = [Fun("cand", (i, s, v)) for i, s, v in cands]
    given = {"rank_eta": eta, "rank_k": k, "rank_floor": floor}
    facts += _params({n: v for n, v in given.items() if v is not None})
    picks: dict[int, int] = {}
    scored: dict[int, tuple[int, int, int]] = {}
    for line in run_program("rank", facts, engine):
        args = [int(x) for x in split_args(line)]
        if line.startswith("pick("):
            picks[args[0]] = args[1]
        elif line.startswith("scored("):
            scored[args[0]] = (args[1], args[2], args[3])
    rows = [Ranked(i, picks.get(i, 0), s[2], s[0], s[1]) for i, s in scored.items()]
    return sorted(rows, key=lambda r: (r.rank == 0, r.rank, r.card))


# ---- rewards --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Evidence:
    """What is known about one answer: its type, the answer, the truth and/or its MR test cases."""

    query: str  # canonical text of the query id
    answer_type: str
    given: str  # canonical text of the answer value
    truth: str | None = None
    cases: tuple[int, int] | None = None  # (test cases involving the answer, violated)


def rewards(
    evidence: Sequence[Evidence], engine: str = DEFAULT_ENGINE, params: Mapping[str, int] | None = None
) -> dict[tuple[str, str], int]:
    """(query, verifier) -> reward in thousandths, for verifier 'truth' and 'mr' where decidable."""
    facts: list[Fun] = []
    for e in evidence:
        q = _term(e.query)
        facts += [Fun("given", (q, _term(e.given))), Fun("answer_type", (q, _term(e.answer_type)))]
        if e.truth is not None:
            facts.append(Fun("truth", (q, _term(e.truth))))
        if e.cases is not None:
            facts.append(Fun("cases", (q, e.cases[0], e.cases[1])))
    facts += _params(params)
    out: dict[tuple[str, str], int] = {}
    for line in run_program("reward", facts, engine):
        if line.startswith("reward("):
            q, verifier, r = split_args(line)
            out[(q, verifier)] = int(r)
    return out


def _params(params: Mapping[str, int] | None) -> list[Fun]:
    return [Fun("param_override", (Atom(k), v)) for k, v in sorted((params or {}).items())]


def _term(canonical: str) -> Term:
    """A canonical text (a query id, an answer value) as a term, read by the strict parser as data."""
    try:
        return parse_term(canonical)
    except ParseError as exc:
        raise MetalogicError.single(
            f"{canonical[:80]!r} is not a term: {exc.what}",
            expected="query ids and answers as written in facts files",
            fix="check the answers given to the memory",
        ) from None
