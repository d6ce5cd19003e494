"""The bank on disk: cards, visits and their history, retiring, the stats view, and clear errors."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from helpers import run_cli
from helpers_memory import add_cards, give_visits
from metalogic.engine.errors import MetalogicError
from metalogic.memory.bank import Bank
from metalogic.memory.logic import trs_update

pytest.importorskip("hnswlib", reason="the memory extra (hnswlib) is not installed")

CARDS = [
    ("obj_dir", "Where is the mug relative to the bowl?", "Left and right were swapped.", "Use box centres."),
    (
        "depth",
        "How far is the lamp from the camera?",
        "Depth from size.",
        "Divide typical height by box height.",
    ),
    ("size", "How tall is the chair in reality?", "Pixels read as height.", "Scale by distance."),
]


@pytest.fixture
def bank(tmp_path: Path) -> Bank:
    from metalogic.memory.embed import get_embedder

    emb = get_embedder()
    b = Bank.create(tmp_path / "bank", embedder=emb.name, dim=emb.dim)
    add_cards(b, CARDS)
    return b


def test_cards_round_trip(bank: Bank) -> None:
    c = bank.get(2)
    assert (c.kind, c.task, c.summary, c.lesson) == CARDS[1]
    assert (c.n, c.c, c.v, c.v0) == (0, 0, 500_000, 500_000) and c.active
    assert [x.id for x in bank.cards()] == [1, 2, 3]
    assert [x.id for x in bank.cards(kind="depth")] == [2]


def test_visits_follow_the_rules_and_make_a_history(bank: Bank) -> None:
    give_visits(bank, 1, [1000, 0, 1000])
    c = bank.get(1)
    assert (c.n, c.c) == (3, 2000)
    assert c.v == trs_update({1: (0, 0)}, [(1, 1, 1000), (1, 2, 0), (1, 3, 1000)], "clingo")[1].v == 600_000
    hist = bank.history(1)
    assert [e["event"] for e in hist] == ["created", "visit", "visit", "visit"]
    assert [e["v"] for e in hist] == [500_000, 666_667, 500_000, 600_000]
    assert [e["reward"] for e in hist[1:]] == [1000, 0, 1000]


def test_retire_hides_a_card_from_retrieval_and_keeps_its_history(bank: Bank) -> None:
    from metalogic.memory.retrieve import Settings, retrieve

    assert retrieve(bank, "How far is the lamp from the camera?", Settings(mode="rag", k=1))[0].card.id == 2
    bank.retire(2, "too specific")
    assert retrieve(bank, "How far is the lamp from the camera?", Settings(mode="rag", k=3, floor=-1)) != []
    assert 2 not in {
        h.card.id for h in retrieve(bank, "How far is the lamp?", Settings(mode="rag", k=3, floor=-1))
    }
    assert bank.history(2)[-1]["event"] == "retired"
    assert [c.id for c in bank.cards(active_only=True)] == [1, 3]
    with pytest.raises(MetalogicError) as err:
        bank.retire(2, "again")
    assert "card 2 is already retired (too specific," in err.value.render()


def test_stats_view(bank: Bank) -> None:
    give_visits(bank, 1, [1000, 1000])
    give_visits(bank, 3, [0])
    s = bank.summary()
    assert (s["cards"], s["active"], s["retired"], s["visits"], s["visited_cards"]) == (3, 3, 0, 3, 2)
    assert {k["kind"]: (k["cards"], k["visits"]) for k in s["kinds"]} == {
        "depth": (1, 0),
        "obj_dir": (1, 2),
        "size": (1, 1),
    }
    assert s["trs_histogram"]["0.7-0.8"] == 1 and s["trs_histogram"]["0.3-0.4"] == 1
    bank.close()
    code, out, _ = run_cli("memory", "stats", str(bank.path), "--format", "json")
    assert code == 0 and json.loads(out)["visits"] == 3


def test_errors_are_clear(bank: Bank, tmp_path: Path) -> None:
    with pytest.raises(MetalogicError) as err:
        bank.get(9)
    assert err.value.render() == (
        f"{bank.path}: no card 9 in the bank (ids 1..3)\n"
        "  expected: a memory bank folder made by 'metalogic memory build'\n"
        f"  fix: list the cards with 'metalogic memory list {bank.path}'"
    )
    code, _, err_text = run_cli("memory", "list", str(tmp_path / "nowhere"))
    assert code == 2
    assert err_text.startswith(
        f"error: {tmp_path / 'nowhere'}: no memory bank at '{tmp_path / 'nowhere'}' (cards.sqlite is missing)"
    )
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "cards.sqlite").write_text("not a database")
    code, _, err_text = run_cli("memory", "stats", str(junk))
    assert code == 2 and "is not a readable memory bank" in err_text and "Traceback" not in err_text
    code, _, err_text = run_cli("memory", "show", str(bank.path), "12")
    assert code == 2 and "no card 12 in the bank (ids 1..3)" in err_text


def test_a_bank_is_created_whole_or_not_at_all(tmp_path: Path) -> None:
    from metalogic.memory.embed import get_embedder

    emb = get_embedder()
    Bank.create(tmp_path / "b", embedder=emb.name, dim=emb.dim).close()
    with pytest.raises(MetalogicError) as err:
        Bank.create(tmp_path / "b", embedder=emb.name, dim=emb.dim)
    assert "a memory bank already exists" in err.value.render()
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["cards.sqlite", "index.hnsw"]
    con = sqlite3.connect(tmp_path / "b" / "cards.sqlite")
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
