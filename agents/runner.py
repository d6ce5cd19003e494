"""The ask loop: every unanswered question of a run folder to one agent, answers to disk as they come.

Answers that cost a model request are journaled (and fsync'd) the moment they arrive; answers that
cost nothing to redo (cache hits, reference agents) are journaled in small groups. Ctrl-C and
SIGTERM stop the run cleanly (facts file and manifest written); kill -9 loses nothing journaled.
The next run with the same settings asks only what is missing.
"""

from __future__ import annotations

import asyncio
import json
import platform
import signal
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from metalogic import __version__
from metalogic.agents.base import Agent, Answer, Question
from metalogic.agents.registry import AgentSettings, build_agent
from metalogic.agents.rundir import RunDir, load_run
from metalogic.agents.store import AnswerStore
from metalogic.engine.whole_files import write_text_whole

FLUSH_EVERY_S = 0.5  # journal free answers at least this often
SNAPSHOT_EVERY_S = 2.0  # rewrite the facts file at most this often while running


@dataclass
class AskResult:
    agent: str
    facts: Path
    manifest: Path
    questions: int
    had: int  # answered before this run
    asked: int  # questions this run set out to answer
    answered: int = 0
    cached: int = 0
    invalid: int = 0
    skipped: int = 0
    failures: list[str] = field(default_factory=list)
    stale: int = 0
    wall_s: float = 0.0
    status: str = "complete"

    def summary(self) -> str:
        parts = [f"{self.answered} answered"]
        if self.cached:
            parts.append(f"{self.cached} from the cache")
        parts.append(f"{self.invalid} invalid")
        if self.skipped:
            parts.append(f"{self.skipped} without ground truth")
        if self.failures:
            parts.append(f"{len(self.failures)} failed")
        head = (
            f"{self.agent}: {self.asked} to ask of {self.questions} questions ({self.had} answered before); "
        )
        return head + ", ".join(parts) + f" in {self.wall_s:.1f} s"


class _Journal:
    """Answers on their way to the store: costly ones at once, free ones in groups."""

    def __init__(self, store: AnswerStore, result: AskResult, bar: Any) -> None:
        self.store, self.result, self.bar = store, result, bar
        self.pending: list[Answer] = []
        self.last = time.monotonic()

    def __call__(self, a: Answer) -> None:
        r = self.result
        if a.failed:
            r.failures.append(f"{a.question.key}: {a.error}")
        elif a.skipped:
            r.skipped += 1
        else:
            r.answered += 1
            r.cached += a.cached
            r.invalid += a.invalid
            self.pending.append(a)
        if a.attempts > 0 or time.monotonic() - self.last >= FLUSH_EVERY_S or len(self.pending) >= 512:
            self.flush()
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(cached=r.cached, invalid=r.invalid, failed=len(r.failures), refresh=False)

    def flush(self) -> None:
        self.store.add(self.pending)
        self.pending = []
        self.last = time.monotonic()
        self.store.snapshot(every_s=SNAPSHOT_EVERY_S)


def ask(
    run_dir: str | Path,
    spec: str,
    settings: AgentSettings,
    *,
    restart: bool = False,
    retry_invalid: bool = False,
    limit: int | None = None,
    progress: bool | None = None,
) -> AskResult:
    """Ask `spec` every question of `run_dir` not answered yet; returns what happened."""
    run = load_run(run_dir)
    agent, view = build_agent(spec, run, settings)
    try:
        return ask_agent(
            run,
            agent,
            spec,
            settings,
            view,
            restart=restart,
            retry_invalid=retry_invalid,
            limit=limit,
            progress=progress,
        )
    finally:
        agent.close()


def ask_agent(
    run: RunDir,
    agent: Agent,
    spec: str,
    settings: AgentSettings,
    view: str = "",
    *,
    restart: bool = False,
    retry_invalid: bool = False,
    limit: int | None = None,
    progress: bool | None = None,
) -> AskResult:
    """Ask an agent object (built by `build_agent`, or by hand) the unanswered questions of a run."""
    _preflight(agent, run.questions)
    fingerprint = settings.fingerprint(spec, view)
    store = AnswerStore(run.answers_dir(), agent.name, fingerprint, run.questions, restart)
    try:
        done = store.answered(retry_invalid)
        todo = [q for q in run.questions if q.key not in done][: limit if limit is not None else None]
        result = AskResult(
            agent.name, store.lp, store.manifest, len(run.questions), len(done), len(todo), stale=store.stale
        )
        started, t0 = time.time(), time.monotonic()
        bar = _bar(len(todo), agent.name, progress)
        journal = _Journal(store, result, bar)
        try:
            with _sigterm_as_interrupt():
                asyncio.run(_drive(agent, todo, journal))
            result.status = "complete" if not result.failures else "incomplete"
        except KeyboardInterrupt:
            result.status = "interrupted"
            raise
        finally:
            journal.flush()
            if bar is not None:
                bar.close()
            result.wall_s = time.monotonic() - t0
            store.snapshot()
            write_manifest(store, agent, spec, view, settings, run.root, result, started)
    finally:
        store.close()
    return result


async def _drive(agent: Agent, todo: Sequence[Question], journal: _Journal) -> None:
    try:
        await agent.stream(todo, journal)
    finally:
        await agent.aclose()


def _preflight(agent: Agent, questions: Sequence[Question]) -> None:
    """Every question must fit its vocabulary and have its frames; say so before anything is asked
    or written."""
    check = getattr(getattr(agent, "builder", None), "preflight", None) or getattr(agent, "space", None)
    if check is not None:
        for q in questions:
            check(q)


def _bar(total: int, name: str, progress: bool | None) -> Any:
    show = sys.stderr.isatty() if progress is None else progress
    if not show or total == 0:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=name, unit="q", file=sys.stderr, dynamic_ncols=True)


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Let `kill` (SIGTERM) stop a run the way Ctrl-C does: cleanly, with everything written."""
    try:
        old = signal.signal(signal.SIGTERM, signal.default_int_handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def write_manifest(
    store: AnswerStore,
    agent: Agent,
    spec: str,
    view: str,
    settings: AgentSettings,
    root: Path,
    result: AskResult,
    started: float,
) -> None:
    recs = list(store.records.values())
    spent = [r for r in recs if not r.get("cached") and r.get("attempts", 0) > 0]
    costs = [r["cost_usd"] for r in spent if r.get("cost_usd") is not None]
    lat = sorted(r["latency_s"] for r in spent)
    info = agent.info()
    sessions = _old_sessions(store.manifest)
    sessions.append(
        {
            "started": started,
            "wall_s": round(result.wall_s, 3),
            "status": result.status,
            "asked": result.asked,
            "answered": result.answered,
            "cached": result.cached,
            "invalid": result.invalid,
            "skipped": result.skipped,
            "failed": len(result.failures),
            **_model_stats(agent),
            "answers_per_s": round(result.answered / result.wall_s, 3) if result.wall_s else None,
        }
    )
    manifest = {
        "agent": agent.name,
        "spec": spec,
        "backend": info.backend,
        "model": info.model,
        "prompting": settings.prompting,
        "view": view,
        "run_dir": str(root.resolve()),
        "fingerprint": store.fingerprint,
        "settings": info.settings,
        "versions": {
            "metalogic": __version__,
            "python": platform.python_version(),
            **_clingo(),
            **info.versions,
        },
        "questions": len(store.order),
        "answers": {
            "total": len(recs),
            "invalid": sum(r["value"] == "invalid" for r in recs),
            "missing": len(store.order) - len(recs),
            "from_cache": sum(bool(r.get("cached")) for r in recs),
        },
        "tokens": {
            "prompt": sum(r["prompt_tokens"] for r in recs),
            "completion": sum(r["completion_tokens"] for r in recs),
            "prompt_spent": sum(r["prompt_tokens"] for r in spent),
            "completion_spent": sum(r["completion_tokens"] for r in spent),
        },
        "cost_usd": round(sum(costs), 6) if costs else None,
        "latency_s": {
            "requests": len(lat),
            "p50": _pct(lat, 0.5),
            "p95": _pct(lat, 0.95),
            "mean": round(statistics.fmean(lat), 4) if lat else None,
        },
        "sessions": sessions,
        "failures": result.failures[:20],
        "files": {"facts": store.lp.name, "journal": store.journal.name},
    }
    write_text_whole(store.manifest, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", durable=True)


def _model_stats(agent: Agent) -> dict[str, int]:
    stats = getattr(agent, "stats", None)
    if stats is None:
        return {}
    return {"requests": stats.requests, "retries": stats.retries}


def _pct(xs: list[float], q: float) -> float | None:
    return round(xs[min(len(xs) - 1, int(q * len(xs)))], 4) if xs else None


def _old_sessions(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return []
    sessions = data.get("sessions") if isinstance(data, dict) else None
    return list(sessions) if isinstance(sessions, list) else []


def _clingo() -> dict[str, str]:
    try:
        import clingo

        return {"clingo": clingo.__version__}
    except ImportError:  # pragma: no cover - clingo is a core dependency
        return {}
