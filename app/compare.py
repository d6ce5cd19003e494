"""`metalogic compare`: how the scores of one agent (or prompting) differ from another's, per
capability, with 95% intervals for each difference.

The scores come from what `metalogic check --out` wrote for each run (engine/check/writer.py; a facts
folder is checked once first, into FOLDER/check); this module only subtracts scores and
puts an interval around the difference: Newcombe's hybrid score interval (his method 10), built
from the two Wilson intervals. It treats the two samples of test cases as independent; when both
runs ask the same questions the outcomes are positively correlated and the interval is then on the
safe (wide) side.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from metalogic.app.options import (
    agent_filter_option,
    as_checked_engine_option,
    as_checked_mrs_option,
    const_option,
    rules_option,
)
from metalogic.engine.check.layout import COMPARE_TABLES
from metalogic.engine.check.reader import CheckOutput
from metalogic.engine.check.reuse import open_check
from metalogic.engine.check.run import wilson
from metalogic.engine.errors import MetalogicError, did_you_mean
from metalogic.engine.facts import display_path
from metalogic.engine.vocab import vocabulary

OUT_FORMATS = {".csv": "csv", ".json": "json", ".md": "markdown"}
COLUMNS = (
    "agent_a",
    "agent_b",
    "sc",
    "capability",
    "cases_a",
    "violations_a",
    "score_a",
    "cases_b",
    "violations_b",
    "score_b",
    "difference",
    "ci_low",
    "ci_high",
)


@dataclass
class Comparison:
    run_a: str
    run_b: str
    pairs: list[tuple[str, str]]  # (agent in run A, agent in run B)
    rows: list[dict[str, Any]]


def newcombe(held_a: int, n_a: int, held_b: int, n_b: int, z: float = 1.96) -> tuple[float, float, float]:
    """(pB - pA, low, high): the difference of two proportions with Newcombe's hybrid score
    interval, which stays inside [-1, 1] and behaves at 0 and n where the Wald interval fails."""
    pa, pb = held_a / n_a, held_b / n_b
    la, ua = wilson(held_a, n_a, z)
    lb, ub = wilson(held_b, n_b, z)
    d = pb - pa
    return d, d - math.hypot(pb - lb, ua - pa), d + math.hypot(ub - pb, pa - la)


def _must_exist(run: str) -> None:
    if not Path(run).exists():
        raise MetalogicError.single(
            f"run folder '{run}' does not exist",
            expected="a run folder (or any facts folder) holding answer facts",
            fix="check the path; runs are written by 'metalogic generate' and answered by 'metalogic ask'",
        )


def _check(
    run: str,
    engine: str | None,
    rules_dirs: Sequence[str],
    settings: Sequence[str],
    mrs: str | Sequence[str] | None,
    notes: list[str] | None = None,
) -> CheckOutput:
    res = open_check(
        run, engine=engine, rules_dirs=rules_dirs, settings=settings, mrs=mrs, wanted=COMPARE_TABLES
    )
    if notes is not None and res.note():
        notes.append(res.note())
    if not res.agents:
        raise MetalogicError.single(
            f"no agent answers in {run}",
            expected="answer(Agent, Query, Value) facts under the folder",
            fix=f"answer the questions first: metalogic ask {run} --agent oracle",
        )
    return res


def _find(agent: str, run: str, known: list[str]) -> str:
    if agent not in known:
        raise MetalogicError.single(
            f"no agent '{agent}' in {run}",
            expected="one of " + ", ".join(known),
            fix=did_you_mean(agent, known) or "check the agent name ('metalogic check RUN' lists them)",
        )
    return agent


def _agent_count(agents: Sequence[str]) -> None:
    if len(agents) > 2:
        raise MetalogicError.single(
            f"--agent given {len(agents)} times",
            expected="--agent once (that agent in both runs) or twice (the agent of RUN_A, then of RUN_B)",
            fix="e.g. metalogic compare RUN RUN --agent gemma --agent gemma+cogmap",
        )


def pair_agents(
    run_a: str, known_a: list[str], run_b: str, known_b: list[str], agents: Sequence[str]
) -> list[tuple[str, str]]:
    """Which agent of run A is compared with which of run B."""
    _agent_count(agents)
    if len(agents) == 2:
        return [(_find(agents[0], run_a, known_a), _find(agents[1], run_b, known_b))]
    if len(agents) == 1:
        return [(_find(agents[0], run_a, known_a), _find(agents[0], run_b, known_b))]
    if Path(run_a).resolve() == Path(run_b).resolve():
        raise MetalogicError.single(
            "RUN_A and RUN_B are the same folder, so every agent would be compared with itself",
            expected="two different runs, or two agents of this run",
            fix=f"name the two agents: --agent {known_a[0]} --agent {known_a[-1]}",
        )
    common = [a for a in known_a if a in known_b]
    if not common:
        raise MetalogicError.single(
            f"no agent answers in both runs: {run_a} has {', '.join(known_a)}; "
            f"{run_b} has {', '.join(known_b)}",
            expected="an agent present in both runs, or the two agents to compare given with --agent",
            fix=f"name the two agents: --agent {known_a[0]} --agent {known_b[0]}",
        )
    return [(a, a) for a in common]


def comparison_rows(
    res_a: CheckOutput, res_b: CheckOutput, pairs: list[tuple[str, str]]
) -> list[dict[str, Any]]:
    """One row per pair and capability with test cases on either side, then the pair's total over
    the capabilities both sides were tested on."""
    caps = vocabulary().capabilities
    counts_a = {(a, sc): (n, v) for a, sc, n, v in res_a.rows.scores}
    counts_b = {(a, sc): (n, v) for a, sc, n, v in res_b.rows.scores}
    rows = []
    for agent_a, agent_b in pairs:
        total = [0, 0, 0, 0]
        for sc in caps:
            na, va = counts_a.get((agent_a, sc), (0, 0))
            nb, vb = counts_b.get((agent_b, sc), (0, 0))
            if not na and not nb:
                continue
            rows.append(_row(agent_a, agent_b, sc, caps[sc], na, va, nb, vb))
            if na and nb:  # the total compares like with like: capabilities tested on both sides
                total = [total[0] + na, total[1] + va, total[2] + nb, total[3] + vb]
        rows.append(_row(agent_a, agent_b, "all", "capabilities tested in both", *total))
    return rows


def _row(agent_a: str, agent_b: str, sc: str, cap: str, na: int, va: int, nb: int, vb: int) -> dict[str, Any]:
    diff = newcombe(na - va, na, nb - vb, nb) if na and nb else (None, None, None)
    return dict(
        zip(
            COLUMNS,
            (
                agent_a,
                agent_b,
                sc,
                cap,
                na,
                va,
                1 - va / na if na else None,
                nb,
                vb,
                1 - vb / nb if nb else None,
                *diff,
            ),
            strict=True,
        )
    )


def compare_runs(
    run_a: str,
    run_b: str,
    *,
    agents: Sequence[str] = (),
    engine: str | None = None,
    rules_dirs: Sequence[str] = (),
    settings: Sequence[str] = (),
    mrs: str | Sequence[str] | None = None,
    notes: list[str] | None = None,
) -> Comparison:
    _agent_count(agents)  # the cheap checks first: no engine runs for a mistyped command
    _must_exist(run_a)
    _must_exist(run_b)
    res_a = _check(run_a, engine, rules_dirs, settings, mrs, notes)
    same = Path(run_a).resolve() == Path(run_b).resolve()
    res_b = res_a if same else _check(run_b, engine, rules_dirs, settings, mrs, notes)
    pairs = pair_agents(run_a, res_a.agents, run_b, res_b.agents, agents)
    return Comparison(run_a, run_b, pairs, comparison_rows(res_a, res_b, pairs))


def _f(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def _interval(r: dict[str, Any]) -> str:
    if r["difference"] is None:
        return "-"
    mark = " *" if r["ci_low"] > 0 or r["ci_high"] < 0 else ""
    return f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}]{mark}"


def _cells(r: dict[str, Any]) -> list[str]:
    return [
        r["sc"],
        r["capability"],
        str(r["cases_a"]),
        _f(r["score_a"]),
        str(r["cases_b"]),
        _f(r["score_b"]),
        _f(r["difference"], signed=True),
        _interval(r),
    ]


HEADER = ("SC", "capability", "cases A", "score A", "cases B", "score B", "B - A", "95% interval")


def render_table(cmp: Comparison) -> str:
    """One block per pair of agents, for the terminal."""
    blocks = []
    for agent_a, agent_b in cmp.pairs:
        body = [_cells(r) for r in cmp.rows if (r["agent_a"], r["agent_b"]) == (agent_a, agent_b)]
        widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(HEADER)]

        def fmt(cells: Sequence[str], widths: list[int] = widths) -> str:
            pairs = enumerate(zip(cells, widths, strict=True))
            return "  ".join(c.ljust(w) if i in (0, 1, 7) else c.rjust(w) for i, (c, w) in pairs).rstrip()

        blocks.append(
            "\n".join(
                [
                    f"A: {agent_a} in {cmp.run_a}",
                    f"B: {agent_b} in {cmp.run_b}",
                    fmt(HEADER),
                    fmt(["-" * w for w in widths]),
                    *(fmt(b) for b in body),
                ]
            )
        )
    note = (
        "* the interval excludes 0. Intervals: Newcombe's hybrid score interval for a difference of "
        "two proportions (test cases held / test cases)."
    )
    return "\n\n".join([*blocks, note])


def render_markdown(cmp: Comparison) -> str:
    head = ["agent A", "agent B", *HEADER]
    lines = [
        f"Scores of run A ({cmp.run_a}) and run B ({cmp.run_b}); B - A with Newcombe's hybrid "
        "score interval (95%); * marks an interval that excludes 0.",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "|".join("---" if i < 4 else "---:" for i in range(len(head))) + "|",
    ]
    for r in cmp.rows:
        cells = [r["agent_a"], r["agent_b"], *_cells(r)]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def render_csv(cmp: Comparison) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(cmp.rows)
    return buf.getvalue()


def render_json(cmp: Comparison) -> str:
    doc = {
        "run_a": cmp.run_a,
        "run_b": cmp.run_b,
        "pairs": [list(p) for p in cmp.pairs],
        "interval": "Newcombe hybrid score interval, 95%, for score_b - score_a",
        "rows": cmp.rows,
    }
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def out_format(path: str) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in OUT_FORMATS:
        raise MetalogicError.single(
            f"cannot tell the format of --out {path}",
            expected="a file name ending in " + ", ".join(OUT_FORMATS),
            fix=f"e.g. --out {Path(path).with_suffix('.csv').name}",
        )
    return OUT_FORMATS[suffix]


def write_outputs(cmp: Comparison, outs: Sequence[str]) -> list[Path]:
    from metalogic.engine.whole_files import write_bytes_whole

    render = {"csv": render_csv, "json": render_json, "markdown": render_markdown}
    texts = {Path(p): render[out_format(p)](cmp) for p in outs}  # every name checked before writing
    for path in texts:
        if not path.parent.is_dir():
            raise MetalogicError.single(
                f"cannot write {path}: the folder {path.parent} does not exist",
                expected="an existing folder",
                fix="create the folder first or choose another --out",
            )
    for path, body in texts.items():
        try:
            write_bytes_whole(path, body.encode("utf-8"))
        except OSError as exc:  # /proc/x.csv, a read-only folder, a folder named like the file
            raise MetalogicError.single(
                f"cannot write {path}: {exc.strerror or exc}",
                expected="--out a file in a folder you can write to",
                fix="choose another --out",
            ) from None
    return list(texts)


@click.command("compare")
@click.argument("run_a", type=click.Path())
@click.argument("run_b", type=click.Path())
@agent_filter_option(
    "Once: compare that agent in both runs. Twice: the agent of RUN_A, then the agent of RUN_B."
)
@as_checked_engine_option
@const_option
@rules_option
@as_checked_mrs_option
@click.option(
    "--out",
    "outs",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="Also write the table; the suffix picks the format: .csv, .json or .md (repeatable).",
)
def compare_command(
    run_a: str,
    run_b: str,
    agents: tuple[str, ...],
    engine: str | None,
    settings: tuple[str, ...],
    rules_dirs: tuple[str, ...],
    mrs: str | None,
    outs: tuple[str, ...],
) -> None:
    """Per-capability score differences between two runs (B - A) with 95% intervals: agents with
    the same name in both runs, or the two agents named with --agent.

    Each run is what 'metalogic check --out' wrote (or a folder holding it in check/); a facts
    folder is checked once first, into RUN/check.

    Examples: metalogic compare runs/direct runs/cogmap;
    metalogic compare runs/a runs/a --agent gemma --agent gemma+cogmap --out cmp.md
    """
    for p in outs:
        out_format(p)  # a bad name fails before any engine runs
    notes: list[str] = []
    cmp = compare_runs(
        run_a,
        run_b,
        agents=agents,
        engine=engine,
        rules_dirs=rules_dirs,
        settings=settings,
        mrs=mrs,
        notes=notes,
    )
    click.echo(render_table(cmp))
    for path in write_outputs(cmp, outs):
        click.echo(f"wrote {display_path(path)}")
    for note in notes:
        click.echo(note, err=True)
