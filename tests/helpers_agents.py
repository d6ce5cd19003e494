"""Helpers for the agent tests: hand-made run folders and a fault-injecting proxy.

The run folder is written by hand (scene facts with ground truth, query facts), as `metalogic
generate` would write it. The model server is llama-cpp-python's OpenAI-compatible server running
the packaged Gemma 3 270M model (metalogic.agents.localserver.llama_server); the proxy forwards to
it and injects the faults a test asks for (HTTP 503/429, dropped connections, slow and empty
replies), counting what it saw.
"""

from __future__ import annotations

import http.client
import http.server
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

# A household trajectory: the agent stands at (0, 0), 1 m high, facing north (yaw 90), steps 250 mm
# forward, then turns left. Objects are ground-truth ids; detections give the boxes the prompts show.
SCENE = """\
trajectory(hall, household).
step_mm(hall, 250).
image_size(hall, 320, 240).
camera(hall, 277, 277, 160, 120).
state(hall, 0).
state(hall, 1).
state(hall, 2).
frame(hall, 0, "frames/hall_0.png").
frame(hall, 1, "frames/hall_1.png").
frame(hall, 2, "frames/hall_2.png").
gt_pose(hall, 0, 0, 0, 1000, 90).
gt_pose(hall, 1, 0, 250, 1000, 90).
gt_pose(hall, 2, 0, 250, 1000, 180).
gt_object(hall, mug, 500, 2000, 800, 120).
gt_object(hall, duck, -400, 1500, 900, 90).
gt_object(hall, ball, 0, 3000, 1100, 220).
detection(hall, 0, mug, mug, 910, 220, 120, 250, 150).
detection(hall, 0, duck, duck, 880, 70, 110, 100, 130).
detection(hall, 0, ball, ball, 950, 140, 90, 180, 130).
detection(hall, 1, mug, mug, 900, 230, 120, 265, 155).
detection(hall, 1, duck, duck, 870, 55, 110, 90, 135).
detection(hall, 1, ball, ball, 940, 138, 88, 182, 132).
persistent(hall, mug).
persistent(hall, duck).
persistent(hall, ball).
"""

# A few questions in several kinds and surface forms.
QUERIES = """\
query(q1, obj_dir(hall, 0, mug, duck)).
form(q1, choice).
query(q2, obj_dir(hall, 0, mug, duck)).
form(q2, options(reversed)).
query(q3, map_dir(hall, 0, ball, duck)).
form(q3, choice).
query(q4, move_dir(hall, 0, 1)).
form(q4, choice).
query(q5, size(hall, 0, mug)).
form(q5, free).
query(q6, depth(hall, 0, ball)).
form(q6, reworded).
"""


def write_run(folder: Path, queries: str = QUERIES, scene: str = SCENE, frames: bool = False) -> Path:
    """A run folder as 'metalogic generate' leaves it: scene.lp, queries.lp, run.json."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "scene.lp").write_text(scene, encoding="utf-8")
    (folder / "queries.lp").write_text(queries, encoding="utf-8")
    (folder / "run.json").write_text(
        json.dumps({"scene_root": str(folder.resolve()), "seed": 0}), encoding="utf-8"
    )
    if frames:
        from PIL import Image

        (folder / "frames").mkdir(exist_ok=True)
        for s in range(3):
            Image.new("RGB", (320, 240), (40 * s, 120, 200)).save(folder / "frames" / f"hall_{s}.png")
    return folder


def read_answers(lp: Path) -> dict[str, str]:
    """query id -> value text, from an answers facts file (asserting one answer per query)."""
    from metalogic.engine.facts import read_facts
    from metalogic.engine.terms import Fun, parse_term, text

    out: dict[str, str] = {}
    for fact in read_facts(lp).facts:
        t = parse_term(fact)
        if isinstance(t, Fun) and t.name == "answer":
            key = text(t.args[1])
            assert key not in out, f"two answers to {key} in {lp}"
            out[key] = text(t.args[2])
    return out


def gemma_path() -> Path:
    from metalogic.agents.backend_llamacpp import packaged_gguf

    return packaged_gguf()


@dataclass
class Faults:
    """What the proxy does to each chat request, by order of arrival (1-based), and what it saw."""

    plan: dict[int, str] = field(default_factory=dict)  # n -> "503" | "429" | "slow" | "empty" | "drop"
    delay_s: float = 0.0  # added to every forwarded request
    slow_s: float = 5.0  # how long a "slow" request hangs before its connection is dropped
    seen: list[str] = field(default_factory=list)  # what happened to each request, in order
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next(self) -> tuple[int, str]:
        with self.lock:
            n = len(self.seen) + 1
            action = self.plan.get(n, "ok")
            self.seen.append(action)
            return n, action

    def count(self, action: str) -> int:
        with self.lock:
            return sum(a == action for a in self.seen)


def _handler(upstream: str, faults: Faults) -> type[http.server.BaseHTTPRequestHandler]:
    host, port = upstream.split("//")[1].split("/")[0].split(":")

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # keep test output quiet
            return None

        def _reply(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._forward(b"", "GET")

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if not self.path.endswith("/chat/completions"):
                self._forward(body, "POST")
                return
            _n, action = faults.next()
            if action == "503":
                self._reply(503, b'{"error": {"message": "injected: server overloaded"}}')
            elif action == "429":
                self._reply(429, b'{"error": {"message": "injected: rate limited"}}', {"Retry-After": "0.2"})
            elif action in ("drop", "slow"):
                if action == "slow":  # outlast the client's timeout; the model never sees the request
                    time.sleep(faults.slow_s)
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
            elif action == "empty":
                data = self._forward(body, "POST", send=False)
                reply = json.loads(data)
                reply["choices"][0]["message"]["content"] = ""
                self._reply(200, json.dumps(reply).encode())
            else:
                self._forward(body, "POST")

        def _forward(self, body: bytes, method: str, send: bool = True) -> bytes:
            if faults.delay_s:
                time.sleep(faults.delay_s)
            conn = http.client.HTTPConnection(host, int(port), timeout=300)
            conn.request(method, self.path, body=body or None, headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            data = resp.read()
            if send:
                self._reply(resp.status, data)
            return data

    return Handler


@contextmanager
def fault_proxy(upstream: str, faults: Faults) -> Iterator[str]:
    """A threaded HTTP proxy in front of `upstream` (a /v1 URL); yields the proxy's /v1 URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(upstream, faults))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
