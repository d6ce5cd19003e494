"""The agent kinds a `KIND[:ARG]` spec may name: one table, each kind with the factory that builds it.

A factory is a "module:function" string, imported only when an agent of that kind is built, so
naming the kinds (for help texts, configuration checks and errors) costs nothing. Each factory lives
beside what it builds (a model backend's module, agents/reference.py) and takes
(arg, run, settings, name), returning the agent and the view it is asked in ('' for the reference
agents, which read the truth and take no prompt).

Other packages add kinds without touching this file: an entry point in the group `metalogic.agents`
whose name is the kind and whose object is a `Kind` (loaded the first time a spec is read), or a
call to `register`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.metadata import entry_points

from metalogic.engine.errors import MetalogicError

ENTRY_POINT_GROUP = "metalogic.agents"
_KIND_NAME = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True)
class Kind:
    factory: str  # "module:function", imported on first use
    arg: str  # "required", "optional" or "none"
    usage: str  # how a spec of this kind is written, for errors
    help: str  # the spec with what it is, for --help texts
    concurrency: int = 1  # requests in flight by default
    check: str = ""  # "module:function" that validates the argument (raising MetalogicError)
    reference: bool = False  # answers from the truth: no model, no prompt, no view


KINDS: dict[str, Kind] = {
    "openai": Kind(
        "metalogic.agents.backend_openai:make_agent",
        "required",
        "openai:MODEL",
        "openai:MODEL (any OpenAI-compatible server)",
        8,
    ),
    "vllm": Kind(
        "metalogic.agents.backend_vllm:make_agent", "required", "vllm:MODEL", "vllm:MODEL (offline vLLM)", 256
    ),
    "llamacpp": Kind(
        "metalogic.agents.backend_llamacpp:make_agent",
        "optional",
        "llamacpp or llamacpp:PATH.gguf",
        "llamacpp[:PATH.gguf] (local; alone: the packaged Gemma 3 270M)",
    ),
    "oracle": Kind("metalogic.agents.reference:make_oracle", "none", "oracle", "oracle", reference=True),
    "noisy": Kind(
        "metalogic.agents.reference:make_noisy",
        "required",
        "noisy:P (0 <= P <= 1)",
        "noisy:P",
        check="metalogic.agents.reference:parse_noise",
        reference=True,
    ),
    "random": Kind("metalogic.agents.reference:make_random", "none", "random", "random", reference=True),
    "biased": Kind(
        "metalogic.agents.reference:make_biased",
        "required",
        "biased:KIND[:ARG] (KIND: constant, mirror, nearfar, updown, turnmap, scale, stale, shuffle)",
        "biased:KIND[:ARG] (constant, mirror, nearfar, updown, turnmap[:Q], scale:K, stale, shuffle)",
        check="metalogic.agents.reference:parse_bias",
        reference=True,
    ),
}
_loaded = False


def register(name: str, kind: Kind) -> None:
    """Add an agent kind under `name` (a lower-case word not taken yet)."""
    if not _KIND_NAME.fullmatch(name):
        raise MetalogicError.single(
            f"agent kind name '{name}' is not a lower-case word", expected="e.g. mymodel (letters, digits, _)"
        )
    if name in KINDS and KINDS[name] != kind:
        raise MetalogicError.single(
            f"agent kind '{name}' is registered twice", fix="give the new kind another name"
        )
    if kind.arg not in ("required", "optional", "none") or ":" not in kind.factory:
        raise MetalogicError.single(
            f"agent kind '{name}' is malformed: arg {kind.arg!r}, factory {kind.factory!r}",
            expected="arg one of required, optional, none; factory as 'module:function'",
        )
    KINDS[name] = kind


def load_entry_points() -> None:
    """Register the kinds other installed packages declare (once per process)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        kind = ep.load()
        if not isinstance(kind, Kind):
            raise MetalogicError.single(
                f"entry point '{ep.name}' of group {ENTRY_POINT_GROUP} is {type(kind).__name__}, not a Kind",
                expected="metalogic.agents.kinds.Kind(...)",
                fix=f"fix or uninstall the package that declares {ep.value}",
            )
        register(ep.name, kind)


def reference_kinds() -> tuple[str, ...]:
    """The kinds that answer from the truth (they take no prompting)."""
    return tuple(name for name, k in KINDS.items() if k.reference)


def agents_help() -> str:
    """Every kind as --help lists them."""
    return ", ".join(k.help for k in KINDS.values())
