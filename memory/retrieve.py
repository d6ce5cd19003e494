"""Two-stage retrieval of lesson cards, and the memory context handed to an agent's prompt.

Stage 1 (semantic filter): the `pool` cards whose task embeddings are nearest to the new task's
(hnswlib, cosine). Stage 2 (logic/memory/rank): drop candidates below the similarity floor, rank
the rest by (1 - eta) * z(similarity) + eta * z(TRS) and keep k.

Three retrieval modes share this interface, so baselines differ only in the mode:
    none  no memory (empty context)
    rag   plain retrieval-augmented generation: similarity only (the same ranking with eta = 0)
    sma   similarity and reliability (eta as given; by default rank_eta of logic/memory/rank.decl)
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING

from metalogic.engine.errors import MetalogicError, did_you_mean
from metalogic.memory.bank import Bank, Card
from metalogic.memory.logic import DEFAULT_ENGINE, check_engine, param_defaults, rank_candidates

if TYPE_CHECKING:
    import numpy as np

MODES = ("none", "rag", "sma")
# The ranking's defaults are the rules' own (logic/memory/rank.decl, in thousandths for eta and floor).
_RANK = param_defaults("rank")
DEFAULT_K = _RANK["rank_k"]
DEFAULT_ETA = _RANK["rank_eta"] / 1000
DEFAULT_FLOOR = _RANK["rank_floor"] / 1000
DEFAULT_POOL = 20
MAX_POOL = 500  # the ranking rules' fixed-point arithmetic holds for up to 500 candidates


@dataclass(frozen=True)
class Settings:
    """How to retrieve. eta and floor are decimals; the rules receive them in thousandths."""

    mode: str = "sma"
    k: int = DEFAULT_K
    eta: float = DEFAULT_ETA
    floor: float = DEFAULT_FLOOR
    pool: int = DEFAULT_POOL
    engine: str = DEFAULT_ENGINE

    def checked(self) -> Settings:
        if self.mode not in MODES:
            raise MetalogicError.single(
                f"unknown memory mode '{self.mode}'",
                expected=" or ".join(MODES),
                fix=did_you_mean(self.mode, MODES) or "use sma (reliability-aware), rag or none",
            )
        check_engine(self.engine)
        if not 1 <= self.k <= MAX_POOL:
            raise _bad("k", self.k, f"a whole number of cards from 1 to {MAX_POOL}", "--k 3")
        if not self.k <= self.pool <= MAX_POOL:
            raise _bad(
                "pool",
                self.pool,
                f"a whole number of candidates from k ({self.k}) to {MAX_POOL}",
                "--pool 20",
            )
        _milli("eta", self.eta, 0, 1)
        _milli("floor", self.floor, -1, 1)
        return self

    @property
    def eta_milli(self) -> int:
        return 0 if self.mode == "rag" else _milli("eta", self.eta, 0, 1)

    @property
    def floor_milli(self) -> int:
        return _milli("floor", self.floor, -1, 1)


def _bad(name: str, value: object, expected: str, example: str) -> MetalogicError:
    return MetalogicError.single(
        f"bad value '{value}' for --{name}", expected=expected, fix=f"e.g. {example}"
    )


def _milli(name: str, value: float, lo: int, hi: int) -> int:
    try:
        d = Decimal(str(value)) * 1000
    except InvalidOperation:
        d = Decimal("NaN")
    if d.is_nan() or d != d.to_integral_value() or not lo * 1000 <= d <= hi * 1000:
        raise _bad(name, value, f"a decimal from {lo} to {hi} in steps of 0.001", f"--{name} 0.5")
    return int(d)


@dataclass(frozen=True)
class Hit:
    """A retrieved card: its rank (1 = best), the task similarity and the ranking's numbers."""

    card: Card
    rank: int
    similarity: float
    score: int  # millionths of a standard deviation
    z_sim: int  # thousandths of a standard deviation
    z_trs: int


def embed_task(bank: Bank, task_text: str) -> np.ndarray:
    from metalogic.memory.embed import get_embedder

    return get_embedder(bank.embedder).encode_one(task_text)


def retrieve(bank: Bank, task_text: str, settings: Settings | None = None) -> list[Hit]:
    """The cards to show for a task, best first (empty in mode 'none' or for an empty bank)."""
    s = (settings or Settings()).checked()
    if s.mode == "none" or bank.count() == 0:
        return []
    return retrieve_vector(bank, embed_task(bank, task_text), s)


def retrieve_vector(bank: Bank, vec: np.ndarray, s: Settings, scored: list[Hit] | None = None) -> list[Hit]:
    """Retrieval for an embedded task. If `scored` is given, every candidate above the floor is
    appended to it (kept ones with their rank, the others with rank 0)."""
    if s.mode == "none":
        return []
    near = bank.index().search(vec, s.pool)
    if not near:
        return []
    cards = bank.get_many([i for i, _ in near])
    sims = {i: sim for i, sim in near}
    cands = [
        (i, max(-1_000_000, min(1_000_000, round(sim * 1_000_000))), cards[i].v)
        for i, sim in near
        if i in cards
    ]
    ranked = rank_candidates(cands, eta=s.eta_milli, k=s.k, floor=s.floor_milli, engine=s.engine)
    hits = [Hit(cards[r.card], r.rank, sims[r.card], r.score, r.z_sim, r.z_trs) for r in ranked]
    if scored is not None:
        scored.extend(hits)
    return [h for h in hits if h.rank > 0]


def render_context(hits: Sequence[Hit]) -> str:
    """The memory block of a prompt: each card's source task, summary and lesson (never an answer,
    a prediction or a score)."""
    if not hits:
        return ""
    lines = [
        "Each lesson comes from an earlier question whose answer was checked. Apply one only where it "
        "fits; what you see now outranks any lesson."
    ]
    for n, h in enumerate(hits, start=1):
        lines += [
            "",
            f"Lesson {n}, from the question: {h.card.task}",
            f"  What happened: {h.card.summary}",
            f"  Procedure: {h.card.lesson}",
        ]
    return "\n".join(lines)


_OPEN: dict[Path, Bank] = {}
_OPEN_LOCK = threading.Lock()


def deployment_bank(path: str | Path) -> Bank:
    """A bank opened read-only, once per process (deployment never changes a bank)."""
    key = Path(path).resolve()
    with _OPEN_LOCK:
        if key not in _OPEN:
            _OPEN[key] = Bank.open(key, readonly=True)
        return _OPEN[key]


def task_shape(task_text: str) -> str:
    """The part of a task the memory embeds: for a whole task prompt of the agents package (it
    starts with their preamble), the question and its options (the last two paragraphs), leaving
    out the views and their box coordinates; any other text as it is."""
    text = task_text.strip()
    try:
        from metalogic.agents.prompts import PREAMBLE
    except ImportError:  # the agents package is not installed: the text is taken as given
        return text
    paras = [p.strip() for p in text.split("\n\n") if p.strip()]
    if len(paras) >= 3 and paras[0] == PREAMBLE:
        return "\n\n".join(paras[-2:])
    return text


def context_for(
    bank: Bank | str | Path,
    task_text: str,
    k: int = DEFAULT_K,
    eta: float = DEFAULT_ETA,
    *,
    mode: str = "sma",
    floor: float = DEFAULT_FLOOR,
    pool: int = DEFAULT_POOL,
    engine: str = DEFAULT_ENGINE,
) -> str:
    """The memory context for one task: the interface the `memory` prompting strategy calls.

    `bank` is an open Bank or the path of one (then opened read-only). Returns "" when no card
    passes the similarity floor, in mode 'none', or for an empty bank."""
    b = bank if isinstance(bank, Bank) else deployment_bank(bank)
    settings = replace(Settings(), mode=mode, k=k, eta=eta, floor=floor, pool=max(pool, k), engine=engine)
    return render_context(retrieve(b, task_shape(task_text), settings))
