"""`openai:<model>`: any OpenAI-compatible chat endpoint (OpenAI, `vllm serve`, llama.cpp's server).

The key comes from the environment (OPENAI_API_KEY, or the variable named by --api-key-env); the
endpoint from --base-url or OPENAI_BASE_URL. Images travel as data URLs. Replies are constrained to
the prompt's JSON schema with `response_format`; a server that rejects one flavour (json_schema)
is tried with the next (json_object with a schema, as llama.cpp's server takes it), then without.

The server's replies are untrusted: --timeout bounds the whole request (a server that trickles its
body byte by byte is cut off), a reply body is read only up to MAX_BODY_BYTES (a server that sends
gigabytes within the time limit is cut off too), and a body that is not a chat completion (not
JSON, an HTML error page, JSON without `choices`, or one past that size) is a transient failure,
retried like HTTP 503, never an answer. So is any failure while the reply is read: a connection
that breaks before, in or after the headers, a body shorter than its Content-Length, a malformed
chunked body, a body that cannot be decoded: each is one failed attempt within the same --retries.
"""

from __future__ import annotations

import asyncio
import json
import os
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from metalogic.agents.model import ChatBackend, ChatRequest, Completion, RequestFailed, TransientError
from metalogic.engine.errors import MetalogicError

if TYPE_CHECKING:
    from metalogic.agents.base import Agent
    from metalogic.agents.registry import AgentSettings
    from metalogic.agents.rundir import RunDir

DEFAULT_BASE_URL = "https://api.openai.com/v1"
SCHEMA_FLAVOURS = ("json_schema", "json_object", "")
# The most of a reply body that is read, counted after any gzip/deflate decoding. A chat completion
# holds one message of at most --max-tokens tokens (512 by default) plus a little JSON: a few KB here,
# and a 100,000-token reply is still well under 1 MiB of text. 4 MiB leaves room for any real
# completion (even one with every character JSON-escaped) while keeping a server that sends
# gigabytes within the time limit from filling memory.
MAX_BODY_BYTES = 4 * 2**20
# The most of an error reply (HTTP 4xx, 5xx) that is read: its message is shown cut to 300 characters,
# so the rest is never needed; a longer body is cut off here (and the connection closed).
MAX_ERROR_BYTES = 64 * 2**10
# Content encodings read, with zlib's window bits for each (decoded here, a piece at a time, so a
# small compressed body that expands to gigabytes is refused after MAX_BODY_BYTES of output).
ENCODINGS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}
PIECE = 64 * 2**10  # bytes of decoded output per step


class OpenAIBackend(ChatBackend):
    kind = "openai"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout_s: float = 120.0,
        images: bool = True,
        options: dict[str, str] | None = None,
    ) -> None:
        try:
            import openai
        except ImportError:
            raise MetalogicError.single(
                "the openai backend needs the 'openai' package, which is not installed",
                fix="pip install 'metalogic[agents]'",
            ) from None
        self._openai = openai
        self.model = model
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        self.api_key_env = api_key_env
        self.api_key = os.environ.get(api_key_env) or "EMPTY"  # local servers take any key
        self.timeout_s = timeout_s
        self.supports_images = images
        opts = dict(options or {})
        flavour = opts.pop("response_format", "")
        if flavour and flavour not in SCHEMA_FLAVOURS[:2]:
            raise MetalogicError.single(
                f"unknown response_format '{flavour}' for the openai backend",
                expected="-o response_format=json_schema or -o response_format=json_object",
            )
        self._flavours = [flavour] if flavour else list(SCHEMA_FLAVOURS[:2])
        # any other -o KEY=VALUE goes to the server in the request body (e.g. top_k=20 for vLLM)
        self.extra_body = {k: _json_value(v) for k, v in opts.items()}
        self._clients: dict[int, Any] = {}
        httpx = _httpx(openai)
        # what the HTTP layer raises while a body streams in (the SDK wraps only the request itself)
        self._reading_errors: tuple[type[BaseException], ...] = (httpx.HTTPError, httpx.StreamError, OSError)

    def settings(self) -> dict[str, Any]:
        return {
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "timeout_s": self.timeout_s,
            "response_format": self._flavours[0] if self._flavours else "none",
            "extra_body": self.extra_body,
        }

    def identity(self) -> dict[str, Any]:
        return {"base_url": self.base_url.rstrip("/"), "extra_body": self.extra_body}

    def versions(self) -> dict[str, str]:
        return {"openai": self._openai.__version__}

    def _client(self) -> Any:
        loop = id(asyncio.get_running_loop())
        if loop not in self._clients:  # an async client belongs to the event loop that made it
            o = self._openai
            self._clients[loop] = o.AsyncOpenAI(
                base_url=self.base_url,
                api_key=self.api_key,
                timeout=self.timeout_s,
                max_retries=0,
                http_client=o.DefaultAsyncHttpxClient(transport=_bounded_transport(o)),
            )
        return self._clients[loop]

    async def aclose(self) -> None:
        client = self._clients.pop(id(asyncio.get_running_loop()), None)
        if client is not None:
            await client.close()

    def _kwargs(self, req: ChatRequest, flavour: str) -> dict[str, Any]:
        p = req.params
        kw: dict[str, Any] = {
            "model": self.model,
            "messages": req.prompt.messages(),
            "temperature": p.temperature,
            "top_p": p.top_p,
            "max_tokens": p.max_tokens,
        }
        if p.seed is not None:
            kw["seed"] = p.seed
        if flavour == "json_schema":
            kw["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": req.prompt.schema, "strict": True},
            }
        elif flavour == "json_object":
            kw["response_format"] = {"type": "json_object", "schema": req.prompt.schema}
        if self.extra_body:
            kw["extra_body"] = self.extra_body
        return kw

    async def complete(self, req: ChatRequest) -> Completion:
        while True:
            flavour = self._flavours[0] if (req.structured and self._flavours) else ""
            try:
                body = await self._create(req, flavour)
            except self._openai.APIStatusError as exc:
                if flavour and _refuses_format(exc):
                    self._drop_flavour(flavour)
                    continue
                if exc.status_code not in (400, 422):
                    raise self._sorted(exc) from None
                raise self._bad_request(exc) from None
            except self._openai.APIError as exc:
                raise self._sorted(exc) from None
            except self._reading_errors as exc:
                raise TransientError(f"the connection broke while the reply was read: {_why(exc)}") from None
            return _completion(body, bool(flavour))

    async def _create(self, req: ChatRequest, flavour: str) -> bytes:
        """One request's body, bounded as a whole by the timeout (the client's own timeout bounds
        each read, so a body sent a byte at a time would never time out) and in size by
        MAX_BODY_BYTES. The body is read here, not by the SDK, which takes whatever a server sends
        for a completion."""
        try:
            return await asyncio.wait_for(self._read(req, flavour), self.timeout_s)
        except TimeoutError:
            raise TransientError(f"no complete reply within {self.timeout_s:g} s") from None

    async def _read(self, req: ChatRequest, flavour: str) -> bytes:
        """The body as it streams in, given up on (and the connection closed) once it passes
        MAX_BODY_BYTES."""
        stream = self._client().chat.completions.with_streaming_response.create
        async with stream(**self._kwargs(req, flavour)) as response:
            body = bytearray()
            async for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_BODY_BYTES:
                    raise TransientError(
                        f"the server's reply body passed {MAX_BODY_BYTES // 2**20} MiB; a chat completion "
                        f"is far smaller: {_start(body)}"
                    )
            return bytes(body)

    def _drop_flavour(self, flavour: str) -> None:
        """This server refused that response_format: use the next one, or none at all."""
        if flavour in self._flavours:
            self._flavours.remove(flavour)
        if not self._flavours:
            self.supports_schema = False  # later requests (and their cache keys) go unconstrained

    def _bad_request(self, exc: Any) -> Exception:
        msg = _message(exc)
        if "image" in msg.lower() and self.supports_images:
            return MetalogicError.single(
                f"the model '{self.model}' at {self.base_url} did not take the images: {msg}",
                fix="ask with --view text (objects as labelled boxes), or use a vision model",
            )
        return RequestFailed(f"HTTP {getattr(exc, 'status_code', 400)}: {msg}")

    def _sorted(self, exc: Any) -> Exception:
        o = self._openai
        if isinstance(exc, o.APITimeoutError):
            return TransientError(f"no reply within {self.timeout_s:g} s")
        if isinstance(exc, o.APIConnectionError):
            return TransientError(f"cannot reach {self.base_url}: {exc.__cause__ or exc}")
        status = getattr(exc, "status_code", None)
        if status in (401, 403):
            return MetalogicError.single(
                f"{self.base_url} refused the API key (HTTP {status}): {_message(exc)}",
                fix=f"put a valid key in the environment variable {self.api_key_env} (or name another with "
                "--api-key-env)",
            )
        if status == 404:
            return MetalogicError.single(
                f"{self.base_url} has no model '{self.model}' or no chat endpoint (HTTP 404): "
                f"{_message(exc)}",
                fix="check the model name after 'openai:' and --base-url (it usually ends in /v1)",
            )
        if status in (408, 409, 425, 429) or (isinstance(status, int) and status >= 500):
            return TransientError(f"HTTP {status}: {_message(exc)}", _retry_after(exc))
        return RequestFailed(f"HTTP {status}: {_message(exc)}")


def _why(exc: BaseException) -> str:
    """What the HTTP layer said about a broken reply, on one line, cut to 200 characters."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:200]


def _json_value(v: str) -> Any:
    """'20' -> 20, '0.5' -> 0.5, 'true' -> True, '{"a": 1}' -> a dict; anything else stays text."""
    try:
        return json.loads(v)
    except json.JSONDecodeError:
        return v


def _completion(body: bytes, structured: bool) -> Completion:
    """The reply in a chat completion body, checked field by field; a body that is not one (not
    JSON, an HTML error page, JSON without `choices`) is a transient failure, never an answer."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise TransientError(f"the server's reply is not JSON: {_start(body)}") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise TransientError(f"the server's reply is not a chat completion: {_start(body)}")
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(message, dict) or not isinstance(content, str | None):
        raise TransientError(f"the server's reply has no message text: {_start(body)}")
    usage = data.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    cost: Any = usage.get("cost")
    return Completion(
        content or "",
        _count(usage.get("prompt_tokens")),
        _count(usage.get("completion_tokens")),
        float(cost) if type(cost) in (int, float) and 0 <= cost < 1e9 else None,
        structured,
    )


def _count(v: Any) -> int:
    """A token count as the server reported it; 0 when it sent something else."""
    return v if type(v) is int and 0 <= v < 2**53 else 0


def _start(body: bytes | bytearray) -> str:
    """The start of what a server sent, for a message."""
    shown = body[:120].decode("utf-8", errors="replace")
    return repr(shown) + ("..." if len(body) > 120 else "")


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])[:300]
        if isinstance(err, str):
            return err[:300]
    message = str(getattr(exc, "message", exc))
    if isinstance(body, str) and body.strip():  # an error page that is not JSON: its start
        return f"{message}: {_start(body.encode())}"[:300]
    return message[:300]


def _refuses_format(exc: Any) -> bool:
    """Did the server refuse the response_format itself? (llama-cpp-python's server says so with
    HTTP 500 and a validation message, others with 400 or 422.)"""
    msg = _message(exc).lower()
    if exc.status_code in (400, 422):
        return any(w in msg for w in ("response_format", "json_schema", "schema", "json_object"))
    return exc.status_code == 500 and "response_format" in msg and "validation" in msg


def _retry_after(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _httpx(openai: Any) -> Any:
    """The HTTP package the openai SDK is built on (httpx, or the fork httpx2 some builds use)."""
    import importlib

    base = importlib.import_module(f"{openai.__name__}._base_client")
    for name in ("httpx2", "httpx"):
        if getattr(base, name, None) is not None:
            return getattr(base, name)
    return importlib.import_module("httpx")


def _bounded_transport(openai: Any) -> Any:
    """An HTTP transport whose response bodies are bounded before the SDK sees a byte: the content
    encoding is decoded here a piece at a time (a gzip bomb is refused after MAX_BODY_BYTES of
    output, not after it filled memory), a successful body past MAX_BODY_BYTES is a transient
    failure, and an error body is cut off after MAX_ERROR_BYTES (the SDK reads error bodies whole)."""
    httpx = _httpx(openai)

    class Stream(httpx.AsyncByteStream):  # type: ignore[name-defined]
        def __init__(self, inner: Any, codings: list[str], status: int) -> None:
            self.inner, self.codings, self.status = inner, codings, status

        async def __aiter__(self) -> AsyncIterator[bytes]:
            error = self.status >= 400
            limit = MAX_ERROR_BYTES if error else MAX_BODY_BYTES
            layers = [_Layer(c, limit) for c in reversed(self.codings)]
            head, total = bytearray(), 0
            try:
                async for raw in self.inner:
                    for piece in _decode(layers, raw):
                        if len(head) < 120:
                            head += piece[: 120 - len(head)]
                        total += len(piece)
                        if total > limit:
                            if error:  # the start of an error message is enough
                                yield piece[: len(piece) - (total - limit)]
                                return
                            raise TransientError(
                                f"the server's reply body passed {MAX_BODY_BYTES // 2**20} MiB; a chat "
                                f"completion is far smaller: {_start(head)}..."
                            )
                        yield piece
            except _Undecodable as exc:
                if error:
                    return
                raise TransientError(f"the server's reply cannot be decoded: {exc}") from None
            finally:
                await self.inner.aclose()

        async def aclose(self) -> None:
            await self.inner.aclose()

    class Transport(httpx.AsyncBaseTransport):  # type: ignore[name-defined]
        def __init__(self) -> None:
            self.inner = httpx.AsyncHTTPTransport()

        async def handle_async_request(self, request: Any) -> Any:
            request.headers["Accept-Encoding"] = "gzip, deflate"
            response = await self.inner.handle_async_request(request)
            raw = response.headers.get("content-encoding", "")
            codings = [c.strip().lower() for c in raw.split(",") if c.strip().lower() not in ("", "identity")]
            unknown = [c for c in codings if c not in ENCODINGS]
            if unknown and response.status_code < 400:
                await response.aclose()
                raise TransientError(
                    f"the server sent its reply in the content encoding '{raw[:40]}', which is not read "
                    "(gzip and deflate are)"
                )
            headers = [
                (k, v)
                for k, v in response.headers.multi_items()
                if k.lower() not in ("content-encoding", "content-length")
            ]
            return httpx.Response(
                response.status_code,
                headers=headers,
                stream=Stream(response.stream, [] if unknown else codings, response.status_code),
                extensions=response.extensions,
            )

        async def aclose(self) -> None:
            await self.inner.aclose()

    return Transport()


class _Undecodable(Exception):
    pass


class _Layer:
    """One content encoding, decoded with a bound on its total output."""

    def __init__(self, coding: str, limit: int) -> None:
        self.coding, self.limit, self.out = coding, limit, 0
        self.z = zlib.decompressobj(ENCODINGS[coding])
        self.raw_deflate = False  # 'deflate' without its zlib header, as some servers send it

    def feed(self, data: bytes) -> Iterator[bytes]:
        while data:
            try:
                piece = self.z.decompress(data, PIECE)
            except zlib.error as exc:
                if self.coding == "deflate" and not self.raw_deflate and self.out == 0:
                    self.raw_deflate, self.z = True, zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise _Undecodable(f"{self.coding}: {exc}") from None
            data = self.z.unconsumed_tail
            if self.z.eof and self.z.unused_data.strip(b"\0"):
                raise _Undecodable(f"{self.coding}: data after the end of the stream")
            self.out += len(piece)
            if piece:
                yield piece
            if self.out > self.limit:  # the caller refuses (or cuts) the body here
                return


def _decode(layers: list[_Layer], data: bytes) -> Iterator[bytes]:
    """Run `data` through the decoding layers (outermost first), piece by piece."""
    if not layers:
        if data:
            yield data
        return
    for piece in layers[0].feed(data):
        yield from _decode(layers[1:], piece)


def make_agent(arg: str | None, run: RunDir, s: AgentSettings, name: str) -> tuple[Agent, str]:
    """The `openai:MODEL` agent (agents/kinds.py)."""
    from metalogic.agents.registry import model_agent

    backend = OpenAIBackend(
        str(arg), s.base_url, s.api_key_env, s.timeout_s, images=s.view != "text", options=s.options
    )
    return model_agent(backend, run, s, name, "openai")
