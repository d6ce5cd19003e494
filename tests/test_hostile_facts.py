"""Facts files a careless or hostile writer produces: Unicode line separators, a byte order mark,
an endless line, terms nested hundreds deep. Each is read as both engines read it, or refused with
one clear error at the right file:line:col, in bounded time and memory. One question asked under
hundreds of query ids is checked, with a warning of what it costs."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from helpers import run_cli
from metalogic.engine.check.run import MAX_COPIES, many_copies
from metalogic.engine.errors import MetalogicError
from metalogic.engine.facts import MAX_LINE_BYTES, FactSet, read_facts
from metalogic.engine.terms import MAX_DEPTH, ParseError, parse_term

Q1 = "query(q1, map_dir(t, 0, a, b)).\n"


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(name: str, body: str | bytes) -> Path:
    path = Path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(body, str):
        body = body.encode("utf-8")
    path.write_bytes(body)
    return path


def check_fails(folder: str) -> str:
    code, out, err = run_cli("check", folder)
    assert (code, out) == (2, ""), (code, out, err)
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\u0085", "\x0c", "\x0b", "\x1c", "\r"])
def test_line_separators_in_comments_are_comment_text(sep: str) -> None:
    write(
        "f/a.lp",
        f"% a comment{sep}still the comment\n{Q1}answer(ag, q1, n). % and{sep}here\nanswr(ag, q1, n).\n",
    )
    # the only error is on line 4 (str.splitlines() also failed on the comment tails, and said 6)
    assert check_fails("f") == (
        "error: f/a.lp:4:1: unknown predicate answr/3\n"
        "    answr(ag, q1, n).\n"
        "    ^\n"
        f"  expected: one of {_known()}\n"
        "  fix: did you mean answer/3?\n"
    )


def test_strings_with_line_separators_are_read_by_both_engines() -> None:
    text = "a\u2028b\u2029c\u0085d\u00a0e\ufeff f\x7f"
    write("f/a.lp", f'{Q1}answer("ag\u2028x", q1, invalid).\nraw_reply("ag\u2028x", q1, "{text}").\n')
    facts = read_facts("f").facts
    assert facts[-1] == f'raw_reply("ag\u2028x", q1, "{text}")'
    code, out, err = run_cli("check", "f", "--engine", "both")
    assert code == 0, err
    assert out.rstrip().endswith("engine: both")  # both engines read them and agree


def test_a_byte_order_mark_is_accepted() -> None:
    write("f/a.lp", b"\xef\xbb\xbf" + Q1.encode() + b"answer(ag, q1, n).\n")
    assert read_facts("f").facts == ["query(q1, map_dir(t, 0, a, b))", "answer(ag, q1, n)"]
    code, _out, err = run_cli("check", "f", "--engine", "both")
    assert code == 0, err
    # only at the start of a file: elsewhere it is a character like any other, and not a fact
    write("g/a.lp", Q1 + "\ufeffanswer(ag, q1, n).\n")
    assert "g/a.lp:2:1: syntax error: unexpected '\ufeff'" in check_fails("g")


def test_a_line_over_the_limit_is_refused_in_bounded_memory() -> None:
    long = 'raw_reply(ag, q1, "' + "é" * 10_000_000 + '").\n'  # 20 MB of UTF-8 on one line
    write("f/a.lp", Q1 + long + "answer(ag, q1, n).\nanswr(ag, q1, n).\n")
    tracemalloc.start()
    try:
        with pytest.raises(MetalogicError):
            read_facts("f")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 * MAX_LINE_BYTES  # the line is skipped in pieces, never held whole (was 6.8 GB)
    assert check_fails("f").startswith(
        "error: f/a.lp:2:1: line is longer than 100,000 bytes\n"
        "  expected: one fact per line, each at most 100,000 bytes long (docs/facts.md)\n"
        "  fix: shorten the line (a long string is the usual cause), or split it into several facts\n"
        "f/a.lp:4:1: unknown predicate answr/3\n"  # the line numbers after it are right
    )


def test_a_line_at_the_limit_is_read() -> None:
    head, tail = 'raw_reply(ag, q1, "', '").\n'
    body = "x" * (MAX_LINE_BYTES - len(head) - len(tail))
    write("f/a.lp", Q1 + "answer(ag, q1, invalid).\n" + head + body + tail)
    assert len(read_facts("f").facts[-1]) == MAX_LINE_BYTES - 2  # without '.' and the newline


def test_terms_nested_too_deep_are_refused() -> None:
    deep = "form(q1, " + "f(" * 400 + "a" + ")" * 401 + ".\n"
    write("f/a.lp", Q1 + deep)
    col = (
        len("form(q1, ") + 2 * (MAX_DEPTH - 1) + 1
    )  # form( and 19 f( make 20 levels: the 20th f( is one more
    assert check_fails("f") == (
        f"error: f/a.lp:2:{col}: syntax error: terms nested more than 20 deep\n"
        f"    {deep.rstrip()}\n"
        f"    {' ' * (col - 1)}^\n"
        "  expected: compound terms at most 20 levels deep (docs/facts.md)\n"
        "  fix: flatten the term: metalogic's facts need three levels at most\n"
    )


def test_term_nesting_limit_holds_for_every_term_read() -> None:
    assert parse_term("f(" * MAX_DEPTH + "a" + ")" * MAX_DEPTH) is not None
    with pytest.raises(ParseError) as err:
        parse_term("f(" * 5000 + "a" + ")" * 5000)  # was: RecursionError
    assert err.value.what == "terms nested more than 20 deep" and err.value.column == 2 * MAX_DEPTH + 1


def copies(n: int, content: str = "map_dir(t, 0, a, b)", prefix: str = "q") -> str:
    """One question under `n` query ids, each answered by agent ag."""
    return "".join(f"query({prefix}{i}, {content}).\nanswer(ag, {prefix}{i}, n).\n" for i in range(1, n + 1))


def test_many_copies_of_one_question_are_checked_with_a_warning() -> None:
    write("f/a.lp", copies(MAX_COPIES + 1) + "query(q0, map_dir(t, 0, b, a)).\n")
    code, out, err = run_cli("check", "f", "--out", "out")
    assert code == 0, err
    assert err == (
        "warning: the question map_dir(t,0,a,b) is asked under 51 query ids (q1, q2, ...): MR3 compares "
        "every pair of them, 1,275 test cases\n"
        "  fix: ask each question in a few surface forms (form/2) and drop the other copies; the check is "
        "right as it is, only slower\n"
    )
    # the 1,275 MR3 cases and one MR2 case for q0: the result is the same as without a warning
    assert "1276 test cases, 0 violations, 103 facts from 1 file(s); engine: clingo" in out
    assert Path("out/scores.csv").is_file()


def test_fifty_copies_or_no_mr3_give_no_warning() -> None:
    write("f/a.lp", copies(MAX_COPIES))
    code, out, err = run_cli("check", "f")
    assert (code, err) == (0, "")
    assert "1225 test cases, 0 violations, 100 facts from 1 file(s); engine: clingo" in out
    write("g/a.lp", copies(MAX_COPIES + 1))
    code, out, err = run_cli("check", "g", "--mrs", "mr1,mr2")  # no MR3: the copies cost nothing
    assert (code, err) == (0, "")


def test_the_copies_warning_names_five_questions_then_counts_the_rest() -> None:
    body = "".join(copies(51 + k, f"size(t, {k}, o)", prefix=f"s{k}_") for k in range(7))
    body += "query(z, size( t , -0 , o )).\n"  # -0 is 0: one more copy of size(t,0,o)
    facts = FactSet(Path("."), [], [line.rstrip(".") for line in body.splitlines()])
    assert many_copies(facts) == (
        "warning: the question size(t,6,o) is asked under 57 query ids (s6_1, s6_2, ...): MR3 compares "
        "every pair of them, 1,596 test cases\n"
        "warning: the question size(t,5,o) is asked under 56 query ids (s5_1, s5_2, ...): MR3 compares "
        "every pair of them, 1,540 test cases\n"
        "warning: the question size(t,4,o) is asked under 55 query ids (s4_1, s4_2, ...): MR3 compares "
        "every pair of them, 1,485 test cases\n"
        "warning: the question size(t,3,o) is asked under 54 query ids (s3_1, s3_2, ...): MR3 compares "
        "every pair of them, 1,431 test cases\n"
        "warning: the question size(t,2,o) is asked under 53 query ids (s2_1, s2_2, ...): MR3 compares "
        "every pair of them, 1,378 test cases\n"
        "warning: and 2 more questions asked under more than 50 query ids\n"
        "  fix: ask each question in a few surface forms (form/2) and drop the other copies; the check is "
        "right as it is, only slower"
    )


def _known() -> str:
    from metalogic.engine import schema

    return ", ".join(sorted(schema.BY_KEY))


def test_a_file_with_carriage_return_line_endings_is_refused_not_read_as_one_comment() -> None:
    """'\\r'-only line endings made the whole file one comment line: 0 facts and exit status 0."""
    write("f/a.lp", "% the questions\r" + Q1.replace("\n", "\r") + "answer(ag, q1, n).\r")
    assert check_fails("f") == (
        "error: f/a.lp:1:17: a fact after a carriage return inside a comment: the file ends its lines "
        "with '\\r' alone (old Mac line endings), so the engines read the fact as comment text\n"
        "  expected: lines ended by '\\n' (or '\\r\\n')\n"
        "  fix: convert the line endings, e.g. tr '\\r' '\\n' < OLD > NEW\n"
    )
    write("g/a.lp", "% the questions\r\n" + Q1.replace("\n", "\r\n") + "answer(ag, q1, n).\r\n")
    assert run_cli("check", "g")[0] == 0  # '\r\n' is a line ending like '\n'
