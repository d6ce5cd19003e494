"""The approximate nearest-neighbour index of card task embeddings (hnswlib, cosine space).

The index is a cache of the bank's database (which stores every embedding): it can be rebuilt at
any time, so it is saved only at the end of a build or when a writable bank closes, and always
atomically (a temporary file beside it, then a rename).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from metalogic.engine.whole_files import replace_whole

if TYPE_CHECKING:
    import numpy as np

# Graph degree, build-time and search-time beam widths. bench/memory_scale.py measures recall and
# latency for these against exact search (recall@3 >= 0.99 at 100k cards).
M = 16
EF_CONSTRUCTION = 200
EF_SEARCH = 64


class CardIndex:
    def __init__(
        self,
        dim: int,
        *,
        m: int = M,
        ef_construction: int = EF_CONSTRUCTION,
        ef: int = EF_SEARCH,
        capacity: int = 1024,
    ) -> None:
        import hnswlib

        self.dim = dim
        self.ef = ef
        self.h = hnswlib.Index(space="cosine", dim=dim)
        self.h.init_index(max_elements=max(capacity, 16), ef_construction=ef_construction, M=m)
        self.h.set_ef(ef)
        self._ids: set[int] = set()
        self._deleted: set[int] = set()
        self._lock = threading.Lock()

    @classmethod
    def load(cls, path: Path, dim: int, *, ef: int = EF_SEARCH) -> CardIndex | None:
        """The index saved at `path`, or None when the file cannot be used (it is then rebuilt)."""
        import hnswlib

        self = cls.__new__(cls)
        self.dim, self.ef, self._lock, self._deleted = dim, ef, threading.Lock(), set()
        self.h = hnswlib.Index(space="cosine", dim=dim)
        try:
            self.h.load_index(str(path))
        except (RuntimeError, OSError, ValueError):
            return None
        self.h.set_ef(ef)
        self._ids = {int(i) for i in self.h.get_ids_list()}
        return self

    def ids(self) -> set[int]:
        return set(self._ids)

    def __len__(self) -> int:
        return len(self._ids) - len(self._deleted)

    def add(self, ids: Sequence[int], vecs: np.ndarray) -> None:
        import numpy as np

        new = [(i, v) for i, v in zip(ids, vecs, strict=True) if i not in self._ids]
        if not new:
            return
        with self._lock:
            need = len(self._ids) + len(new)
            if need > self.h.get_max_elements():
                self.h.resize_index(max(need, 2 * self.h.get_max_elements()))
            self.h.add_items(np.stack([v for _, v in new]).astype(np.float32), np.array([i for i, _ in new]))
            self._ids.update(i for i, _ in new)

    def delete(self, card_id: int) -> bool:
        """Hide a card from searches; False when it was hidden already (or is unknown)."""
        if card_id not in self._ids or card_id in self._deleted:
            return False
        with self._lock:
            with contextlib.suppress(RuntimeError):  # deleted in the saved file already
                self.h.mark_deleted(card_id)
            self._deleted.add(card_id)
        return True

    def search(self, vec: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Up to k nearest active cards: (card id, cosine similarity), most similar first."""
        import numpy as np

        k = min(k, len(self))
        if k <= 0:
            return []
        q = np.asarray(vec, dtype=np.float32).reshape(1, -1)
        with self._lock:
            ef = max(self.ef, k)
            while True:
                self.h.set_ef(ef)
                try:
                    labels, dists = self.h.knn_query(q, k=k)
                    break
                except RuntimeError:  # too few reachable active nodes for this beam: widen it
                    if ef >= len(self._ids):
                        raise
                    ef = min(2 * ef, len(self._ids))
            self.h.set_ef(self.ef)
        return [(int(i), float(1.0 - d)) for i, d in zip(labels[0], dists[0], strict=True)]

    def save(self, path: Path) -> None:
        with self._lock:
            replace_whole(path, lambda tmp: self.h.save_index(str(tmp)))
