"""`metalogic ask RUN_DIR --agent SPEC`: a thin click layer over metalogic.agents.runner.ask.

It lives in the application layer because it joins two slices: the agents ask, and with
`--prompting memory` the spatial memory (metalogic.memory.retrieve) provides their notes. The agents
slice itself never imports the memory; the memory builds on the agents."""

from __future__ import annotations

import click

from metalogic.agents import BOXES, PROMPTINGS
from metalogic.agents.base import ContextProvider, Question
from metalogic.agents.model import GenParams, Prices
from metalogic.agents.registry import AgentSettings, backend_options
from metalogic.app.options import (
    agent_spec_option,
    backend_option,
    base_url_option,
    concurrency_option,
    max_tokens_option,
    no_cache_option,
    view_option,
)
from metalogic.engine.errors import MetalogicError


def memory_provider(bank: str | None, mode: str) -> ContextProvider:
    """Notes for each question from the spatial memory (metalogic.memory.retrieve.context_for)."""
    if not bank:
        raise MetalogicError.single(
            "--prompting memory needs --memory-bank PATH",
            fix="point --memory-bank at a memory bank built with 'metalogic memory'",
        )
    try:
        from metalogic.memory import retrieve
    except ImportError as exc:
        raise MetalogicError.single(
            f"the spatial memory cannot be loaded: {exc}",
            fix="pip install 'metalogic[memory]', or use another --prompting",
        ) from None

    def provide(question: Question, task_text: str) -> str:
        return str(retrieve.context_for(bank, task_text, mode=mode))

    return provide


@click.command("ask")
@click.argument("run_dir", type=click.Path())
@agent_spec_option()
@click.option(
    "--prompting",
    type=click.Choice(PROMPTINGS),
    default="direct",
    show_default=True,
    help="direct; cot: reason first; cogmap: draw a top-down grid map first; memory: with notes "
    "from the spatial memory (--memory-bank).",
)
@click.option("--name", help="Agent name in the facts (default: SPEC, plus +PROMPTING unless direct).")
@concurrency_option
@base_url_option
@click.option(
    "--api-key-env",
    default="OPENAI_API_KEY",
    show_default=True,
    help="Environment variable holding the API key.",
)
@click.option("--temperature", type=click.FloatRange(0, 2), default=0.0, show_default=True)
@click.option("--top-p", type=click.FloatRange(0, 1), default=0.9, show_default=True)
@max_tokens_option
@click.option(
    "--seed", type=int, help="Sampling seed for models; noise seed for reference agents (default 0)."
)
@view_option
@click.option(
    "--boxes",
    type=click.Choice(BOXES),
    default="both",
    show_default=True,
    help="Tracked boxes drawn on the image, listed as coordinates, or both.",
)
@click.option(
    "--max-side",
    type=click.IntRange(0, 100_000),
    default=1024,
    show_default=True,
    help="Scale frames down to this many pixels on the longer side (0: never).",
)
@click.option(
    "--structured",
    type=click.Choice(["auto", "on", "off"]),
    default="auto",
    show_default=True,
    help="Constrain replies to the answer's JSON schema where the backend can.",
)
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(0.1, 3600),
    default=120.0,
    show_default=True,
    help="Seconds one request may take in all, however slowly the server sends its reply.",
)
@click.option(
    "--retries",
    type=click.IntRange(0, 100),
    default=6,
    show_default=True,
    help="Retries on HTTP 429/5xx, timeouts and dropped connections (exponential backoff).",
)
@click.option(
    "--cache",
    "cache_path",
    type=click.Path(dir_okay=False),
    help="Response cache file (default: $METALOGIC_CACHE or ~/.cache/metalogic/replies.sqlite3).",
)
@no_cache_option
@backend_option
@click.option(
    "--price-in", type=float, help="US dollars per million prompt tokens (for the cost in the manifest)."
)
@click.option("--price-out", type=float, help="US dollars per million completion tokens.")
@click.option("--memory-bank", help="Spatial memory bank to draw notes from (--prompting memory).")
@click.option(
    "--memory-mode",
    type=click.Choice(["sma", "rag", "none"]),
    default="sma",
    show_default=True,
    help="sma: rank notes by similarity and reliability; rag: similarity only; none: no notes "
    "(the baselines).",
)
@click.option("--limit", type=click.IntRange(0), help="Ask at most this many of the unanswered questions.")
@click.option("--retry-invalid", is_flag=True, help="Ask again the questions whose answers were invalid.")
@click.option(
    "--restart", is_flag=True, help="Discard this agent's earlier answers in RUN_DIR and start over."
)
@click.option(
    "--progress/--no-progress", default=None, help="Progress bar (default: when stderr is a terminal)."
)
def ask_command(
    run_dir: str,
    spec: str,
    prompting: str,
    name: str | None,
    concurrency: int | None,
    base_url: str | None,
    api_key_env: str,
    temperature: float,
    top_p: float,
    max_tokens: int,
    seed: int | None,
    view: str,
    boxes: str,
    max_side: int,
    structured: str,
    timeout_s: float,
    retries: int,
    cache_path: str | None,
    no_cache: bool,
    options: tuple[str, ...],
    price_in: float | None,
    price_out: float | None,
    memory_bank: str | None,
    memory_mode: str,
    limit: int | None,
    retry_invalid: bool,
    restart: bool,
    progress: bool | None,
) -> None:
    """Ask an agent every question of RUN_DIR; write RUN_DIR/answers/NAME.lp (answer/3, raw_reply/3)
    and NAME.json (the run manifest). A stopped run resumes where it stopped.

    Example: metalogic ask run/ --agent openai:gpt-4o --prompting cogmap --concurrency 16
    """
    from metalogic.agents.runner import ask

    context = memory_provider(memory_bank, memory_mode) if prompting == "memory" else None
    memory = f"{memory_mode}:{memory_bank}" if prompting == "memory" else ""
    if prompting == "memory" and memory_mode != "sma" and not name:
        name = f"{spec}+memory-{memory_mode}"  # keep the baselines apart from the real thing
    settings = AgentSettings(
        prompting=prompting,
        name=name,
        view=view,
        boxes=boxes,
        max_side=max_side,
        params=GenParams(temperature, top_p, max_tokens, seed),
        concurrency=concurrency,
        base_url=base_url,
        api_key_env=api_key_env,
        timeout_s=timeout_s,
        retries=retries,
        structured=structured,
        cache="" if no_cache else cache_path,
        prices=Prices(price_in, price_out),
        options=backend_options(options),
        seed=seed or 0,
        context=context,
        memory=memory,
    )
    result = ask(
        run_dir, spec, settings, restart=restart, retry_invalid=retry_invalid, limit=limit, progress=progress
    )
    click.echo(result.summary())
    if result.stale:
        click.echo(f"{result.stale} earlier answer(s) were to questions that changed or are gone; not kept")
    click.echo(f"wrote {result.facts} and {result.manifest.name}")
    if result.failures:
        raise MetalogicError.single(
            f"{len(result.failures)} question(s) got no answer; first: {result.failures[0]}",
            fix="run the same command again to ask them (everything answered is kept)",
        )
