"""A content-addressed response cache in SQLite (WAL mode, safe for several processes at once).

The key is a SHA-256 of everything a reply depends on: backend kind, model, generation parameters,
prompt text, image content hashes and reply schema. Only usable replies are stored: an error, an
empty reply or a reply of whitespace is never written, so a later run asks again.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from metalogic.engine.errors import MetalogicError

KEY_VERSION = 1


def default_cache_path() -> Path:
    env = os.environ.get("METALOGIC_CACHE")
    if env:
        return Path(env)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "metalogic" / "replies.sqlite3"


def cache_key(backend: str, model: str, params: dict[str, Any], prompt: dict[str, Any]) -> str:
    blob = json.dumps(
        {"v": KEY_VERSION, "backend": backend, "model": model, "params": params, "prompt": prompt},
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
        with self._lock:
            row = self._db.execute(
                "SELECT reply, prompt_tokens, completion_tokens, cost_usd FROM replies WHERE key = ?", (key,)
            ).fetchone()
        return CachedReply(row[0], row[1], row[2], row[3]) if row else None

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
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, model, reply, prompt_tokens, completion_tokens, cost_usd, time.time()),
            )
        return True

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
