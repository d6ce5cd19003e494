"""End to end with the real local model: llama.cpp's OpenAI-compatible server running the packaged
Gemma 3 270M. The model answers the environment split with its memory and writes cards by
reflection (its cards pass the leak check or are rejected and counted); then `metalogic ask
--prompting memory` deploys the bank read-only on the deployment split, leaving every byte of it
unchanged, and `metalogic memory compare` puts no memory, RAG and SMA side by side."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import run_cli
from helpers_memory import digest, make_run

pytest.importorskip("hnswlib", reason="the memory extra (hnswlib) is not installed")
pytest.importorskip("llama_cpp", reason="llama-cpp-python (the agents extra) is not installed")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    from metalogic.agents.localserver import llama_server

    with llama_server(n_ctx=4096) as url:
        yield url


def test_build_deploy_and_compare_with_gemma(server: str, tmp_path: Path) -> None:
    run = make_run(tmp_path, trajectories=2, per_trajectory=2)
    code, out, err = run_cli(
        "memory", "split", str(run), "--env", str(tmp_path / "env"), "--deploy", str(tmp_path / "dep")
    )
    assert code == 0, err
    bank = tmp_path / "bank"
    common = ["--base-url", server, "--view", "text", "--max-tokens", "48"]
    code, out, err = run_cli(
        "memory",
        "build",
        str(tmp_path / "env"),
        "--agent",
        "openai:gemma",
        "--bank",
        str(bank),
        "--verifier",
        "truth",
        "--no-cache",
        *common,
    )
    assert code == 0, err
    assert "1 batches" in out or "pass 1" in out
    code, out_stats, err = run_cli("memory", "stats", str(bank), "--format", "json")
    stats = json.loads(out_stats)
    judged = sum(
        int(line.split(" judged")[0].rsplit(" ", 1)[1])
        for line in out.splitlines()
        if line.startswith("pass 1")
    )
    # every judged answer either became a card or was rejected (unreadable reflection or a leak)
    rejected = sum(
        int(n)
        for line in out.splitlines()
        if "rejected:" in line
        for n, _ in (part.split(" ", 1) for part in line.split("rejected: ")[1].split(", "))
    )
    assert stats["cards"] + rejected == judged > 0

    before = digest(bank)
    code, out, err = run_cli(
        "ask",
        str(tmp_path / "dep"),
        "--agent",
        "openai:gemma",
        "--prompting",
        "memory",
        "--memory-bank",
        str(bank),
        "--base-url",
        server,
        "--view",
        "text",
        "--max-tokens",
        "48",
    )
    assert code == 0, err
    answers = list((tmp_path / "dep" / "answers").glob("*+memory.lp"))
    assert answers and "answer(" in answers[0].read_text()
    code, out, err = run_cli(
        "memory",
        "compare",
        str(tmp_path / "dep"),
        "--agent",
        "openai:gemma",
        "--bank",
        str(bank),
        *common,
        "--out",
        str(tmp_path / "cmp.json"),
    )
    assert code == 0, err
    cmp = json.loads((tmp_path / "cmp.json").read_text())
    assert set(cmp["agents"]) == {"none", "rag", "sma"} and cmp["accuracy"]["sma"]["judged"] > 0
    assert digest(bank) == before  # deployment changed nothing in the bank
