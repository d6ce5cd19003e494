"""A bank's cards and rows, read back as checked Python values.

cards.sqlite is data, possibly from someone else: SQLite keeps whatever type was written into a
column (an INTEGER column can hold text), so every value read is checked for its type and range
before anything uses it, and a damaged row stops the command with one message that names the
row, the column and the value. Numbers are never taken as text, so nothing in a bank can become
part of a program (memory/engine_input.py hands them to the engines as data).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from metalogic.engine.errors import MetalogicError, stored_value
from metalogic.engine.facts import display_path
from metalogic.engine.terms import INT_MAX

if TYPE_CHECKING:
    from metalogic.memory.logic import Stats

MILLION = 1_000_000


@dataclass(frozen=True)
class NewCard:
    """A card about to be written: what the reflection produced, and where it came from."""

    kind: str
    task: str
    summary: str
    lesson: str
    provenance: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Card:
    id: int
    kind: str
    task: str
    summary: str
    lesson: str
    n: int
    c: int
    v: int
    v0: int
    created: str
    provenance: dict[str, Any]
    retired: str | None
    retired_at: str | None

    @property
    def active(self) -> bool:
        return self.retired is None


@dataclass(frozen=True)
class Visit:
    """One visit to write: card, build pass, the task it guided, verifier, reward and the new stats."""

    card: int
    pass_no: int
    task_key: str
    verifier: str
    reward: int
    stats: Stats


def card_row(db: Path, row: Sequence[Any]) -> Card:
    """A card row, every value checked (the database is data; see memory/bank_rows.py)."""
    cid, kind, task, summary, lesson, n, c, v, v0, created, prov, retired, retired_at = row
    r = Rows(db, f"card {cid!r}")
    return Card(
        r.whole("id", cid, 1),
        r.text("kind", kind),
        r.text("task", task),
        r.text("summary", summary),
        r.text("lesson", lesson),
        r.whole("n", n),
        r.whole("c", c),
        r.whole("v", v, 0, MILLION),
        r.whole("v0", v0, 0, MILLION),
        r.text("created", created),
        r.json_object("provenance", prov),
        r.optional_text("retired", retired),
        r.optional_text("retired_at", retired_at),
    )


class Rows:
    """Checks the values of one row of a bank's database; `what` names the row ("card 7")."""

    def __init__(self, db: Path, what: str) -> None:
        self.db, self.what = db, what

    def whole(self, column: str, value: Any, lo: int = 0, hi: int = INT_MAX) -> int:
        """A whole number from lo to hi (a bool or a decimal is not one)."""
        if type(value) is not int or not lo <= value <= hi:
            raise self.damaged(column, value, f"a whole number from {lo} to {hi}")
        return value

    def text(self, column: str, value: Any) -> str:
        if not isinstance(value, str):
            raise self.damaged(column, value, "text")
        return value

    def optional_text(self, column: str, value: Any) -> str | None:
        return None if value is None else self.text(column, value)

    def json_object(self, column: str, value: Any) -> dict[str, Any]:
        try:
            obj = json.loads(self.text(column, value))
        except (ValueError, RecursionError):  # not JSON, or arrays nested past Python's recursion limit
            obj = None
        if not isinstance(obj, dict):
            raise self.damaged(column, value, "a JSON object")
        return obj

    def vector(self, column: str, value: Any, dim: int) -> Any:
        """A float32 vector of `dim` finite numbers, as numpy reads it."""
        import numpy as np

        if not isinstance(value, bytes) or len(value) != 4 * dim:
            raise self.damaged(column, value, f"{dim} float32 numbers ({4 * dim} bytes)")
        vec = np.frombuffer(value, dtype=np.float32)
        bad = np.flatnonzero(~np.isfinite(vec))
        if bad.size:
            i = int(bad[0])
            shown = f"a vector whose number {i + 1} of {dim} is {float(vec[i])}" + (
                f" ({bad.size} numbers are not finite)" if bad.size > 1 else ""
            )
            raise self.damaged(column, value, f"{dim} finite float32 numbers", shown)
        return vec

    def damaged(self, column: str, value: Any, expected: str, shown: str = "") -> MetalogicError:
        held = shown or stored_value(value)
        return MetalogicError.single(
            f"the memory bank is damaged: {self.what} holds {held} in column {column}",
            where=display_path(self.db),
            expected=f"{expected} in column {column}",
            fix="restore cards.sqlite from a copy, or build the bank again with 'metalogic memory build'",
        )
