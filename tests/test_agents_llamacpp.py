"""The in-process llamacpp backend with the packaged Gemma 3 270M model (the offline default)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli
from helpers_agents import read_answers, write_run
from metalogic.agents.parse import parse_reply
from metalogic.agents.prompts import PromptBuilder, PromptOptions
from metalogic.agents.rundir import load_run
from metalogic.agents.store import clean_raw
from metalogic.agents.values import space_for
from metalogic.engine.terms import parse_term, quote, text

pytestmark = pytest.mark.slow

TWO = (
    "query(p1, obj_dir(hall, 0, mug, duck)).\nform(p1, choice).\n"
    "query(p2, size(hall, 0, mug)).\nform(p2, free).\n"
)


def test_packaged_model_answers_with_constrained_json(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", queries=TWO)
    code, out, err = run_cli(
        "ask",
        str(run),
        "--agent",
        "llamacpp",
        "--max-tokens",
        "24",
        "--cache",
        str(tmp_path / "c.sqlite3"),
        "--no-progress",
    )
    assert code == 0, err
    assert "llamacpp: 2 to ask of 2 questions (0 answered before); 2 answered" in out
    answers = read_answers(run / "answers" / "llamacpp.lp")
    space = space_for(load_run(run).questions[0])
    assert space.contains(parse_term(answers["p1"]))  # the grammar kept the reply to the options
    manifest = json.loads((run / "answers" / "llamacpp.json").read_text())
    assert manifest["backend"] == "llamacpp" and manifest["model"] == "gemma3-270m"
    assert manifest["view"] == "text" and manifest["tokens"]["completion"] > 0
    assert "llama_cpp_python" in manifest["versions"]


def test_unconstrained_replies_are_parsed_or_kept_raw(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", queries=TWO)
    code, _out, err = run_cli(
        "ask",
        str(run),
        "--agent",
        "llamacpp",
        "--max-tokens",
        "24",
        "--structured",
        "off",
        "--no-cache",
        "--no-progress",
    )
    assert code == 0, err
    lp = (run / "answers" / "llamacpp.lp").read_text()
    answers = read_answers(run / "answers" / "llamacpp.lp")
    rd = load_run(run)
    prompts = {q.key: PromptBuilder(rd, PromptOptions(view="text")).build(q) for q in rd.questions}
    recs = [json.loads(x) for x in (run / "answers" / "llamacpp.jsonl").read_text().splitlines()[1:]]
    for rec in recs:
        # the stored answer is what the parser reads from the raw reply, and an unusable reply keeps its text
        p = prompts[rec["qid"]]
        value = parse_reply(rec["raw"], p.space, p.text) if rec["raw"].strip() else None
        assert answers[rec["qid"]] == (text(value) if value is not None else "invalid")
        if value is None:
            assert f"raw_reply(llamacpp, {rec['qid']}, {quote(clean_raw(rec['raw']))})." in lp


def test_llamacpp_takes_text_only(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", queries=TWO)
    code, _out, err = run_cli("ask", str(run), "--agent", "llamacpp", "--view", "image")
    assert code == 2
    assert err == ("error: the llamacpp backend takes text only\n  fix: use --view text (or leave it out)\n")


def test_missing_gguf_is_a_clear_error(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", queries=TWO)
    code, _out, err = run_cli("ask", str(run), "--agent", "llamacpp:nowhere/model.gguf")
    assert code == 2
    assert err == (
        "error: GGUF model file not found: nowhere/model.gguf\n"
        "  expected: llamacpp:PATH to a .gguf file, or llamacpp for the packaged Gemma 3 270M\n"
        "  fix: check the path\n"
    )
