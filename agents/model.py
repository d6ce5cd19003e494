"""Model agents: prompt -> response cache -> backend (with retries) -> parsed answer.

A backend only turns one chat request into one completion and sorts its failures into transient
ones (HTTP 429, 5xx, timeouts, dropped connections: retried with exponential backoff and jitter,
honouring Retry-After) and permanent ones (this request failed; or the whole run cannot go on, a
MetalogicError such as a wrong key or an unknown model). Concurrency is a semaphore over requests.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from metalogic.agents.base import Agent, AgentInfo, Answer, OnAnswer, Question
from metalogic.agents.cache import ReplyCache, cache_key
from metalogic.agents.parse import parse_reply
from metalogic.agents.prompts import Prompt, PromptBuilder
from metalogic.agents.values import INVALID

_SURROGATE = re.compile("[\ud800-\udfff]")  # json.loads joins pairs, so any left stands alone


@dataclass(frozen=True)
class GenParams:
    temperature: float = 0.0
    top_p: float = 0.9
    max_tokens: int = 512
    seed: int | None = None


@dataclass(frozen=True)
class ChatRequest:
    prompt: Prompt
    params: GenParams
    structured: bool  # ask the backend to constrain the reply to prompt.schema


@dataclass
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None  # when the server reports it
    structured: bool = False  # whether decoding really was constrained


class TransientError(Exception):
    """Worth retrying: rate limits, server errors, timeouts, dropped connections."""

    def __init__(self, what: str, retry_after: float | None = None) -> None:
        super().__init__(what)
        self.retry_after = retry_after


class RequestFailed(Exception):
    """This request cannot succeed as sent (e.g. HTTP 400); other questions may still be asked."""


class ChatBackend(ABC):
    kind: str = ""
    model: str = ""
    supports_images: bool = True
    supports_schema: bool = True

    @abstractmethod
    async def complete(self, req: ChatRequest) -> Completion:
        """One chat completion; raise TransientError, RequestFailed or MetalogicError on failure."""

    def settings(self) -> dict[str, Any]:
        return {}

    def identity(self) -> dict[str, Any]:
        """Besides kind and model, what a reply depends on that the prompt does not show: for a
        server, its address (two servers may serve different models under one name)."""
        return {}

    def versions(self) -> dict[str, str]:
        return {}

    async def aclose(self) -> None:
        """Release network clients or models."""
        return None


@dataclass
class RetryPolicy:
    retries: int = 6
    base_s: float = 0.5
    cap_s: float = 30.0

    def delay(self, attempt: int, hint: float | None) -> float:
        if hint is not None and hint >= 0:
            return min(hint, self.cap_s)
        return min(self.cap_s, self.base_s * 2**attempt) * random.uniform(0.5, 1.0)


@dataclass
class Prices:
    """US dollars per million tokens, when the user gives them (--price-in / --price-out)."""

    input_per_m: float | None = None
    output_per_m: float | None = None

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        if self.input_per_m is None or self.output_per_m is None:
            return None
        return (prompt_tokens * self.input_per_m + completion_tokens * self.output_per_m) / 1e6


@dataclass
class ModelStats:
    retries: int = 0
    requests: int = 0
    cache_hits: int = 0
    failures: list[str] = field(default_factory=list)


class ModelAgent(Agent):
    def __init__(
        self,
        name: str,
        backend: ChatBackend,
        builder: PromptBuilder,
        params: GenParams,
        cache: ReplyCache | None = None,
        concurrency: int = 4,
        retry: RetryPolicy | None = None,
        structured: str = "auto",
        prices: Prices | None = None,
    ) -> None:
        self.name, self.backend, self.builder, self.params = name, backend, builder, params
        self.cache, self.concurrency = cache, max(1, concurrency)
        self.retry = retry or RetryPolicy()
        self.structured = structured != "off" and backend.supports_schema
        self.prices = prices or Prices()
        self.stats = ModelStats()

    def info(self) -> AgentInfo:
        settings = {
            "params": asdict(self.params),
            "structured": self.structured,
            "concurrency": self.concurrency,
            "retries": self.retry.retries,
            **self.backend.settings(),
        }
        return AgentInfo(self.backend.kind, self.backend.model, settings, self.backend.versions())

    def key(self, prompt: Prompt, structured: bool) -> str:
        params = {**asdict(self.params), "structured": structured}
        return cache_key(
            self.backend.kind, self.backend.model, self.backend.identity(), params, prompt.identity()
        )

    async def stream(self, batch: Sequence[Question], on_answer: OnAnswer) -> None:
        sem = asyncio.Semaphore(self.concurrency)

        async def one(q: Question) -> None:
            async with sem:
                on_answer(await self.ask_one(q))

        tasks = [asyncio.ensure_future(one(q)) for q in batch]
        try:
            await asyncio.gather(*tasks)
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def ask_one(self, q: Question) -> Answer:
        prompt = self.builder.build(q)
        structured = self.structured and self.backend.supports_schema
        key = self.key(prompt, structured)
        start = time.monotonic()
        hit = self.cache.get(key) if self.cache is not None else None
        if hit is not None:
            self.stats.cache_hits += 1
            text = clean_text(hit.text)
            return Answer(
                q,
                _value(text, prompt),
                text,
                cached=True,
                prompt_tokens=hit.prompt_tokens,
                completion_tokens=hit.completion_tokens,
                cost_usd=hit.cost_usd,
                latency_s=time.monotonic() - start,
            )
        try:
            done, attempts = await self._with_retries(ChatRequest(prompt, self.params, structured))
        except RequestFailed as exc:
            self.stats.failures.append(f"{q.key}: {exc}")
            return Answer(q, None, error=str(exc), latency_s=time.monotonic() - start)
        cost = (
            done.cost_usd
            if done.cost_usd is not None
            else self.prices.cost(done.prompt_tokens, done.completion_tokens)
        )
        text = clean_text(done.text)
        value = _value(text, prompt)  # read before it is cached: the cache never holds what breaks it
        if self.cache is not None and text.strip():
            self.cache.put(
                self.key(prompt, done.structured),
                self.backend.model,
                text,
                done.prompt_tokens,
                done.completion_tokens,
                cost,
            )
        return Answer(
            q,
            value,
            text,
            prompt_tokens=done.prompt_tokens,
            completion_tokens=done.completion_tokens,
            cost_usd=cost,
            latency_s=time.monotonic() - start,
            attempts=attempts,
        )

    async def _with_retries(self, req: ChatRequest) -> tuple[Completion, int]:
        attempt = 0
        while True:
            self.stats.requests += 1
            try:
                return await self.backend.complete(req), attempt + 1
            except TransientError as exc:
                if attempt >= self.retry.retries:
                    raise RequestFailed(f"gave up after {attempt + 1} attempts: {exc}") from None
                self.stats.retries += 1
                await asyncio.sleep(self.retry.delay(attempt, exc.retry_after))
                attempt += 1

    async def aclose(self) -> None:
        await self.backend.aclose()

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()


def clean_text(reply: str) -> str:
    """A reply as text that can be written anywhere: a server may send lone surrogates (JSON
    escapes such as \\ud800), which no UTF-8 file can hold; each becomes U+FFFD."""
    return _SURROGATE.sub("\ufffd", reply)


def _value(reply: str, prompt: Prompt) -> Any:
    if not reply.strip():
        return INVALID
    value = parse_reply(reply, prompt.space, prompt.text)
    return INVALID if value is None else value
