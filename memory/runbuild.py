"""Wiring for `metalogic memory build`: the run folder, the agent (from the agents registry, with the
memory as its context provider), the bank, and the construction loop."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from metalogic.engine.errors import MetalogicError
from metalogic.memory.bank import DB_NAME, Bank
from metalogic.memory.build import BatchReport, Builder, BuildOptions, BuildReport, choose_reflector


def open_or_create(bank_dir: str | Path) -> Bank:
    from metalogic.memory.embed import DEFAULT_EMBEDDER, get_embedder

    path = Path(bank_dir)
    if (path / DB_NAME).is_file():
        return Bank.open(path)
    if path.exists() and any(path.iterdir()):
        raise MetalogicError.single(
            f"'{path}' is a folder with other files, not a memory bank",
            expected="an empty or new folder, or an existing bank",
            fix="choose a new --bank folder",
        )
    emb = get_embedder(DEFAULT_EMBEDDER)
    return Bank.create(path, embedder=emb.name, dim=emb.dim)


def make_agent(
    spec: str, run: Any, provider: Callable[..., str], agent_opts: dict[str, Any]
) -> tuple[Any, Any]:
    """The agent for `spec`, prompted with the memory strategy (reference agents answer directly:
    they have no prompt), and the view it is asked in."""
    from metalogic.agents.kinds import KINDS
    from metalogic.agents.model import GenParams
    from metalogic.agents.registry import AgentSettings, backend_options, build_agent, parse_spec

    kind, _ = parse_spec(spec)
    reference = KINDS[kind].reference
    settings = AgentSettings(
        prompting="direct" if reference else "memory",
        name=f"{spec}+memory-build",
        view=agent_opts["view"],
        params=GenParams(max_tokens=agent_opts["max_tokens"]),
        concurrency=agent_opts["concurrency"],
        base_url=agent_opts["base_url"],
        options=backend_options(agent_opts["options"]),
        seed=agent_opts["seed"],
        cache="" if agent_opts["no_cache"] else None,
        context=None if reference else provider,
    )
    agent, view = build_agent(spec, run, settings)
    return agent, view


def run_build(
    run_dir: str,
    spec: str,
    bank_dir: str,
    opts: BuildOptions,
    agent_opts: dict[str, Any],
    on_batch: Callable[[BatchReport], None] | None = None,
) -> tuple[BuildReport, dict[str, Any]]:
    from metalogic.agents.rundir import load_run

    run = load_run(run_dir)
    holder: dict[str, Builder] = {}

    def provider(q: Any, task: str) -> str:
        return holder["builder"].context(q, task)

    agent, view = make_agent(spec, run, provider, agent_opts)
    try:
        reflector = choose_reflector(opts.reflector, agent)
        bank = open_or_create(bank_dir)
    except BaseException:
        agent.close()
        raise
    try:
        builder = Builder(run, agent, bank, opts, reflector, view, on_batch=on_batch)
        holder["builder"] = builder
        report = builder.run_all()
        return report, bank.summary()
    finally:
        agent.close()
        bank.close()
