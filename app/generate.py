"""The `metalogic generate` command: a thin click layer over metalogic.engine.generate.run."""

from __future__ import annotations

import click

from metalogic.app.options import const_choice
from metalogic.engine.generate.combos import STRATEGIES
from metalogic.engine.generate.run import (
    DEFAULT_MAX_PER_TRAJECTORY,
    DEFAULT_SEED,
    DEFAULT_STRATEGY,
    GenerateResult,
    generate,
)


@click.command("generate")
@click.argument("facts_dir", type=click.Path())
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False),
    help="Run folder to write scene.lp, queries.lp and run.json into.",
)
@click.option(
    "--sc",
    "scs",
    multiple=True,
    metavar="SC[,SC]",
    help="Capabilities to test (sc1a ... sc4b; sc1 = sc1a,sc1b); repeatable. Default: all eight.",
)
@click.option(
    "--max-per-trajectory",
    "limit",
    default=str(DEFAULT_MAX_PER_TRAJECTORY),
    show_default=True,
    metavar="N|all",
    help="Combinations sampled per trajectory ('all' takes every one).",
)
@click.option(
    "--seed",
    type=int,
    default=DEFAULT_SEED,
    show_default=True,
    help="Sampling seed; the same seed gives the same files.",
)
@click.option(
    "--strategy",
    type=click.Choice(STRATEGIES),
    default=DEFAULT_STRATEGY,
    show_default=True,
    help="share: prefer combinations that reuse chosen queries; spread: plain seeded order.",
)
@const_choice("Override a generation parameter, e.g. -c min_conf=500 (see docs/generate.md).")
def generate_command(
    facts_dir: str,
    out_dir: str,
    scs: tuple[str, ...],
    limit: str,
    seed: int,
    strategy: str,
    settings: tuple[str, ...],
) -> None:
    """Enumerate test cases from scene facts and write the queries they need, each asked once.

    Example: metalogic generate facts/ --out runs/a --sc sc1,sc2a --seed 1
    """
    res = generate(
        facts_dir, out_dir, scs=scs, max_per_trajectory=limit, seed=seed, strategy=strategy, settings=settings
    )
    click.echo(render_summary(res))
    for note in res.notes:
        click.echo(f"note: {note}", err=True)


def render_summary(res: GenerateResult) -> str:
    """Test cases per capability and MR, the queries they use, and queries per test case."""
    from metalogic.engine.vocab import vocabulary

    names = vocabulary().capabilities

    head = ["sc", "capability", *res.mrs, "cases", "queries", "q/case"]
    rows = []
    for sc in res.scs:
        n, m = res.sc_stats.get(sc, (0, 0))
        cells = [str(res.cases.get((sc, mr), "")) or "-" for mr in res.mrs]
        rows.append([sc, names.get(sc, sc), *cells, str(n), str(m), f"{m / n:.2f}" if n else "-"])
    total = res.total_cases
    rows.append(
        [
            "all",
            "",
            *[""] * len(res.mrs),
            str(total),
            str(len(res.queries)),
            f"{res.queries_per_case:.2f}" if total else "-",
        ]
    )
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]

    def line(r: list[str]) -> str:
        cells = zip(r, widths, strict=True)
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(cells))

    sampled = sum(s for _, s in res.trajectories.values())
    found = sum(c for c, _ in res.trajectories.values())
    limit = "all" if res.limit is None else str(res.limit)
    trajs = f"{len(res.trajectories)} {'trajectory' if len(res.trajectories) == 1 else 'trajectories'}"
    lines = [
        line(head),
        *(line(r) for r in rows),
        "",
        f"{trajs}: {found} candidate combinations, {sampled} sampled "
        f"(max {limit} per trajectory, seed {res.seed}, strategy {res.strategy})",
        f"{len(res.queries)} queries for {total} test cases; a query serves several cases, and the "
        "queries column counts each query once per capability",
        f"wrote {res.run_dir / 'scene.lp'}, {res.run_dir / 'queries.lp'}, {res.run_dir / 'run.json'}",
    ]
    return "\n".join(x.rstrip() for x in lines)
