"""What `metalogic check --out` writes (engine/check/reader.py reads it back for `report` and `compare`).

The check's output folder holds everything the later stages need, so that they read it instead of
running the engines again:

- the result tables of engine/check/tables.py (scores, scores_by_mr, violations with the facts behind
  each one, trajectories, objects, error_rates), unchanged;
- the tables a report joins with them, computed once here from the same facts and results:
  `answers` (every answer with its raw reply and the engine's per-answer counts), `questions`
  (every query with its content, surface form, capability and truthful answer), `accuracy`
  (accuracy against the truth beside consistency), `frames` and `boxes` (the frames and tracked
  boxes the violation browser draws);
- `run.json`, the manifest: the engine, the MRs (with their names and laws), the parameters, the
  agents, the options the check ran with, a digest of the facts and of the rule files, and every
  table file with its row count and SHA-256. It is written last, so a folder whose tables are
  half written has no manifest.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from metalogic import __version__
from metalogic.engine.check.layout import COLUMNS, FORMAT, KIND, MANIFEST
from metalogic.engine.check.run import CheckResult
from metalogic.engine.check.tables import scores_frame
from metalogic.engine.results import label
from metalogic.engine.terms import Fun, ParseError, parse_term, text
from metalogic.engine.vocab import vocabulary

_WANTED = ("answer(", "raw_reply(", "query(", "form(", "frame(", "detection(", "image_size(")


# ---- the facts a report shows beside the results ------------------------------------------------


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


# An answer fact whose text is canonical but for the spaces after its commas (what `ask` writes):
# a plain agent name or a string without escapes, a plain query id, and a value that is a name or
# number, or one compound of those. The reader has checked every fact (no leading zeros, no
# variables), so such a text is what clingo prints. Read by one match instead of a parse (a
# million answers: 35 s and 0.7 GB less); anything else is parsed.
_PLAIN_ANSWER = re.compile(
    r'answer\(([a-z]\w*|"[^"\\\n]*"),\s?([a-z]\w*|[1-9]\d*),\s?(\w+(?:\(\w+(?:,\w+)*\))?)\)',
    re.ASCII,
)


def index_facts(res: CheckResult) -> RunIndex:
    return index_fact_texts(res.facts.facts)


def index_fact_texts(facts: Sequence[str]) -> RunIndex:
    idx = RunIndex()
    one: dict[str, str] = {}  # one object per distinct agent and value text
    for fact in facts:
        if not fact.startswith(_WANTED):
            continue
        m = _PLAIN_ANSWER.fullmatch(fact)
        if m:
            agent, q, value = m.groups()
            if agent not in one:
                one[agent] = label(agent)
            idx.answers[(one[agent], q)] = one.setdefault(value, value)
            continue
        _index_fact(idx, fact)
    return idx


def _index_fact(idx: RunIndex, fact: str) -> None:
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


def load_truth(res: CheckResult) -> dict[str, str]:
    """Query id -> truthful answer, both as canonical text; empty without ground truth."""
    from metalogic.engine.truth import true_answers

    if not any(f.startswith("gt_") for f in res.facts.facts):
        return {}  # the truth rules derive nothing without gt_* facts
    # The truth follows from the world and the questions alone: the agents' answers (most of a big
    # run's facts, which the shared query rules would type one by one) stay out of its program.
    world = [f for f in res.facts.facts if f.split("(", 1)[0].strip() not in _AGENT_FACTS]
    program = "".join(f"{f}.\n" for f in dict.fromkeys(world))
    return {canon(q): canon(v) for q, v in true_answers(program, res.params).items()}


_AGENT_FACTS = frozenset({"answer", "raw_reply"})


def canon(s: str) -> str:
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
    headline = {(r["agent"], r["sc"]): r["score"] for r in scores_frame(res).iter_rows(named=True)}
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
            c["tested"] += cases > 0
            c["tested_correct"] += cases > 0 and value == truth[q]
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
                "tested": c["tested"],
                "tested_correct": c["tested_correct"],
                "tested_accuracy": c["tested_correct"] / c["tested"] if c["tested"] else None,
                "score": headline.get((agent, sc)),
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


def scene_root(res: CheckResult) -> Path:
    """Where frame/3 paths start: run.json's scene_root, else the facts folder itself."""
    root = res.facts.root if res.facts.root.is_dir() else res.facts.root.parent
    meta = root / "run.json"
    if meta.is_file():
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        given = data.get("scene_root") if isinstance(data, dict) else None
        if isinstance(given, str) and given:
            p = Path(given)
            return p if p.is_absolute() else (root / p).resolve()
    return root.resolve()


def _frame(rows: list[dict[str, Any]], name: str) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=COLUMNS[name])


def extra_frame_builders(res: CheckResult) -> dict[str, Callable[[], pl.DataFrame]]:
    """The tables a report needs beyond engine/check/tables.py's (answers, questions, accuracy, frames
    and boxes), each built when called (as tables.frame_builders)."""
    idx = index_facts(res)
    truth = load_truth(res)
    return {
        "answers": lambda: _frame(_answer_rows(res, idx), "answers"),
        "blamed": lambda: _frame(_blamed_rows(res, idx, truth), "blamed"),
        "questions": lambda: _frame(_question_rows(idx, truth), "questions"),
        "accuracy": lambda: _frame(accuracy_rows(res, idx, truth) if truth else [], "accuracy"),
        "frames": lambda: _frame(_frame_rows(idx), "frames"),
        "boxes": lambda: _frame(_box_rows(idx), "boxes"),
    }


def _answer_rows(res: CheckResult, idx: RunIndex) -> list[dict[str, Any]]:
    keep = set(res.agents)
    return [
        {
            "agent": agent,
            "query": q,
            "sc": query_sc(idx.queries[q]) if q in idx.queries else "",
            "answer": value,
            "raw_reply": idx.raw.get((agent, q)),
            "cases": res.rows.by_query.get((agent, q), (0, 0))[0],
            "violations": res.rows.by_query.get((agent, q), (0, 0))[1],
            "blame": res.rows.blamed.get((agent, q)),
        }
        for (agent, q), value in sorted(idx.answers.items())
        if agent in keep
    ]


def _blamed_rows(res: CheckResult, idx: RunIndex, truth: Mapping[str, str]) -> list[dict[str, Any]]:
    return [
        {
            "agent": agent,
            "query": q,
            "sc": query_sc(idx.queries[q]) if q in idx.queries else "",
            "answer": idx.answers.get((agent, q)),
            "blame": kind,
            "truth": truth.get(q),
            "cases": res.rows.blamed_by.get((agent, q), []),
        }
        for (agent, q), kind in sorted(res.rows.blamed.items())
    ]


def _question_rows(idx: RunIndex, truth: Mapping[str, str]) -> list[dict[str, Any]]:
    return [
        {"query": q, "content": text(c), "form": idx.forms.get(q), "sc": query_sc(c), "truth": truth.get(q)}
        for q, c in sorted(idx.queries.items())
    ]


def _places(idx: RunIndex) -> list[tuple[str, int]]:
    return sorted(set(idx.frames) | {k for k, v in idx.boxes.items() if v})


def _frame_rows(idx: RunIndex) -> list[dict[str, Any]]:
    return [
        {
            "trajectory": t,
            "state": s,
            "path": idx.frames.get((t, s)),
            "image_width": idx.image_size[t][0] if t in idx.image_size else None,
            "image_height": idx.image_size[t][1] if t in idx.image_size else None,
        }
        for t, s in _places(idx)
    ]


def _box_rows(idx: RunIndex) -> list[dict[str, Any]]:
    return [
        {
            "trajectory": t,
            "state": s,
            "object": b["o"],
            "class": b["cls"],
            **dict(zip(("x1", "y1", "x2", "y2"), b["box"], strict=True)),
        }
        for (t, s) in _places(idx)
        for b in idx.boxes.get((t, s), [])
    ]


# ---- writing -------------------------------------------------------------------------------------


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def facts_digest(root: Path, files: Sequence[Path]) -> str:
    """One digest of a facts folder: every file's path below the root and its bytes."""
    h = hashlib.sha256()
    base = root if root.is_dir() else root.parent
    for p in sorted(files):
        try:
            rel = p.resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            rel = p.name
        h.update(rel.encode("utf-8") + b"\0" + sha256_of(p).encode("ascii") + b"\n")
    return h.hexdigest()


def rule_files(res: CheckResult) -> list[Path]:
    from metalogic.logic import SHARED_TABLES

    return [SHARED_TABLES, *res.rules.lp_files, *res.rules.pl_files, *res.rules.decl_files]


def write_check_output(
    res: CheckResult,
    out_dir: Path,
    formats: Sequence[str],
    request: Mapping[str, Any],
    facts_dir: str,
) -> list[Path]:
    """Write every table in every format, then the manifest naming them (written last)."""
    from metalogic.engine.check import tables

    # A check made for the score table alone lacks the explanations these tables hold.
    if not res.detail:
        raise ValueError("write_check_output needs a check made with run_check(..., detail=True)")

    builders = {**tables.frame_builders(res), **extra_frame_builders(res)}
    stale = out_dir / MANIFEST
    if stale.is_file() and not stale.is_symlink():
        stale.unlink()  # until the new manifest is written, the folder has none
    written: list[Path] = []
    files: dict[str, dict[str, Any]] = {}
    for name, build in builders.items():  # one table at a time: built, written, let go
        df = build()
        written += tables.write_tables({name: df}, out_dir, formats)
        files[name] = {
            "rows": df.height,
            "files": {
                fmt: {"name": f"{name}.{fmt}", "sha256": sha256_of(out_dir / f"{name}.{fmt}")}
                for fmt in formats
            },
        }
        del df  # before the next table is built
    mrs = res.rules.mrs
    manifest = {
        "kind": KIND,
        "format": FORMAT,
        "metalogic": __version__,
        "written": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "engine": res.engine,
        "facts_dir": facts_dir,
        "facts_root": str(res.facts.root.resolve()),
        "facts": len(res.facts),
        "files": [str(p) for p in res.facts.files],
        "facts_digest": facts_digest(res.facts.root, res.facts.files),
        "scene_root": str(scene_root(res)),
        "mrs": [
            {
                "id": m.id,
                "name": m.name,
                "law": m.law,
                "serves": list(m.serves),
                "lp": str(m.lp),
                "pl": str(m.pl),
            }
            for m in mrs
        ],
        "params": {k: res.params.get(k, p.default) for k, p in res.rules.params.items()},
        "param_scale": {k: p.scale for k, p in res.rules.params.items()},
        "rules": {str(p.resolve()): sha256_of(p) for p in rule_files(res)},
        "request": dict(request),
        "agents": res.agents,
        "testcases": res.rows.case_count,
        "violations": res.rows.violation_count,
        "tables": files,
    }
    return [*written, *tables.write_tables({}, out_dir, [], manifest)]


# ---- reading -------------------------------------------------------------------------------------


def make_request(
    engine: str,
    mrs: str | Sequence[str],
    settings: Sequence[str],
    rules_dirs: Sequence[str],
    agents: Sequence[str] = (),
) -> dict[str, Any]:
    """The options a check ran with, as the manifest records them."""
    return {
        "engine": engine,
        "mrs": norm_mrs(mrs),
        "settings": sorted("".join(s.split()) for s in settings),
        "rules_dirs": [str(Path(d).resolve()) for d in rules_dirs],
        "agents": list(agents),
    }


def norm_mrs(mrs: str | Sequence[str]) -> str:
    items = [mrs] if isinstance(mrs, str) else list(mrs)
    return ",".join(x.strip().lower() for item in items for x in item.split(",") if x.strip())
