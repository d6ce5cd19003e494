"""Agents by name: a `KIND[:ARG]` spec, checked against the kinds of agents/kinds.py (the one table
of them, with each kind's factory), built with the settings a user chose, its factory imported only
when used. The model agents share model_agent(): prompts, the reply cache, retries, concurrency."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from metalogic.agents.base import Agent, ContextProvider
from metalogic.agents.cache import ReplyCache, default_cache_path
from metalogic.agents.kinds import KINDS, load_entry_points, reference_kinds
from metalogic.agents.model import ChatBackend, GenParams, ModelAgent, Prices, RetryPolicy
from metalogic.agents.prompts import PromptBuilder, PromptOptions
from metalogic.agents.rundir import RunDir
from metalogic.engine.errors import MetalogicError, did_you_mean


@dataclass
class AgentSettings:
    """Everything `metalogic ask` lets a user choose about an agent."""

    prompting: str = "direct"
    name: str | None = None
    view: str = "auto"  # auto | image | text
    boxes: str = "both"
    max_side: int = 1024
    params: GenParams = field(default_factory=GenParams)
    concurrency: int | None = None  # None: the backend's default
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = 120.0
    retries: int = 6
    structured: str = "auto"  # auto | on | off
    cache: str | None = None  # a path; None: the default cache; "": no cache
    prices: Prices = field(default_factory=Prices)
    options: dict[str, str] = field(default_factory=dict)  # backend options (-o KEY=VALUE)
    seed: int = 0  # reference agents' noise and randomness
    context: ContextProvider | None = None  # the memory strategy's provider
    memory: str = ""  # which memory the provider draws on (mode:bank), for the resume fingerprint

    def fingerprint(self, spec: str, view: str) -> dict[str, Any]:
        """The settings an answer depends on: a run resumes only under the same fingerprint.
        (`view` is empty for reference agents, whose answers depend on the seed alone.)"""
        if not view:
            return {"spec": spec, "seed": self.seed}
        return {
            "spec": spec,
            "prompting": self.prompting,
            "view": view,
            "boxes": self.boxes,
            "max_side": self.max_side,
            "params": asdict(self.params),
            "structured": self.structured,
            "options": dict(sorted(self.options.items())),
            "memory": self.memory,
        }


def parse_spec(spec: str) -> tuple[str, str | None]:
    """(kind, argument) of a `KIND[:ARG]` spec, checked against the kinds of agents/kinds.py."""
    load_entry_points()
    kind, sep, arg = spec.partition(":")
    if kind not in KINDS:
        hint = did_you_mean(kind, list(KINDS))
        raise MetalogicError.single(
            f"unknown agent '{spec}'",
            expected="one of: " + ", ".join(k.usage for k in KINDS.values()),
            fix=hint[0].upper() + hint[1:] if hint else "see 'metalogic ask --help' for the agents",
        )
    k = KINDS[kind]
    if k.arg == "required" and not arg:
        raise MetalogicError.single(f"agent '{spec}' needs an argument", expected=k.usage)
    if k.arg == "none" and sep:
        raise MetalogicError.single(f"agent '{kind}' takes no argument, got '{spec}'", expected=k.usage)
    if k.check:  # a bad argument is reported here, before a run starts (also by `metalogic run`)
        module, func = k.check.split(":")
        getattr(importlib.import_module(module), func)(arg)
    return kind, (arg or None)


def agent_name(spec: str, settings: AgentSettings) -> str:
    if settings.name:
        return settings.name
    return spec if settings.prompting == "direct" else f"{spec}+{settings.prompting}"


def build_agent(spec: str, run: RunDir, settings: AgentSettings) -> tuple[Agent, str]:
    """The agent for `spec`, and the view it is asked in ('image', 'text' or '' for reference agents)."""
    kind, arg = parse_spec(spec)
    reference = reference_kinds()
    if KINDS[kind].reference and settings.prompting != "direct":
        raise MetalogicError.single(
            f"--prompting {settings.prompting} does not apply to the reference agent '{kind}'",
            fix="leave --prompting out for " + ", ".join(reference[:-1]) + f" and {reference[-1]}",
        )
    module, func = KINDS[kind].factory.split(":")
    factory: Callable[..., tuple[Agent, str]] = getattr(importlib.import_module(module), func)
    return factory(arg, run, settings, agent_name(spec, settings))


def space_fn(run: RunDir, settings: AgentSettings) -> Any:
    """What a reference agent may answer to each question (the answer spaces of the prompts)."""
    return PromptBuilder(run, PromptOptions(view="text")).space


def model_agent(
    backend: ChatBackend, run: RunDir, s: AgentSettings, name: str, kind: str
) -> tuple[Agent, str]:
    """A model agent around `backend`: the prompt builder, reply cache, retries and concurrency every
    backend shares. A backend module's factory ends here."""
    view = s.view if s.view != "auto" else ("image" if backend.supports_images else "text")
    if s.structured == "on" and not backend.supports_schema:
        raise MetalogicError.single(
            f"the {kind} backend cannot constrain replies to a schema", fix="use --structured auto or off"
        )
    builder = PromptBuilder(run, PromptOptions(s.prompting, view, s.boxes, s.max_side, s.context))
    cache = None if s.cache == "" else ReplyCache(default_cache_path() if s.cache is None else Path(s.cache))
    concurrency = s.concurrency or KINDS[kind].concurrency
    agent = ModelAgent(
        name,
        backend,
        builder,
        s.params,
        cache,
        concurrency,
        RetryPolicy(retries=s.retries),
        s.structured,
        s.prices,
    )
    return agent, view


def backend_options(pairs: tuple[str, ...]) -> dict[str, str]:
    """The -o KEY=VALUE pairs as a dict (a clear error for one without '=')."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise MetalogicError.single(
                f"backend option '{pair}' is not KEY=VALUE",
                expected="-o KEY=VALUE, e.g. -o n_ctx=4096 or -o tensor_parallel_size=2",
            )
        out[key.strip()] = value.strip()
    return out
