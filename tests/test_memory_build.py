"""The construction phase end to end with reference agents (noisy oracles) on generated runs: rewards
from ground truth and from the MR engine, TRS updates of the cards shown, cards that never state an
answer, resume, statistics-only passes, splits by trajectory, and a build killed with SIGKILL that
loses no written card."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import run_cli
from helpers_memory import make_run
from metalogic.memory.bank import Bank
from metalogic.memory.logic import trs_update

pytest.importorskip("hnswlib", reason="the memory extra (hnswlib) is not installed")


@pytest.fixture(scope="module")
def run4(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory.mktemp("run4"), trajectories=4, per_trajectory=12)


def _build(run: Path, bank: Path, *extra: str) -> str:
    code, out, err = run_cli("memory", "build", str(run), "--agent", "noisy:0.3", "--bank", str(bank), *extra)
    assert code == 0, err
    return out


def test_build_with_ground_truth(run4: Path, tmp_path: Path) -> None:
    out = _build(run4, tmp_path / "bank", "--verifier", "truth")
    assert out.count("pass 1 h") == 4
    with Bank.open(tmp_path / "bank", readonly=True) as bank:
        cards = bank.cards()
        lines = run4.joinpath("queries.lp").read_text().splitlines()
        questions = sum(line.startswith("query(") for line in lines)
        assert len(cards) == questions  # one card per judged answer (all have ground truth)
        assert {c.provenance["verifier"] for c in cards} == {"truth"}
        rewards = [c.provenance["source_reward"] for c in cards]
        assert set(rewards) == {0, 1000} and 0.5 < sum(rewards) / 1000 / len(rewards) < 0.95  # p = 0.3
        visited = [c for c in cards if c.n > 0]
        assert visited and all(c.provenance["trajectory"] != "h3" for c in visited)  # h3 came last
        for c in visited:  # the stored statistics are the rules' TRS of the recorded visits
            hist = bank.history(c.id)[1:]
            assert (c.n, c.c) == (len(hist), sum(e["reward"] for e in hist))
            assert c.v == trs_update({1: (c.n, c.c)}, [], "clingo")[1].v
            assert all(
                e["verifier"] == "truth" and e["task"].split("/")[0] != c.provenance["trajectory"]
                for e in hist
            )  # a card only guides later trajectories
        for c in cards:  # no card states its own answer (the leak check ran on every one)
            assert c.task.strip() and c.lesson.strip()
            assert "answer was" not in (c.summary + c.lesson).lower()
        assert {("h0",), ("h1",), ("h2",), ("h3",)} == {(t,) for _, t in bank.sources()}


def test_build_label_free_with_the_mr_verifier(run4: Path, tmp_path: Path) -> None:
    _build(run4, tmp_path / "bank", "--verifier", "mr", "--limit", "2", "--engine", "both")
    with Bank.open(tmp_path / "bank", readonly=True) as bank:
        cards = bank.cards()
        assert cards and {c.provenance["verifier"] for c in cards} == {"mr"}
        # an answer only gets a reward (and a card) when some test case involves it
        assert all(0 <= c.provenance["source_reward"] <= 1000 for c in cards)
        assert {t for _, t in bank.sources()} == {"h0", "h1"}


def test_resume_and_statistics_only_passes(run4: Path, tmp_path: Path) -> None:
    bank_dir = tmp_path / "bank"
    _build(run4, bank_dir, "--limit", "2")
    with Bank.open(bank_dir, readonly=True) as bank:
        first = {c.id: c for c in bank.cards()}
    out = _build(run4, bank_dir, "--limit", "2")
    assert "done in an earlier build, skipped" in out and "cards written" not in out.split("\n\n")[0]
    out = _build(run4, bank_dir, "--limit", "2", "--passes", "2")
    assert "pass 2 h0" in out and "pass 2 h1" in out
    assert not [line for line in out.splitlines() if line.startswith("pass 1") and "questions" in line]
    with Bank.open(bank_dir, readonly=True) as bank:
        after = {c.id: c for c in bank.cards()}
        assert after.keys() == first.keys()  # pass 2 writes no card
        assert sum(c.n for c in after.values()) > sum(c.n for c in first.values())
        assert all((a.task, a.lesson) == (first[i].task, first[i].lesson) for i, a in after.items())


def test_split_is_disjoint_by_trajectory(run4: Path, tmp_path: Path) -> None:
    code, _, err = run_cli(
        "memory",
        "split",
        str(run4),
        "--env",
        str(tmp_path / "env"),
        "--deploy",
        str(tmp_path / "dep"),
        "--fraction",
        "0.5",
        "--seed",
        "42",
    )
    assert code == 0, err

    def trajs(folder: Path) -> set[str]:
        return {
            line.split("(")[2].split(",")[0]
            for line in (folder / "queries.lp").read_text().splitlines()
            if line.startswith("query(")
        }

    env, dep = trajs(tmp_path / "env"), trajs(tmp_path / "dep")
    assert len(env) == len(dep) == 2 and not env & dep and env | dep == trajs(run4)
    code, _, err = run_cli(
        "memory", "split", str(run4), "--env", str(tmp_path / "env"), "--deploy", str(tmp_path / "x")
    )
    assert code == 2 and "already holds a run" in err


def test_a_killed_build_loses_no_written_card(tmp_path: Path) -> None:
    run = make_run(tmp_path, trajectories=6, per_trajectory=12)
    bank_dir = tmp_path / "bank"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cmd = [
        sys.executable,
        "-c",
        "from metalogic.app.cli import main; main()",
        "memory",
        "build",
        str(run),
        "--agent",
        "noisy:0.2",
        "--bank",
        str(bank_dir),
        "--verifier",
        "mr",
    ]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen: dict[int, tuple[str, str, str]] = {}
    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
            db = bank_dir / "cards.sqlite"
            if not db.exists():
                continue
            try:
                con = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True, timeout=0.1)
                rows = con.execute("SELECT id, task, summary, lesson FROM cards").fetchall()
                done = con.execute("SELECT COUNT(*) FROM progress").fetchone()[0]
                con.close()
            except sqlite3.OperationalError:  # the builder holds the write lock just now
                continue
            seen.update({r[0]: (r[1], r[2], r[3]) for r in rows})
            if done >= 2:
                break
        assert proc.poll() is None, "the build finished before it could be killed; make the run bigger"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    assert len(seen) >= 2
    with Bank.open(bank_dir) as bank:  # opened writable: SQLite rolls back the interrupted batch
        kept = {c.id: (c.task, c.summary, c.lesson) for c in bank.cards()}
        assert all(kept.get(i) == v for i, v in seen.items())  # every card seen committed is still there
        assert bank.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert bank.index().ids() == set(kept)  # the index catches up from the stored embeddings
        done_before = len(bank.done_batches(1, str(run.resolve())))
    _build(run, bank_dir, "--verifier", "mr")  # the resumed build finishes the rest
    with Bank.open(bank_dir, readonly=True) as bank:
        assert len(bank.done_batches(1, str(run.resolve()))) == 6 > done_before
        final = {c.id: (c.task, c.summary, c.lesson) for c in bank.cards()}
        assert all(final[i] == v for i, v in kept.items())
        keys = [(c.provenance["trajectory"], c.provenance["query"]) for c in bank.cards()]
        assert len(keys) == len(set(keys))  # no batch was written twice
