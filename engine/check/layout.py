"""The layout of a check output folder: the manifest's kind and format, and each table a report
or compare reads, with its columns, their value ranges and their order. The writer
(engine/check/writer.py) and the reader (engine/check/reader.py) both follow it.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from metalogic.engine.check.tables import (
    COUNT,
    KEY,
    NAME,
    ORDERED,
    SCHEMAS,
    SHARE,
    TEXT,
    VALUES,
    Values,
)

MANIFEST = "run.json"
KIND = "metalogic check output"
FORMAT = 2  # the layout's version; the manifests written before it had no "kind" (version 1)
READ_ORDER = ("parquet", "json", "csv")  # the first format present is read: exact types first

# The columns each table must have for report and compare (more columns are fine).
COLUMNS: dict[str, dict[str, Any]] = {
    **SCHEMAS,  # the result tables, as engine/check/tables.py writes them
    "answers": {
        "agent": pl.Utf8,
        "query": pl.Utf8,
        "sc": pl.Utf8,
        "answer": pl.Utf8,
        "raw_reply": pl.Utf8,
        "cases": pl.Int64,
        "violations": pl.Int64,
        "blame": pl.Utf8,  # certain | possible | null (engine/check/blame.py)
    },
    # Each blamed answer with the violated cases whose conflict sets hold it.
    "blamed": {
        "agent": pl.Utf8,
        "query": pl.Utf8,
        "sc": pl.Utf8,
        "answer": pl.Utf8,
        "blame": pl.Utf8,
        "truth": pl.Utf8,
        "cases": pl.List(pl.Utf8),
    },
    "questions": {"query": pl.Utf8, "content": pl.Utf8, "form": pl.Utf8, "sc": pl.Utf8, "truth": pl.Utf8},
    "accuracy": {
        "agent": pl.Utf8,
        "sc": pl.Utf8,
        "answers": pl.Int64,
        "with_truth": pl.Int64,
        "correct": pl.Int64,
        "accuracy": pl.Float64,
        "tested": pl.Int64,  # answers some case reads: what the headline score speaks of
        "tested_correct": pl.Int64,
        "tested_accuracy": pl.Float64,
        "score": pl.Float64,  # the headline score (scores table), to set beside the accuracy
        "cases": pl.Int64,
        "consistency": pl.Float64,
        "wrong": pl.Int64,
        "flagged": pl.Int64,
        "consistent_but_wrong": pl.Int64,
        "consistent_but_wrong_share": pl.Float64,
        "untested_wrong": pl.Int64,
    },
    "frames": {
        "trajectory": pl.Utf8,
        "state": pl.Int64,
        "path": pl.Utf8,
        "image_width": pl.Int64,
        "image_height": pl.Int64,
    },
    "boxes": {
        "trajectory": pl.Utf8,
        "state": pl.Int64,
        "object": pl.Utf8,
        "class": pl.Utf8,
        "x1": pl.Int64,
        "y1": pl.Int64,
        "x2": pl.Int64,
        "y2": pl.Int64,
    },
}
# The values of each column (engine/check/tables.py Values): one line per column, as in COLUMNS.
PIXELS = Values(0, 2**20, null=True)  # an image's width or height
COORD = Values(-(2**20), 2**20)  # a box edge, in pixels (a box may reach past the frame)
REPLY = Values(null=True, chars=4 * 2**20)  # a model's raw reply: at most the 4 MiB of a reply body
COLUMN_VALUES: dict[str, dict[str, Values]] = {
    **VALUES,
    "answers": {
        "agent": KEY,
        "query": KEY,
        "sc": NAME,
        "answer": NAME,
        "raw_reply": REPLY,
        "cases": COUNT,
        "violations": COUNT,
        "blame": NAME,
    },
    "blamed": {
        "agent": KEY,
        "query": KEY,
        "sc": NAME,
        "answer": NAME,
        "blame": KEY,
        "truth": NAME,
        "cases": TEXT,
    },
    "questions": {
        "query": KEY,
        "content": TEXT,  # read as a term by the report, which names the row that is not one
        "form": NAME,
        "sc": NAME,
        "truth": NAME,
    },
    "accuracy": {
        "agent": KEY,
        "sc": KEY,
        "answers": COUNT,
        "with_truth": COUNT,
        "correct": COUNT,
        "accuracy": SHARE,
        "tested": COUNT,
        "tested_correct": COUNT,
        "tested_accuracy": SHARE,
        "score": SHARE,
        "cases": COUNT,
        "consistency": SHARE,
        "wrong": COUNT,
        "flagged": COUNT,
        "consistent_but_wrong": COUNT,
        "consistent_but_wrong_share": SHARE,
        "untested_wrong": COUNT,
    },
    "frames": {
        "trajectory": KEY,
        "state": COUNT,
        "path": TEXT,
        "image_width": PIXELS,
        "image_height": PIXELS,
    },
    "boxes": {
        "trajectory": KEY,
        "state": COUNT,
        "object": KEY,
        "class": NAME,
        "x1": COORD,
        "y1": COORD,
        "x2": COORD,
        "y2": COORD,
    },
}
COLUMN_ORDER: dict[str, list[tuple[str, str]]] = {
    **ORDERED,
    "answers": [("violations", "cases")],
    "accuracy": [("correct", "with_truth"), ("tested_correct", "tested"), ("tested", "with_truth")],
    "boxes": [("x1", "x2"), ("y1", "y2")],
}
REPORT_TABLES = tuple(COLUMNS)
COMPARE_TABLES = ("scores",)
