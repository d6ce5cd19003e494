"""`metalogic check` on one clingo process parses the facts while they are still being read
(read_facts' sink feeding backends.ClingoStream): the same results as reading first, and nothing of
a file is handed on past its first problem."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from helpers import EXAMPLES, make_batch
from metalogic.engine import facts as facts_mod
from metalogic.engine.check.run import run_check
from metalogic.engine.errors import MetalogicError
from metalogic.engine.facts import read_facts


def write_worlds(folder: Path, seed: int) -> int:
    worlds, _ = make_batch(seed, faults=False)
    folder.mkdir()
    for i, world in enumerate(worlds):
        (folder / f"w{i:02d}.lp").write_text("".join(x if x.endswith("\n") else x + "\n" for x in world))
    return len(worlds)


def test_sink_gets_every_fact_once_in_order_in_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(facts_mod, "SINK_CHUNK", 64)
    files = write_worlds(tmp_path / "run", 91)
    chunks: list[list[str]] = []
    fs = read_facts(tmp_path / "run", sink=chunks.append)
    assert [f for c in chunks for f in c] == fs.facts
    assert max(map(len, chunks)) == 64 and len(chunks) > files  # chunks within files and at their ends
    assert fs.facts == read_facts(tmp_path / "run").facts


def test_nothing_handed_on_after_a_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(facts_mod, "SINK_CHUNK", 8)
    write_worlds(tmp_path / "run", 92)
    bad = sorted((tmp_path / "run").glob("*.lp"))[1]
    lines = bad.read_text().splitlines(keepends=True)
    bad.write_text("".join(lines[:20]) + "answer(a, q1, 'x').\n" + "".join(lines[20:]))
    chunks: list[list[str]] = []
    with pytest.raises(MetalogicError) as err:
        read_facts(tmp_path / "run", sink=chunks.append)
    assert f"{bad.name}:21:" in str(err.value)
    handed = [f for c in chunks for f in c]
    first = read_facts(sorted((tmp_path / "run").glob("*.lp"))[0]).facts
    # all of the first file, then at most the second file's lines before the bad one
    assert handed[: len(first)] == first and len(handed) <= len(first) + 20


def test_streamed_check_equals_check_of_facts_read_first(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = EXAMPLES
    monkeypatch.setattr(facts_mod, "SINK_CHUNK", 40)
    streamed = run_check(str(folder))  # a folder: the facts go to clingo as they are read
    read_first = run_check(read_facts(folder))  # a FactSet: one program text
    assert streamed.rows.violation_count > 5 and streamed.rows.case_count > 20
    assert streamed.rows == read_first.rows
    lean = run_check(str(folder), detail=False)
    assert lean.rows.scores == read_first.rows.scores


def test_streamed_input_errors_equal_those_of_facts_read_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(facts_mod, "SINK_CHUNK", 100)
    write_worlds(tmp_path / "run", 93)  # random worlds: answers that fit no query, empty boxes, ...
    with pytest.raises(MetalogicError) as streamed:
        run_check(str(tmp_path / "run"))
    with pytest.raises(MetalogicError) as read_first:
        run_check(read_facts(tmp_path / "run"))
    assert "does not fit query" in str(streamed.value)
    assert str(streamed.value) == str(read_first.value)


def test_a_bad_file_stops_the_parser_thread(tmp_path: Path) -> None:
    write_worlds(tmp_path / "run", 94)
    (tmp_path / "run" / "zz.lp").write_text("answer(a, q1, forward).\nnot a fact\n")
    with pytest.raises(MetalogicError) as err:
        run_check(str(tmp_path / "run"))
    assert "zz.lp:2:" in str(err.value)
    assert not [t for t in threading.enumerate() if t.name.startswith("clingo-parse")]
