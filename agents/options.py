"""Click options shared by the commands that ask an agent (ask, memory build, memory compare), written
once so that their names, types, defaults and help read the same everywhere."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from metalogic.engine.errors import MetalogicError

AGENTS_HELP = (
    "openai:MODEL (any OpenAI-compatible server), vllm:MODEL (offline vLLM), llamacpp[:PATH.gguf] "
    "(local; alone: the packaged Gemma 3 270M), oracle, noisy:P, random, biased:KIND[:ARG] (constant, "
    "mirror, nearfar, updown, turnmap[:Q], scale:K, stale, shuffle)"
)


def agent_spec_option(help: str = AGENTS_HELP + ".") -> Callable[[Any], Any]:
    """The one agent to ask: --agent SPEC (required)."""
    return click.option("--agent", "spec", required=True, metavar="SPEC", help=help)


base_url_option = click.option(
    "--base-url",
    help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (default: $OPENAI_BASE_URL or OpenAI).",
)
concurrency_option = click.option(
    "--concurrency",
    type=click.IntRange(1, 4096),
    help="Requests in flight (default per backend: openai 8, vllm 256, llamacpp 1).",
)
max_tokens_option = click.option(
    "--max-tokens",
    type=click.IntRange(1, 1_000_000),
    default=512,
    show_default=True,
    help="Longest reply, in tokens.",
)
view_option = click.option(
    "--view",
    type=click.Choice(["auto", "image", "text"]),
    default="auto",
    show_default=True,
    help="image: frames as images; text: objects as labelled boxes with coordinates (models without "
    "vision); auto: image when the backend takes images.",
)
no_cache_option = click.option("--no-cache", is_flag=True, help="Neither read nor write the response cache.")
backend_option = click.option(
    "-o",
    "--option",
    "options",
    multiple=True,
    metavar="KEY=VALUE",
    help="Backend option, e.g. -o n_ctx=4096 (llamacpp), -o tensor_parallel_size=2 (vllm), "
    "-o response_format=json_object or -o top_k=20 (openai).",
)


def backend_options(pairs: tuple[str, ...]) -> dict[str, str]:
    """The -o KEY=VALUE pairs as a dict (a clear error for one without '=')."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise MetalogicError.single(
                f"backend option '{pair}' is not KEY=VALUE",
                expected="-o KEY=VALUE, e.g. -o n_ctx=4096 or -o tensor_parallel_size=2",
            )
        out[key.strip()] = value.strip()
    return out
