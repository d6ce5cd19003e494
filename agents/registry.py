"""Agents by name: `KIND[:ARG]` specs, registered here and imported only when used.

openai:<model>     any OpenAI-compatible endpoint (--base-url, key from the environment)
vllm:<model>       offline vLLM on local GPUs, guided decoding
llamacpp[:<gguf>]  a local GGUF model on the CPU; alone: the packaged Gemma 3 270M
oracle             the truth, from ground-truth facts
noisy:<p>          the truth with each answer replaced at rate p by another valid value
random             a uniformly random valid value
biased:<kind>      the truth distorted in one consistent way (constant, mirror, nearfar, updown,
                   turnmap[:Q], scale:K, stale, shuffle)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from metalogic.agents.base import Agent, ContextProvider
from metalogic.agents.cache import ReplyCache, default_cache_path
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


@dataclass(frozen=True)
class Kind:
    factory: str  # "module:function", imported on first use
    arg: str  # "required", "optional" or "none"
    usage: str
    concurrency: int = 1
    check: str = ""  # "module:function" that validates the argument (raising MetalogicError)


KINDS: dict[str, Kind] = {
    "openai": Kind("metalogic.agents.registry:_openai", "required", "openai:MODEL", 8),
    "vllm": Kind("metalogic.agents.registry:_vllm", "required", "vllm:MODEL", 256),
    "llamacpp": Kind("metalogic.agents.registry:_llamacpp", "optional", "llamacpp or llamacpp:PATH.gguf", 1),
    "oracle": Kind("metalogic.agents.registry:_oracle", "none", "oracle"),
    "noisy": Kind(
        "metalogic.agents.registry:_noisy",
        "required",
        "noisy:P (0 <= P <= 1)",
        check="metalogic.agents.reference:parse_noise",
    ),
    "random": Kind("metalogic.agents.registry:_random", "none", "random"),
    "biased": Kind(
        "metalogic.agents.registry:_biased",
        "required",
        "biased:KIND[:ARG] (KIND: constant, mirror, nearfar, updown, turnmap, scale, stale, shuffle)",
        check="metalogic.agents.reference:parse_bias",
    ),
}
REFERENCE = ("oracle", "noisy", "random", "biased")


def parse_spec(spec: str) -> tuple[str, str | None]:
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
    if kind in REFERENCE and settings.prompting != "direct":
        raise MetalogicError.single(
            f"--prompting {settings.prompting} does not apply to the reference agent '{kind}'",
            fix="leave --prompting out for " + ", ".join(REFERENCE[:-1]) + f" and {REFERENCE[-1]}",
        )
    module, func = KINDS[kind].factory.split(":")
    factory: Callable[..., tuple[Agent, str]] = getattr(importlib.import_module(module), func)
    return factory(arg, run, settings, agent_name(spec, settings))


def _space_fn(run: RunDir, settings: AgentSettings) -> Any:
    return PromptBuilder(run, PromptOptions(view="text")).space


def _oracle(arg: str | None, run: RunDir, s: AgentSettings, name: str) -> tuple[Agent, str]:
    from metalogic.agents.reference import OracleAgent

    return OracleAgent(run.program(), _space_fn(run, s), name=name, questions=run.questions), ""


def _noisy(arg: str | None, run: RunDir, s: AgentSettings, name: str) -> tuple[Agent, str]:
    from metalogic.agents.reference import NoisyAgent, parse_noise

    noise = parse_noise(arg)
    return NoisyAgent(noise, run.program(), _space_fn(run, s), s.seed, name=name, questions=run.questions), ""


def _random(arg: str | None, run: RunDir, s: AgentSettings, name: str) -> tuple[Agent, str]:
    from metalogic.agents.reference import RandomAgent

    return RandomAgent(_space_fn(run, s), seed=s.seed, name=name), ""


def _biased(arg: str | None, run: RunDir, s: AgentSettings, name: str) -> tuple[Agent, str]:
    from metalogic.agents.reference import BiasedAgent, parse_bias

    bias = parse_bias(arg)
    return BiasedAgent(bias, run.program(), _space_fn(run, s), s.seed, name=name, questions=run.questions), ""


def _openai(arg: str | None, run: RunDir, s: AgentSettings, name: str) -> tuple[Agent, str]:
    from metalogic.agents.backend_openai import OpenAIBackend

    backend = OpenAIBackend(
        str(arg), s.base_url, s.api_key_env, s.timeout_s, images=s.view != "text", options=s.options
    )
    return _model(backend, run, s, name, "openai")


def _vllm(arg: str | None, run: RunDir, s: AgentSettings, name: str) -> tuple[Agent, str]:
    from metalogic.agents.backend_vllm import VLLMBackend

    return _model(VLLMBackend(str(arg), s.options), run, s, name, "vllm")


def _llamacpp(arg: str | None, run: RunDir, s: AgentSettings, name: str) -> tuple[Agent, str]:
    from metalogic.agents.backend_llamacpp import LlamaCppBackend

    if s.view == "image":
        raise MetalogicError.single(
            "the llamacpp backend takes text only", fix="use --view text (or leave it out)"
        )
    return _model(LlamaCppBackend(arg, s.options), run, s, name, "llamacpp")


def _model(backend: ChatBackend, run: RunDir, s: AgentSettings, name: str, kind: str) -> tuple[Agent, str]:
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
