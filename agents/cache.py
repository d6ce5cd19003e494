"""A content-addressed response cache in SQLite (WAL mode, safe for several processes at once).

The key is a SHA-256 of everything a reply depends on: backend kind, model, the server's address
and request options, generation parameters, prompt text, image content hashes and reply schema.
Only usable replies are stored: an error, an empty reply or a reply of whitespace is never written,
so a later run asks again. Entries are checked when read (the file is data).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from metalogic.engine.errors import MetalogicError, stored_value

# The longest reply a cache entry may hold: a server's whole reply body is read only up to 4 MiB
# (agents/backend_openai.py), so a longer entry was not written by 'metalogic ask'. Only this much
# of an entry is read from the database.
MAX_CACHED_CHARS = 4 * 2**20
KEY_VERSION = 2  # 2: the server's address is part of the key (entries of version 1 lack it)


def default_cache_path() -> Path:
    env = os.environ.get("METALOGIC_CACHE")
    if env:
        return Path(env)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "metalogic" / "replies.sqlite3"


def cache_key(
    backend: str, model: str, endpoint: dict[str, Any], params: dict[str, Any], prompt: dict[str, Any]
) -> str:
    blob = json.dumps(
        {
            "v": KEY_VERSION,
            "backend": backend,
            "model": model,
            "endpoint": endpoint,
            "params": params,
            "prompt": prompt,
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedReply:
    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None


class ReplyCache:
    """key -> reply. `put` ignores empty replies; nothing else is ever stored."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), timeout=30, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT NOT NULL,"
                " reply TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,"
                " cost_usd REAL, created REAL NOT NULL)"
            )
        except sqlite3.Error as exc:
            raise MetalogicError.single(
                f"cannot open the reply cache {path}: {exc}",
                expected="a writable SQLite file",
                fix="pass another --cache PATH, or --no-cache",
            ) from None
        self._lock = threading.Lock()

    def get(self, key: str) -> CachedReply | None:
        """The stored reply for `key`, checked column by column: the file is data, and SQLite
        keeps whatever type was written into a column."""
        try:
            with self._lock:
                row = self._db.execute(
                    "SELECT substr(reply, 1, ?), prompt_tokens, completion_tokens, cost_usd FROM replies "
                    "WHERE key = ?",
                    (MAX_CACHED_CHARS + 1, key),
                ).fetchone()
        except sqlite3.Error as exc:
            raise self._damaged(f"it cannot be read ({exc})") from None
        if row is None:
            return None
        reply, prompt_tokens, completion_tokens, cost = row
        if isinstance(reply, str) and len(reply) > MAX_CACHED_CHARS:
            raise self._damaged(
                f"the entry {key[:12]}... holds a reply of more than {MAX_CACHED_CHARS:,} characters "
                "(a reply body is read only up to 4 MiB)"
            )
        for column, value, ok in (
            ("reply", reply, isinstance(reply, str)),
            ("prompt_tokens", prompt_tokens, _count(prompt_tokens)),
            ("completion_tokens", completion_tokens, _count(completion_tokens)),
            ("cost_usd", cost, cost is None or (_number(cost) and cost >= 0)),
        ):
            if not ok:
                raise self._damaged(f"the entry {key[:12]}... holds {stored_value(value)} in column {column}")
        return CachedReply(reply, prompt_tokens, completion_tokens, None if cost is None else float(cost))

    def _damaged(self, what: str) -> MetalogicError:
        return MetalogicError.single(
            f"the reply cache is damaged: {what}",
            where=str(self.path),
            expected="a cache written by 'metalogic ask' (text replies, whole token counts)",
            fix=f"delete {self.path} (it holds only replies that can be asked for again), or pass "
            "another --cache PATH, or --no-cache",
        )

    def put(
        self,
        key: str,
        model: str,
        reply: str,
        prompt_tokens: int,
        completion_tokens: int,
        cost_usd: float | None,
    ) -> bool:
        """Store a usable reply; returns False (and stores nothing) for an empty one."""
        if not reply.strip():
            return False
        try:
            with self._lock:
                self._db.execute(
                    "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (key, model, reply, prompt_tokens, completion_tokens, cost_usd, time.time()),
                )
        except sqlite3.Error as exc:
            raise self._damaged(f"a reply cannot be stored ({exc})") from None
        return True

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _count(v: object) -> bool:
    return type(v) is int and v >= 0


def _number(v: object) -> bool:
    return type(v) in (int, float) and math.isfinite(v)  # type: ignore[arg-type]
