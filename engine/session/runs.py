"""The two engines behind one call: rules + facts + parameters in, result lines out.

Both engines return the same thing: for each result predicate (testcase, violation, score, ...),
the set of ground atoms as canonical text, exactly as clingo prints them. The Prolog driver
(logic/core/driver.pl) prints terms the same way, so the two outputs can be compared line by line.

Both run through engine/session/api.py: clingo as one fresh Control per run, SWI-Prolog as the process's
one embedded engine (its rule files swapped in when the rule set changes; the facts asserted for
the run and retracted after it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field

import clingo

from metalogic.engine.rules.loader import RuleSet
from metalogic.engine.schema import RESULTS as RESULTS  # the result predicates: one table, in schema.py
from metalogic.engine.session.api import Session, param_facts

# Written only by `check --out`: asked of the engines only when wanted. The rows of test cases and
# violations are derived either way (the scores count them) but only taken out of the engine for
# --out; the score table prints their numbers (case_count/1, violation_count/2). The rest is
# derived only for --out (logic/core/detail.lp).
DETAIL_RESULTS = frozenset({"testcase", "violation", "score_traj", "score_object", "query_score", "explain"})


def wanted(detail: bool) -> dict[str, int]:
    """The result predicates a run derives: all of them, or those the score table needs."""
    return {k: a for k, a in RESULTS.items() if detail or k not in DETAIL_RESULTS}


# What blame reads from the check (engine/check/blame.py): on clingo the symbols are kept beside the
# lines, so that blame hands them to its programs without reading the lines again.
BLAME_INPUTS = ("conflict_set", "answer_held", "answer_mr", "tested_answers", "untested_suspect")


@dataclass
class EngineOutput:
    engine: str
    lines: dict[str, set[str]] = field(default_factory=lambda: {k: set() for k in RESULTS})
    # line -> symbol of the BLAME_INPUTS predicates; empty where the lines are all there is
    symbols: dict[str, dict[str, clingo.Symbol]] = field(default_factory=dict)


def run_clingo(rules: RuleSet, program: str, params: Mapping[str, int], detail: bool = True) -> EngineOutput:
    session = Session("clingo").load(*(rules.detail_lp_files if detail else rules.lp_files))
    session.add(program)
    return _clingo_lines(session, params, detail)


def _clingo_lines(session: Session, params: Mapping[str, int], detail: bool) -> EngineOutput:
    session.add(param_facts(params)).show(*wanted(detail).items())
    out = EngineOutput("clingo")
    lines = out.lines
    kept: dict[str, dict[str, clingo.Symbol]] = {name: {} for name in BLAME_INPUTS}
    for sym in session.symbols():
        name, text = sym.name, str(sym)
        lines[name].add(text)
        if name in kept:
            kept[name][text] = sym
    out.symbols = kept
    return out


class ClingoStream:
    """A clingo check whose facts are parsed while they are still being read: `feed` takes each
    chunk of checked facts (read_facts' sink) and clingo parses it on a second thread while the
    reader checks the next chunk (clingo does not hold Python's lock while it parses). At 100k
    answers this hides most of the 0.6 s that parsing the facts takes. `finish` grounds and gives
    the same lines as run_engine on the whole program; `close` (the end of a `with` block) stops
    the parser thread, whatever happened."""

    def __init__(self, rules: RuleSet, detail: bool = True) -> None:
        self.rules, self.detail, self.chars = rules, detail, 0
        self._t0 = time.perf_counter()
        self._session = Session("clingo").load(*(rules.detail_lp_files if detail else rules.lp_files))
        self._parser = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clingo-parse")
        self._parsed: list[Future[None]] = []

    def __enter__(self) -> ClingoStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def feed(self, facts: list[str]) -> None:
        text = "".join(f"{f}.\n" for f in facts)
        self.chars += len(text)
        self._parsed.append(self._parser.submit(self._session.parse, text))

    @property
    def session(self) -> Session:
        return self._session

    def parsed(self) -> None:
        """Wait until every chunk fed is parsed (a parse error is raised here), and stop the thread."""
        for parsed in self._parsed:
            parsed.result()
        self.close()

    def finish(self, params: Mapping[str, int]) -> EngineOutput:
        self.parsed()
        out = _clingo_lines(self._session, params, self.detail)
        if _LISTENERS:
            mrs = tuple(m.id for m in self.rules.mrs)
            notify_engine_run(EngineRun("clingo", mrs, self.chars, time.perf_counter() - self._t0))
        return out

    def close(self) -> None:
        self._parser.shutdown(wait=True, cancel_futures=True)


def run_prolog(rules: RuleSet, program: str, params: Mapping[str, int], detail: bool = True) -> EngineOutput:
    out = EngineOutput("prolog")
    session = Session("prolog").load(*rules.pl_files)
    for name, lines in session.check(program + param_facts(params), detail).items():
        out.lines[name] |= lines
    return out


def prolog_declarations(rules: RuleSet) -> list[str]:
    return Session("prolog").load(*rules.pl_files).declarations()


@dataclass(frozen=True)
class EngineRun:
    """One run of the MR rules by an engine, as the listeners of `engine_runs` see it."""

    engine: str  # clingo or prolog
    mrs: tuple[str, ...]  # the ids of the MRs it ran
    program_chars: int  # size of the facts program (0 for a sharded run: the shards hold it)
    seconds: float
    shards: int = 1  # > 1: checked in that many shards by worker processes (one record for all)


_LISTENERS: list[Callable[[EngineRun], None]] = []


@contextmanager
def engine_runs() -> Iterator[list[EngineRun]]:
    """Record every run of the MR rules made in this process while the block runs:
    `with engine_runs() as runs: ...` then `runs` holds one EngineRun per engine run (a sharded
    run counts once, in the process that started it). For profiling, and for tests that count how
    often a command runs the engines."""
    runs: list[EngineRun] = []
    _LISTENERS.append(runs.append)
    try:
        yield runs
    finally:
        _LISTENERS.remove(runs.append)


def listening() -> bool:
    """Is any `engine_runs` block recording?"""
    return bool(_LISTENERS)


def notify_engine_run(run: EngineRun) -> None:
    for listener in list(_LISTENERS):
        listener(run)


def run_engine(
    engine: str, rules: RuleSet, program: str, params: Mapping[str, int], detail: bool = True
) -> EngineOutput:
    """The result lines of the MR rules on a facts program; with detail=False only what the score
    table needs (no explanations, no per trajectory/object/answer counts: their sets stay empty)."""
    t0 = time.perf_counter()
    if engine == "clingo":
        out = run_clingo(rules, program, params, detail)
    elif engine == "prolog":
        out = run_prolog(rules, program, params, detail)
    else:
        raise ValueError(engine)
    if _LISTENERS:
        mrs = tuple(m.id for m in rules.mrs)
        notify_engine_run(EngineRun(engine, mrs, len(program), time.perf_counter() - t0))
    return out
