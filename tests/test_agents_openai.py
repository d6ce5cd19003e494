"""`metalogic ask` through the openai backend against a real model server: llama-cpp-python's
OpenAI-compatible server running the packaged Gemma 3 270M model on localhost (real HTTP, real
model), and a fault-injecting proxy in front of it for retries, the cache and resuming.

Model calls are few and short (the model writes ~26 tokens/s on shared cores).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import ROOT, run_cli
from helpers_agents import Faults, fault_proxy, read_answers, write_run
from metalogic.agents.rundir import load_run
from metalogic.agents.values import space_for
from metalogic.engine.terms import parse_term

pytestmark = pytest.mark.slow

ASK = ["--agent", "openai:gemma", "--view", "text", "--max-tokens", "20", "--no-progress"]
# one question of four kinds (a move, two directions, a size), in three surface forms
MIXED = "".join(
    f"query({q}, {c}).\nform({q}, {f}).\n"
    for q, c, f in [
        ("q1", "obj_dir(hall, 0, mug, duck)", "choice"),
        ("q2", "map_dir(hall, 0, ball, duck)", "options(reversed)"),
        ("q3", "move_dir(hall, 0, 1)", "choice"),
        ("q4", "size(hall, 0, mug)", "free"),
    ]
)
FOUR = "".join(
    f"query({q}, {c}).\nform({q}, choice).\n"
    for q, c in [
        ("a1", "obj_dir(hall, 0, mug, duck)"),
        ("a2", "map_dir(hall, 0, ball, duck)"),
        ("a3", "obj_dir(hall, 1, duck, ball)"),
        ("a4", "map_dir(hall, 1, mug, ball)"),
    ]
)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    from metalogic.agents.localserver import llama_server

    with llama_server() as url:
        yield url


def journal(run: Path) -> list[dict]:
    lines = (run / "answers" / "openai_gemma.jsonl").read_text().splitlines()
    return [json.loads(x) for x in lines[1:]]


def cached_replies(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return [r[0] for r in db.execute("SELECT reply FROM replies")]


def test_real_model_answers_are_facts_the_rules_accept(tmp_path: Path, server: str) -> None:
    run, cache = write_run(tmp_path / "run", queries=MIXED), tmp_path / "cache.sqlite3"
    code, _out, err = run_cli("ask", str(run), *ASK, "--base-url", server, "--cache", str(cache))
    assert code == 0, err
    answers = read_answers(run / "answers" / "openai_gemma.lp")
    assert sorted(answers) == ["q1", "q2", "q3", "q4"]
    spaces = {q.key: space_for(q, 250) for q in load_run(run).questions}
    for key, value in answers.items():
        assert value == "invalid" or spaces[key].contains(parse_term(value)), (key, value)
    # direction replies were constrained to the options' JSON schema, so each is a usable value
    assert all(answers[k] != "invalid" for k in ("q1", "q2", "q3")), answers
    lp = (run / "answers" / "openai_gemma.lp").read_text()
    for rec in journal(run):
        assert rec["raw"] and rec["attempts"] == 1 and not rec["cached"]
        if rec["value"] == "invalid":  # the unusable reply is kept for inspection
            assert f'raw_reply("openai:gemma", {rec["qid"]}, ' in lp
    manifest = json.loads((run / "answers" / "openai_gemma.json").read_text())
    assert manifest["model"] == "gemma" and manifest["backend"] == "openai"
    # this server refuses response_format json_schema (HTTP 500); the backend fell back to json_object
    assert manifest["settings"]["response_format"] == "json_object"
    assert manifest["tokens"]["prompt"] > 400 and manifest["tokens"]["completion"] >= 4 * 5
    assert manifest["sessions"][0]["requests"] == 4 and manifest["sessions"][0]["retries"] == 0
    assert len(cached_replies(cache)) == 4
    # the rule engine reads the answers with the scene and questions, without complaint
    code, _out, err = run_cli("check", str(run))
    assert code == 0, err
    # asked again from scratch, every reply comes from the cache: same answers, no model call
    code, _out, err = run_cli("ask", str(run), *ASK, "--base-url", server, "--cache", str(cache), "--restart")
    assert code == 0, err
    assert read_answers(run / "answers" / "openai_gemma.lp") == answers
    session = json.loads((run / "answers" / "openai_gemma.json").read_text())["sessions"][-1]
    assert session["requests"] == 0 and session["cached"] == 4


def test_faults_are_retried_and_errors_never_cached(tmp_path: Path, server: str) -> None:
    run, cache = write_run(tmp_path / "run", queries=FOUR), tmp_path / "cache.sqlite3"
    # the timeout must outlast a real reply on busy shared cores (~10 s), so the hung request costs 40 s
    faults = Faults(plan={1: "503", 2: "429", 3: "drop", 4: "slow", 6: "empty"}, slow_s=41)
    args = [
        *ASK,
        "--cache",
        str(cache),
        "--concurrency",
        "1",
        "--timeout",
        "40",
        "--retries",
        "5",
        "-o",
        "response_format=json_object",
    ]  # what this server takes, so each question is one request
    with fault_proxy(server, faults) as url:
        code, _out, err = run_cli("ask", str(run), *args, "--base-url", url)
    assert code == 0, err
    # a1 needed five attempts (503, 429, dropped connection, timeout, success); a2 got an empty reply
    assert faults.seen == ["503", "429", "drop", "slow", "ok", "empty", "ok", "ok"]
    session = json.loads((run / "answers" / "openai_gemma.json").read_text())["sessions"][-1]
    assert session["requests"] == 8 and session["retries"] == 4
    recs = {r["qid"]: r for r in journal(run)}
    assert recs["a1"]["attempts"] == 5 and recs["a1"]["value"] != "invalid"
    assert recs["a2"]["value"] == "invalid" and recs["a2"]["raw"] == ""
    assert 'raw_reply("openai:gemma", a2, "").' in (run / "answers" / "openai_gemma.lp").read_text()
    replies = cached_replies(cache)
    assert len(replies) == 3 and all(r.strip() for r in replies)  # no error and no empty reply stored
    # the invalid answer is asked again on request, and only it
    clean = Faults()
    with fault_proxy(server, clean) as url:
        code, out, err = run_cli("ask", str(run), *args, "--base-url", url, "--retry-invalid")
    assert code == 0, err
    assert clean.seen == ["ok"]
    assert "openai:gemma: 1 to ask of 4 questions (3 answered before)" in out
    final = read_answers(run / "answers" / "openai_gemma.lp")
    assert final["a2"] != "invalid" and len(cached_replies(cache)) == 4


def test_persistent_failure_is_reported_and_the_rest_kept(tmp_path: Path, server: str) -> None:
    run, cache = (
        write_run(tmp_path / "run", queries=FOUR[: FOUR.index("query(a3")]),
        tmp_path / "cache.sqlite3",
    )
    faults = Faults(plan={1: "503", 2: "503", 3: "503"})
    with fault_proxy(server, faults) as url:
        code, _out, err = run_cli(
            "ask",
            str(run),
            *ASK,
            "--cache",
            str(cache),
            "--concurrency",
            "1",
            "--retries",
            "2",
            "--base-url",
            url,
        )
    assert code == 2
    assert err == (
        "error: 1 question(s) got no answer; first: a1: gave up after 3 attempts: HTTP 503: "
        "injected: server overloaded\n"
        "  fix: run the same command again to ask them (everything answered is kept)\n"
    )
    assert sorted(read_answers(run / "answers" / "openai_gemma.lp")) == ["a2"]


def test_killed_run_resumes_with_nothing_lost_or_doubled(tmp_path: Path, server: str) -> None:
    run, cache = write_run(tmp_path / "run", queries=FOUR), tmp_path / "cache.sqlite3"
    args = [*ASK, "--cache", str(cache), "--concurrency", "1", "-o", "response_format=json_object"]
    path = run / "answers" / "openai_gemma.jsonl"
    slow = Faults(delay_s=1.5)  # every request waits, so the kill lands mid-run
    with fault_proxy(server, slow) as url, open(tmp_path / "ask.log", "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "metalogic", "ask", str(run), *args, "--base-url", url],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 180
        while not (path.exists() and len(path.read_text().splitlines()) >= 3):  # header + 2 answers
            assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / "ask.log").read_text()
            time.sleep(0.1)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    before = {r["qid"]: r["value"] for r in journal(run)}
    assert 2 <= len(before) < 4
    resumed = Faults()
    with fault_proxy(server, resumed) as url:
        code, out, err = run_cli("ask", str(run), *args, "--base-url", url)
    assert code == 0, err
    assert f"openai:gemma: {4 - len(before)} to ask of 4 questions ({len(before)} answered before)" in out
    final = read_answers(run / "answers" / "openai_gemma.lp")  # fails on a doubled answer
    assert sorted(final) == ["a1", "a2", "a3", "a4"]
    assert all(final[k] == v for k, v in before.items())
    qids = [r["qid"] for r in journal(run)]
    assert len(qids) == len(set(qids)) == 4
    session = json.loads((run / "answers" / "openai_gemma.json").read_text())["sessions"][-1]
    # each remaining question cost one request, unless its reply reached the cache before the kill
    assert len(resumed.seen) == session["requests"]
    assert session["requests"] + session["cached"] == 4 - len(before)


def test_ctrl_c_stops_cleanly_with_everything_written(tmp_path: Path, server: str) -> None:
    run, cache = write_run(tmp_path / "run", queries=FOUR), tmp_path / "cache.sqlite3"
    args = [*ASK, "--cache", str(cache), "--concurrency", "1", "-o", "response_format=json_object"]
    path = run / "answers" / "openai_gemma.jsonl"
    with fault_proxy(server, Faults(delay_s=1.0)) as url:
        proc = subprocess.Popen(
            [sys.executable, "-m", "metalogic", "ask", str(run), *args, "--base-url", url],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 180
        while not (path.exists() and len(path.read_text().splitlines()) >= 2):  # header + 1 answer
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err.decode(), err.decode()
    journaled = {r["qid"]: r["value"] for r in journal(run)}
    assert read_answers(run / "answers" / "openai_gemma.lp") == journaled  # the facts file caught up
    session = json.loads((run / "answers" / "openai_gemma.json").read_text())["sessions"][-1]
    assert session["status"] == "interrupted" and session["answered"] == len(journaled) < 4
