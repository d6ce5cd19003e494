"""`metalogic report`: one self-contained HTML page, PNG plots and a terminal summary for a run.

Every number comes from the rule engines, read from what `metalogic check --out` wrote
(engine/check/writer.py, read back by engine/check/reader.py): scores, violations, per-MR counts and the
facts behind each violation, truthful answers (from the truth rules), the questions, the answers,
the frames and their tracked boxes. Given a facts folder instead, the report checks it once and
writes that output first. This module only joins those tables into what a person needs to see a
violation, and lays them out; it never runs the MRs itself.
"""

from __future__ import annotations

import shlex
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

import click

from metalogic import __version__
from metalogic.app import charts
from metalogic.app.options import (
    agent_filter_option,
    as_checked_engine_option,
    as_checked_mrs_option,
    const_option,
    rules_option,
)
from metalogic.app.placement import placement_views
from metalogic.app.report_html import INVALID_BUCKET, frame_images, render_html, render_plots, render_terminal
from metalogic.engine.check.reader import CheckOutput, corrupt, table_file
from metalogic.engine.check.reuse import open_check
from metalogic.engine.check.writer import canon
from metalogic.engine.errors import MetalogicError
from metalogic.engine.facts import display_path
from metalogic.engine.results import label, split_args
from metalogic.engine.schema import QUERY_KINDS, STATE
from metalogic.engine.terms import Fun, ParseError, parse_term, text
from metalogic.engine.vocab import vocabulary
from metalogic.engine.whole_files import write_bytes_whole


@dataclass
class Report:
    res: CheckOutput  # the check output the report was built from
    data: dict[str, Any]  # everything the HTML page embeds (JSON)
    notes: list[str]


@dataclass
class TableIndex:
    """The check output's questions, answers, frames and boxes, indexed as the page needs them."""

    answers: dict[tuple[str, str], str] = field(default_factory=dict)  # (agent, query) -> value
    raw: dict[tuple[str, str], str] = field(default_factory=dict)  # (agent, query) -> reply text
    contents: dict[str, str] = field(default_factory=dict)  # query id -> content (canonical text)
    forms: dict[str, str] = field(default_factory=dict)
    truth: dict[str, str] = field(default_factory=dict)  # query id -> truthful answer
    frames: dict[tuple[str, int], str] = field(default_factory=dict)  # (traj, state) -> path
    boxes: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    image_size: dict[str, tuple[int, int]] = field(default_factory=dict)
    blame: dict[tuple[str, str], str] = field(default_factory=dict)  # (agent, query) -> certain | possible

    check: CheckOutput | None = None  # where the tables came from, to name a row that is wrong

    @cached_property
    def queries(self) -> dict[str, Fun]:
        out = {}
        for row, (q, c) in enumerate(self.contents.items(), start=1):
            try:
                t = parse_term(c)
            except (ParseError, RecursionError):
                raise self._not_a_term(row, c) from None
            if isinstance(t, Fun):
                out[q] = t
        return out

    def _not_a_term(self, row: int, content: str) -> MetalogicError:
        shown = repr(content) if len(content) <= 60 else repr(content[:57]) + "..."
        what = f"row {row}: column 'content' holds {shown}, which is not a term"
        chk = self.check
        if chk is None:
            return MetalogicError.single(f"a question's content is not a term: {shown}")
        return corrupt(table_file(chk.folder, "questions", chk.manifest), what, chk.folder, chk.manifest)


def table_index(chk: CheckOutput) -> TableIndex:
    idx = TableIndex(check=chk)
    t = chk.tables
    for r in t["answers"].iter_rows(named=True):
        idx.answers[(r["agent"], r["query"])] = r["answer"]
        if r["raw_reply"] is not None:
            idx.raw[(r["agent"], r["query"])] = r["raw_reply"]
        if r.get("blame"):
            idx.blame[(r["agent"], r["query"])] = r["blame"]
    for r in t["questions"].iter_rows(named=True):
        idx.contents[r["query"]] = r["content"]
        if r["form"]:
            idx.forms[r["query"]] = r["form"]
        if r["truth"] is not None:
            idx.truth[r["query"]] = r["truth"]
    for r in t["frames"].iter_rows(named=True):
        if r["path"] is not None:
            idx.frames[(r["trajectory"], r["state"])] = r["path"]
        if r["image_width"] is not None and r["image_height"] is not None:
            idx.image_size[r["trajectory"]] = (r["image_width"], r["image_height"])
    for r in t["boxes"].iter_rows(named=True):
        idx.boxes[(r["trajectory"], r["state"])].append(
            {"o": r["object"], "cls": r["class"], "box": [r["x1"], r["y1"], r["x2"], r["y2"]]}
        )
    return idx


def mr_error_rows(res: CheckOutput) -> list[dict[str, Any]]:
    """Violations per agent, capability and MR; those caused by an unusable answer form their own
    bucket, so that an MR's share counts only contradictions it found."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for agent, _case, mr, sc, reason in res.rows.violations:
        counts[(agent, sc, INVALID_BUCKET if reason == "invalid_answer" else mr)] += 1
    return [{"agent": a, "sc": sc, "mr": mr, "violations": n} for (a, sc, mr), n in sorted(counts.items())]


def _query_view(content: Fun) -> tuple[str, list[int], list[str]]:
    """(trajectory, states, objects) a query is about, by the argument types the schema gives its
    kind: a trajectory id first, then states (two for the agent's own moves) and object ids."""
    args = content.args
    if not args:
        return "", [], []
    types = QUERY_KINDS.get(content.name, ())[1:]
    rest = list(zip(args[1:], types, strict=False))
    states = [a for a, t in rest if t is STATE and isinstance(a, int)]
    return text(args[0]), states, [label(text(a)) for a, t in rest if t is not STATE]


def violation_entries(
    res: CheckOutput, idx: TableIndex, truth: dict[str, str], max_per_agent: int, max_frames: int
) -> tuple[list[dict[str, Any]], set[tuple[str, int]], Counter[str]]:
    """The violation browser's entries (up to max_per_agent per agent), the frames they show (for
    the first max_frames violations of each agent) and how many violations were left out."""
    mrs = {str(m["id"]): m for m in res.mrs}
    shown: Counter[str] = Counter()
    left_out: Counter[str] = Counter()
    wanted: set[tuple[str, int]] = set()
    entries = []
    for agent, case, mr, sc, reason in res.rows.violations:
        if shown[agent] >= max_per_agent:
            left_out[agent] += 1
            continue
        facts = res.rows.explain.get((agent, case), [])
        questions, views = _questions(agent, facts, idx, truth)
        frames = _frames_of(views) if shown[agent] < max_frames else []
        wanted.update((t, s) for t, s, _ in frames)
        placement = placement_views(facts, idx.queries, truth, lambda q, a=agent: idx.answers.get((a, q), ""))
        rule = mrs.get(mr)
        entries.append(
            {
                "agent": agent,
                "case": case,
                "mr": mr,
                "mr_name": rule["name"] if rule else "",
                "law": rule["law"] if rule else "",
                "sc": sc,
                "reason": reason,
                "questions": questions,
                "facts": facts,
                "frames": _frame_refs(frames),
                "placement": placement,
                "thumbs_capped": shown[agent] >= max_frames,
            }
        )
        shown[agent] += 1
    return entries, wanted, left_out


def _questions(
    agent: str, facts: list[str], idx: TableIndex, truth: dict[str, str]
) -> tuple[list[dict[str, Any]], list[tuple[str, list[int], list[str]]]]:
    """The rows of a violation's question table (from the query/2 facts behind it) and what each
    question is about (trajectory, states, objects)."""
    questions, views = [], []
    for f in facts:
        if f.startswith("query("):
            qid, content = split_args(f)
            q = canon(qid)
            parsed = idx.queries.get(q)
            views.append(_query_view(parsed) if parsed else ("", [], []))
            questions.append(
                {
                    "q": label(q),
                    "content": canon(content),
                    "form": idx.forms.get(q, ""),
                    "answer": idx.answers.get((agent, q), ""),
                    "truth": truth.get(q),
                    "raw": idx.raw.get((agent, q)),
                    "blame": idx.blame.get((agent, q)),
                }
            )
    return questions, views


BLAMED_SHOWN = 200  # blamed answers listed per agent (all of them are in blamed.csv)


def blamed_rows(
    res: CheckOutput, idx: TableIndex, max_frames: int
) -> tuple[list[dict[str, Any]], set[tuple[str, int]]]:
    """Each agent's blamed answers for the page (up to BLAMED_SHOWN each), with their questions,
    and the frames they are about for the first max_frames of each agent (also returned, to embed)."""
    shown: Counter[str] = Counter()
    rows = []
    wanted: set[tuple[str, int]] = set()
    for r in res.tables["blamed"].iter_rows(named=True):
        if shown[r["agent"]] >= BLAMED_SHOWN:
            continue
        cases = r["cases"] if isinstance(r["cases"], list) else str(r["cases"] or "").split("\n")
        parsed = idx.queries.get(r["query"])
        frames = _frames_of([_query_view(parsed)]) if parsed and shown[r["agent"]] < max_frames else []
        wanted.update((t, s) for t, s, _ in frames)
        shown[r["agent"]] += 1
        content = idx.contents.get(r["query"], "")
        rows.append(
            {**r, "content": content, "cases": [c for c in cases if c], "frames": _frame_refs(frames)}
        )
    return rows, wanted


def _frames_of(views: list[tuple[str, list[int], list[str]]]) -> list[tuple[str, int, list[str]]]:
    """Distinct (trajectory, state) frames of a violation's queries, with the objects asked about."""
    objects: dict[tuple[str, int], list[str]] = {}
    for traj, states, objs in views:
        for s in states:
            seen = objects.setdefault((traj, s), [])
            seen.extend(o for o in objs if o not in seen)
    return [(t, s, o) for (t, s), o in sorted(objects.items(), key=lambda kv: (kv[0][0], kv[0][1]))]


def _frame_refs(frames: list[tuple[str, int, list[str]]]) -> list[dict[str, Any]]:
    return [{"key": f"{t}#{s}", "traj": label(t), "state": s, "objects": o} for t, s, o in frames]


def build_report(
    folder: str,
    *,
    engine: str | None = None,
    rules_dirs: Sequence[str] = (),
    settings: Sequence[str] = (),
    agents: Sequence[str] = (),
    max_violations: int = 2000,
    max_thumbnails: int = 20,
    mrs: str | None = None,
) -> Report:
    """Read the check output that `folder` names (checking a facts folder once first, see
    check.reuse.open_check) and gather everything the page, the plots and the summary show."""
    chk = open_check(folder, engine=engine, rules_dirs=rules_dirs, settings=settings, mrs=mrs)
    for a in agents:
        if a not in chk.agents:
            from metalogic.engine.errors import did_you_mean

            raise MetalogicError.single(
                f"no answers from agent '{a}' in {folder}",
                expected="one of " + (", ".join(chk.agents) or "(no agents)"),
                fix=did_you_mean(a, chk.agents) or "check the agent name",
            )
    if agents:
        chk = chk.only_agents(agents)
    if not chk.agents:
        raise MetalogicError.single(
            f"no agent answers in {folder}, so there is nothing to report",
            expected="answer(Agent, Query, Value) facts under the folder",
            fix="answer the questions first: metalogic ask "
            f"{shlex.quote(chk.facts_dir or str(folder))} --agent oracle",
        )
    idx = table_index(chk)
    truth = idx.truth
    entries, wanted, left_out = violation_entries(chk, idx, truth, max_violations, max_thumbnails)
    blamed, blamed_frames = blamed_rows(chk, idx, max_thumbnails)
    wanted |= blamed_frames
    root = Path(str(chk.manifest.get("scene_root") or chk.folder))
    images, missing = frame_images(wanted, idx, root)
    notes = _notes(chk, truth, left_out, max_thumbnails, len(images), missing, root)
    caps = vocabulary().capabilities
    where = Path(folder).resolve()
    name = where.parent.name if where.name == "check" and (where / "run.json").is_file() else where.name
    scale = chk.param_scale
    data = {
        "meta": {
            "title": f"metalogic report: {name}",
            "run": str(where),
            "engine": chk.engine,
            "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "version": __version__,
            "facts": int(chk.manifest.get("facts", 0)),
            "files": len(chk.manifest.get("files", [])),
            "testcases": int(chk.manifest.get("testcases", 0)),
            "violations": len(chk.rows.violations),
            "params": {k: v / scale.get(k, 1) for k, v in chk.params.items()},
            "agents": chk.agents,
            "capabilities": caps,
            "sc_order": [sc for sc in caps if any(r[1] == sc and r[2] for r in chk.rows.scores)],
            "mrs": [
                {"id": m["id"], "name": m["name"], "law": m["law"], "serves": list(m["serves"])}
                for m in chk.mrs
            ],
            "truth_queries": len(truth),
            "queries": len(idx.contents),
            "notes": notes,
        },
        "scores": chk.tables["scores"].to_dicts(),
        "error_rates": chk.tables["error_rates"].to_dicts(),
        "mr_errors": mr_error_rows(chk),
        "accuracy": chk.tables["accuracy"].to_dicts() if truth else [],
        "blamed": blamed,
        "violations": entries,
        "images": images,
    }
    data["charts"] = charts.describe_all(data)
    return Report(chk, data, notes)


def _notes(
    res: CheckOutput,
    truth: dict[str, str],
    left_out: Counter[str],
    max_thumbnails: int,
    shown: int,
    missing: list[str],
    root: Path,
) -> list[str]:
    notes = []
    if not truth:
        notes.append("no ground truth in this run (gt_* facts), so accuracy is not shown")
    for agent, n in sorted(left_out.items()):
        notes.append(f"{n} more violations of {agent} are not in the browser (see 'metalogic check --out')")
    capped = [a for a in res.agents if sum(v[0] == a for v in res.rows.violations) > max_thumbnails]
    if capped and shown:
        notes.append(f"frames are shown for the first {max_thumbnails} violations of each agent")
    if missing:
        notes.append(
            f"{len(missing)} of {shown} frames could not be shown (looked under {root}); "
            "their boxes are drawn on a blank frame"
        )
    return notes


def default_out(folder: str) -> Path:
    p = Path(folder)
    return (p if p.is_dir() else p.parent) / "report" / "report.html"


def html_path(out: str | None, folder: str) -> Path:
    if out is None:
        return default_out(folder)
    p = Path(out)
    return p if p.suffix.lower() in (".html", ".htm") and not p.is_dir() else p / "report.html"


def write_report(rep: Report, html: Path, plots: bool = True) -> list[Path]:
    """Write the page and (with plots) its PNGs; every file appears whole or not at all."""
    files: dict[Path, bytes] = {}
    if plots:
        files.update({html.parent / f"{name}.png": png for name, png in render_plots(rep.data).items()})
    files[html] = render_html(rep.data).encode("utf-8")
    blocker = next((p for p in (html.parent, *html.parent.parents) if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise MetalogicError.single(
            f"cannot write the report to {html}: {blocker} is a file, not a folder",
            expected="a folder for the report (created when missing)",
            fix="choose another --out",
        )
    try:
        html.parent.mkdir(parents=True, exist_ok=True)
        for path, blob in files.items():
            write_bytes_whole(path, blob)
    except OSError as exc:
        raise MetalogicError.single(
            f"cannot write the report to {html}: {exc.strerror}",
            expected="a folder you can write to",
            fix="choose another --out",
        ) from None
    return list(files)


@click.command("report")
@click.argument("run_dir", type=click.Path())
@click.option(
    "--out",
    type=click.Path(),
    help="The HTML file to write (PNG plots go next to it); a folder means FOLDER/report.html. "
    "Default: RUN_DIR/report/report.html.",
)
@as_checked_engine_option
@agent_filter_option()
@const_option
@rules_option
@as_checked_mrs_option
@click.option(
    "--max-violations",
    type=click.IntRange(0, 1_000_000),
    default=2000,
    show_default=True,
    help="Violations per agent in the browser.",
)
@click.option(
    "--max-thumbnails",
    type=click.IntRange(0, 100_000),
    default=20,
    show_default=True,
    help="Violations per agent shown with their frames.",
)
@click.option("--no-plots", is_flag=True, help="Skip the PNG plots (no matplotlib needed).")
def report_command(
    run_dir: str,
    out: str | None,
    engine: str | None,
    agents: tuple[str, ...],
    settings: tuple[str, ...],
    rules_dirs: tuple[str, ...],
    mrs: str | None,
    max_violations: int,
    max_thumbnails: int,
    no_plots: bool,
) -> None:
    """Write an HTML report of a checked run: agent x capability heatmap, radar charts, the share of
    errors each MR finds, error rates, accuracy beside consistency, and a browser of every
    violation with its frames, questions, answers and rule. Also prints a summary.

    RUN_DIR is what 'metalogic check --out' wrote (or a folder holding it in check/, as 'metalogic
    run' leaves it); it is read, not checked again. A facts folder is checked once first, and its
    check output written to RUN_DIR/check (reused while the facts, rules and options stay the same).

    Example: metalogic report runs/demo
    """
    if not no_plots:
        _require_matplotlib()
    html = html_path(out, run_dir)
    rep = build_report(
        run_dir,
        engine=engine,
        rules_dirs=rules_dirs,
        settings=settings,
        agents=agents,
        mrs=mrs,
        max_violations=max_violations,
        max_thumbnails=max_thumbnails,
    )
    written = write_report(rep, html, plots=not no_plots)
    click.echo(render_terminal(rep))
    pngs = [p.name for p in written if p.suffix == ".png"]
    size_kb = html.stat().st_size / 1024
    plots = f"; plots: {', '.join(pngs)}" if pngs else ""
    click.echo(f"\nreport: {display_path(html)} ({size_kb:.0f} KB){plots}")
    if rep.res.note():
        click.echo(rep.res.note(), err=True)


def _require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise MetalogicError.single(
            "the PNG plots need matplotlib, which is not installed",
            expected="the 'report' extra",
            fix="pip install 'metalogic[report]', or pass --no-plots for the HTML page alone",
        ) from None
