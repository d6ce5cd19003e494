"""The `metalogic memory` commands as a user meets them: outputs and one clear error per bad input."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from helpers import run_cli
from helpers_memory import add_cards, give_visits, make_run
from metalogic.memory.bank import Bank

pytest.importorskip("hnswlib", reason="the memory extra (hnswlib) is not installed")


@pytest.fixture
def bank_dir(tmp_path: Path) -> Path:
    from metalogic.memory.embed import get_embedder

    emb = get_embedder()
    with Bank.create(tmp_path / "bank", embedder=emb.name, dim=emb.dim) as b:
        add_cards(
            b,
            [
                (
                    "obj_dir",
                    "Where is the mug relative to the bowl?",
                    "Sides swapped.",
                    "Compare box centres.",
                ),
                (
                    "depth",
                    "How far is the lamp from the camera?",
                    "Depth from size.",
                    "Divide height by box height.",
                ),
            ],
        )
        give_visits(b, 2, [1000, 1000, 1000])
    return tmp_path / "bank"


def test_list_show_history_retire(bank_dir: Path) -> None:
    code, out, _ = run_cli("memory", "list", str(bank_dir), "--sort", "trs")
    assert code == 0
    rows = out.splitlines()
    assert rows[1].split()[:5] == ["2", "depth", "3", "3.000", "0.800"]  # (1 + 3) / 5
    assert rows[2].split()[:5] == ["1", "obj_dir", "0", "0.000", "0.500"]
    code, out, _ = run_cli("memory", "list", str(bank_dir), "--format", "csv")
    table = list(csv.DictReader(io.StringIO(out)))
    assert [r["id"] for r in table] == ["1", "2"] and table[1]["lesson"] == "Divide height by box height."
    code, out, _ = run_cli("memory", "history", str(bank_dir), "2")
    assert code == 0 and len(out.splitlines()) == 4 and out.splitlines()[-1].endswith("n=3 c=3.000 trs=0.800")
    code, out, _ = run_cli("memory", "retire", str(bank_dir), "2", "--reason", "too narrow")
    assert (code, out) == (0, "retired 1 card(s)\n")
    code, out, _ = run_cli("memory", "show", str(bank_dir), "2")
    assert "retired" in out.splitlines()[0] and "too narrow" in out.splitlines()[0]
    code, out, _ = run_cli("memory", "list", str(bank_dir))
    assert out.splitlines()[-1] == "1 card(s)"
    code, _, err = run_cli("memory", "retire", str(bank_dir), "1", "7")
    assert code == 2 and "no card 7 in the bank (ids 1..2)" in err
    code, out, _ = run_cli("memory", "list", str(bank_dir), "--all", "--format", "json")
    assert [c["retired"] for c in json.loads(out)] == [None, "too narrow"]  # card 1 was not retired either


def test_query_explains_the_ranking(bank_dir: Path) -> None:
    code, out, _ = run_cli(
        "memory", "query", str(bank_dir), "How far is the chair from the camera?", "--floor", "0"
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["rank", "card", "sim", "trs"]
    assert lines[1].split()[:2] == ["1", "2"]  # the depth card, first
    code, out, _ = run_cli("memory", "query", str(bank_dir), "Bake bread for forty minutes.")
    assert out.splitlines()[-1] == "no card reaches the similarity floor"


def test_build_errors(tmp_path: Path, bank_dir: Path) -> None:
    run = make_run(tmp_path / "r", trajectories=1, per_trajectory=2)
    code, _, err = run_cli(
        "memory", "build", str(run), "--agent", "noisy:0.1", "--bank", str(tmp_path / "b"), "--eta", "2"
    )
    assert code == 2
    assert err == (
        "error: bad value '2.0' for --eta\n  expected: a decimal from 0 to 1 in steps of 0.001\n"
        "  fix: e.g. --eta 0.5\n"
    )
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("x")
    code, _, err = run_cli(
        "memory", "build", str(run), "--agent", "noisy:0.1", "--bank", str(tmp_path / "busy")
    )
    assert code == 2 and "is a folder with other files, not a memory bank" in err
    code, _, err = run_cli(
        "memory", "build", str(tmp_path / "nope"), "--agent", "noisy:0.1", "--bank", str(tmp_path / "b")
    )
    assert code == 2 and "run folder" in err and "does not exist" in err
    code, _, err = run_cli("memory", "build", str(run), "--agent", "nosy:0.1", "--bank", str(tmp_path / "b"))
    assert code == 2 and "Did you mean noisy?" in err
    code, _, err = run_cli(
        "memory",
        "build",
        str(run),
        "--agent",
        "oracle",
        "--bank",
        str(tmp_path / "b"),
        "--reflector",
        "model",
    )
    assert code == 2 and "has no language model to reflect with" in err
    assert not (tmp_path / "b").exists() or not any((tmp_path / "b").iterdir())  # nothing half-written
