"""Property tests: arbitrary Unicode replies and agent names go through ask -> answers file ->
resume -> `metalogic check`, and every step agrees with the others (the same answers, nothing asked
twice, check reads everything ask wrote); any text is read by the reply reader in bounded time,
and any raw reply survives the facts file unchanged."""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from helpers import run_cli
from helpers_agents import read_answers, write_run
from helpers_hostile import Script, chat, hostile_server
from metalogic.agents.base import Question
from metalogic.agents.parse import PARSE_DEADLINE_S, parse_reply
from metalogic.agents.store import clean_raw, slug
from metalogic.agents.values import space_for
from metalogic.engine.facts import read_facts
from metalogic.engine.terms import Atom, Fun, Str, parse_term, quote, text

TWO = (
    "query(q1, obj_dir(hall, 0, mug, duck)).\nform(q1, choice).\n"
    "query(q2, size(hall, 0, mug)).\nform(q2, free).\n"
)
SPACES = {
    "q1": space_for(Question(Atom("q1"), parse_term("obj_dir(hall, 0, mug, duck)")), 250),
    "q2": space_for(Question(Atom("q2"), parse_term("size(hall, 0, mug)"), Atom("free")), 250),
}
# Text with the characters that break line-oriented code: every Unicode category (lone surrogates
# travel as JSON escapes), weighted towards line separators, quotes, braces and digits.
TRICKY = "\n\r\u2028\u2029\u0085\x0c\x0b\x1c\x00\t\"'\\{}[]%.:- 0123456789"
REPLIES = st.text(st.characters(exclude_categories=[]) | st.sampled_from(TRICKY), max_size=60) | st.builds(
    lambda a, b: json.dumps({"answer": a}) + b, st.sampled_from(["nearer_left", "left", "7", "x"]), st.text()
)
NAMES = st.text(st.characters(exclude_categories=["Cs"]) | st.sampled_from(TRICKY), min_size=1, max_size=12)
PROPS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


class Server:
    """One hostile server for all examples; each example queues its own replies."""

    def __init__(self, url: str, script: Script) -> None:
        self.url, self.script, self.queue = url, script, list[str]()

    def reply(self, request: dict) -> object:
        return chat(self.queue.pop(0) if self.queue else "")


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    script = Script()
    holder: list[Server] = []
    script.default = lambda request: holder[0].reply(request)  # type: ignore[assignment, return-value]
    with hostile_server(script) as url:
        holder.append(Server(url, script))
        yield holder[0]


def ask(run: Path, name: str, url: str) -> tuple[int, str, str]:
    return run_cli(
        "ask", str(run), "--agent", "openai:m", f"--name={name}", "--base-url", url, "--view", "text",
        "--concurrency", "1", "--no-cache", "--no-progress",
    )  # fmt: skip


@given(replies=st.tuples(REPLIES, REPLIES), name=NAMES)
@example(replies=("", ""), name="0.0")  # a name with a dot (the test once cut its file name at it)
@PROPS
def test_ask_resume_and_check_agree_on_any_reply_and_name(
    server: Server, replies: tuple[str, str], name: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        run = write_run(Path(tmp) / "run", queries=TWO)
        server.queue = list(replies)
        asked = len(server.script.requests)
        code, out, err = ask(run, name, server.url)
        if any(ord(c) < 32 or c == "\x7f" for c in name):  # a name the facts file cannot hold
            assert code == 2 and "holds the control character" in err
            return
        assert code == 0, err
        assert len(server.script.requests) - asked == 2
        files = run / "answers" / slug(name)
        journal_path = files.parent / f"{files.name}.jsonl"  # not with_suffix: a slug may hold a dot ("0.0")
        records = [json.loads(x) for x in journal_path.read_text("utf-8").split("\n")[1:] if x]
        assert [r["qid"] for r in records] == ["q1", "q2"]
        # the journal keeps each reply (lone surrogates made U+FFFD), and its value is what the reader says
        for r, sent in zip(records, replies, strict=True):
            assert r["raw"] == re.sub("[\ud800-\udfff]", "\ufffd", sent)
            got = parse_reply(r["raw"], SPACES[r["qid"]])
            assert r["value"] == ("invalid" if got is None else text(got))
        # the facts file holds the same answers, and the unusable replies as they were cleaned
        lp = files.parent / f"{files.name}.lp"
        assert read_answers(lp) == {r["qid"]: r["value"] for r in records}
        raws = {
            str(t.args[1]): t.args[2]
            for t in map(parse_term, read_facts(lp).facts)
            if isinstance(t, Fun) and t.name == "raw_reply"
        }
        assert raws == {r["qid"]: Str(clean_raw(r["raw"])) for r in records if r["value"] == "invalid"}
        # resuming asks nothing and journals nothing
        journal = journal_path.read_bytes()
        code, out, err = ask(run, name, server.url)
        assert code == 0, err
        assert "0 to ask of 2 questions (2 answered before)" in out
        assert len(server.script.requests) - asked == 2 and journal_path.read_bytes() == journal
        # check reads every fact ask wrote
        code, out, err = run_cli("check", str(run))
        assert code == 0, err
        assert f"{len(read_facts(run))} facts from 3 file(s)" in out


@given(
    st.lists(
        st.sampled_from(
            ["turned", "turn", " ", "  ", "1", "90", "to the", "degrees", "°", "{", "}", "[", "]"]
        )
        | st.sampled_from(['"answer":', ",", ".", "5", "m", "answer:", "left", "x", "\u2028", "-", "e"]),
        max_size=3000,
    ).map("".join)
    | st.text(max_size=3000),
    st.sampled_from(sorted(SPACES)),
)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_reply_is_read_in_bounded_time(reply: str, qid: str) -> None:
    start = time.monotonic()
    value = parse_reply(reply, SPACES[qid])
    assert time.monotonic() - start < PARSE_DEADLINE_S + 0.5
    assert value is None or SPACES[qid].contains(value)


@given(st.text(st.characters(codec="utf-8") | st.sampled_from(TRICKY)))
@settings(max_examples=200, deadline=None)
def test_any_raw_reply_survives_the_facts_file(raw: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "a.lp")
        line = f"raw_reply(ag, q1, {quote(clean_raw(raw))}).\n"
        path.write_text("query(q1, size(t, 0, o)).\n" + line + "answer(ag, q1, invalid).\n", encoding="utf-8")
        facts = read_facts(path).facts
    assert len(facts) == 3  # nothing split, nothing lost
    got = parse_term(facts[1])
    assert isinstance(got, Fun) and got.args[2] == Str(clean_raw(raw))
