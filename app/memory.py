"""`metalogic memory ...`: build, inspect and curate a spatial memory bank (a thin click layer)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from metalogic.agents.registry import backend_options
from metalogic.app import options as agent_options
from metalogic.app.options import engine_choice
from metalogic.memory.logic import DEFAULT_ENGINE, LOGIC_ENGINES
from metalogic.memory.retrieve import DEFAULT_ETA, DEFAULT_FLOOR, DEFAULT_K, DEFAULT_POOL, MODES, Settings


@click.group("memory")
def memory_command() -> None:
    """Spatial memory (SMA): lesson cards whose reliability (TRS) is learned from verified outcomes.

    Build a bank on an environment split, then deploy it read-only with
    'metalogic ask RUN_DIR --agent SPEC --prompting memory --memory-bank BANK'.
    """


k_option = click.option(
    "--k", "k", type=int, default=DEFAULT_K, show_default=True, help="Cards shown per question."
)
eta_option = click.option(
    "--eta",
    type=float,
    default=DEFAULT_ETA,
    show_default=True,
    help="Weight of reliability (TRS) against similarity when ranking candidates, 0..1 (sma).",
)


def retrieval_options(f: Any) -> Any:
    for opt in reversed(
        [
            k_option,
            eta_option,
            click.option(
                "--floor",
                type=float,
                default=DEFAULT_FLOOR,
                show_default=True,
                help="Lowest task similarity (cosine) a card may have to be shown.",
            ),
            click.option(
                "--pool",
                type=int,
                default=DEFAULT_POOL,
                show_default=True,
                help="Candidates taken from the index before ranking.",
            ),
        ]
    ):
        f = opt(f)
    return f


def _trs(v: int) -> str:
    return f"{v / 1_000_000:.3f}"


@memory_command.command("build")
@click.argument("run_dir", type=click.Path())
@agent_options.agent_spec_option("The agent, as for 'metalogic ask'.")
@click.option(
    "--bank",
    "bank_dir",
    required=True,
    type=click.Path(file_okay=False),
    help="Bank folder (created if missing; an existing bank is extended, a stopped build resumed).",
)
@click.option(
    "--verifier",
    type=click.Choice(["auto", "truth", "mr"]),
    default="auto",
    show_default=True,
    help="Reward from ground truth, from the MR engine (label-free), or truth where known else MR.",
)
@click.option(
    "--passes",
    type=int,
    default=1,
    show_default=True,
    help="Passes over the split; passes after the first only update card statistics.",
)
@click.option(
    "--mode",
    type=click.Choice(["sma", "rag"]),
    default="sma",
    show_default=True,
    help="Retrieval while building: sma (similarity and TRS) or rag (similarity only).",
)
@retrieval_options
@click.option(
    "--reflector",
    type=click.Choice(["auto", "model", "template"]),
    default="auto",
    show_default=True,
    help="Who writes new cards: the agent's model, or the template (reference agents).",
)
@engine_choice(
    f"Rule engine of the memory's laws (TRS, ranking, rewards) and of the MR verifier; 'both' runs both "
    f"and insists they agree. Default: {DEFAULT_ENGINE} for the laws, clingo for the verifier.",
    choices=LOGIC_ENGINES,
    default=None,
)
@click.option(
    "--truth-tol",
    type=float,
    help="Relative error a magnitude answer may have to count as right "
    "(default 0.1, from logic/memory/reward.lp).",
)
@click.option("--limit", type=click.IntRange(1), help="Use at most this many trajectories.")
@agent_options.base_url_option
@agent_options.backend_option
@agent_options.concurrency_option
@agent_options.max_tokens_option
@agent_options.view_option
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of reference agents' noise.")
@agent_options.no_cache_option
def build_command(
    run_dir: str,
    spec: str,
    bank_dir: str,
    verifier: str,
    passes: int,
    mode: str,
    k: int,
    eta: float,
    floor: float,
    pool: int,
    reflector: str,
    engine: str | None,
    truth_tol: float | None,
    limit: int | None,
    base_url: str | None,
    options: tuple[str, ...],
    concurrency: int | None,
    max_tokens: int,
    view: str,
    seed: int,
    no_cache: bool,
) -> None:
    """Build a bank: answer with the memory, verify, update the cards shown, write new cards.

    The construction phase over RUN_DIR (the environment split), one trajectory at a time.

    Example: metalogic memory build runs/env --agent noisy:0.2 --bank banks/noisy --verifier mr
    """
    from metalogic.memory.build import BuildOptions, check_options, truth_tol_milli
    from metalogic.memory.runbuild import run_build

    opts = check_options(
        BuildOptions(
            settings=Settings(
                mode=mode, k=k, eta=eta, floor=floor, pool=pool, engine=engine or DEFAULT_ENGINE
            ),
            verifier=verifier,
            passes=passes,
            reflector=reflector,
            check_engine=engine or "clingo",
            truth_tol=truth_tol_milli(truth_tol),
            limit=limit,
        )
    )
    agent_opts = {
        "base_url": base_url,
        "options": options,
        "concurrency": concurrency,
        "max_tokens": max_tokens,
        "view": view,
        "seed": seed,
        "no_cache": no_cache,
    }

    def show(b: Any) -> None:
        mean = f"{b.mean_reward:.3f}" if b.mean_reward is not None else "-"
        rej = ", ".join(f"{n} {why}" for why, n in sorted(b.rejected.items()))
        click.echo(
            f"pass {b.pass_no} {b.batch}: {b.questions} questions, {b.answered} answered, {b.judged} judged "
            f"(mean reward {mean}), {b.visits} visits, {b.written} cards written"
            + (f", rejected: {rej}" if rej else "")
            + f" [{b.seconds:.1f} s]"
        )

    report, stats = run_build(run_dir, spec, bank_dir, opts, agent_opts, on_batch=show)
    for p, name in report.skipped[:5]:
        click.echo(f"pass {p} {name}: done in an earlier build, skipped")
    tot = report.totals()
    click.echo(
        f"\n{report.agent}: {tot['batches']} batches, {tot['judged']} answers judged, mean reward "
        f"{tot['mean_reward']}, {tot['visits']} visits, {tot['written']} cards written"
        + (f", rejected {tot['rejected']}" if tot["rejected"] else "")
    )
    click.echo(f"bank {bank_dir}: {stats['active']} active cards, {stats['visits']} visits in all")


def _open(bank_dir: str, readonly: bool = True) -> Any:
    from metalogic.memory.bank import Bank

    return Bank.open(bank_dir, readonly=readonly)


@memory_command.command("list")
@click.argument("bank_dir", metavar="BANK", type=click.Path())
@click.option("--all", "show_all", is_flag=True, help="Include retired cards.")
@click.option("--kind", help="Only cards of this task kind (e.g. obj_dir).")
@click.option("--sort", type=click.Choice(["id", "trs", "visits"]), default="id", show_default=True)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "csv", "json"]), default="text", show_default=True
)
def list_command(bank_dir: str, show_all: bool, kind: str | None, sort: str, fmt: str) -> None:
    """List the cards: id, task kind, visits, cumulative reward, TRS, lesson.

    Example: metalogic memory list banks/noisy --sort trs
    """
    with _open(bank_dir) as bank:
        cards = bank.cards(active_only=not show_all, kind=kind)
    if sort != "id":
        cards.sort(key=lambda c: (-(c.v if sort == "trs" else c.n), c.id))
    if fmt == "json":
        click.echo(json.dumps([_card_dict(c) for c in cards], indent=1))
        return
    if fmt == "csv":
        import csv
        import sys

        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(["id", "kind", "n", "c", "trs", "retired", "task", "summary", "lesson"])
        for c in cards:
            w.writerow(
                [c.id, c.kind, c.n, c.c / 1000, _trs(c.v), c.retired or "", c.task, c.summary, c.lesson]
            )
        return
    click.echo(f"{'id':>5} {'kind':<9} {'n':>4} {'c':>7} {'trs':>6}  lesson")
    for c in cards:
        mark = " (retired)" if c.retired else ""
        lesson = c.lesson if len(c.lesson) <= 70 else c.lesson[:67] + "..."
        click.echo(f"{c.id:>5} {c.kind:<9} {c.n:>4} {c.c / 1000:>7.3f} {_trs(c.v):>6}  {lesson}{mark}")
    click.echo(f"{len(cards)} card(s)")


def _card_dict(c: Any) -> dict[str, Any]:
    return {
        "id": c.id,
        "kind": c.kind,
        "task": c.task,
        "summary": c.summary,
        "lesson": c.lesson,
        "n": c.n,
        "c": c.c,
        "trs": c.v,
        "trs_initial": c.v0,
        "created": c.created,
        "provenance": c.provenance,
        "retired": c.retired,
        "retired_at": c.retired_at,
    }


@memory_command.command("show")
@click.argument("bank_dir", metavar="BANK", type=click.Path())
@click.argument("card_id", metavar="CARD", type=int)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def show_command(bank_dir: str, card_id: int, fmt: str) -> None:
    """Show one card in full: what the agent sees, its statistics, its origin.

    Example: metalogic memory show banks/noisy 12
    """
    with _open(bank_dir) as bank:
        c = bank.get(card_id)
    if fmt == "json":
        click.echo(json.dumps(_card_dict(c), indent=1))
        return
    state = f"retired {c.retired_at}: {c.retired}" if c.retired else "active"
    click.echo(f"card {c.id} ({c.kind}, {state})")
    click.echo(f"  task:    {c.task}".replace("\n", "\n           "))
    click.echo(f"  summary: {c.summary}")
    click.echo(f"  lesson:  {c.lesson}")
    click.echo(
        f"  visits {c.n}, cumulative reward {c.c / 1000:.3f}, TRS {_trs(c.v)} (written with {_trs(c.v0)})"
    )
    click.echo(f"  created {c.created}; " + ", ".join(f"{k} {v}" for k, v in sorted(c.provenance.items())))


@memory_command.command("history")
@click.argument("bank_dir", metavar="BANK", type=click.Path())
@click.argument("card_id", metavar="CARD", type=int)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def history_command(bank_dir: str, card_id: int, fmt: str) -> None:
    """Show a card's life: written, each visit with its reward, retired.

    Example: metalogic memory history banks/noisy 12
    """
    with _open(bank_dir) as bank:
        events = bank.history(card_id)
    if fmt == "json":
        click.echo(json.dumps(events, indent=1))
        return
    for e in events:
        stats = f"n={e['n']} c={e['c'] / 1000:.3f} trs={_trs(e['v'])}"
        if e["event"] == "visit":
            reward = f"{e['verifier']} reward {e['reward'] / 1000:.3f}"
            what = f"visit (pass {e['pass']}) guiding {e['task']}: {reward}"
        elif e["event"] == "created":
            what = f"written from {e['detail'].get('trajectory', '?')}/{e['detail'].get('query', '?')}"
        else:
            what = f"retired: {e['detail']}"
        click.echo(f"{e['at']}  {what:<60} {stats}")


@memory_command.command("retire")
@click.argument("bank_dir", metavar="BANK", type=click.Path())
@click.argument("card_ids", metavar="CARD...", type=int, nargs=-1, required=True)
@click.option("--reason", default="retired by hand", show_default=True, help="Why (kept in the history).")
def retire_command(bank_dir: str, card_ids: tuple[int, ...], reason: str) -> None:
    """Retire cards: kept with their history, never retrieved again.

    Example: metalogic memory retire banks/noisy 12 15 --reason "too scene-specific"
    """
    with _open(bank_dir, readonly=False) as bank:
        for cid in card_ids:
            bank.get(cid)  # every id must exist before any is retired
        for cid in card_ids:
            bank.retire(cid, reason)
    click.echo(f"retired {len(card_ids)} card(s)")


@memory_command.command("stats")
@click.argument("bank_dir", metavar="BANK", type=click.Path())
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def stats_command(bank_dir: str, fmt: str) -> None:
    """Summarize a bank: cards, visits, TRS spread, task kinds, passes.

    Example: metalogic memory stats banks/noisy --format json
    """
    bank_path = Path(bank_dir)
    # opened writable when an interrupted write left a journal, so SQLite can roll it back
    recover = (bank_path / "cards.sqlite-journal").exists()
    with _open(bank_dir, readonly=not recover) as bank:
        s = bank.summary()
    if fmt == "json":
        click.echo(json.dumps(s, indent=1))
        return
    click.echo(f"bank {s['bank']} (embedder {s['embedder']}, {s['dim']} dimensions)")
    click.echo(
        f"cards: {s['cards']} ({s['active']} active, {s['retired']} retired); visits: {s['visits']} "
        f"({s['visited_cards']} cards visited at least once)"
    )
    if s["trs_median"] is not None:
        click.echo(f"TRS median {_trs(s['trs_median'])}; histogram of active cards:")
        for span, n in s["trs_histogram"].items():
            if n:
                click.echo(f"  {span}  {n:>5}  {'#' * min(60, n)}")
    if s["kinds"]:
        click.echo(f"{'kind':<10} {'cards':>6} {'visits':>7} {'trs mean':>9} {'min':>6} {'max':>6}")
        for row in s["kinds"]:
            click.echo(
                f"{row['kind']:<10} {row['cards']:>6} {row['visits']:>7} {_trs(row['trs_mean']):>9} "
                f"{_trs(row['trs_min']):>6} {_trs(row['trs_max']):>6}"
            )
    if s["passes"]:
        click.echo("batches done per pass: " + ", ".join(f"pass {p}: {n}" for p, n in s["passes"].items()))


@memory_command.command("query")
@click.argument("bank_dir", metavar="BANK", type=click.Path())
@click.argument("task_text")
@click.option("--mode", type=click.Choice(MODES), default="sma", show_default=True)
@retrieval_options
@engine_choice(
    "Rule engine of the ranking rules; 'both' runs both and insists they agree.",
    choices=LOGIC_ENGINES,
    default=DEFAULT_ENGINE,
)
def query_command(
    bank_dir: str, task_text: str, mode: str, k: int, eta: float, floor: float, pool: int, engine: str
) -> None:
    """Show what retrieval picks for a task text, and why (read-only).

    Example: metalogic memory query banks/noisy "Where is the mug relative to the bowl?" --eta 0.8
    """
    from metalogic.memory.retrieve import embed_task, retrieve_vector

    settings = Settings(mode=mode, k=k, eta=eta, floor=floor, pool=pool, engine=engine).checked()
    with _open(bank_dir) as bank:
        scored: list[Any] = []
        retrieve_vector(bank, embed_task(bank, task_text), settings, scored)
    click.echo(
        f"{'rank':>4} {'card':>5} {'sim':>6} {'trs':>6} {'z(sim)':>7} {'z(trs)':>7} {'score':>7}  lesson"
    )
    for h in sorted(scored, key=lambda h: (h.rank == 0, h.rank, -h.score)):
        rank = str(h.rank) if h.rank else "-"
        click.echo(
            f"{rank:>4} {h.card.id:>5} {h.similarity:>6.3f} {_trs(h.card.v):>6} {h.z_sim / 1000:>7.3f} "
            f"{h.z_trs / 1000:>7.3f} {h.score / 1_000_000:>7.3f}  {h.card.lesson[:60]}"
        )
    if not scored:
        click.echo("no card reaches the similarity floor" if mode != "none" else "mode none: no memory")


@memory_command.command("split")
@click.argument("run_dir", type=click.Path())
@click.option(
    "--env",
    "env_dir",
    required=True,
    type=click.Path(file_okay=False),
    help="Run folder to write the environment split to (memory construction).",
)
@click.option(
    "--deploy",
    "deploy_dir",
    required=True,
    type=click.Path(file_okay=False),
    help="Run folder to write the deployment split to (read-only evaluation).",
)
@click.option(
    "--fraction", type=float, default=0.5, show_default=True, help="Share of trajectories in --env."
)
@click.option("--seed", type=int, default=42, show_default=True)
def split_command(run_dir: str, env_dir: str, deploy_dir: str, fraction: float, seed: int) -> None:
    """Split a run by trajectory into disjoint environment and deployment runs.

    Example: metalogic memory split runs/all --env runs/env --deploy runs/deploy --fraction 0.5
    """
    from metalogic.memory.split import split_run

    env, deploy = split_run(run_dir, env_dir, deploy_dir, fraction, seed)
    for folder, part in ((env_dir, env), (deploy_dir, deploy)):
        shown = ", ".join(part[:6]) + (" ..." if len(part) > 6 else "")
        click.echo(f"{folder}: {len(part)} trajectories ({shown})")


@memory_command.command("compare")
@click.argument("run_dir", type=click.Path())
@agent_options.agent_spec_option("A model agent, as for 'metalogic ask'.")
@click.option("--bank", "bank_dir", required=True, type=click.Path(), help="The bank to deploy (read-only).")
@k_option
@eta_option
@agent_options.base_url_option
@agent_options.backend_option
@agent_options.view_option
@agent_options.max_tokens_option
@agent_options.concurrency_option
@click.option("--out", "out_file", type=click.Path(dir_okay=False), help="Write the comparison as JSON here.")
def compare_command(
    run_dir: str,
    spec: str,
    bank_dir: str,
    k: int,
    eta: float,
    base_url: str | None,
    options: tuple[str, ...],
    view: str,
    max_tokens: int,
    concurrency: int | None,
    out_file: str | None,
) -> None:
    """Deploy a bank with no memory, RAG and SMA; scores side by side.

    Runs 'metalogic ask --prompting memory' once per --memory-mode (answers stay in RUN_DIR/answers,
    so a stopped comparison resumes), then checks them together.

    Example: metalogic memory compare runs/deploy --agent openai:gemma --base-url URL --bank banks/g
    """
    from metalogic.agents.model import GenParams
    from metalogic.agents.registry import AgentSettings
    from metalogic.memory.evaluate import compare, render

    Settings(k=k, eta=eta).checked()
    base = AgentSettings(
        view=view,
        base_url=base_url,
        options=backend_options(options),
        concurrency=concurrency,
        params=GenParams(max_tokens=max_tokens),
    )
    result = compare(run_dir, spec, bank_dir, base, k=k, eta=eta)
    click.echo(render(result))
    if out_file:
        from metalogic.engine.whole_files import write_text_whole

        write_text_whole(Path(out_file), json.dumps(result.as_json(), indent=1) + "\n")
        click.echo(f"wrote {out_file}")
