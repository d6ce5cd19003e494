"""`metalogic ask` against a hostile OpenAI-compatible server (tests/helpers_hostile.py): replies
with Unicode line separators, pathological patterns, broken bodies, a trickle, a huge body, lone
surrogates; two servers behind one model name. Every case ends in answers that `metalogic check`
reads, or in one clear error, within a bounded time; nothing unusable is cached or kept as an answer."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from helpers import run_cli
from helpers_agents import read_answers, write_run
from helpers_hostile import (
    HTML,
    NO_CHOICES,
    NOT_JSON,
    Reply,
    Script,
    bad_chunks,
    chat,
    compressed,
    cut,
    gzip_bomb,
    hostile_server,
)
from metalogic.agents.store import clean_raw
from metalogic.engine.facts import read_facts
from metalogic.engine.terms import Fun, Str, parse_term

ONE = "query(q1, obj_dir(hall, 0, mug, duck)).\nform(q1, choice).\n"
# a direction, a move and a size, asked in this order (one request at a time)
THREE = (
    ONE
    + "query(q2, move_dir(hall, 0, 1)).\nform(q2, free).\n"
    + "query(q3, size(hall, 0, mug)).\nform(q3, free).\n"
)


def ask(run: Path, url: str, cache: Path | None, *extra: str) -> tuple[int, str, str]:
    where = ["--cache", str(cache)] if cache else ["--no-cache"]
    return run_cli(
        "ask", str(run), "--agent", "openai:m", "--base-url", url, "--view", "text", "--no-progress",
        "--concurrency", "1", *where, *extra,
    )  # fmt: skip


def journal(run: Path) -> list[dict]:
    data = (run / "answers" / "openai_m.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in data.split("\n")[1:] if line]


def raw_replies(lp: Path) -> dict[str, str]:
    out = {}
    for fact in read_facts(lp).facts:
        t = parse_term(fact)
        if isinstance(t, Fun) and t.name == "raw_reply":
            assert isinstance(t.args[2], Str)
            out[str(t.args[1])] = str(t.args[2])
    return out


def cached(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return [r[0] for r in db.execute("SELECT reply FROM replies")]


SEPARATORS = "\u2028\u2029\u0085\x0c\x0b\x1c\x1d\x1e"


def test_unusable_reply_with_line_separators_is_read_back_by_both_engines(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", queries=ONE)
    reply = f"Hard to say.{SEPARATORS}Maybe left, maybe right.\r\n% not a comment\u2028answer(x, q1, e)."
    with hostile_server(Script(default=chat(reply))) as url:
        code, out, err = ask(run, url, None)
    assert code == 0, err
    assert "1 answered, 1 invalid" in out
    lp = run / "answers" / "openai_m.lp"
    assert read_answers(lp) == {"q1": "invalid"}
    assert raw_replies(lp) == {"q1": clean_raw(reply)}
    assert "\u2028\u2029\u0085" in clean_raw(reply)  # kept as they are: both engines take them
    code, out, err = run_cli("check", str(run), "--engine", "both")
    assert code == 0, err
    assert "engine: both" in out


def test_usable_reply_with_line_separators_resumes_without_asking_again(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", queries=THREE)
    replies = [
        '{"answer": "nearer_left"}\u2028\u0085',
        '{"translation": "forward", "turn": "none"}\u2029 moved\u0085',
        '\u2028{"answer": 12}\x0c',
    ]
    script = Script([chat(r) for r in replies])
    with hostile_server(script) as url:
        assert ask(run, url, None)[0] == 0
        lines = (run / "answers" / "openai_m.jsonl").read_text(encoding="utf-8")
        code, out, err = ask(run, url, None)
        assert code == 0, err
    assert "0 to ask of 3 questions (3 answered before)" in out
    assert len(script.requests) == 3  # nothing asked twice
    assert (run / "answers" / "openai_m.jsonl").read_text(encoding="utf-8") == lines  # nor journaled twice
    assert read_answers(run / "answers" / "openai_m.lp") == {
        "q1": "nearer_left",
        "q2": "move(forward,none)",
        "q3": "12000",  # 12 m: free-form sizes are asked in metres
    }
    assert [r["raw"] for r in journal(run)] == replies


def test_pathological_replies_are_read_quickly_and_cached_only_once_read(tmp_path: Path) -> None:
    run, cache = write_run(tmp_path / "run", queries=THREE), tmp_path / "cache.sqlite3"
    bombs = [
        '{"answer": ' * 5000 + '"x"' + "}" * 5000 + "[" * 100_000,  # nested JSON, deeper than Python goes
        "I turned" + " 1 " * 30 + " x",  # exponential backtracking in the old turn pattern
        "1" * 30_000 + "x",  # quadratic time in the old number pattern
    ]
    script = Script([chat(b) for b in bombs])
    with hostile_server(script) as url:
        start = time.monotonic()
        code, out, err = ask(run, url, cache)
        assert code == 0, err
        assert time.monotonic() - start < 10  # was: RecursionError, and a hang only kill -9 ends
        assert "3 answered, 3 invalid" in out
        assert sorted(cached(cache)) == sorted(bombs)  # each was read first, then kept
        # asked again from scratch, they come from the cache and are read again without trouble
        code, out, err = ask(run, url, cache, "--restart")
    assert code == 0, err
    assert "3 answered, 3 from the cache, 3 invalid" in out and len(script.requests) == 3


def test_a_reply_that_breaks_the_reader_is_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import metalogic.agents.model as model

    def broken(*args: object, **kw: object) -> None:
        raise RuntimeError("reader failed")

    monkeypatch.setattr(model, "parse_reply", broken)
    run, cache = write_run(tmp_path / "run", queries=ONE), tmp_path / "cache.sqlite3"
    with hostile_server(Script()) as url, pytest.raises(RuntimeError, match="reader failed"):
        ask(run, url, cache)
    assert cached(cache) == []


def test_bodies_that_are_not_completions_are_retried_never_answers(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", queries=ONE)
    script = Script([NOT_JSON, HTML, NO_CHOICES], default=chat('{"answer": "farther_right"}'))
    with hostile_server(script) as url:
        code, _out, err = ask(run, url, tmp_path / "c.sqlite3", "--retries", "3")
    assert code == 0, err
    assert read_answers(run / "answers" / "openai_m.lp") == {"q1": "farther_right"}
    assert [r["attempts"] for r in journal(run)] == [4]
    manifest = json.loads((run / "answers" / "openai_m.json").read_text())
    assert manifest["sessions"][-1]["retries"] == 3 and manifest["answers"]["invalid"] == 0


def test_bodies_that_are_not_completions_fail_the_question_after_the_retries(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", queries=ONE)
    cache = tmp_path / "c.sqlite3"
    with hostile_server(Script(default=HTML)) as url:
        code, _out, err = ask(run, url, cache, "--retries", "1")
    assert code == 2
    assert err == (
        "error: 1 question(s) got no answer; first: q1: gave up after 2 attempts: the server's reply is not "
        "JSON: '<html><body><h1>502 Bad Gateway</h1></body></html>'\n"
        "  fix: run the same command again to ask them (everything answered is kept)\n"
    )
    assert read_answers(run / "answers" / "openai_m.lp") == {} and cached(cache) == []
    with hostile_server(Script(default=NO_CHOICES)) as url:
        code, _out, err = ask(run, url, cache, "--retries", "0")
    assert code == 2 and 'the server\'s reply is not a chat completion: \'{"object": "error"' in err
    with hostile_server(Script(default=NOT_JSON)) as url:
        code, _out, err = ask(run, url, cache, "--retries", "0")
    assert code == 2 and "the server's reply is not JSON: 'this is not json {'" in err
    # the question was never answered, so the next run asks it
    with hostile_server(Script()) as url:
        code, out, err = ask(run, url, cache)
    assert code == 0 and "1 to ask of 1 questions (0 answered before)" in out


def test_a_body_past_the_size_cap_is_cut_off_and_fails_the_question(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", queries=ONE)
    cache = tmp_path / "c.sqlite3"
    huge = Reply(b"A" * 2**16, repeat=800)  # 50 MiB, sent 64 KiB at a time, with HTTP 200
    with hostile_server(Script(default=huge)) as url:
        code, _out, err = ask(run, url, cache, "--retries", "1")
    assert code == 2
    assert err == (
        "error: 1 question(s) got no answer; first: q1: gave up after 2 attempts: the server's reply "
        f"body passed 4 MiB; a chat completion is far smaller: '{'A' * 120}'...\n"
        "  fix: run the same command again to ask them (everything answered is kept)\n"
    )
    assert read_answers(run / "answers" / "openai_m.lp") == {} and cached(cache) == []
    # the question was never answered, so the next run asks it
    with hostile_server(Script()) as url:
        code, out, err = ask(run, url, cache)
    assert code == 0 and "1 to ask of 1 questions (0 answered before)" in out


def test_timeout_bounds_a_server_that_trickles(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", queries=ONE)
    trickle = Reply(chat('{"answer": "left"}').body, trickle_s=0.5)  # ~2 bytes a second
    start = time.monotonic()
    with hostile_server(Script(default=trickle)) as url:
        code, _out, err = ask(run, url, None, "--timeout", "1.5", "--retries", "1")
    took = time.monotonic() - start
    assert code == 2
    assert "first: q1: gave up after 2 attempts: no complete reply within 1.5 s" in err
    assert 3.0 <= took < 8  # two attempts of 1.5 s and one backoff; the whole body would take minutes


def test_lone_surrogates_from_the_server_are_written_as_replacement_characters(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", queries=ONE)
    body = b'{"choices": [{"message": {"content": "no idea \\ud800 \\udfff"}}]}'
    with hostile_server(Script(default=Reply(body))) as url:
        code, _out, err = ask(run, url, tmp_path / "c.sqlite3")
    assert code == 0, err
    assert raw_replies(run / "answers" / "openai_m.lp") == {"q1": "no idea \ufffd \ufffd"}
    assert run_cli("check", str(run))[0] == 0


def test_two_servers_with_one_model_name_do_not_share_cached_replies(tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite3"
    first, second = write_run(tmp_path / "a", queries=ONE), write_run(tmp_path / "b", queries=ONE)
    a = Script(default=chat('{"answer": "nearer_left"}'))
    b = Script(default=chat('{"answer": "farther_right"}'))
    with hostile_server(a) as url_a, hostile_server(b) as url_b:
        assert ask(first, url_a, cache)[0] == 0
        assert ask(second, url_b, cache)[0] == 0
        assert ask(second, url_a + "/", cache, "--restart")[0] == 0  # the same server, spelt with a '/'
    assert read_answers(first / "answers" / "openai_m.lp") == {"q1": "nearer_left"}
    assert len(a.requests) == 1 and len(b.requests) == 1
    assert read_answers(second / "answers" / "openai_m.lp") == {"q1": "nearer_left"}  # from a's cache entry


def test_a_damaged_cache_entry_is_one_clear_error(tmp_path: Path) -> None:
    run, cache = write_run(tmp_path / "run", queries=ONE), tmp_path / "cache.sqlite3"
    with hostile_server(Script()) as url:
        assert ask(run, url, cache)[0] == 0
        with sqlite3.connect(cache) as db:
            db.execute("UPDATE replies SET prompt_tokens = '10); DROP TABLE replies; --'")
        code, _out, err = ask(run, url, cache, "--restart")
    assert code == 2
    assert err == (
        f"error: {cache}: the reply cache is damaged: the entry {_only_key(cache)[:12]}... holds "
        "the text '10); DROP TABLE replies; --' in column prompt_tokens\n"
        "  expected: a cache written by 'metalogic ask' (text replies, whole token counts)\n"
        f"  fix: delete {cache} (it holds only replies that can be asked for again), or pass another "
        "--cache PATH, or --no-cache\n"
    )


def _only_key(cache: Path) -> str:
    with sqlite3.connect(cache) as db:
        (key,) = db.execute("SELECT key FROM replies").fetchone()
    return str(key)


def _peak_mib(run: Path, url: str, cache: Path | None, *extra: str) -> tuple[int, str, float]:
    """ask, with the most memory Python held meanwhile (MiB; the server thread's included), measured
    after a first ask has imported everything an ask needs."""
    import tracemalloc

    warm = write_run(run.parent / "warm", queries=ONE)
    with hostile_server(Script()) as good:
        assert ask(warm, good, None)[0] == 0
    tracemalloc.start()
    try:
        code, _out, err = ask(run, url, cache, *extra)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    return code, err, peak


def test_a_gzip_bomb_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    """256 MiB of zeros in a gzip body gzipped again (a few KB), with HTTP 200: refused after 4 MiB of
    output, not decoded whole, layer by layer, first."""
    run = write_run(tmp_path / "run", queries=ONE)
    with hostile_server(Script(default=gzip_bomb(256, layers=2))) as url:
        code, err, peak = _peak_mib(run, url, tmp_path / "c.sqlite3", "--retries", "0")
    assert peak < 24, peak
    assert code == 2
    assert (
        "first: q1: gave up after 1 attempts: the server's reply body passed 4 MiB; a chat completion is "
        in err
    )


def test_an_error_reply_is_read_only_to_its_first_64_kib(tmp_path: Path) -> None:
    """HTTP 500 with a 100 MiB body, and with a gzip bomb: the openai SDK reads an error body whole,
    so the transport cuts it off first; its start is the message."""
    run = write_run(tmp_path / "run", queries=ONE)
    huge = Reply(b"A" * 2**16, status=500, content_type="text/plain", repeat=1600)
    start = time.monotonic()
    with hostile_server(Script(default=huge)) as url:
        code, err, peak = _peak_mib(run, url, None, "--retries", "0")
    assert peak < 24, peak
    assert code == 2 and time.monotonic() - start < 20
    assert f"first: q1: gave up after 1 attempts: HTTP 500: Error code: 500: '{'A' * 120}'...\n" in err
    with hostile_server(Script(default=gzip_bomb(256, status=500))) as url:
        code, err, peak = _peak_mib(run, url, None, "--retries", "0")
    assert peak < 24, peak
    assert code == 2 and "first: q1: gave up after 1 attempts: HTTP 500: Error code: 500: '\\x00" in err


@pytest.mark.parametrize("coding", ["gzip", "deflate", "raw-deflate"])
def test_a_compressed_reply_is_read(tmp_path: Path, coding: str) -> None:
    run = write_run(tmp_path / "run", queries=ONE)
    with hostile_server(Script(default=compressed(chat('{"answer": "farther_right"}'), coding))) as url:
        code, _out, err = ask(run, url, None)
    assert code == 0, err
    assert read_answers(run / "answers" / "openai_m.lp") == {"q1": "farther_right"}


def test_a_reply_in_an_unknown_encoding_is_a_transient_failure(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", queries=ONE)
    brotli = Reply(b"\x1b\x03\x00\xf8garbage", headers=(("Content-Encoding", "br"),))
    bad_gzip = Reply(b"\x1f\x8b\x08\x00not gzip at all", headers=(("Content-Encoding", "gzip"),))
    script = Script([brotli, bad_gzip], default=chat('{"answer": "nearer_left"}'))
    with hostile_server(script) as url:
        code, _out, err = ask(run, url, None, "--retries", "2")
    assert code == 0, err
    assert read_answers(run / "answers" / "openai_m.lp") == {"q1": "nearer_left"}
    assert [r["attempts"] for r in journal(run)] == [3]
    with hostile_server(Script(default=brotli)) as url:
        code, _out, err = ask(run, url, None, "--retries", "0", "--restart")
    assert code == 2
    assert (
        "first: q1: gave up after 1 attempts: the server sent its reply in the content encoding 'br', which "
        "is not read (gzip and deflate are)\n"
    ) in err


def test_a_cache_entry_longer_than_any_reply_body_is_damaged(tmp_path: Path) -> None:
    run, cache = write_run(tmp_path / "run", queries=ONE), tmp_path / "cache.sqlite3"
    with hostile_server(Script()) as url:
        assert ask(run, url, cache)[0] == 0
        with sqlite3.connect(cache) as db:
            db.execute("UPDATE replies SET reply = ?", ("x" * (4 * 2**20 + 1),))
        code, _out, err = ask(run, url, cache, "--restart")
    assert code == 2
    assert err.startswith(
        f"error: {cache}: the reply cache is damaged: the entry {_only_key(cache)[:12]}... holds a reply of "
        "more than 4,194,304 characters (a reply body is read only up to 4 MiB)\n"
    )


@pytest.mark.parametrize(
    "line",
    [b"[" * 100_000, b'{"qid": "q1", "raw": "\xff\xfe"}', b'{"qid": "q1", "latency_s": NaN}'],
    ids=["nested", "not-utf8", "nan"],
)
def test_a_damaged_journal_line_is_asked_again(tmp_path: Path, line: bytes) -> None:
    """A journal line nested past the recursion limit, or not UTF-8, once stopped every later ask of
    the run with a traceback; now the line is not an answer and its question is asked again."""
    run = write_run(tmp_path / "run", queries=THREE)
    with hostile_server(script := Script()) as url:
        assert ask(run, url, None)[0] == 0
        path = run / "answers" / "openai_m.jsonl"
        lines = path.read_bytes().split(b"\n")
        path.write_bytes(b"\n".join([lines[0], line, *lines[2:]]))  # the first answer is replaced
        code, out, err = ask(run, url, None)
    assert code == 0, err
    assert "1 to ask of 3 questions (2 answered before)" in out and len(script.requests) == 4


def _broken(reply: Reply) -> list[Reply]:
    """The ways a reply body breaks on the wire: cut short of its Content-Length (a connection that
    drops while the body streams in), and a malformed chunked body."""
    return [cut(reply, len(reply.body) // 2), bad_chunks(reply)]


def test_a_connection_dropped_in_the_body_is_retried_like_any_failure(tmp_path: Path) -> None:
    """The whole Content-Length announced and the connection closed half way (e.g. 148 of 297 bytes),
    then a malformed chunked body: each is one failed attempt, retried within --retries, and the
    question gets its answer."""
    run = write_run(tmp_path / "run", queries=ONE)
    good = chat('{"answer": "farther_right"}')
    script = Script(_broken(good), default=good)
    with hostile_server(script) as url:
        code, _out, err = ask(run, url, tmp_path / "c.sqlite3", "--retries", "2")
    assert code == 0, err
    assert read_answers(run / "answers" / "openai_m.lp") == {"q1": "farther_right"}
    assert [r["attempts"] for r in journal(run)] == [3] and len(script.requests) == 3


BEFORE_THE_BODY = {
    "no-reply": Reply(b"", raw=b""),
    "cut-in-headers": Reply(b"", raw=b"HTTP/1.1 200 OK\r\nContent-Type: applica"),
    "not-http": Reply(b"", raw=b"SSH-2.0-OpenSSH_9.6\r\n\r\n"),
}


@pytest.mark.parametrize("case", sorted(BEFORE_THE_BODY))
def test_a_connection_that_breaks_before_the_body_is_retried_too(tmp_path: Path, case: str) -> None:
    """No reply at all, headers cut off, something that is not HTTP: each one failed attempt."""
    run = write_run(tmp_path / "run", queries=ONE)
    bad = BEFORE_THE_BODY[case]
    script = Script([bad, bad], default=chat('{"answer": "farther_right"}'))
    with hostile_server(script) as url:
        code, _out, err = ask(run, url, None, "--retries", "2")
    assert code == 0, err
    assert read_answers(run / "answers" / "openai_m.lp") == {"q1": "farther_right"}
    assert [r["attempts"] for r in journal(run)] == [3]
    with hostile_server(Script(default=bad)) as url:
        code, _out, err = ask(run, url, None, "--retries", "0", "--restart")
    assert code == 2 and "Traceback" not in err
    assert err.startswith("error: 1 question(s) got no answer; first: q1: gave up after 1 attempts: "), err


@pytest.mark.parametrize("broken", [0, 1], ids=["cut-short", "bad-chunks"])
def test_a_reply_that_always_breaks_fails_its_question_and_the_run_goes_on(
    tmp_path: Path, broken: int
) -> None:
    run = write_run(tmp_path / "run", queries=THREE)
    good = chat('{"answer": "farther_right"}')
    bad = _broken(good)[broken]
    script = Script([bad, bad], default=chat("3"))
    cache = tmp_path / "c.sqlite3"
    with hostile_server(script) as url:
        code, out, err = ask(run, url, cache, "--retries", "1", "--limit", "2")
    assert code == 2
    why = {
        0: "peer closed connection without sending complete message body",
        1: "illegal chunk header: bytearray(b'zz\\r\\n')",
    }[broken]
    first = err.split("\n")[0]
    assert first.startswith(
        "error: 1 question(s) got no answer; first: q1: gave up after 2 attempts: the connection broke "
        f"while the reply was read: {why}"
    ), err
    assert "Traceback" not in err and "2 to ask of 3 questions" in out
    assert len(script.requests) == 3  # q1 twice, then q2: the run went on with the other question
    assert set(read_answers(run / "answers" / "openai_m.lp")) == {"q2"}
    assert len(cached(cache)) == 1  # q2's reply only; nothing of a broken body is kept
