"""The one agent interface: a batch of questions in, answer values and raw replies out.

Every agent (a model behind a backend, or a reference agent such as `oracle`) implements
`Agent.stream`, which hands each answer to a callback as soon as it exists, so the ask loop can
write it to disk at once; `Agent.answer` is the plain batch form built on top of it.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from metalogic.engine.terms import Atom, Fun, Term, text

CHOICE = Atom("choice")  # the surface form of a query without a form/2 fact


@dataclass(frozen=True)
class Question:
    """One query of a run: its id, its content (e.g. obj_dir(t1, 4, o2, o5)) and surface form."""

    qid: Term
    content: Fun
    form: Term = CHOICE

    @property
    def kind(self) -> str:
        return self.content.name

    @property
    def traj(self) -> Term:
        return self.content.args[0]

    @property
    def key(self) -> str:
        """The query id as fact text: how answers are matched to questions."""
        return text(self.qid)


@dataclass
class Answer:
    """An agent's answer to one question. `value` is None when there is no answer (failed: the
    request failed, `error` says why; skipped: the agent has none); the atom `invalid` when a reply
    came back but could not be used."""

    question: Question
    value: Term | None
    raw: str = ""
    cached: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    latency_s: float = 0.0
    attempts: int = 0
    error: str = ""
    note: str = ""

    @property
    def failed(self) -> bool:
        """No answer because something went wrong (asking again may help)."""
        return self.value is None and bool(self.error)

    @property
    def skipped(self) -> bool:
        """No answer by the agent's nature (e.g. the oracle without ground truth for the question)."""
        return self.value is None and not self.error

    @property
    def invalid(self) -> bool:
        return self.value == Atom("invalid")


OnAnswer = Callable[[Answer], None]

# A context provider (the memory strategy) gets the question and the task text the model will see,
# and returns text to put in front of the task (e.g. lessons retrieved from a spatial memory).
ContextProvider = Callable[[Question, str], str]


@dataclass
class AgentInfo:
    """What a run manifest records about an agent."""

    backend: str
    model: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)


class Agent(ABC):
    """A batch interface: questions in, answers out (one callback per answer, in any order)."""

    name: str

    @abstractmethod
    async def stream(self, batch: Sequence[Question], on_answer: OnAnswer) -> None:
        """Answer every question of `batch`, calling `on_answer` once per question."""

    def answer(self, batch: Sequence[Question]) -> list[Answer]:
        """Answer a batch and return the answers in the order of the questions."""
        got: dict[str, Answer] = {}

        def keep(a: Answer) -> None:
            got[a.question.key] = a

        async def run() -> None:
            try:
                await self.stream(batch, keep)
            finally:
                await self.aclose()

        asyncio.run(run())
        return [got[q.key] for q in batch]

    def info(self) -> AgentInfo:
        return AgentInfo(backend=type(self).__name__)

    async def aclose(self) -> None:
        """Release what lives in the event loop (network clients); call before the loop ends."""
        return None

    def close(self) -> None:
        """Release what the agent holds (a model, a cache); the default holds nothing."""
        return None
