"""A hostile OpenAI-compatible server for the tests: it answers chat requests with the bodies a test
scripts (hostile replies, broken bodies, a byte-per-second trickle, a huge body), on 127.0.0.1 only.

The component under test is metalogic's own backend and reply reader, so the bytes this server
sends are the input of the test, not a stand-in for a model. Every wait is bounded: a trickle
stops after its body (or when the client hangs up), and the server shuts down with its context.
"""

from __future__ import annotations

import gzip
import http.server
import json
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Reply:
    """One HTTP response: status, body, content type, and the seconds between its body bytes.
    The body is sent `repeat` times over (a huge body that this server need not hold)."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"
    trickle_s: float = 0.0
    repeat: int = 1
    headers: tuple[tuple[str, str], ...] = ()  # more headers, e.g. (("Content-Encoding", "gzip"),)
    cut_after: int | None = None  # announce the whole body's length, send this many bytes, hang up
    chunked: bytes | None = None  # send these bytes as a chunked body, as they are (framing included)
    raw: bytes | None = None  # send these bytes instead of a response (b"": none at all), then hang up


def chat(content: str, prompt_tokens: int = 10, completion_tokens: int = 5) -> Reply:
    """A well-formed chat completion whose message is `content` (any text, sent as JSON)."""
    body = {
        "id": "chatcmpl-hostile",
        "object": "chat.completion",
        "created": 0,
        "model": "hostile",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
    return Reply(json.dumps(body).encode())


def compressed(reply: Reply, coding: str = "gzip") -> Reply:
    """`reply` sent compressed: gzip, deflate (zlib-wrapped) or raw-deflate (sent as 'deflate')."""
    bits = {"gzip": 31, "deflate": 15, "raw-deflate": -15}[coding]
    z = zlib.compressobj(6, zlib.DEFLATED, bits)
    body = z.compress(reply.body) + z.flush()
    name = "deflate" if coding == "raw-deflate" else coding
    return replace(reply, body=body, headers=(*reply.headers, ("Content-Encoding", name)))


def gzip_bomb(mib: int, status: int = 200, layers: int = 1) -> Reply:
    """A gzip body that expands to `mib` MiB of zero bytes (about mib/1000 MiB of it), compressed
    `layers` times over (sent as Content-Encoding: gzip, gzip, ...)."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(2**20)
    body = b"".join(z.compress(block) for _ in range(mib)) + z.flush()
    for _ in range(layers - 1):
        body = gzip.compress(body, 9)
    return Reply(body, status=status, headers=(("Content-Encoding", ", ".join(["gzip"] * layers)),))


# Bodies a careless or hostile server sends with HTTP 200.
NOT_JSON = Reply(b"this is not json {", content_type="application/json")
HTML = Reply(b"<html><body><h1>502 Bad Gateway</h1></body></html>", content_type="text/html")
NO_CHOICES = Reply(b'{"object": "error", "message": "the upstream model is loading"}')


def cut(reply: Reply, sent: int) -> Reply:
    """`reply` with its whole Content-Length announced, the connection closed after `sent` bytes."""
    return replace(reply, cut_after=sent)


def bad_chunks(reply: Reply) -> Reply:
    """`reply` as a chunked body whose second chunk's size line is not hexadecimal."""
    half = len(reply.body) // 2
    head = reply.body[:half]
    return replace(reply, chunked=b"%x\r\n%s\r\nzz\r\n%s\r\n0\r\n\r\n" % (len(head), head, reply.body[half:]))


@dataclass
class Script:
    """What the server sends: `replies` in the order requests arrive (1-based), then `default`
    (a reply, or a function of the request body). It records each request body it got."""

    replies: list[Reply] = field(default_factory=list)
    default: Reply | Callable[[dict], Reply] = field(default_factory=lambda: chat('{"answer": "left"}'))
    requests: list[dict] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next(self, request: dict) -> Reply:
        with self.lock:
            n = len(self.requests)
            self.requests.append(request)
        if n < len(self.replies):
            return self.replies[n]
        return self.default(request) if callable(self.default) else self.default


def _handler(script: Script) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # keep test output quiet
            return None

        def do_GET(self) -> None:
            self._send(Reply(b'{"object": "list", "data": [{"id": "hostile", "object": "model"}]}'))

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            try:
                request = json.loads(raw)
            except ValueError:
                request = {}
            self._send(script.next(request))

        def _send(self, reply: Reply) -> None:
            if reply.raw is not None:
                self.wfile.write(reply.raw)
                self.wfile.flush()
                self.close_connection = True
                return
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            if reply.chunked is not None:
                self.send_header("Transfer-Encoding", "chunked")
            else:
                self.send_header("Content-Length", str(len(reply.body) * reply.repeat))
            for key, value in reply.headers:
                self.send_header(key, value)
            self.end_headers()
            if reply.chunked is not None or reply.cut_after is not None:
                sent = reply.chunked if reply.chunked is not None else reply.body[: reply.cut_after]
                self.wfile.write(sent)
                self.wfile.flush()
                self.close_connection = True  # hang up: the body stays as broken as it was sent
                return
            if reply.repeat > 1:
                try:
                    for _ in range(reply.repeat):
                        self.wfile.write(reply.body)
                except OSError:  # the client stopped reading and hung up, as it should
                    self.close_connection = True
                return
            if not reply.trickle_s:
                self.wfile.write(reply.body)
                return
            try:
                for i in range(len(reply.body)):  # bounded by the body's length
                    self.wfile.write(reply.body[i : i + 1])
                    self.wfile.flush()
                    time.sleep(reply.trickle_s)
            except OSError:  # the client gave up and hung up: what a timeout should do
                self.close_connection = True

    return Handler


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hung up mid-request (as metalogic does on a body it refuses) is no error."""
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


@contextmanager
def hostile_server(script: Script) -> Iterator[str]:
    """Serve `script` on a free 127.0.0.1 port; yields the /v1 base URL."""
    server = _Server(("127.0.0.1", 0), _handler(script))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
