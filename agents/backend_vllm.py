"""`vllm:<model>`: offline batched inference with `vllm.LLM` on local GPUs, with guided decoding.

Written against vLLM's documented offline API: `LLM(model=..., **engine_args)` and
`LLM.chat(list_of_conversations, sampling_params=[...])`; the reply schema goes in
`SamplingParams(structured_outputs=StructuredOutputsParams(json=schema))` (vLLM >= 0.11), or
`SamplingParams(guided_decoding=GuidedDecodingParams(json=schema))` on older releases. Requests
that arrive together (up to --concurrency) are answered by one `chat` call, so a large
--concurrency (e.g. 256) gives vLLM large batches. vLLM is imported only when this backend is used.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from metalogic.agents.model import ChatBackend, ChatRequest, Completion, RequestFailed
from metalogic.engine.errors import MetalogicError

if TYPE_CHECKING:
    from metalogic.agents.base import Agent
    from metalogic.agents.registry import AgentSettings
    from metalogic.agents.rundir import RunDir

ENGINE_OPTIONS = {
    "tensor_parallel_size": int,
    "pipeline_parallel_size": int,
    "data_parallel_size": int,
    "gpu_memory_utilization": float,
    "max_model_len": int,
    "dtype": str,
    "quantization": str,
    "trust_remote_code": lambda v: v.lower() in ("1", "true", "yes"),
    "max_num_seqs": int,
    "download_dir": str,
    "enforce_eager": lambda v: v.lower() in ("1", "true", "yes"),
}


class VLLMBackend(ChatBackend):
    kind = "vllm"

    def __init__(self, model: str, options: dict[str, str] | None = None, images_per_prompt: int = 2) -> None:
        try:
            import vllm
        except ImportError:
            raise MetalogicError.single(
                "the vllm backend needs vLLM, which is not installed here",
                expected="a machine with CUDA GPUs and 'pip install vllm'",
                fix="install vLLM on a GPU machine, or serve the model with 'vllm serve MODEL' and ask "
                "it with --agent openai:MODEL --base-url http://HOST:8000/v1",
            ) from None
        self._vllm = vllm
        self.model = model
        self.engine_args = _engine_args(options or {})
        self.engine_args.setdefault("limit_mm_per_prompt", {"image": images_per_prompt})
        self._llm: Any = None
        self._pending: list[tuple[ChatRequest, asyncio.Future[Completion]]] = []
        self._busy: asyncio.Lock | None = None

    def settings(self) -> dict[str, Any]:
        return {"engine_args": {k: v for k, v in self.engine_args.items() if k != "limit_mm_per_prompt"}}

    def versions(self) -> dict[str, str]:
        return {"vllm": str(getattr(self._vllm, "__version__", "?"))}

    def _load(self) -> Any:
        if self._llm is None:
            self._llm = self._vllm.LLM(model=self.model, **self.engine_args)
        return self._llm

    async def complete(self, req: ChatRequest) -> Completion:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Completion] = loop.create_future()
        self._pending.append((req, fut))
        if len(self._pending) == 1:
            loop.call_soon(lambda: asyncio.ensure_future(self._flush()))
        return await fut

    async def _flush(self) -> None:
        if self._busy is None:
            self._busy = asyncio.Lock()
        async with self._busy:  # one chat() call at a time; what arrived meanwhile forms the next batch
            batch, self._pending = self._pending, []
            if not batch:
                return
            try:
                results = await asyncio.to_thread(self._generate, [r for r, _ in batch])
            except Exception as exc:  # the whole batch failed: every request in it gets the error
                results = [_as_error(exc)] * len(batch)
            for (_, fut), res in zip(batch, results, strict=True):
                if fut.done():
                    continue
                if isinstance(res, BaseException):
                    fut.set_exception(res)
                else:
                    fut.set_result(res)
        if self._pending:
            await self._flush()

    def _generate(self, reqs: list[ChatRequest]) -> list[Completion | BaseException]:
        llm = self._load()
        params = [self._sampling(r) for r in reqs]
        outs = llm.chat([r.prompt.messages() for r in reqs], sampling_params=params, use_tqdm=False)
        results: list[Completion | BaseException] = []
        for r, o in zip(reqs, outs, strict=True):
            gen = o.outputs[0] if o.outputs else None
            if gen is None:
                results.append(RequestFailed("vLLM returned no output"))
                continue
            results.append(
                Completion(
                    gen.text, len(o.prompt_token_ids or []), len(gen.token_ids or []), None, r.structured
                )
            )
        return results

    def _sampling(self, req: ChatRequest) -> Any:
        p = req.params
        kw: dict[str, Any] = {"temperature": p.temperature, "top_p": p.top_p, "max_tokens": p.max_tokens}
        if p.seed is not None:
            kw["seed"] = p.seed
        if req.structured:
            kw.update(_guided(req.prompt.schema))
        return self._vllm.SamplingParams(**kw)


def _guided(schema: dict[str, Any]) -> dict[str, Any]:
    try:
        from vllm.sampling_params import StructuredOutputsParams

        return {"structured_outputs": StructuredOutputsParams(json=schema)}
    except ImportError:  # vLLM before 0.11
        from vllm.sampling_params import GuidedDecodingParams

        return {"guided_decoding": GuidedDecodingParams(json=schema)}


def _as_error(exc: Exception) -> BaseException:
    if isinstance(exc, MetalogicError | RequestFailed):
        return exc
    return MetalogicError.single(
        f"vLLM failed: {type(exc).__name__}: {exc}",
        fix="check the model name, GPU memory (-o gpu_memory_utilization=0.8) and -o max_model_len",
    )


def _engine_args(raw: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in raw.items():
        conv = ENGINE_OPTIONS.get(k)
        if conv is None:
            raise MetalogicError.single(
                f"unknown option '{k}' for the vllm backend",
                expected="-o with one of " + ", ".join(ENGINE_OPTIONS),
            )
        try:
            out[k] = conv(v)  # type: ignore[operator]
        except ValueError:
            raise MetalogicError.single(
                f"option {k}={v} has the wrong type", expected=f"-o {k}=VALUE"
            ) from None
    return out


def make_agent(arg: str | None, run: RunDir, s: AgentSettings, name: str) -> tuple[Agent, str]:
    """The `vllm:MODEL` agent (agents/kinds.py)."""
    from metalogic.agents.registry import model_agent

    return model_agent(VLLMBackend(str(arg), s.options), run, s, name, "vllm")
