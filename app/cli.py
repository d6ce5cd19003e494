"""The `metalogic` command line: a thin click layer over the library.

Commands that need heavy packages (simulation, tracking, models) are imported only when used.
Every user error is printed as one clear message (no traceback) with exit status 2.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from metalogic import __version__
from metalogic.app.options import (
    agent_filter_option,
    const_option,
    engine_choice,
    engine_option,
    mrs_option,
    rules_option,
)
from metalogic.engine.errors import MetalogicError, did_you_mean
from metalogic.engine.session import ENGINES

if TYPE_CHECKING:
    from metalogic.app.pipeline import RunOutcome

# name -> "module:attribute" for commands living outside this module (imported on first use).
LAZY_COMMANDS: dict[str, str] = {
    "generate": "metalogic.app.generate:generate_command",
    "ask": "metalogic.app.ask:ask_command",
    "memory": "metalogic.app.memory:memory_command",
    "simulate": "metalogic.app.extract:simulate",
    "import": "metalogic.app.extract:import_group",
    "extract": "metalogic.app.extract:extract",
    "detector": "metalogic.app.extract:detector",
    "report": "metalogic.app.report:report_command",
    "compare": "metalogic.app.compare:compare_command",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *LAZY_COMMANDS])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in LAZY_COMMANDS:
            module, attr = LAZY_COMMANDS[name].split(":")
            cmd = getattr(importlib.import_module(module), attr)
            assert isinstance(cmd, click.Command)
            return cmd
        return super().get_command(ctx, name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            hint = did_you_mean(name, self.list_commands(ctx))
            raise click.UsageError(
                f"no command '{name}'."
                + (f" {hint[0].upper()}{hint[1:]}" if hint else "")
                + " Run 'metalogic --help' for the list.",
                ctx,
            )
        return super().resolve_command(ctx, args)


@click.group(
    cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100}
)
@click.version_option(__version__, prog_name="metalogic")
def cli() -> None:
    """Test the spatial cognition of vision-language agents with metamorphic relations decided by
    clingo and SWI-Prolog, without human labels."""


@cli.command()
@click.argument("facts_dir", type=click.Path())
@engine_option
@agent_filter_option()
@const_option
@rules_option
@mrs_option
@click.option("--out", "out_dir", type=click.Path(file_okay=False), help="Write the result tables here.")
@click.option(
    "--format",
    "formats",
    multiple=True,
    metavar="FMT[,FMT]",
    help="Table formats for --out: csv, json, parquet (default csv,json).",
)
@click.option(
    "--expect",
    is_flag=True,
    help="Compare the violations with the '% expect: violation(...)' lines of the facts files; "
    "exit 1 on any difference (rule tests written as data).",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Check shards of whole trajectories in this many processes (same result, faster on large runs).",
)
def check(
    facts_dir: str,
    engine: str,
    agents: tuple[str, ...],
    settings: tuple[str, ...],
    rules_dirs: tuple[str, ...],
    mrs: str,
    out_dir: str | None,
    formats: tuple[str, ...],
    expect: bool,
    workers: int,
) -> None:
    """Check answer facts: print SC scores; with --out, write violations (with the facts behind
    each one), scores, the answers and questions a report shows, and a manifest (run.json): what
    'metalogic report' and 'metalogic compare' read instead of checking again.

    Example: metalogic check examples/facts/ --engine both --out out/check
    """
    from metalogic.engine.check import tables
    from metalogic.engine.check.run import run_check

    fmts = tables.parse_formats(formats)
    res = run_check(
        facts_dir,
        engine=engine,
        rules_dirs=rules_dirs,
        settings=settings,
        agents=agents,
        workers=workers,
        mrs=mrs,
        # the score table alone needs neither the rows of cases and violations (only their
        # numbers) nor explanations or per-place counts; --expect compares the violations
        detail=bool(out_dir) or expect,
    )
    if res.warnings:
        click.echo(res.warnings, err=True)
    df = tables.scores_frame(res)
    click.echo(tables.render_scores(df))
    click.echo(
        f"\n{res.rows.case_count} test cases, {res.rows.violation_count} violations, {len(res.facts)} facts "
        f"from {len(res.facts.files)} file(s); engine: {engine}"
    )
    if out_dir:
        from metalogic.engine.check.writer import make_request, write_check_output

        request = make_request(engine, mrs, settings, rules_dirs, agents)
        written = write_check_output(res, Path(out_dir), fmts, request, facts_dir)
        click.echo(f"wrote {len(written)} files to {out_dir}")
    if expect:
        from metalogic.engine.check.run import compare_expected

        missing, unexpected = compare_expected(res)
        for v in sorted(missing):
            click.echo(f"expected but not reported: {v}")
        for v in sorted(unexpected):
            click.echo(f"reported but not expected: {v}")
        if missing or unexpected:
            click.echo(f"expectations: {len(missing)} missing, {len(unexpected)} unexpected")
            sys.exit(1)
        click.echo("expectations: every documented violation reported, nothing else")


@cli.command()
@rules_option
@click.option("--format", "fmt", type=click.Choice(["text", "csv"]), default="text", show_default=True)
def mrs(rules_dirs: tuple[str, ...], fmt: str) -> None:
    """List every loaded MR: id, name, capabilities, law, source files and parameters.

    Example: metalogic mrs --rules my_rules/
    """
    from metalogic.engine.facts import display_path
    from metalogic.engine.rules.loader import load_ruleset

    rs = load_ruleset(rules_dirs)
    if fmt == "csv":
        click.echo("id,name,capabilities,sets,law,lp,pl,decl")
        for m in rs.mrs:
            law = m.law.replace('"', '""')
            click.echo(
                f'{m.id},{m.name},{" ".join(m.serves)},{" ".join(m.sets)},"{law}",'
                f"{display_path(m.lp)},{display_path(m.pl)},{display_path(m.decl_file)}"
            )
        return
    for m in rs.mrs:
        origin = "shipped" if m.shipped else "user"
        click.echo(f"{m.id}  {m.name}  [{', '.join(m.serves)}]  ({origin}; {', '.join(m.sets)})")
        click.echo(f"    law: {m.law}")
        click.echo(f"    files: {display_path(m.lp)}  {display_path(m.pl)}  {display_path(m.decl_file)}")
        for name, p in rs.params.items():
            if rs.param_owner.get(name) == m.id:
                click.echo(f"    -c {name}={p.default / p.scale:g}  {p.doc}")
    core = [(n, p) for n, p in rs.params.items() if rs.param_owner.get(n) == "core"]
    if core:
        click.echo("shared parameters:")
        for name, p in core:
            click.echo(f"    -c {name}={p.default}  {p.doc}")


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["text", "csv"]), default="text", show_default=True)
@click.option(
    "--calculus",
    type=click.Choice(["exact", "band", "star"]),
    default="exact",
    show_default=True,
    help="exact: signs of exact offsets; band: 0 means within a tolerance; star: 45-degree cones.",
)
@engine_choice("Rule engine that derives the tables.", choices=ENGINES)
def algebra(fmt: str, calculus: str, engine: str) -> None:
    """Print the planar composition and inverse tables, derived from the rules.

    Names are allocentric: n = north ... nw, eq = same place. A row 'first,second,result' reads:
    if A is `first` of B and B is `second` of C, then A can be `result` of C.

    Example: metalogic algebra --format csv
    """
    from metalogic.engine import algebra as alg

    comp = alg.composition(calculus, "map", engine)
    inv = alg.inverse("map", engine)
    names = alg.order({a for a, _ in comp})
    if fmt == "csv":
        click.echo("first,second,result")
        for a in names:
            for b in names:
                for c in alg.order(comp[(a, b)]):
                    click.echo(f"{a},{b},{c}")
        return
    cells = {(a, b): "{" + ",".join(alg.order(comp[(a, b)])) + "}" for a in names for b in names}
    width = max(len(v) for v in cells.values())
    click.echo(f"Composition ({calculus} calculus): row = relation of A to B, column = relation of B to C")
    click.echo("    " + " ".join(b.ljust(width) for b in names))
    for a in names:
        click.echo(a.ljust(4) + " ".join(cells[(a, b)].ljust(width) for b in names).rstrip())
    click.echo("\nInverse: if A is X of B, then B is Inv(X) of A")
    click.echo("  " + "  ".join(f"{a}->{inv[a]}" for a in names))


def _print_run(outcome: RunOutcome) -> None:
    for st in outcome.stages:
        click.echo(f"  {st.name:<28} {st.status:<11} {st.seconds:7.1f}s  {st.detail}")
    scores = outcome.config.out / "check" / "scores.csv"
    if scores.exists():
        import polars as pl

        from metalogic.engine.check.tables import render_scores

        click.echo("\n" + render_scores(pl.read_csv(scores)))
    if outcome.report is not None:
        click.echo(f"\nreport: {outcome.report}")


@cli.command(name="run")
@click.argument("config", type=click.Path())
@click.option(
    "--out-anywhere",
    is_flag=True,
    help="Let out = ... be a system folder (/, /etc, /usr, ...), your home folder or the metalogic "
    "checkout (refused otherwise: the run writes its folders there).",
)
def run_cmd(config: str, out_anywhere: bool) -> None:
    """Run the whole evaluation a TOML file describes: worlds, extraction, questions, agents,
    check and report. Stages whose inputs did not change are skipped.

    Example: metalogic run my_eval.toml
    """
    from metalogic.app.pipeline import run_pipeline
    from metalogic.app.runconfig import load_config

    cfg = load_config(config, out_anywhere=out_anywhere)
    _print_run(run_pipeline(cfg, lambda msg: click.echo(msg, err=True)))


@cli.command()
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    default="metalogic-demo",
    show_default=True,
    help="Folder for the demo run (re-running it reuses what is up to date).",
)
def demo(out_dir: str) -> None:
    """The main job on the bundled demo: small simulated worlds of all three scenarios, the shipped
    detector, reference agents and the local Gemma model, both engines, and an HTML report.

    Example: metalogic demo --out out/demo
    """
    from metalogic.app.pipeline import demo_config_text, run_pipeline
    from metalogic.app.runconfig import load_config

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    config = out / "demo.toml"
    text = demo_config_text()
    header = text.splitlines()[0]  # an earlier demo's file (of any version) starts with it
    old = config.read_text(encoding="utf-8", errors="replace") if config.is_file() else ""
    if config.is_symlink() or (config.exists() and old.splitlines()[:1] != [header]):
        raise MetalogicError.single(
            f"{config} exists and is not the demo's own configuration; the demo would overwrite it",
            expected="a folder without a demo.toml, or one an earlier demo wrote",
            fix=f"move {config} away, or run the demo in another folder (--out)",
        )
    config.write_text(text, encoding="utf-8")
    _print_run(run_pipeline(load_config(config), lambda msg: click.echo(msg, err=True)))


@cli.command()
@click.option(
    "--mr",
    "only",
    multiple=True,
    help="Audit only this MR (repeatable): its soundness and non-redundancy, and the engines; "
    "by default every loaded MR, and the blind spots and tightness of the whole set.",
)
@click.option(
    "--bound", type=click.IntRange(0, 40), help="Size of every family of worlds (default: each family's own)."
)
@click.option(
    "--samples",
    type=click.IntRange(0, 100000),
    default=200,
    show_default=True,
    help="Random fact sets for the clingo/Prolog agreement check (0 skips it).",
)
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True, help="Processes to use.")
@rules_option
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    help="Write audit.md, audit.json and each counter-example or witness as a facts folder.",
)
def audit(
    only: tuple[str, ...],
    bound: int | None,
    samples: int,
    workers: int,
    rules_dirs: tuple[str, ...],
    out_dir: str | None,
) -> None:
    """Prove, on bounded worlds, that every MR is sound (a truthful agent is never flagged), that
    the composition tables are tight, that no MR is redundant, and that both engines agree.

    Exits with status 1 if any check fails. Example: metalogic audit --out out/audit
    """
    from metalogic.engine.audit.report import render_terminal, write_report
    from metalogic.engine.audit.run import run_audit
    from metalogic.engine.rules.loader import load_ruleset

    rules = load_ruleset(rules_dirs)
    for m in only:
        rules.by_id(m)  # a clear error for an unknown id before any work starts
    rep = run_audit(
        rules,
        only=only,
        bound=bound,
        samples=samples,
        workers=workers,
        progress=lambda msg: click.echo(f"  {msg}", err=True),
    )
    click.echo(render_terminal(rep))
    if out_dir:
        written = write_report(rep, Path(out_dir))
        click.echo(f"wrote {len(written)} files to {out_dir}")
    if not rep.ok:
        sys.exit(1)


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["text", "markdown"]), default="text", show_default=True)
def schema(fmt: str) -> None:
    """Print the facts schema: every predicate a facts file may hold.

    Example: metalogic schema --format markdown
    """
    from metalogic.app.schema_doc import render

    click.echo(render(fmt))


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning user errors into one message and exit status 2."""
    try:
        cli.main(args=argv, prog_name="metalogic", standalone_mode=False)
    except MetalogicError as err:
        click.echo(f"error: {err.render()}", err=True)
        sys.exit(2)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as err:
        err.show()
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
