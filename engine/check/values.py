"""A check output's values, checked by value when `report` and `compare` read it back: its digests
prove only that the files are those the manifest names, and a manifest is a file anyone can edit.

Each table column is checked against its declaration (engine/check/tables.py VALUES, engine/check/writer.py
COLUMN_VALUES): numbers finite and in range, counts whole and not negative, text of bounded size,
the pairs of columns that are ordered within a row (violations <= cases, ci_low <= ci_high); the
whole text of a table is bounded by its file's size. The manifest is checked for its nesting depth,
the size of its strings and finite numbers. Each problem is the first offending row or key.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import polars as pl

from metalogic.engine.check.tables import Values

MANIFEST_DEPTH = 16  # a check manifest nests 5 deep (tables -> name -> files -> format -> entry)
MANIFEST_CHARS = 100_000  # the longest string a manifest holds: a rule file's path, an MR's law
# The text a table holds, at most: all of it in a CSV or JSON file (so its size), or this many times
# the size of a compressed Parquet file (real tables compress a few times over), plus a floor.
TEXT_RATIO = 32
TEXT_FLOOR = 16 * 2**20


def first_bad_value(
    df: pl.DataFrame, values: Mapping[str, Values], ordered: list[tuple[str, str]], file_bytes: int
) -> str:
    """What is wrong with the first offending row of `df` ('' when nothing is): 'row 3: column
    'score' holds 5.0, outside 0..1'. Rows count from 1, as in the file (after a CSV's header)."""
    for col, want in values.items():
        if col not in df.columns:
            continue
        what = _column(df, col, want)
        if what:
            return what
    for low, high in ordered:
        if low in df.columns and high in df.columns:
            bad = df.with_row_index("_row").filter(pl.col(low) > pl.col(high))
            if bad.height:
                r = bad.row(0, named=True)
                return f"row {r['_row'] + 1}: {low} = {r[low]!r} is greater than {high} = {r[high]!r}"
    total = sum(_text_chars(df[c]) for c in values if c in df.columns)
    budget = TEXT_FLOOR + TEXT_RATIO * file_bytes
    if total > budget:
        return (
            f"its text adds up to {total:,} characters, more than a table of {file_bytes:,} bytes holds "
            f"(at most {budget:,})"
        )
    return ""


def _column(df: pl.DataFrame, col: str, want: Values) -> str:
    s = df[col]
    rows = df.select(pl.col(col)).with_row_index("_row")
    if s.null_count():
        empty: pl.Expr | None = pl.col(col).is_null()
        if want.null and want.null_if_zero in df.columns:  # empty only where that count is 0
            empty = pl.col(col).is_null() & (pl.col(want.null_if_zero) != 0).fill_null(True)
        elif want.null:
            empty = None
        bad = df.with_row_index("_row").filter(empty) if empty is not None else None
        if bad is not None and bad.height:
            row = bad.row(0, named=True)["_row"] + 1
            unless = f" (it may be only where {want.null_if_zero} is 0)" if want.null_if_zero else ""
            return f"row {row}: column '{col}' is empty{unless}"
    if s.dtype.is_numeric():
        test = ~pl.col(col).is_finite() if s.dtype.is_float() else pl.lit(False)
        if want.low is not None:
            test = test | (pl.col(col) < want.low)
        if want.high is not None:
            test = test | (pl.col(col) > want.high)
        bad = rows.filter(test.fill_null(False))
        if bad.height:
            r = bad.row(0, named=True)
            return f"row {r['_row'] + 1}: column '{col}' holds {r[col]!r}, outside {_range(want)}"
        return ""
    if want.chars:
        if isinstance(s.dtype, pl.List):
            longest = pl.col(col).list.eval(pl.element().str.len_chars()).list.max()
        else:
            longest = pl.col(col).str.len_chars()
        bad = rows.filter((longest > want.chars).fill_null(False))
        if bad.height:
            r = bad.row(0, named=True)
            return f"row {r['_row'] + 1}: column '{col}' holds a text longer than {want.chars:,} characters"
    return ""


def _range(want: Values) -> str:
    return f"{_num(want.low)}..{_num(want.high)} (a finite number)"


def _num(x: float | None) -> str:
    if x is None:
        return ""
    return f"{int(x):,}" if float(x).is_integer() else str(x)


def _text_chars(s: pl.Series) -> int:
    if s.dtype == pl.Utf8:
        return int(s.str.len_chars().sum() or 0)
    if isinstance(s.dtype, pl.List):
        return int(s.list.eval(pl.element().str.len_chars()).list.sum().sum() or 0)
    return 0


# What the manifest's entries that report and compare read must be (an entry may be missing; the
# tables, options and kind are checked by engine/check/reader.py). One line per entry.
MANIFEST_ENTRIES: dict[str, str] = {
    "engine": "text",
    "facts_dir": "text",
    "facts_root": "text",
    "scene_root": "text",
    "facts_digest": "text",
    "facts": "count",
    "testcases": "count",
    "violations": "count",
    "files": "list of text",
    "agents": "list of text",
    "rules": "table of text",
    "params": "table of whole numbers",
    "param_scale": "table of whole numbers from 1",
    "mrs": "list of MRs",
}
MR_ENTRY = {"id": "text", "name": "text", "law": "text", "serves": "list of text"}


def _is(kind: str, v: Any) -> bool:
    if kind == "text":
        return isinstance(v, str)
    if kind == "count":
        return type(v) is int and v >= 0
    if kind == "list of text":
        return isinstance(v, list) and all(isinstance(x, str) for x in v)
    if kind == "table of text":
        return isinstance(v, dict) and all(isinstance(x, str) for x in v.values())
    if kind == "table of whole numbers":
        return isinstance(v, dict) and all(type(x) is int for x in v.values())
    if kind == "table of whole numbers from 1":
        return isinstance(v, dict) and all(type(x) is int and x >= 1 for x in v.values())
    if kind == "list of MRs":
        return isinstance(v, list) and all(
            isinstance(m, dict) and all(_is(k, m.get(f)) for f, k in MR_ENTRY.items()) for m in v
        )
    return False


def manifest_entry_problem(data: dict[str, Any]) -> str:
    """The first entry of a manifest that is not what MANIFEST_ENTRIES says ('' when none is)."""
    for key, kind in MANIFEST_ENTRIES.items():
        if key in data and not _is(kind, data[key]):
            shown = repr(data[key])
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            return f"'{key}' is {shown}, not {NOUNS[kind]}"
    return ""


NOUNS = {
    "text": "text",
    "count": "a whole number from 0",
    "list of text": "a list of text",
    "table of text": "a table of text",
    "table of whole numbers": "a table of whole numbers",
    "table of whole numbers from 1": "a table of whole numbers from 1",
    "list of MRs": "a list of MRs (each with the text id, name and law, and serves: a list of text)",
}


def manifest_problem(data: Any) -> str:
    """What is wrong with a manifest's shape ('' when nothing is): nested deeper than
    MANIFEST_DEPTH, a string longer than MANIFEST_CHARS, a number that is not finite. Walked
    without recursion, so that no nesting depth can exhaust the stack."""
    stack: list[tuple[Any, int, str]] = [(data, 1, "")]
    while stack:
        value, depth, where = stack.pop()
        if isinstance(value, dict | list):
            if depth > MANIFEST_DEPTH:
                return f"it nests deeper than {MANIFEST_DEPTH} levels (at {_at(where)})"
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for k, v in items:
                if isinstance(k, str) and len(k) > MANIFEST_CHARS:
                    return f"a key longer than {MANIFEST_CHARS:,} characters (in {_at(where)})"
                stack.append((v, depth + 1, f"{where}.{k}" if where else str(k)))
        elif isinstance(value, str) and len(value) > MANIFEST_CHARS:
            return f"{_at(where)} is a text of {len(value):,} characters (at most {MANIFEST_CHARS:,})"
        elif isinstance(value, float) and not math.isfinite(value):
            return f"{_at(where)} is {value}, not a finite number"
    return ""


def _at(where: str) -> str:
    """A key path for a message ('tables.scores.rows'), cut to 80 characters."""
    if not where:
        return "the top"
    return repr(where if len(where) <= 80 else where[:77] + "...")
