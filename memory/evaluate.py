"""Deployment side by side: one agent asked a deployment run three ways (no memory, plain RAG, SMA)
from one read-only bank, then checked together. The table shows each capability's Spatial Cognition
score per way, and, where the scene has ground truth, accuracy (through the truth verifier's rules).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from metalogic.engine.errors import MetalogicError
from metalogic.memory.retrieve import DEFAULT_ETA, DEFAULT_K, context_for, deployment_bank

MODE_SUFFIX = {
    "sma": "+memory",
    "rag": "+memory-rag",
    "none": "+memory-none",
}  # as 'metalogic ask' names them


@dataclass
class Comparison:
    agents: dict[str, str]  # mode -> agent name
    scores: dict[tuple[str, str], tuple[int, int]] = field(
        default_factory=dict
    )  # (mode, sc) -> (cases, viol.)
    accuracy: dict[str, tuple[int, int]] = field(default_factory=dict)  # mode -> (right, judged)
    answered: dict[str, int] = field(default_factory=dict)
    failed: dict[str, int] = field(default_factory=dict)  # mode -> questions that got no answer this time

    def as_json(self) -> dict[str, Any]:
        return {
            "agents": self.agents,
            "scores": [
                {
                    "mode": m,
                    "sc": sc,
                    "cases": n,
                    "violations": v,
                    "score": round(1 - v / n, 4) if n else None,
                }
                for (m, sc), (n, v) in sorted(self.scores.items())
            ],
            "accuracy": {
                m: {"right": r, "judged": j, "accuracy": round(r / j, 4) if j else None}
                for m, (r, j) in self.accuracy.items()
            },
            "answered": self.answered,
            "failed": self.failed,
        }


def compare(
    run_dir: str | Path,
    spec: str,
    bank_dir: str | Path,
    base: Any,
    *,
    modes: Sequence[str] = ("none", "rag", "sma"),
    k: int = DEFAULT_K,
    eta: float = DEFAULT_ETA,
    check_engine: str = "clingo",
) -> Comparison:
    """Ask `spec` (AgentSettings `base`) once per memory mode, then check all answers together."""
    from metalogic.agents.kinds import KINDS
    from metalogic.agents.registry import parse_spec
    from metalogic.agents.runner import ask
    from metalogic.engine.check.run import run_check

    kind, _ = parse_spec(spec)
    if KINDS[kind].reference:
        raise MetalogicError.single(
            f"the reference agent '{spec}' does not read prompts, so a memory cannot change its answers",
            fix="compare a model agent (openai:, llamacpp, vllm:)",
        )
    deployment_bank(bank_dir)  # fails early, and clearly, on a missing or damaged bank
    names: dict[str, str] = {}
    failed: dict[str, int] = {}
    for mode in modes:

        def provide(q: Any, task: str, mode: str = mode) -> str:
            return context_for(bank_dir, task, k=k, eta=eta, mode=mode)

        settings = replace(
            base,
            prompting="memory",
            name=spec + MODE_SUFFIX[mode],
            context=provide,
            memory=_fingerprint(mode, bank_dir, k, eta),
        )
        res = ask(run_dir, spec, settings)
        names[mode] = res.agent
        failed[mode] = len(res.failures)
    out = Comparison(names, failed=failed)
    check = run_check(str(run_dir), engine=check_engine, agents=tuple(names.values()))
    by_agent = {v: m for m, v in names.items()}
    for ag, sc, n, v in check.rows.scores:
        if ag in by_agent:
            out.scores[(by_agent[ag], sc)] = (n, v)
    out.accuracy, out.answered = _accuracy(run_dir, names)
    return out


def _fingerprint(mode: str, bank_dir: str | Path, k: int, eta: float) -> str:
    """What the answers depend on, written as 'metalogic ask --prompting memory' writes it (so the
    comparison resumes, or reuses, answers asked that way); k and eta are added when not default."""
    base = f"{mode}:{bank_dir}"
    return base if (k, eta) == (DEFAULT_K, DEFAULT_ETA) else f"{base}:k={k}:eta={eta}"


def _accuracy(
    run_dir: str | Path, names: dict[str, str]
) -> tuple[dict[str, tuple[int, int]], dict[str, int]]:
    from metalogic.agents.rundir import load_run
    from metalogic.agents.store import slug
    from metalogic.engine.facts import read_facts
    from metalogic.engine.terms import Fun, parse_term, text
    from metalogic.memory.verify import Given, outcomes, truth_table

    run = load_run(run_dir)
    truth = truth_table(run.program())
    contents = {q.key: q for q in run.questions}
    acc: dict[str, tuple[int, int]] = {}
    answered: dict[str, int] = {}
    for mode, name in names.items():
        lp = run.answers_dir() / f"{slug(name)}.lp"
        given = []
        for fact in read_facts(lp).facts if lp.is_file() else []:
            t = parse_term(fact)
            if isinstance(t, Fun) and t.name == "answer" and text(t.args[1]) in contents:
                q = contents[text(t.args[1])]
                given.append(Given(q.qid, q.content, t.args[2]))
        answered[mode] = len(given)
        if truth:
            judged = outcomes(given, verifier="truth", truth=truth, cases={})
            acc[mode] = (sum(o.reward == 1000 for o in judged.values()), len(judged))
    return acc, answered


def render(c: Comparison) -> str:
    from metalogic.engine.vocab import vocabulary

    names = vocabulary().capabilities

    modes = list(c.agents)
    lines = [f"{'SC':<5} {'capability':<24} " + " ".join(f"{m:>14}" for m in modes)]
    for sc in sorted({sc for _, sc in c.scores}):
        cells = []
        for m in modes:
            n, v = c.scores.get((m, sc), (0, 0))
            cells.append(f"{1 - v / n:.3f} ({n:>3})" if n else "-")
        lines.append(f"{sc:<5} {names.get(sc, sc):<24} " + " ".join(f"{x:>14}" for x in cells))
    if c.accuracy:
        cells = [f"{r / j:.3f} ({j:>3})" if j else "-" for r, j in (c.accuracy.get(m, (0, 0)) for m in modes)]
        lines.append(f"{'acc':<5} {'accuracy (ground truth)':<24} " + " ".join(f"{x:>14}" for x in cells))
    lines.append("agents: " + ", ".join(f"{m} = {a}" for m, a in c.agents.items()))
    if any(c.failed.values()):
        lines.append(
            "no answer (the request failed) for "
            + ", ".join(f"{n} question(s) of {m}" for m, n in c.failed.items() if n)
            + "; run the same command again to ask them"
        )
    return "\n".join(lines)
