"""Shared by the report tests: a hand-checkable run (tests/data/report) with drawn frames, and the
real headless Chromium driven over the DevTools protocol through a pipe (no extra package needed)."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data" / "report"
CHROMIUM = Path("/usr/bin/chromium")
BOXES = {  # object -> colour of its box in the drawn frames
    "duck": (240, 200, 40),
    "ball": (220, 60, 60),
    "mug": (60, 90, 200),
}


def make_run(tmp: Path, frames: bool = True) -> Path:
    """The data folder as a run: answers beside scene and queries, frames under a separate
    scene_root (as 'metalogic extract' + 'generate' leave them); state 2 has no frame file."""
    from PIL import Image, ImageDraw

    run = tmp / "run"
    shutil.copytree(DATA, run)
    facts = tmp / "facts"
    (facts / "frames").mkdir(parents=True)
    (run / "run.json").write_text(json.dumps({"scene_root": str(facts), "seed": 0}), encoding="utf-8")
    if frames:
        for state in (0, 1):
            im = Image.new("RGB", (640, 480), (196, 208, 222))
            draw = ImageDraw.Draw(im)
            draw.rectangle([0, 330, 640, 480], fill=(140, 112, 84))
            for line in (run / "scene.lp").read_text().splitlines():
                if line.startswith(f"detection(hall, {state}, "):
                    parts = [p.strip() for p in line[len("detection(") : -2].split(",")]
                    draw.rectangle([int(v) for v in parts[5:9]], fill=BOXES[parts[2]])
            im.save(facts / "frames" / f"hall_{state}.png")
    return run


# --- The page in headless Chromium --------------------------------------------------------------

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
]


class Chromium:
    """A minimal DevTools-protocol client over --remote-debugging-pipe (fd 3 in, fd 4 out,
    messages separated by NUL bytes)."""

    def __init__(self, profile: Path) -> None:
        to_read, self._to = os.pipe()
        self._from, from_write = os.pipe()
        # The child's ends move to fds >= 10 first, so that the redirections onto 3 and 4 never
        # overwrite each other's source (bash, as dash takes single-digit fds only).
        child = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_read, from_write)]
        for fd in (to_read, from_write):
            os.close(fd)
        script = f'exec "$0" "$@" 3<&{child[0]} 4>&{child[1]} {child[0]}<&- {child[1]}>&-'
        cmd = ["bash", "-c", script, str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", "about:blank"]
        self.proc = subprocess.Popen(
            cmd, pass_fds=tuple(child), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        for fd in child:
            os.close(fd)
        self._buf, self._next, self.events = b"", 0, []  # type: tuple[bytes, int, list[dict[str, Any]]]
        self.session = ""

    def send(self, method: str, params: dict[str, Any] | None = None, timeout: float = 60) -> dict[str, Any]:
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if self.session and not method.startswith(("Target.", "Browser.")):
            msg["sessionId"] = self.session
        os.write(self._to, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self._next:
                assert "error" not in reply, (method, reply["error"])
                return dict(reply.get("result", {}))
            self.events.append(reply)

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            assert left > 0, "Chromium did not answer in time"
            ready, _, _ = select.select([self._from], [], [], left)
            if ready:
                chunk = os.read(self._from, 1 << 20)
                assert chunk, "Chromium closed the DevTools pipe"
                self._buf += chunk
        raw, _, self._buf = self._buf.partition(b"\0")
        return dict(json.loads(raw))

    def open_page(self) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": 1600, "deviceScaleFactor": 1, "mobile": False},
        )

    def load(self, path: Path) -> None:
        self.send("Page.navigate", {"url": path.resolve().as_uri()})
        deadline = time.monotonic() + 30
        while self.js("document.body ? document.body.dataset.rendered || '' : ''") != "yes":
            assert time.monotonic() < deadline, f"the page never finished drawing; {self.problems()}"
            time.sleep(0.1)

    def js(self, expression: str) -> Any:
        got = self.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
        )
        assert "exceptionDetails" not in got, got["exceptionDetails"]
        return got["result"].get("value")

    def problems(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions and error log entries so far."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e.get("method") == "Runtime.exceptionThrown":
                out.append(p["exceptionDetails"].get("exception", {}).get("description", str(p)))
            elif e.get("method") == "Runtime.consoleAPICalled" and p.get("type") in (
                "error",
                "warning",
                "assert",
            ):
                out.append(json.dumps(p.get("args")))
            elif e.get("method") == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
                out.append(p["entry"]["text"])
        return out

    def requests(self) -> list[str]:
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        ]

    def screenshot(self) -> bytes:
        return base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"})["data"])

    def close(self) -> None:
        try:  # Chromium closes the pipe instead of answering, so nothing is awaited here
            os.write(self._to, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
        except BrokenPipeError:
            pass  # it has gone already
        finally:
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            os.close(self._to)
            os.close(self._from)


@pytest.fixture
def chromium() -> Iterator[Chromium]:
    assert CHROMIUM.exists(), "headless Chromium is needed: apt-get install -y chromium"
    profile = Path(tempfile.mkdtemp(prefix="metalogic-chromium-"))
    browser = Chromium(profile)
    try:
        browser.open_page()
        yield browser
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
