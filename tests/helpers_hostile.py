"""A hostile OpenAI-compatible server for the tests: it answers chat requests with the bodies a test
scripts (hostile replies, broken bodies, a byte-per-second trickle, a huge body), on 127.0.0.1 only.

The component under test is metalogic's own backend and reply reader, so the bytes this server
sends are the input of the test, not a stand-in for a model. Every wait is bounded: a trickle
stops after its body (or when the client hangs up), and the server shuts down with its context.
"""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Reply:
    """One HTTP response: status, body, content type, and the seconds between its body bytes.
    The body is sent `repeat` times over (a huge body that this server need not hold)."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"
    trickle_s: float = 0.0
    repeat: int = 1


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


# Bodies a careless or hostile server sends with HTTP 200.
NOT_JSON = Reply(b"this is not json {", content_type="application/json")
HTML = Reply(b"<html><body><h1>502 Bad Gateway</h1></body></html>", content_type="text/html")
NO_CHOICES = Reply(b'{"object": "error", "message": "the upstream model is loading"}')


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
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(reply.body) * reply.repeat))
            self.end_headers()
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


@contextmanager
def hostile_server(script: Script) -> Iterator[str]:
    """Serve `script` on a free 127.0.0.1 port; yields the /v1 base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(script))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
