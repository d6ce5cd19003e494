"""Click options shared by the commands (check, algebra, generate, report, compare, ask, memory),
written once so that their names, defaults and help read the same everywhere. The engine choice has
one name in every command: --engine; the agent options read alike in ask and memory."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

from metalogic.agents import VIEW_CHOICES
from metalogic.agents.kinds import agents_help
from metalogic.engine.session import ENGINE_CHOICES

Decorator = Callable[[Any], Any]


def engine_choice(
    help: str, *, choices: Sequence[str] = ENGINE_CHOICES, default: str | None = "clingo"
) -> Decorator:
    """The --engine option (the parameter `engine`); `choices` and `default` as the command needs."""
    return click.option(
        "--engine",
        "engine",
        type=click.Choice(list(choices)),
        default=default,
        show_default=default is not None,
        help=help,
    )


def const_choice(help: str = "Override a parameter, e.g. -c eps=0.1 (see 'metalogic mrs').") -> Decorator:
    """The -c/--const NAME=VALUE option (the parameter `settings`, repeatable)."""
    return click.option("-c", "--const", "settings", multiple=True, metavar="NAME=VALUE", help=help)


def agent_filter_option(help: str = "Only this agent (repeatable).") -> Decorator:
    """--agent NAME as a filter on the agents of a check (the parameter `agents`, repeatable)."""
    return click.option("--agent", "agents", multiple=True, help=help)


rules_option = click.option(
    "--rules",
    "rules_dirs",
    multiple=True,
    type=click.Path(file_okay=False),
    help="Extra folder of MR rule files (NAME.decl + NAME.lp + NAME.pl); repeatable.",
)


def mrs_choice(help: str, *, default: str | None) -> Decorator:
    """The --mrs SET|ID[,...] option (the parameter `mrs`)."""
    return click.option(
        "--mrs", "mrs", default=default, show_default=default is not None, metavar="SET|ID[,...]", help=help
    )


mrs_option = mrs_choice(
    "Which MRs to run: all, paper (the six published MRs), anchored, across, joint, user, or MR ids.",
    default="all",
)
engine_option = engine_choice("Rule engine; 'both' runs both and fails if they disagree.")
const_option = const_choice()

# report and compare read what a check wrote: left out, the engine and the MRs are the check's own
# (a facts folder given instead is checked with clingo and every MR).
as_checked_mrs_option = mrs_choice(
    "The MRs the check ran (must match a check output; a facts folder is checked with them). "
    "Default: as checked, or all.",
    default=None,
)
as_checked_engine_option = engine_choice(
    "The engine the check ran (must match a check output; a facts folder is checked with it). "
    "Default: as checked, or clingo.",
    default=None,
)


# ---- asking an agent (ask, memory build, memory compare) ----------------------------------------

AGENTS_HELP = agents_help()  # from the one table of agent kinds (agents/kinds.py)


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
    type=click.Choice(VIEW_CHOICES),
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
