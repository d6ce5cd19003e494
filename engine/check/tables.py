"""Result tables (polars), written atomically as CSV, JSON or Parquet, and shown in the terminal."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from metalogic.engine.check.run import CheckResult, wilson
from metalogic.engine.errors import MetalogicError
from metalogic.engine.results import first_arg, label, split_args
from metalogic.engine.vocab import vocabulary
from metalogic.engine.whole_files import replace_whole

FORMATS = ("csv", "json", "parquet")


# The columns and types of every result table, once: the frames below are built with them, and
# engine/check/writer.py reads the tables back against them.
COUNTS = {"agent": pl.Utf8, "sc": pl.Utf8, "cases": pl.Int64, "violations": pl.Int64, "score": pl.Float64}
SCHEMAS: dict[str, dict[str, Any]] = {
    "scores": {
        "agent": pl.Utf8,
        "sc": pl.Utf8,
        "capability": pl.Utf8,
        # what `score` is: "blame" (share of tested answers not blamed), "paper" (--mrs paper: share
        # of cases kept) or "consistency" (cases, but no tested answer of the capability itself)
        "headline": pl.Utf8,
        "score": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "answers": pl.Int64,  # the agent's answers of this capability that an applicable case reads
        "blamed": pl.Int64,
        "blamed_certain": pl.Int64,
        "blamed_possible": pl.Int64,
        # the wrong answers blame leaves unnamed: the sum of each kept suspect answer's odds of being
        # wrong, rounded (logic/blame/residual.lp), taken off the score beside the blamed answers
        "unnamed": pl.Int64,
        "cases": pl.Int64,
        "violations": pl.Int64,
        "invalid": pl.Int64,
        "consistency": pl.Float64,  # share of cases kept, of the weakest kind of evidence
        "evidence": pl.Utf8,
        "pooled_cases": pl.Int64,
        "pooled_violations": pl.Int64,
        "pooled_score": pl.Float64,
    },
    "scores_by_set": {"agent": pl.Utf8, "sc": pl.Utf8, "set": pl.Utf8, **COUNTS},
    "scores_by_mr": {"agent": pl.Utf8, "sc": pl.Utf8, "mr": pl.Utf8, **COUNTS},
    "violations": {
        "agent": pl.Utf8,
        "case": pl.Utf8,
        "mr": pl.Utf8,
        "sc": pl.Utf8,
        "reason": pl.Utf8,
        "trajectory": pl.Utf8,
        "facts": pl.List(pl.Utf8),
    },
    "trajectories": {"agent": pl.Utf8, "trajectory": pl.Utf8, "cases": pl.Int64, "violations": pl.Int64},
    "objects": {
        "agent": pl.Utf8,
        "trajectory": pl.Utf8,
        "object": pl.Utf8,
        "cases": pl.Int64,
        "violations": pl.Int64,
    },
    "error_rates": {
        "agent": pl.Utf8,
        "cases": pl.Int64,
        "violations": pl.Int64,
        "error_rate": pl.Float64,
        "trajectories": pl.Int64,
        "errors_per_trajectory": pl.Float64,
        "objects": pl.Int64,
        "errors_per_object": pl.Float64,
    },
}


@dataclass(frozen=True)
class Values:
    """What a column may hold beyond its type, checked when `report` and `compare` read a check
    output back (engine/check/values.py): numbers finite and within [low, high], text (and each item
    of a list of text) at most `chars` characters, null (an empty cell) only where `null` says (and,
    with `null_if_zero`, only in rows where that column is 0)."""

    low: float | None = None
    high: float | None = None
    null: bool = False
    chars: int = 0
    null_if_zero: str = ""


COUNT = Values(0, 2**53)  # a number of cases, answers, objects, a state index
SHARE = Values(0, 1, null=True)  # a rate or accuracy; empty when it has nothing to count
SCORE = Values(0, 1, null=True, null_if_zero="cases")  # a score or its bounds: empty only without cases
PER = Values(0, 2**53, null=True)  # errors per trajectory or per object; empty when there are none
KEY = Values(chars=1_000)  # an agent (at most 200 characters), capability, MR, id: never empty
NAME = Values(null=True, chars=1_000)  # a value that may be missing: an answer, the evidence
TEXT = Values(null=True, chars=100_000)  # a reason, a fact, a frame's path

# The values of every column of the result tables: one line per column, and a column without one is
# a failing test (tests/test_hostile_outputs.py).
COUNT_VALUES = {"agent": KEY, "sc": KEY, "cases": COUNT, "violations": COUNT, "score": SCORE}
VALUES: dict[str, dict[str, Values]] = {
    "scores": {
        "agent": KEY,
        "sc": KEY,
        "capability": KEY,
        "headline": KEY,
        "score": SCORE,
        "ci_low": SCORE,
        "ci_high": SCORE,
        "answers": COUNT,
        "blamed": COUNT,
        "blamed_certain": COUNT,
        "blamed_possible": COUNT,
        "unnamed": COUNT,
        "cases": COUNT,
        "violations": COUNT,
        "invalid": COUNT,
        "consistency": SCORE,
        "evidence": NAME,
        "pooled_cases": COUNT,
        "pooled_violations": COUNT,
        "pooled_score": Values(0, 1, null=True, null_if_zero="pooled_cases"),
    },
    "scores_by_set": {"set": KEY, **COUNT_VALUES},
    "scores_by_mr": {"mr": KEY, **COUNT_VALUES},
    "violations": {
        "agent": KEY,
        "case": KEY,
        "mr": KEY,
        "sc": KEY,
        "reason": TEXT,
        "trajectory": NAME,
        "facts": TEXT,
    },
    "trajectories": {"agent": KEY, "trajectory": KEY, "cases": COUNT, "violations": COUNT},
    "objects": {"agent": KEY, "trajectory": KEY, "object": KEY, "cases": COUNT, "violations": COUNT},
    "error_rates": {
        "agent": KEY,
        "cases": COUNT,
        "violations": COUNT,
        "error_rate": SHARE,
        "trajectories": COUNT,
        "errors_per_trajectory": PER,
        "objects": COUNT,
        "errors_per_object": PER,
    },
}
# Within a row: (lesser, greater) columns (violations of some cases; an interval's two ends).
ORDERED: dict[str, list[tuple[str, str]]] = {
    "scores": [
        ("violations", "cases"),
        ("pooled_violations", "pooled_cases"),
        ("ci_low", "ci_high"),
        ("blamed", "answers"),
        ("blamed_certain", "blamed"),
        ("blamed_possible", "blamed"),
        ("unnamed", "answers"),
    ],
    "scores_by_set": [("violations", "cases")],
    "scores_by_mr": [("violations", "cases")],
    "trajectories": [("violations", "cases")],
    "objects": [("violations", "cases")],
    "error_rates": [("violations", "cases")],
}


def headline_kind(res: CheckResult) -> str:
    """What a check's headline score is: the published single share of cases kept when only the
    paper's MRs run (`--mrs paper`), else the share of tested answers that blame leaves standing."""
    return "paper" if res.rules.mrs and all(m.sets == ("paper",) for m in res.rules.mrs) else "blame"


def blame_score(
    tested: int, certain: int, possible: int, unnamed: int = 0
) -> tuple[float, float, float] | None:
    """(score, low, high) of a capability from blame: the share of tested answers not blamed, a
    possible blame counting half, less the wrong answers blame leaves unnamed (`unnamed`, an
    expected count: logic/blame/residual.lp); the interval's ends are the 95% Wilson bounds with
    every possible blame and the unnamed ones taken as wrong (low) and with only the certain blame
    taken as wrong (high). None without tested answers."""
    if tested == 0:
        return None
    unnamed = min(unnamed, tested - certain - possible)
    low = wilson(tested - certain - possible - unnamed, tested)[0]
    high = wilson(tested - certain, tested)[1]
    return (1 - (certain + possible / 2 + unnamed) / tested, low, high)


def scores_frame(res: CheckResult) -> pl.DataFrame:
    rows = []
    kind = headline_kind(res)
    for agent, sc, n, v in res.rows.scores:
        lo, hi = wilson(n - v, n)
        pn, pv = res.rows.pooled.get((agent, sc), (n, v))
        tested, certain, possible = res.rows.blame.get((agent, sc), (0, 0, 0))
        unnamed = res.rows.residual.get((agent, sc), 0)
        blamed = blame_score(tested, certain, possible, unnamed)
        # Without test cases there is no score; with cases but no tested answer of the capability
        # itself (its cases read only other capabilities' answers) the share of cases kept stands in.
        row_kind = kind if kind == "paper" or blamed is not None else "consistency"
        if not n:
            score = None
        elif row_kind == "blame":
            score = blamed
        else:
            score = (1 - v / n, lo, hi)
        rows.append(
            {
                "agent": agent,
                "sc": sc,
                "capability": vocabulary().capabilities.get(sc, sc),
                "headline": row_kind,
                "score": score[0] if score else None,
                "ci_low": score[1] if score else None,
                "ci_high": score[2] if score else None,
                "answers": tested,
                "blamed": certain + possible,
                "blamed_certain": certain,
                "blamed_possible": possible,
                "unnamed": unnamed,
                "cases": n,
                "violations": v,
                "invalid": res.rows.invalid.get((agent, sc), 0),
                "consistency": (1 - v / n) if n else None,
                "evidence": res.rows.score_from.get((agent, sc)),
                "pooled_cases": pn,
                "pooled_violations": pv,
                "pooled_score": (1 - pv / pn) if pn else None,
            }
        )
    return pl.DataFrame(
        rows,
        schema=SCHEMAS["scores"],
    )


def _counts_frame(rows: Sequence[tuple[str, str, str, int, int]], key: str, table: str) -> pl.DataFrame:
    """Rows of (agent, sc, key, cases, violations) with their score, for a grouping named key."""
    return pl.DataFrame(
        [
            {"agent": a, "sc": sc, key: k, "cases": n, "violations": v, "score": (1 - v / n) if n else None}
            for a, sc, k, n, v in rows
        ],
        schema=SCHEMAS[table],
    )


def set_frame(res: CheckResult) -> pl.DataFrame:
    """Scores per kind of evidence (MR set): the rows the headline score is chosen from."""
    return _counts_frame(res.rows.scores_set, "set", "scores_by_set")


def mr_frame(res: CheckResult) -> pl.DataFrame:
    return _counts_frame(res.rows.scores_mr, "mr", "scores_by_mr")


def violations_frame(res: CheckResult) -> pl.DataFrame:
    rows = []
    for agent, case, mr, sc, reason in res.rows.violations:
        facts = res.rows.explain.get((agent, case), [])
        queries = [f for f in facts if f.startswith("query(")]
        traj = label(first_arg(split_args(queries[0])[1])) if queries else ""
        rows.append(
            {
                "agent": agent,
                "case": case,
                "mr": mr,
                "sc": sc,
                "reason": reason,
                "trajectory": traj,
                "facts": facts,
            }
        )
    return pl.DataFrame(
        rows,
        schema=SCHEMAS["violations"],
    )


def trajectory_frame(res: CheckResult) -> pl.DataFrame:
    rows = [
        {"agent": a, "trajectory": t, "cases": n, "violations": v} for a, t, n, v in res.rows.by_trajectory
    ]
    return pl.DataFrame(rows, schema=SCHEMAS["trajectories"])


def object_frame(res: CheckResult) -> pl.DataFrame:
    rows = [
        {"agent": a, "trajectory": t, "object": o, "cases": n, "violations": v}
        for a, t, o, n, v in res.rows.by_object
    ]
    return pl.DataFrame(
        rows,
        schema=SCHEMAS["objects"],
    )


def error_rates(res: CheckResult) -> pl.DataFrame:
    """Per agent: error rate over all cases, errors per trajectory and per object."""
    traj, obj = trajectory_frame(res), object_frame(res)
    rows = []
    for agent in res.agents:
        # Over all cases of every kind of evidence: the pooled counts, not the headline's.
        n = sum(c for (a, _), (c, _) in res.rows.pooled.items() if a == agent)
        v = sum(x for (a, _), (_, x) in res.rows.pooled.items() if a == agent)
        nt = traj.filter(pl.col("agent") == agent).height
        no = obj.filter(pl.col("agent") == agent).height
        rows.append(
            {
                "agent": agent,
                "cases": n,
                "violations": v,
                "error_rate": v / n if n else None,
                "trajectories": nt,
                "errors_per_trajectory": v / nt if nt else None,
                "objects": no,
                "errors_per_object": v / no if no else None,
            }
        )
    return pl.DataFrame(
        rows,
        schema=SCHEMAS["error_rates"],
    )


def frame_builders(res: CheckResult) -> dict[str, Callable[[], pl.DataFrame]]:
    """Each table of a check by name, built when called: `check --out` writes one table before
    building the next, so that a big run never holds all of them at once."""
    return {
        "scores": lambda: scores_frame(res),
        "scores_by_set": lambda: set_frame(res),
        "scores_by_mr": lambda: mr_frame(res),
        "violations": lambda: violations_frame(res),
        "trajectories": lambda: trajectory_frame(res),
        "objects": lambda: object_frame(res),
        "error_rates": lambda: error_rates(res),
    }


def parse_formats(spec: Iterable[str]) -> list[str]:
    out: list[str] = []
    for item in spec:
        for f in item.split(","):
            f = f.strip().lower()
            if not f:
                continue
            if f not in FORMATS:
                from metalogic.engine.errors import did_you_mean

                raise MetalogicError.single(
                    f"unknown output format '{f}'",
                    expected=", ".join(FORMATS),
                    fix=did_you_mean(f, FORMATS) or "e.g. --format csv,json",
                )
            if f not in out:
                out.append(f)
    return out or ["csv", "json"]


def write_tables(
    frames: Mapping[str, pl.DataFrame],
    out_dir: Path,
    formats: Sequence[str],
    manifest: Mapping[str, object] | None = None,
) -> list[Path]:
    """Write each table in each format; every file appears whole or not at all."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MetalogicError.single(
            f"cannot create output folder '{out_dir}': {exc.strerror}",
            expected="a writable folder",
            fix="choose another --out",
        ) from None
    written = []
    for name, df in frames.items():
        for fmt in formats:
            path = out_dir / f"{name}.{fmt}"
            write_file(path, functools.partial(_write_to, df, fmt))
            written.append(path)
    if manifest is not None:
        path = out_dir / "run.json"
        write_file(path, lambda p: p.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n"))
        written.append(path)
    return written


def _write_to(df: pl.DataFrame, fmt: str, path: Path) -> None:
    _write(df, path, fmt)


def _write(df: pl.DataFrame, path: Path, fmt: str) -> None:
    if fmt == "csv":
        flat = df.with_columns(
            [pl.col(c).list.join("\n") for c, t in df.schema.items() if isinstance(t, pl.List)]
        )
        flat.write_csv(path)
    elif fmt == "json":
        _write_json_rows(df, path)
    else:
        df.write_parquet(path)


def _write_json_rows(df: pl.DataFrame, path: Path, batch: int = 20_000) -> None:
    """The table as a JSON list of row objects, the text `json.dumps(df.to_dicts(), indent=1)`
    would give, written a batch of rows at a time: a million rows as one list of dicts and one
    string took gigabytes."""
    with path.open("w", encoding="utf-8") as fh:
        if df.height == 0:
            fh.write("[]\n")
            return
        fh.write("[\n")
        first = True
        for start in range(0, df.height, batch):
            for row in df.slice(start, batch).iter_rows(named=True):
                text = json.dumps(row, indent=1, ensure_ascii=False).replace("\n", "\n ")
                fh.write((" " if first else ",\n ") + text)
                first = False
        fh.write("\n]\n")


def write_file(path: Path, write: Callable[[Path], object]) -> None:
    """Write a file whole or not at all (engine/whole_files.py); a failing write (disk full, permissions)
    is one clear error, with nothing left behind."""
    try:
        replace_whole(path, write)
    except OSError as exc:
        raise _write_error(path, exc) from None


def _write_error(path: Path, exc: OSError) -> MetalogicError:
    return MetalogicError.single(
        f"cannot write {path}: {exc.strerror or exc}",
        expected="a writable output folder with free space",
        fix="free some space or choose another output folder",
    )


def render_scores(df: pl.DataFrame) -> str:
    """The agent x capability table for the terminal."""
    header: tuple[str, ...] = ("agent", "SC", "capability", "answers", "blamed", "cases", "viol.", "invalid")
    header += ("score", "95% interval", "consistency")
    body = []
    for r in df.iter_rows(named=True):
        if not r["cases"] or r["score"] is None:
            continue
        body.append(
            (
                r["agent"],
                r["sc"],
                r["capability"],
                str(r["answers"]),
                _blamed_cell(r["blamed_certain"], r["blamed_possible"], r["unnamed"]),
                str(r["cases"]),
                str(r["violations"]),
                str(r["invalid"]),
                f"{r['score']:.3f}",
                f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]",
                f"{r['consistency']:.3f} {r['evidence'] or ''}".rstrip(),
            )
        )
    if not body:
        return "no test cases: the facts hold no pair of queries that any MR relates"
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(header)]
    right = {3, 4, 5, 6, 7, 8}

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    lines = [fmt(header), fmt(["-" * w for w in widths])]
    lines += [fmt(b) for b in body]
    return "\n".join(lines)


def _blamed_cell(certain: int, possible: int, unnamed: int = 0) -> str:
    """Blamed answers as `certain+possible` (`0` when none, `3` when all are certain), and the
    wrong answers blame leaves unnamed as `~N` where there are any."""
    cell = f"{certain}+{possible}" if possible else str(certain)
    return f"{cell} ~{unnamed}" if unnamed else cell
