"""The answer journal and facts file (resume, torn lines, changed questions, settings, locking) and
the response cache, exercised with reference agents (no model needed)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from helpers import run_cli
from helpers_agents import read_answers, write_run
from metalogic.agents.base import Question
from metalogic.agents.cache import ReplyCache
from metalogic.agents.store import AnswerStore, agent_term, clean_raw, slug
from metalogic.engine.errors import MetalogicError
from metalogic.engine.terms import Atom, Str, parse_term


def test_names_and_raw_text() -> None:
    assert agent_term("oracle") == Atom("oracle") and agent_term("noisy:0.2") == Str("noisy:0.2")
    assert slug("openai:gpt-4o+cot") == "openai_gpt-4o+cot"
    assert slug("llamacpp:/models/x.gguf") == "llamacpp_models_x.gguf"
    assert len(slug("openai:" + "m" * 200)) == 73
    assert clean_raw("a\r\nb\x00c\td") == "a\nb c\td"


def test_torn_journal_line_is_cut_and_the_question_asked_again(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    assert run_cli("ask", str(run), "--agent", "random")[0] == 0
    journal = run / "answers" / "random.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    # as if killed while writing the last answer: half a line, no newline
    journal.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    before = read_answers(run / "answers" / "random.lp")
    code, out, err = run_cli("ask", str(run), "--agent", "random")
    assert code == 0, err
    assert "random: 1 to ask of 6 questions (5 answered before); 1 answered" in out
    assert read_answers(run / "answers" / "random.lp") == before  # seeded per question: same answer again
    assert journal.read_text().count("\n") == len(lines) and all(
        json.loads(x) for x in journal.read_text().split("\n")[:-1]
    )


def test_other_settings_do_not_resume(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    assert run_cli("ask", str(run), "--agent", "noisy:0.5", "--seed", "1")[0] == 0
    code, _out, err = run_cli("ask", str(run), "--agent", "noisy:0.5", "--seed", "2")
    assert code == 2
    journal = run / "answers" / "noisy_0.5.jsonl"
    from metalogic.engine.facts import display_path

    assert err == (
        f"error: {display_path(journal)} holds answers asked with other settings (seed)\n"
        "  expected: the settings of the earlier run, to resume it\n"
        "  fix: repeat the earlier settings to resume, add --restart to discard those answers, or "
        "give this run another --name\n"
    )
    code, out, _ = run_cli("ask", str(run), "--agent", "noisy:0.5", "--seed", "2", "--restart")
    assert code == 0 and "(0 answered before)" in out
    code, out, _ = run_cli("ask", str(run), "--agent", "noisy:0.5", "--seed", "1", "--name", "noisy-seed1")
    assert code == 0 and (run / "answers" / "noisy-seed1.lp").exists()


def test_changed_questions_are_asked_again(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    assert run_cli("ask", str(run), "--agent", "oracle")[0] == 0
    queries = (
        (run / "queries.lp")
        .read_text()
        .replace("query(q5, size(hall, 0, mug))", "query(q5, size(hall, 0, ball))")
    )
    (run / "queries.lp").write_text(queries)
    code, out, err = run_cli("ask", str(run), "--agent", "oracle")
    assert code == 0, err
    assert "oracle: 1 to ask of 6 questions (5 answered before)" in out
    assert "1 earlier answer(s) were to questions that changed or are gone; not kept" in out
    assert read_answers(run / "answers" / "oracle.lp")["q5"] == "220"  # the ball's height, not the mug's


def test_one_writer_per_journal(tmp_path: Path) -> None:
    questions = [Question(Atom("q1"), parse_term("size(t, 0, a)"))]
    first = AnswerStore(tmp_path, "a", {}, questions)
    try:
        with pytest.raises(MetalogicError) as err:
            AnswerStore(tmp_path, "a", {}, questions)
        assert "another 'metalogic ask' is writing" in err.value.render()
    finally:
        first.close()
    AnswerStore(tmp_path, "a", {}, questions).close()  # free again


def test_cache_keeps_usable_replies_only(tmp_path: Path) -> None:
    cache = ReplyCache(tmp_path / "c.sqlite3")
    assert cache.put("k1", "m", '{"answer": "n"}', 10, 5, None)
    assert not cache.put("k2", "m", "", 10, 0, None) and not cache.put("k3", "m", " \n", 10, 1, None)
    assert len(cache) == 1 and cache.get("k2") is None
    hit = cache.get("k1")
    assert hit is not None and hit.text == '{"answer": "n"}' and hit.completion_tokens == 5
    cache.close()
    with sqlite3.connect(tmp_path / "c.sqlite3") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
