"""The memory bank on disk: lesson cards in SQLite, their hnswlib index beside them.

A bank is a folder:

    BANK/cards.sqlite   cards, visits (the history of every card's statistics), build progress, meta
    BANK/index.hnsw     the hnswlib index of the cards' task embeddings (a cache of the database)

SQLite is the record. Every write is one transaction, so a build killed at any moment loses at
most the batch it was writing, never a committed card. The embeddings are stored with the cards,
so the index can always be brought up to date from the database: on opening, cards missing from
the index file are added and retired ones are hidden. The index file is replaced atomically
(written beside it, then renamed).

A bank opened read-only (deployment) is opened with SQLite's read-only mode and its index is never
written, so using it leaves every byte of the folder as it was.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from metalogic import __version__
from metalogic.engine.errors import MetalogicError
from metalogic.memory.bank_rows import MILLION, Card, NewCard, Rows, Visit, card_row

if TYPE_CHECKING:
    import numpy as np

    from metalogic.memory.index import CardIndex
    from metalogic.memory.logic import Stats

DB_NAME = "cards.sqlite"
INDEX_NAME = "index.hnsw"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE cards(
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,              -- the task shape: the query kind, e.g. obj_dir
    task TEXT NOT NULL,              -- the source task as asked, never with its answer
    summary TEXT NOT NULL,           -- what happened in the source rollout, as a way of thinking
    lesson TEXT NOT NULL,            -- the transferable procedure
    n INTEGER NOT NULL DEFAULT 0,    -- visits: times the card guided a later answer
    c INTEGER NOT NULL DEFAULT 0,    -- cumulative reward of those visits, thousandths
    v INTEGER NOT NULL,              -- Transfer Reliability Score, millionths
    v0 INTEGER NOT NULL,             -- the TRS it was written with
    created TEXT NOT NULL,
    provenance TEXT NOT NULL,        -- JSON: run, trajectory, query, agent, verifier, pass ...
    retired TEXT,                    -- why the card was retired; NULL while active
    retired_at TEXT,
    embedding BLOB NOT NULL          -- float32 task embedding, unit length
);
CREATE TABLE visits(
    id INTEGER PRIMARY KEY,
    card INTEGER NOT NULL REFERENCES cards(id),
    pass INTEGER NOT NULL,
    task_key TEXT NOT NULL,          -- which later task the card guided (run/query)
    verifier TEXT NOT NULL,
    reward INTEGER NOT NULL,         -- thousandths
    n INTEGER NOT NULL, c INTEGER NOT NULL, v INTEGER NOT NULL,   -- statistics after the visit
    at TEXT NOT NULL
);
CREATE INDEX visits_card ON visits(card);
CREATE TABLE progress(pass INTEGER NOT NULL, run TEXT NOT NULL, batch TEXT NOT NULL, at TEXT NOT NULL,
                      PRIMARY KEY(pass, run, batch));
CREATE TABLE sources(scene_root TEXT NOT NULL, trajectory TEXT NOT NULL, PRIMARY KEY(scene_root, trajectory));
"""

_CARD_COLUMNS = "id, kind, task, summary, lesson, n, c, v, v0, created, provenance, retired, retired_at"


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def bank_error(path: Path, what: str, fix: str) -> MetalogicError:
    return MetalogicError.single(
        what, where=str(path), expected="a memory bank folder made by 'metalogic memory build'", fix=fix
    )


class Bank:
    """An open memory bank. Use `Bank.create` for a new one, `Bank.open` for an existing one."""

    def __init__(self, path: Path, conn: sqlite3.Connection, readonly: bool) -> None:
        self.path = path
        self.conn = conn
        self.readonly = readonly
        self.lock = threading.RLock()
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        self.meta = meta
        rows = Rows(path / DB_NAME, "the meta table")
        self.embedder = rows.text("value (key embedder)", meta.get("embedder"))
        dim = _int_text(meta.get("dim"))
        if dim is None or not 1 <= dim <= 65_536:
            raise rows.damaged("value (key dim)", meta.get("dim"), "a whole number from 1 to 65536")
        self.dim = dim
        self._index: CardIndex | None = None
        self._index_dirty = False

    # ---- opening --------------------------------------------------------------------------------

    @classmethod
    def create(
        cls, path: str | Path, *, embedder: str, dim: int, extra: dict[str, str] | None = None
    ) -> Bank:
        folder = Path(path)
        db = folder / DB_NAME
        if db.exists():
            raise bank_error(
                folder,
                f"a memory bank already exists at '{folder}'",
                "open it (omit --new), or choose another folder",
            )
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / (DB_NAME + ".tmp")
        tmp.unlink(missing_ok=True)
        conn = sqlite3.connect(tmp)
        with conn:
            conn.executescript(_SCHEMA)
            meta = {
                "schema": str(SCHEMA_VERSION),
                "embedder": embedder,
                "dim": str(dim),
                "created": now(),
                "metalogic": __version__,
                **(extra or {}),
            }
            conn.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
        conn.close()
        os.replace(tmp, db)  # a bank exists completely or not at all
        return cls.open(folder)

    @classmethod
    def open(cls, path: str | Path, *, readonly: bool = False) -> Bank:
        folder = Path(path)
        db = folder / DB_NAME
        if not db.is_file():
            raise bank_error(
                folder,
                f"no memory bank at '{folder}' ({DB_NAME} is missing)",
                "build one with 'metalogic memory build RUN_DIR --bank " + str(folder) + "'",
            )
        if readonly and (folder / (DB_NAME + "-journal")).exists():
            raise bank_error(
                folder,
                "the bank was interrupted in the middle of a write and must be recovered "
                "before read-only use",
                f"run 'metalogic memory stats {folder}' once (it recovers the last committed state)",
            )
        try:
            if readonly:
                conn = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True, check_same_thread=False)
            else:
                conn = sqlite3.connect(db, check_same_thread=False, isolation_level=None)
                conn.execute("PRAGMA foreign_keys = ON")
            version = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if version is not None and _int_text(version[0]) == SCHEMA_VERSION:
                conn.execute(f"SELECT {_CARD_COLUMNS}, embedding FROM cards LIMIT 0")  # the columns exist
                return cls(folder, conn, readonly)
        except sqlite3.DatabaseError as exc:
            raise bank_error(
                folder,
                f"'{db}' is not a readable memory bank ({exc})",
                "point --bank at a folder written by 'metalogic memory build'",
            ) from None
        raise bank_error(
            folder,
            f"memory bank format {version[0] if version else '?'!r} is not supported",
            f"this metalogic reads format {SCHEMA_VERSION}; rebuild the bank",
        )

    def close(self) -> None:
        with self.lock:
            if not self.readonly and (self._index_dirty or not (self.path / INDEX_NAME).exists()):
                self.save_index()
            self.conn.close()

    def __enter__(self) -> Bank:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _writable(self) -> None:
        if self.readonly:
            raise bank_error(
                self.path,
                "the memory bank is open read-only (deployment)",
                "use 'metalogic memory build' to change a bank",
            )

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: everything inside is committed together or not at all."""
        self._writable()
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    # ---- cards ----------------------------------------------------------------------------------

    def insert_card(self, conn: sqlite3.Connection, card: NewCard, embedding: np.ndarray, v: int) -> int:
        """Insert a card inside a transaction; the index learns of it via `index_cards` after commit."""
        import numpy as np

        vec = np.asarray(embedding, dtype=np.float32).reshape(-1)
        if vec.shape[0] != self.dim:
            raise ValueError(f"embedding has {vec.shape[0]} dimensions, the bank {self.dim}")
        cur = conn.execute(
            "INSERT INTO cards(kind, task, summary, lesson, n, c, v, v0, created, provenance, embedding) "
            "VALUES (?, ?, ?, ?, 0, 0, ?, ?, ?, ?, ?)",
            (
                card.kind,
                card.task,
                card.summary,
                card.lesson,
                v,
                v,
                now(),
                json.dumps(card.provenance, sort_keys=True),
                vec.tobytes(),
            ),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def add(self, card: NewCard, embedding: np.ndarray, v: int) -> int:
        with self.transaction() as conn:
            cid = self.insert_card(conn, card, embedding, v)
        self.index_cards([cid])
        return cid

    def get(self, card_id: int) -> Card:
        with self.lock:
            row = self.conn.execute(f"SELECT {_CARD_COLUMNS} FROM cards WHERE id = ?", (card_id,)).fetchone()
        if row is None:
            ids = self.card_ids()
            span = f"ids {min(ids)}..{max(ids)}" if ids else "no cards yet"
            raise bank_error(
                self.path,
                f"no card {card_id} in the bank ({span})",
                f"list the cards with 'metalogic memory list {self.path}'",
            )
        return card_row(self.path / DB_NAME, row)

    def get_many(self, ids: Sequence[int]) -> dict[int, Card]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        with self.lock:
            rows = self.conn.execute(
                f"SELECT {_CARD_COLUMNS} FROM cards WHERE id IN ({marks})", list(ids)
            ).fetchall()
        return {c.id: c for c in (card_row(self.path / DB_NAME, r) for r in rows)}

    def cards(self, *, active_only: bool = False, kind: str | None = None) -> list[Card]:
        where, args = [], []
        if active_only:
            where.append("retired IS NULL")
        if kind:
            where.append("kind = ?")
            args.append(kind)
        sql = (
            f"SELECT {_CARD_COLUMNS} FROM cards"
            + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY id"
        )
        with self.lock:
            rows = self.conn.execute(sql, args).fetchall()
        return [card_row(self.path / DB_NAME, r) for r in rows]

    def card_ids(self) -> list[int]:
        with self.lock:
            return [r[0] for r in self.conn.execute("SELECT id FROM cards ORDER BY id").fetchall()]

    def count(self, *, active_only: bool = True) -> int:
        sql = "SELECT COUNT(*) FROM cards" + (" WHERE retired IS NULL" if active_only else "")
        with self.lock:
            return int(self.conn.execute(sql).fetchone()[0])

    def retire(self, card_id: int, reason: str) -> Card:
        card = self.get(card_id)
        if card.retired is not None:
            raise bank_error(
                self.path,
                f"card {card_id} is already retired ({card.retired}, {card.retired_at})",
                "nothing to do",
            )
        with self.transaction() as conn:
            conn.execute(
                "UPDATE cards SET retired = ?, retired_at = ? WHERE id = ?",
                (reason or "retired", now(), card_id),
            )
        if self._index is not None:
            self._index.delete(card_id)
            self._index_dirty = True
        return self.get(card_id)

    # ---- statistics -----------------------------------------------------------------------------

    def stats_of(self, ids: Sequence[int]) -> dict[int, tuple[int, int]]:
        return {i: (c.n, c.c) for i, c in self.get_many(ids).items()}

    def record_visits(self, conn: sqlite3.Connection, visits: Sequence[Visit]) -> None:
        """Write visits and the cards' new statistics (inside a transaction)."""
        at = now()
        for vis in visits:
            conn.execute(
                "INSERT INTO visits(card, pass, task_key, verifier, reward, n, c, v, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    vis.card,
                    vis.pass_no,
                    vis.task_key,
                    vis.verifier,
                    vis.reward,
                    vis.stats.n,
                    vis.stats.c,
                    vis.stats.v,
                    at,
                ),
            )
        final: dict[int, Stats] = {vis.card: vis.stats for vis in visits}
        for cid, st in final.items():
            conn.execute("UPDATE cards SET n = ?, c = ?, v = ? WHERE id = ?", (st.n, st.c, st.v, cid))

    def history(self, card_id: int) -> list[dict[str, Any]]:
        """The card's life: created, every visit with the statistics after it, retired."""
        card = self.get(card_id)
        events: list[dict[str, Any]] = [
            {"at": card.created, "event": "created", "n": 0, "c": 0, "v": card.v0, "detail": card.provenance}
        ]
        with self.lock:
            rows = self.conn.execute(
                "SELECT pass, task_key, verifier, reward, n, c, v, at FROM visits WHERE card = ? ORDER BY id",
                (card_id,),
            ).fetchall()
        r = Rows(self.path / DB_NAME, f"a visit of card {card_id}")
        for p, key, verifier, reward, n, c, v, at in rows:
            events.append(
                {
                    "at": r.text("at", at),
                    "event": "visit",
                    "pass": r.whole("pass", p),
                    "task": r.text("task_key", key),
                    "verifier": r.text("verifier", verifier),
                    "reward": r.whole("reward", reward, 0, 1000),
                    "n": r.whole("n", n),
                    "c": r.whole("c", c),
                    "v": r.whole("v", v, 0, MILLION),
                }
            )
        if card.retired is not None:
            events.append(
                {
                    "at": card.retired_at,
                    "event": "retired",
                    "n": card.n,
                    "c": card.c,
                    "v": card.v,
                    "detail": card.retired,
                }
            )
        return events

    # ---- build bookkeeping ----------------------------------------------------------------------

    def done_batches(self, pass_no: int, run: str) -> set[str]:
        with self.lock:
            return {
                r[0]
                for r in self.conn.execute(
                    "SELECT batch FROM progress WHERE pass = ? AND run = ?", (pass_no, run)
                )
            }

    def mark_done(self, conn: sqlite3.Connection, pass_no: int, run: str, batch: str) -> None:
        conn.execute("INSERT INTO progress VALUES (?, ?, ?, ?)", (pass_no, run, batch, now()))

    def add_sources(self, conn: sqlite3.Connection, scene_root: str, trajectories: Sequence[str]) -> None:
        conn.executemany(
            "INSERT OR IGNORE INTO sources VALUES (?, ?)", [(scene_root, t) for t in trajectories]
        )

    def sources(self) -> set[tuple[str, str]]:
        with self.lock:
            return {(r[0], r[1]) for r in self.conn.execute("SELECT scene_root, trajectory FROM sources")}

    def set_meta(self, conn: sqlite3.Connection, key: str, value: str) -> None:
        conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
        self.meta[key] = value

    def summary(self) -> dict[str, Any]:
        """The stats view (metalogic.memory.stats)."""
        from metalogic.memory.stats import summary

        return summary(self)

    # ---- index ----------------------------------------------------------------------------------

    def embeddings(self, ids: Sequence[int] | None = None) -> tuple[list[int], np.ndarray]:
        import numpy as np

        with self.lock:
            if ids is None:
                rows = self.conn.execute("SELECT id, embedding FROM cards ORDER BY id").fetchall()
            else:
                marks = ",".join("?" * len(ids))
                rows = self.conn.execute(
                    f"SELECT id, embedding FROM cards WHERE id IN ({marks}) ORDER BY id", list(ids)
                ).fetchall()
        if not rows:
            return [], np.zeros((0, self.dim), dtype=np.float32)
        db = self.path / DB_NAME
        vecs = [Rows(db, f"card {r[0]!r}").vector("embedding", r[1], self.dim) for r in rows]
        return [r[0] for r in rows], np.stack(vecs)

    def retired_ids(self) -> set[int]:
        with self.lock:
            return {r[0] for r in self.conn.execute("SELECT id FROM cards WHERE retired IS NOT NULL")}

    def index(self) -> CardIndex:
        """The hnswlib index, loaded from the file and brought up to date with the database."""
        from metalogic.memory.index import CardIndex

        with self.lock:
            if self._index is None:
                path = self.path / INDEX_NAME
                index = CardIndex.load(path, self.dim) if path.is_file() else None
                ids = set(self.card_ids())
                if index is not None and not index.ids() <= ids:
                    index = None  # the file belongs to another state of the bank: rebuild it
                if index is None:
                    index = CardIndex(self.dim)
                missing = sorted(ids - index.ids())
                if missing:
                    got, vecs = self.embeddings(missing)
                    index.add(got, vecs)
                    self._index_dirty = True
                for cid in self.retired_ids():
                    if index.delete(cid):
                        self._index_dirty = True
                self._index = index
            return self._index

    def index_cards(self, ids: Sequence[int]) -> None:
        """Add freshly committed cards to the loaded index (if it is loaded)."""
        with self.lock:
            if self._index is None:
                return
            got, vecs = self.embeddings(list(ids))
            self._index.add(got, vecs)
            self._index_dirty = True

    def save_index(self) -> None:
        """Write the index file (atomically), bringing the index up to date first."""
        self._writable()
        with self.lock:
            self.index().save(self.path / INDEX_NAME)
            self._index_dirty = False


def _int_text(value: Any) -> int | None:
    """A meta value that should be a whole number written as text ('384'); None otherwise."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 10:
        return int(value)
    return None
