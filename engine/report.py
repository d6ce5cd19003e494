"""`metalogic report`: one self-contained HTML page, PNG plots and a terminal summary for a run.

Every number comes from the rule engines: scores, violations, per-MR counts and the facts behind
each violation from `run_check`, tables from `tables.all_frames`, truthful answers from the truth
rules (`engine.truth.true_answers`). This module only joins them with what a person needs to see a
violation (the questions, the answers, the frames and their tracked boxes) and lays them out.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from metalogic import __version__
from metalogic.engine.check import CheckResult, run_check
from metalogic.engine.errors import MetalogicError
from metalogic.engine.facts import display_path
from metalogic.engine.options import const_option, engine_option, mrs_option, rules_option
from metalogic.engine.paths import frame_place
from metalogic.engine.report_html import INVALID_BUCKET, render_html, render_plots, render_terminal, thumbnail
from metalogic.engine.results import label, split_args
from metalogic.engine.terms import Fun, ParseError, parse_term, text
from metalogic.engine.vocab import vocabulary

THUMB_WIDTH = 320  # pixels; frames are shrunk to this width before they are embedded
_WANTED = ("answer(", "raw_reply(", "query(", "form(", "frame(", "detection(", "image_size(")


@dataclass
class RunIndex:
    """The facts a report shows beside the engine's results, indexed by canonical text."""

    answers: dict[tuple[str, str], str] = field(default_factory=dict)  # (agent, query) -> value
    raw: dict[tuple[str, str], str] = field(default_factory=dict)  # (agent, query) -> reply text
    queries: dict[str, Fun] = field(default_factory=dict)  # query id -> content
    forms: dict[str, str] = field(default_factory=dict)
    frames: dict[tuple[str, int], str] = field(default_factory=dict)  # (traj, state) -> path
    boxes: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    image_size: dict[str, tuple[int, int]] = field(default_factory=dict)


@dataclass
class Report:
    res: CheckResult
    data: dict[str, Any]  # everything the HTML page embeds (JSON)
    notes: list[str]


def index_facts(res: CheckResult) -> RunIndex:
    idx = RunIndex()
    for fact in res.facts.facts:
        if not fact.startswith(_WANTED):
            continue
        t = parse_term(fact)
        assert isinstance(t, Fun)
        a = t.args
        if t.name == "answer" and len(a) == 3:
            idx.answers[(str(a[0]), text(a[1]))] = text(a[2])
        elif t.name == "raw_reply" and len(a) == 3:
            idx.raw[(str(a[0]), text(a[1]))] = str(a[2])
        elif t.name == "query" and len(a) == 2 and isinstance(a[1], Fun):
            idx.queries[text(a[0])] = a[1]
        elif t.name == "form" and len(a) == 2:
            idx.forms[text(a[0])] = text(a[1])
        elif t.name == "frame" and len(a) == 3 and isinstance(a[1], int):
            idx.frames[(text(a[0]), a[1])] = str(a[2])
        elif t.name == "image_size" and len(a) == 3:
            idx.image_size[text(a[0])] = (int(a[1]), int(a[2]))
        elif t.name == "detection" and len(a) == 9 and isinstance(a[1], int):
            x1, y1, x2, y2 = (int(v) for v in a[5:9])
            idx.boxes[(text(a[0]), a[1])].append(
                {"o": label(text(a[2])), "cls": label(text(a[3])), "box": [x1, y1, x2, y2]}
            )
    return idx


def load_truth(res: CheckResult) -> dict[str, str]:
    """Query id -> truthful answer, both as canonical text; empty without ground truth."""
    from metalogic.engine.truth import true_answers

    out = {}
    for q, v in true_answers(res.facts.program(), res.params).items():
        out[_canon(q)] = _canon(v)
    return out


def _canon(s: str) -> str:
    try:
        return text(parse_term(s))
    except ParseError:
        return s


def query_sc(content: Fun) -> str:
    kind = vocabulary().query_kinds.get(content.name)
    return kind.sc if kind else ""


def accuracy_rows(res: CheckResult, idx: RunIndex, truth: dict[str, str]) -> list[dict[str, Any]]:
    """Per agent and capability (and 'all'): accuracy against the truth beside MR consistency.

    An answer is *flagged* when it takes part in at least one violated test case (the engine's
    per-query counts); a wrong answer that is not flagged is *consistent but wrong*: the MRs cannot
    see it, only ground truth can."""
    held = {(a, sc): (n, v) for a, sc, n, v in res.rows.scores}
    tally: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for (agent, q), value in idx.answers.items():
        if agent not in res.agents or q not in idx.queries:
            continue
        sc = query_sc(idx.queries[q])
        cases, violated = res.rows.by_query.get((agent, q), (0, 0))
        for key in ((agent, sc), (agent, "all")):
            c = tally[key]
            c["answers"] += 1
            if q not in truth:
                continue
            c["with_truth"] += 1
            if value == truth[q]:
                c["correct"] += 1
            else:
                c["wrong"] += 1
                c["flagged" if violated else "consistent_but_wrong"] += 1
                c["untested_wrong"] += not cases
    rows = []
    for (agent, sc), c in sorted(tally.items(), key=lambda kv: (kv[0][0], kv[0][1] == "all", kv[0][1])):
        if sc == "all":
            n = sum(v[0] for (a, _), v in held.items() if a == agent)
            v = sum(v[1] for (a, _), v in held.items() if a == agent)
        else:
            n, v = held.get((agent, sc), (0, 0))
        wt = c["with_truth"]
        rows.append(
            {
                "agent": agent,
                "sc": sc,
                "answers": c["answers"],
                "with_truth": wt,
                "correct": c["correct"],
                "accuracy": c["correct"] / wt if wt else None,
                "cases": n,
                "consistency": 1 - v / n if n else None,
                "wrong": c["wrong"],
                "flagged": c["flagged"],
                "consistent_but_wrong": c["consistent_but_wrong"],
                "consistent_but_wrong_share": c["consistent_but_wrong"] / wt if wt else None,
                "untested_wrong": c["untested_wrong"],
            }
        )
    return rows


def mr_error_rows(res: CheckResult) -> list[dict[str, Any]]:
    """Violations per agent, capability and MR; those caused by an unusable answer form their own
    bucket, so that an MR's share counts only contradictions it found."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for agent, _case, mr, sc, reason in res.rows.violations:
        counts[(agent, sc, INVALID_BUCKET if reason == "invalid_answer" else mr)] += 1
    return [{"agent": a, "sc": sc, "mr": mr, "violations": n} for (a, sc, mr), n in sorted(counts.items())]


def scene_root(res: CheckResult) -> Path:
    """Where frame/3 paths start: run.json's scene_root, else the facts folder itself."""
    root = res.facts.root if res.facts.root.is_dir() else res.facts.root.parent
    meta = root / "run.json"
    if meta.is_file():
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            data = {}
        given = data.get("scene_root") if isinstance(data, dict) else None
        if isinstance(given, str) and given:
            p = Path(given)
            return p if p.is_absolute() else (root / p).resolve()
    return root


def _query_view(content: Fun) -> tuple[str, list[int], list[str]]:
    """(trajectory, states, objects) a query is about. SC1 contents name two states of the
    agent's own movement; every other content names one state, then objects."""
    args = content.args
    if not args:
        return "", [], []
    traj = text(args[0])
    if query_sc(content).startswith("sc1"):
        return traj, [a for a in args[1:3] if isinstance(a, int)], []
    states = [args[1]] if len(args) > 1 and isinstance(args[1], int) else []
    return traj, states, [label(text(a)) for a in args[2:]]


def violation_entries(
    res: CheckResult, idx: RunIndex, truth: dict[str, str], max_per_agent: int, max_frames: int
) -> tuple[list[dict[str, Any]], set[tuple[str, int]], Counter[str]]:
    """The violation browser's entries (up to max_per_agent per agent), the frames they show (for
    the first max_frames violations of each agent) and how many violations were left out."""
    mrs = {m.id: m for m in res.rules.mrs}
    shown: Counter[str] = Counter()
    left_out: Counter[str] = Counter()
    wanted: set[tuple[str, int]] = set()
    entries = []
    for agent, case, mr, sc, reason in res.rows.violations:
        if shown[agent] >= max_per_agent:
            left_out[agent] += 1
            continue
        facts = res.rows.explain.get((agent, case), [])
        questions, views = [], []
        for f in facts:
            if not f.startswith("query("):
                continue
            qid, content = split_args(f)
            q = _canon(qid)
            parsed = idx.queries.get(q)
            views.append(_query_view(parsed) if parsed else ("", [], []))
            questions.append(
                {
                    "q": label(q),
                    "content": _canon(content),
                    "form": idx.forms.get(q, ""),
                    "answer": idx.answers.get((agent, q), ""),
                    "truth": truth.get(q),
                    "raw": idx.raw.get((agent, q)),
                }
            )
        frames = _frames_of(views) if shown[agent] < max_frames else []
        wanted.update((t, s) for t, s, _ in frames)
        rule = mrs.get(mr)
        entries.append(
            {
                "agent": agent,
                "case": case,
                "mr": mr,
                "mr_name": rule.name if rule else "",
                "law": rule.law if rule else "",
                "sc": sc,
                "reason": reason,
                "questions": questions,
                "facts": facts,
                "frames": [
                    {"key": f"{t}#{s}", "traj": label(t), "state": s, "objects": o} for t, s, o in frames
                ],
                "thumbs_capped": shown[agent] >= max_frames,
            }
        )
        shown[agent] += 1
    return entries, wanted, left_out


def _frames_of(views: list[tuple[str, list[int], list[str]]]) -> list[tuple[str, int, list[str]]]:
    """Distinct (trajectory, state) frames of a violation's queries, with the objects asked about."""
    objects: dict[tuple[str, int], list[str]] = {}
    for traj, states, objs in views:
        for s in states:
            seen = objects.setdefault((traj, s), [])
            seen.extend(o for o in objs if o not in seen)
    return [(t, s, o) for (t, s), o in sorted(objects.items(), key=lambda kv: (kv[0][0], kv[0][1]))]


def frame_images(
    wanted: set[tuple[str, int]], idx: RunIndex, root: Path, width: int = THUMB_WIDTH
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Each wanted frame as a small JPEG data URL with its boxes; frames that cannot be shown get
    a note (the page then draws the boxes on a blank frame)."""
    images: dict[str, dict[str, Any]] = {}
    missing: list[str] = []
    for traj, state in sorted(wanted):
        entry: dict[str, Any] = {"boxes": idx.boxes.get((traj, state), []), "src": None, "note": ""}
        size = idx.image_size.get(traj)
        rel = idx.frames.get((traj, state))
        if rel is None and not entry["boxes"]:
            continue  # nothing to draw
        if rel is None:
            entry["note"] = f"no frame/3 fact for trajectory {label(traj)}, state {state}"
            missing.append(entry["note"])
        else:
            path = root / rel
            try:
                if frame_place(path, root) is None:  # a frame/3 fact may not show any file on the machine
                    entry["note"] = f"frame file lies outside the run's folders, not shown: {path}"
                else:
                    entry["src"], natural = thumbnail(path, width)
                    size = size or natural
            except OSError:
                entry["note"] = f"frame file not found or unreadable: {path}"
            except ImportError:
                entry["note"] = "frames need Pillow: pip install 'metalogic[report]'"
            if entry["note"]:
                missing.append(str(path))
        if size is None:  # no image and no image_size: make the boxes fit
            boxes = entry["boxes"] or [{"box": [0, 0, 640, 480]}]
            size = (max(b["box"][2] for b in boxes) + 1, max(b["box"][3] for b in boxes) + 1)
        entry["w"], entry["h"] = size
        images[f"{traj}#{state}"] = entry
    return images, missing


def build_report(
    folder: str,
    *,
    engine: str = "clingo",
    rules_dirs: Sequence[str] = (),
    settings: Sequence[str] = (),
    agents: Sequence[str] = (),
    max_violations: int = 2000,
    max_thumbnails: int = 20,
    mrs: str = "all",
) -> Report:
    """Check the run and gather everything the page, the plots and the summary show."""
    from metalogic.engine.tables import all_frames

    if not Path(folder).exists():
        raise MetalogicError.single(
            f"run folder '{folder}' does not exist",
            expected="a run folder (or any facts folder) holding answer facts",
            fix="check the path; runs are written by 'metalogic generate' and answered by 'metalogic ask'",
        )
    res = run_check(folder, engine=engine, rules_dirs=rules_dirs, settings=settings, agents=agents, mrs=mrs)
    if not res.agents:
        raise MetalogicError.single(
            f"no agent answers in {folder}, so there is nothing to report",
            expected="answer(Agent, Query, Value) facts under the folder",
            fix=f"answer the questions first: metalogic ask {folder} --agent oracle",
        )
    frames = all_frames(res)
    idx = index_facts(res)
    truth = load_truth(res)
    entries, wanted, left_out = violation_entries(res, idx, truth, max_violations, max_thumbnails)
    root = scene_root(res)
    images, missing = frame_images(wanted, idx, root)
    notes = _notes(res, truth, left_out, max_thumbnails, len(images), missing, root)
    caps = vocabulary().capabilities
    data = {
        "meta": {
            "title": f"metalogic report: {Path(folder).resolve().name}",
            "run": str(Path(folder).resolve()),
            "engine": engine,
            "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "version": __version__,
            "facts": len(res.facts),
            "files": len(res.facts.files),
            "testcases": len(res.rows.testcases),
            "violations": len(res.rows.violations),
            "params": {k: res.params.get(k, p.default) / p.scale for k, p in res.rules.params.items()},
            "agents": res.agents,
            "capabilities": caps,
            "sc_order": [sc for sc in caps if any(r[1] == sc and r[2] for r in res.rows.scores)],
            "mrs": [
                {"id": m.id, "name": m.name, "law": m.law, "serves": list(m.serves)} for m in res.rules.mrs
            ],
            "truth_queries": len(truth),
            "queries": len(idx.queries),
            "notes": notes,
        },
        "scores": frames["scores"].to_dicts(),
        "error_rates": frames["error_rates"].to_dicts(),
        "mr_errors": mr_error_rows(res),
        "accuracy": accuracy_rows(res, idx, truth) if truth else [],
        "violations": entries,
        "images": images,
    }
    return Report(res, data, notes)


def _notes(
    res: CheckResult,
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
            write_atomic(path, blob)
    except OSError as exc:
        raise MetalogicError.single(
            f"cannot write the report to {html}: {exc.strerror}",
            expected="a folder you can write to",
            fix="choose another --out",
        ) from None
    return list(files)


def write_atomic(path: Path, blob: bytes) -> None:
    """Write a temporary file beside `path`, then rename it into place (readable like any file
    the user creates: a report is meant to be shared)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(blob)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@click.command("report")
@click.argument("run_dir", type=click.Path())
@click.option(
    "--out",
    type=click.Path(),
    help="The HTML file to write (PNG plots go next to it); a folder means FOLDER/report.html. "
    "Default: RUN_DIR/report/report.html.",
)
@engine_option
@click.option("--agent", "agents", multiple=True, help="Only this agent (repeatable).")
@const_option
@rules_option
@mrs_option
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
    engine: str,
    agents: tuple[str, ...],
    settings: tuple[str, ...],
    rules_dirs: tuple[str, ...],
    mrs: str,
    max_violations: int,
    max_thumbnails: int,
    no_plots: bool,
) -> None:
    """Write an HTML report of a checked run: agent x capability heatmap, radar charts, the share of
    errors each MR finds, error rates, accuracy beside consistency, and a browser of every
    violation with its frames, questions, answers and rule. Also prints a summary.

    Example: metalogic report runs/demo --engine both
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


def _require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise MetalogicError.single(
            "the PNG plots need matplotlib, which is not installed",
            expected="the 'report' extra",
            fix="pip install 'metalogic[report]', or pass --no-plots for the HTML page alone",
        ) from None
