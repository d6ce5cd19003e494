"""A memory bank is data: values planted in cards.sqlite never run, on either engine, through any
command that reads the bank (query, deployment in `ask`, stats); a damaged bank is one clear
error. The input facts of the memory rules reach the engines as data (memory/engine_input.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from helpers import run_cli
from helpers_agents import write_run
from helpers_hostile import Script, hostile_server
from helpers_memory import add_cards
from metalogic.engine.errors import MetalogicError
from metalogic.engine.terms import Fun
from metalogic.memory.bank import Bank
from metalogic.memory.logic import Evidence, rank_candidates, rewards, run_program, trs_update

pytest.importorskip("hnswlib", reason="the memory extra (hnswlib) is not installed")

TASK = "Where is the mug relative to the bowl?"
# closes the list and the call of the old goal text, runs a shell command, and reopens both
PLANTED = "0)], L), shell('touch marker'), X = ([cand(1,1,1"
FIX = "  fix: restore cards.sqlite from a copy, or build the bank again with 'metalogic memory build'\n"


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # a command that ran would leave ./marker here
    return tmp_path


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    from metalogic.memory.embed import get_embedder

    emb = get_embedder()
    with Bank.create(tmp_path / "bank", embedder=emb.name, dim=emb.dim) as b:
        add_cards(
            b,
            [
                ("obj_dir", TASK, "Sides swapped.", "Compare box centres."),
                (
                    "depth",
                    "How far is the lamp from the camera?",
                    "Depth from size.",
                    "Divide height by box height.",
                ),
            ],
        )
    return tmp_path / "bank"


def plant(bank: Path, sql: str, *args: object) -> None:
    with sqlite3.connect(bank / "cards.sqlite") as db:
        db.execute(sql, args)


def damaged(what: str, expected: str) -> str:
    return f"error: bank/cards.sqlite: the memory bank is damaged: {what}\n  expected: {expected}\n{FIX}"


@pytest.mark.parametrize("engine", ["prolog", "clingo", "both"])
def test_a_planted_card_value_never_runs_in_memory_query(bank: Path, engine: str) -> None:
    plant(bank, "UPDATE cards SET v = ? WHERE id = 1", PLANTED)
    code, out, err = run_cli("memory", "query", "bank", TASK, "--engine", engine)
    assert (code, out) == (2, "")
    assert err == damaged(
        f'card 1 holds the text "{PLANTED}" in column v', "a whole number from 0 to 1000000 in column v"
    )
    assert not Path("marker").exists()


def test_a_planted_card_value_never_runs_in_deployment(bank: Path, tmp_path: Path) -> None:
    plant(bank, "UPDATE cards SET n = ? WHERE id = 2", PLANTED)
    plant(bank, "UPDATE cards SET v = ? WHERE id = 1", 1.5)
    run = write_run(tmp_path / "run", queries="query(q1, obj_dir(hall, 0, mug, duck)).\n")
    with hostile_server(script := Script()) as url:
        code, _out, err = run_cli(
            "ask", str(run), "--agent", "openai:m", "--base-url", url, "--view", "text", "--no-cache",
            "--prompting", "memory", "--memory-bank", "bank", "--no-progress",
        )  # fmt: skip
    assert code == 2
    assert err.startswith("error: bank/cards.sqlite: the memory bank is damaged: card ")
    assert "in column" in err and err.endswith(FIX)
    assert script.requests == [] and not Path("marker").exists()


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        ("provenance", "{not json", "a JSON object in column provenance"),
        ("kind", b"ab", "text in column kind"),
        ("c", -3, "a whole number from 0 to 2147483647 in column c"),
        ("embedding", b"\x00" * 12, "384 float32 numbers (1536 bytes) in column embedding"),
    ],
)
def test_a_damaged_card_is_one_clear_error(bank: Path, column: str, value: object, expected: str) -> None:
    plant(bank, f"UPDATE cards SET {column} = ? WHERE id = 2", value)
    shown = f"{len(value)} bytes" if isinstance(value, bytes) else f"the number {value}"
    shown = f"the text {value!r}" if isinstance(value, str) else shown
    (bank / "index.hnsw").unlink()  # embeddings are read when the index is rebuilt from the database
    command = (
        ("memory", "query", "bank", "lamp camera") if column == "embedding" else ("memory", "list", "bank")
    )
    code, out, err = run_cli(*command)
    assert (code, out) == (2, "")
    assert err == damaged(f"card 2 holds {shown} in column {column}", expected)


def test_a_nan_embedding_is_named_as_such(bank: Path) -> None:
    """Right length, impossible numbers: once shown as 'holds 1536 bytes', which names no fault."""
    import numpy as np

    vec = np.zeros(384, dtype=np.float32)
    vec[[6, 9]] = np.nan
    plant(bank, "UPDATE cards SET embedding = ? WHERE id = 2", vec.tobytes())
    (bank / "index.hnsw").unlink()  # embeddings are read when the index is rebuilt from the database
    code, out, err = run_cli("memory", "query", "bank", "lamp camera")
    assert (code, out) == (2, "")
    assert err == damaged(
        "card 2 holds a vector whose number 7 of 384 is nan (2 numbers are not finite) in column embedding",
        "384 finite float32 numbers in column embedding",
    )


def test_damaged_meta_is_one_clear_error(bank: Path) -> None:
    plant(bank, "UPDATE meta SET value = ? WHERE key = 'dim'", "384); shell('touch marker'")
    code, _out, err = run_cli("memory", "stats", "bank")
    assert code == 2
    assert err == damaged(
        "the meta table holds the text \"384); shell('touch marker'\" in column value (key dim)",
        "a whole number from 1 to 65536 in column value (key dim)",
    )
    plant(bank, "UPDATE meta SET value = ? WHERE key = 'schema'", "1 OR 1")
    code, _out, err = run_cli("memory", "stats", "bank")
    assert code == 2 and "memory bank format '1 OR 1' is not supported" in err


@pytest.mark.parametrize("engine", ["prolog", "clingo"])
def test_rule_input_is_data_on_both_engines(engine: str) -> None:
    for call in (
        lambda: rank_candidates([(1, PLANTED, 5)], eta=500, k=3, floor=0, engine=engine),
        lambda: trs_update({1: (0, "0), shell('touch marker'), (1")}, [], engine),
        lambda: run_program(
            "rank", [f"cand(1,1,1)), shell('touch marker'), X = (cand(1,1,{PLANTED}"], engine
        ),
        lambda: run_program("rank", [Fun("cand", (1, True, 3))], engine),
        lambda: run_program("rank", [Fun("cand", (1, 2**40, 3))], engine),
        lambda: rewards([Evidence("q1), shell('touch marker'), X = (q1", "ego", "left", "left")], engine),
    ):
        with pytest.raises(MetalogicError) as err:
            call()
        what = err.value.problems[0].what
        assert what.startswith("an input of the memory rules is not a fact of atoms and integers: ") or (
            what.startswith("\"q1), shell('touch marker'), X = (q1\" is not a term: ")
        ), what
    assert not Path("marker").exists()
    # the same path still ranks well-formed input
    assert [
        r.card for r in rank_candidates([(1, 900_000, 500_000)], eta=500, k=3, floor=0, engine=engine)
    ] == [1]


def test_provenance_nested_past_the_recursion_limit_is_one_clear_error(bank: Path) -> None:
    plant(bank, "UPDATE cards SET provenance = ? WHERE id = 2", "[" * 100_000)
    code, out, err = run_cli("memory", "list", "bank")
    assert (code, out) == (2, "")
    assert err.startswith("error: bank/cards.sqlite: the memory bank is damaged: card 2 holds the text '[[[[")
    assert err.endswith(f"in column provenance\n  expected: a JSON object in column provenance\n{FIX}")
