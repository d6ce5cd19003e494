"""Click options shared by the commands of every layer that run the rule engines (check, algebra,
generate, report, compare, memory), written once so that their names, defaults and help read the
same everywhere. The engine choice has one name in every command: --engine."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

ENGINES = ("clingo", "prolog", "both")

Decorator = Callable[[Any], Any]


def engine_choice(
    help: str, *, choices: Sequence[str] = ENGINES, default: str | None = "clingo"
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
