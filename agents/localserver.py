"""Start llama-cpp-python's OpenAI-compatible server on localhost, for the `openai` backend.

    with llama_server() as base_url:     # the packaged Gemma 3 270M, served as model "gemma"
        ask(run, "openai:gemma", AgentSettings(base_url=base_url, view="text"))

The same server the user would start by hand with `python -m llama_cpp.server --model FILE.gguf`.
"""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from metalogic.engine.errors import MetalogicError


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def llama_server(
    gguf: Path | None = None,
    alias: str = "gemma",
    n_ctx: int = 2048,
    threads: int = 2,
    start_s: float = 120.0,
) -> Iterator[str]:
    """Serve `gguf` (default: the packaged Gemma) on a free localhost port; yields the /v1 URL."""
    extra: list[str] = []
    if gguf is None:
        from metalogic.agents.backend_llamacpp import PACKAGED_CHAT_FORMAT, packaged_gguf

        gguf, extra = packaged_gguf(), ["--chat_format", PACKAGED_CHAT_FORMAT]
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(n_ctx),
        "--n_threads",
        str(threads),
        "--model_alias",
        alias,
        *extra,
    ]
    # threads that spin while waiting starve each other on shared CPUs (see the llamacpp backend)
    env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
    with open(os.devnull, "wb") as sink:
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.STDOUT, env=env)
        try:
            _wait_ready(proc, port, start_s)
            yield f"http://127.0.0.1:{port}/v1"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_ready(proc: subprocess.Popen[bytes], port: int, start_s: float) -> None:
    deadline = time.monotonic() + start_s
    while True:
        if proc.poll() is not None:
            raise MetalogicError.single(
                f"the llama.cpp server exited with status {proc.returncode} while starting",
                fix="run 'python -m llama_cpp.server --model FILE.gguf' by hand to see its message "
                "(an illegal instruction means llama-cpp-python was built for another CPU)",
            )
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/v1/models")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            raise MetalogicError.single(f"the llama.cpp server did not answer within {start_s:g} s")
        time.sleep(0.3)
