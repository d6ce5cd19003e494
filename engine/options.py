"""Click options shared by the commands that run the rule engines (check, report, compare), written
once so that their names, defaults and help read the same everywhere."""

from __future__ import annotations

import click

rules_option = click.option(
    "--rules",
    "rules_dirs",
    multiple=True,
    type=click.Path(file_okay=False),
    help="Extra folder of MR rule files (NAME.decl + NAME.lp + NAME.pl); repeatable.",
)
mrs_option = click.option(
    "--mrs",
    "mrs",
    default="all",
    show_default=True,
    metavar="SET|ID[,...]",
    help="Which MRs to run: all, paper (the six published MRs), anchored, across, user, or MR ids.",
)
engine_option = click.option(
    "--engine",
    type=click.Choice(["clingo", "prolog", "both"]),
    default="clingo",
    show_default=True,
    help="Rule engine; 'both' runs both and fails if they disagree.",
)
const_option = click.option(
    "-c",
    "--const",
    "settings",
    multiple=True,
    metavar="NAME=VALUE",
    help="Override a parameter, e.g. -c eps=0.1 (see 'metalogic mrs').",
)

# report and compare read what a check wrote: left out, the engine and the MRs are the check's own
# (a facts folder given instead is checked with clingo and every MR).
as_checked_mrs_option = click.option(
    "--mrs",
    "mrs",
    default=None,
    metavar="SET|ID[,...]",
    help="The MRs the check ran (must match a check output; a facts folder is checked with them). "
    "Default: as checked, or all.",
)
as_checked_engine_option = click.option(
    "--engine",
    type=click.Choice(["clingo", "prolog", "both"]),
    default=None,
    help="The engine the check ran (must match a check output; a facts folder is checked with it). "
    "Default: as checked, or clingo.",
)
