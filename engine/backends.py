"""The two engines behind one call: rules + facts + parameters in, result lines out.

Both backends return the same thing: for each result predicate (testcase, violation, score, ...),
the set of ground atoms as canonical text, exactly as clingo prints them. The Prolog driver
(logic/core/driver.pl) prints terms the same way, so the two outputs can be compared line by line.

clingo: one Control per run (long-lived Controls grow in memory). SWI-Prolog: one embedded engine
per process (pyswip, held by engine/session.py), guarded by a lock; rule files are loaded once and
swapped when the rule set changes, facts are asserted from a temporary file and retracted after the run.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import clingo

from metalogic.engine.errors import MetalogicError, Problem
from metalogic.engine.rules import SHARED_TABLES, RuleSet
from metalogic.engine.schema import RESULTS as RESULTS  # the result predicates: one table, in schema.py
from metalogic.engine.session import LOCK as _LOCK
from metalogic.engine.session import PrologEngine, _esc, _Log, clingo_problems
from metalogic.engine.session import param_facts as _param_facts
from metalogic.logic import CORE_DIR

ENGINES = ("clingo", "prolog")
# Written only by `check --out` (logic/core/detail.lp): asked of the engines only when wanted.
DETAIL_RESULTS = frozenset({"score_traj", "score_object", "query_score", "explain"})


def wanted(detail: bool) -> dict[str, int]:
    """The result predicates a run derives: all of them, or those the score table needs."""
    return {k: a for k, a in RESULTS.items() if detail or k not in DETAIL_RESULTS}


@dataclass
class EngineOutput:
    engine: str
    lines: dict[str, set[str]] = field(default_factory=lambda: {k: set() for k in RESULTS})


def run_clingo(rules: RuleSet, program: str, params: Mapping[str, int], detail: bool = True) -> EngineOutput:
    log = _Log()
    ctl = clingo.Control(["--warn=none"], logger=log, message_limit=20)
    ctl.load(str(SHARED_TABLES))
    for f in rules.detail_lp_files if detail else rules.lp_files:
        ctl.load(str(f))
    shows = "".join(f"#show {name}/{arity}.\n" for name, arity in wanted(detail).items())
    ctl.add("base", [], program + _param_facts(params) + shows)
    try:
        ctl.ground([("base", [])])
    except RuntimeError:
        raise MetalogicError(
            clingo_problems(log) or [Problem("clingo failed to ground the program")]
        ) from None
    out = EngineOutput("clingo")
    lines = out.lines

    def on_model(model: clingo.Model) -> None:
        for sym in model.symbols(shown=True):
            lines[sym.name].add(str(sym))

    ctl.solve(on_model=on_model)
    return out


def run_headline(agents: set[str], score_set_lines: set[str]) -> dict[str, set[str]]:
    """score/4 and score_from/3 chosen by logic/core/headline.lp from score_set/5 rows alone (the
    shard merge sums those rows across shards, then lets the rules pick the headline)."""
    log = _Log()
    ctl = clingo.Control(["--warn=none"], logger=log, message_limit=20)
    ctl.load(str(SHARED_TABLES))
    ctl.load(str(CORE_DIR / "headline.lp"))
    facts = "".join(f"agent({a}).\n" for a in sorted(agents))
    facts += "".join(f"{line}.\n" for line in sorted(score_set_lines))
    ctl.add("base", [], facts + "#show score/4.\n#show score_from/3.\n")
    ctl.ground([("base", [])])
    out: dict[str, set[str]] = {"score": set(), "score_from": set()}

    def on_model(model: clingo.Model) -> None:
        for sym in model.symbols(shown=True):
            out[sym.name].add(str(sym))

    ctl.solve(on_model=on_model)
    return out


class _Prolog(PrologEngine):
    """The process's one embedded SWI-Prolog (engine/session.py loads and swaps its rule files),
    running the MR check."""

    def run(self, program: str, params: Mapping[str, int], detail: bool = True) -> EngineOutput:
        with tempfile.TemporaryDirectory(prefix="metalogic-") as tmp:
            facts = Path(tmp, "facts.pl")
            facts.write_text(program + _param_facts(params), encoding="utf-8")
            result = Path(tmp, "result.txt")
            try:
                self._call(f"ml_reset({self.indicators})")
                self._call(f"ml_load_facts('{_esc(facts)}')")
                self._call(f"ml_run('{_esc(result)}', {str(detail).lower()})")
            except Exception as exc:  # pyswip's PrologError: a rule file failed while running
                raise self._runtime_error(exc) from None
            finally:
                self._call(f"ml_reset({self.indicators})")
            out = EngineOutput("prolog")
            with result.open(encoding="utf-8") as fh:
                for line in fh:
                    line = line.rstrip("\n")
                    out.lines[line[: line.index("(")]].add(line)
        return out


_PROLOG: _Prolog | None = None


def prolog() -> _Prolog:
    global _PROLOG
    if _PROLOG is None:
        _PROLOG = _Prolog()
    return _PROLOG


def run_prolog(rules: RuleSet, program: str, params: Mapping[str, int], detail: bool = True) -> EngineOutput:
    with _LOCK:
        pl = prolog()
        pl.use_rules(rules.pl_files)
        return pl.run(program, params, detail)


def prolog_declarations(rules: RuleSet) -> list[str]:
    with _LOCK:
        pl = prolog()
        pl.use_rules(rules.pl_files)
        return pl.declarations()


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
