"""`metalogic run` on a run folder a user has added files to, and with a stage that fails or is
killed: a stage replaces only the files it recorded, a file it did not write stops the run (named)
before anything is deleted, and a stage that fails leaves the previous outputs in place."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from helpers import run_cli
from metalogic.app.pipeline import run_pipeline
from metalogic.app.runconfig import load_config
from metalogic.engine.errors import MetalogicError

CONFIG = """\
out = "run"

[[world]]
scenario = "household"
episodes = 1
steps = 5
seed = 3

[extract]
detector = "gt"

[generate]
max_per_trajectory = 10
seed = 1

[[agent]]
spec = "oracle"

[check]
engine = "clingo"

[report]
enabled = true
"""


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (relative path -> content)."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.fixture
def done(tmp_path: Path) -> Path:
    """A configuration whose run has finished once; returns the configuration's path."""
    cfg = tmp_path / "eval.toml"
    cfg.write_text(CONFIG, encoding="utf-8")
    run_pipeline(load_config(cfg))
    return cfg


def test_each_stage_records_exactly_the_files_it_wrote(done: Path) -> None:
    run = done.parent / "run"
    for stage, folder in [("extract", "facts"), ("check", "check"), ("report", "report")]:
        record = json.loads((run / ".metalogic" / f"{stage}.json").read_text())
        on_disk = sorted(set(snapshot(run / folder)) - {".metalogic-owned"})
        assert record["files"] == on_disk and on_disk, stage
    generate = json.loads((run / ".metalogic" / "generate.json").read_text())
    assert {"queries.lp", "scene.lp", "run.json"} <= set(generate["files"])
    assert not any(f.startswith("answers/") for f in generate["files"])  # the ask stages' files
    world = json.loads((run / ".metalogic" / "world-household.json").read_text())
    assert world["files"] == sorted(set(snapshot(run / "trajectories")) - {".metalogic-owned"})


def test_a_users_files_in_the_run_folders_stop_a_rerun_before_anything_is_deleted(done: Path) -> None:
    """The files of issue 32: once deleted without a word when a changed setting re-ran their stage."""
    run = done.parent / "run"
    mine = {
        run / "facts" / "mine.lp": "trajectory(t, household).\n",
        run / "check" / "notes.txt": "my notes\n",
        run / "questions" / "todo.lp": "% to do\n",
    }
    for path, text in mine.items():
        path.write_text(text)
    before = snapshot(run)
    done.write_text(CONFIG.replace('detector = "gt"', 'detector = "gt"\nconf = 0.5'))
    code, out, err = run_cli("run", str(done))
    assert code == 2 and out == ""
    assert err == (
        f"error: {done}: {run / 'facts' / 'mine.lp'} is not a file 'metalogic run' wrote; the extract stage "
        "replaces the files in facts/ when it runs again\n"
        "  expected: in facts/ only the files the extract stage wrote (listed in .metalogic/)\n"
        f"  fix: move {run / 'facts' / 'mine.lp'} out of {run / 'facts'}, or set out = ... to another "
        "folder\n"
    )
    assert snapshot(run) == before  # nothing deleted, nothing written
    (run / "facts" / "mine.lp").unlink()
    code, _out, err = run_cli("run", str(done))
    assert code == 2 and f"error: {done}: {run / 'questions' / 'todo.lp'} is not a file" in err
    (run / "questions" / "todo.lp").unlink()
    (run / "check" / "more.txt").write_text("more\n")
    code, _out, err = run_cli("run", str(done))
    assert code == 2
    assert (
        f"{run / 'check' / 'more.txt'} is not a file 'metalogic run' wrote (and 1 more file there); " in err
    )
    (run / "check" / "more.txt").unlink()
    (run / "check" / "notes.txt").unlink()
    again = run_pipeline(load_config(done))
    assert again.ran[:2] == ["extract", "generate"]


def test_an_answer_file_of_a_hand_run_ask_is_not_a_foreign_file(done: Path) -> None:
    """questions/answers/ belongs to the ask stages (and to `metalogic ask` by hand): a generate that
    runs again keeps it, and the ask stages, whose questions changed, ask again."""
    run = done.parent / "run"
    assert run_cli("ask", str(run / "questions"), "--agent", "random", "--no-progress")[0] == 0
    done.write_text(CONFIG.replace("max_per_trajectory = 10", "max_per_trajectory = 8"))
    again = run_pipeline(load_config(done))
    assert again.ran[0] == "generate" and "ask-oracle" in again.ran
    assert (run / "retired-answers" / "random.lp").exists()  # not configured: retired, not deleted


def test_a_failing_generate_keeps_the_questions_and_every_answer(
    done: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A generate stage that writes its new questions and then fails (here: the real generate runs,
    then an error) once left questions/ empty, every agent's answers with it."""
    import metalogic.engine.generate.run as gen

    run = done.parent / "run"
    before = snapshot(run / "questions")
    assert any(k.startswith("answers/") for k in before)
    real = gen.generate

    def generate_then_fail(*args: object, **kwargs: object) -> object:
        real(*args, **kwargs)
        raise MetalogicError.single("generate failed after writing")

    monkeypatch.setattr(gen, "generate", generate_then_fail)
    done.write_text(CONFIG.replace("max_per_trajectory = 10", "max_per_trajectory = 8"))
    with pytest.raises(MetalogicError, match="generate failed after writing"):
        run_pipeline(load_config(done))
    assert snapshot(run / "questions") == before
    assert not (run / ".metalogic" / "aside").exists() or not any((run / ".metalogic" / "aside").iterdir())
    monkeypatch.setattr(gen, "generate", real)
    assert run_pipeline(load_config(done)).ran[0] == "generate"


def test_a_failing_world_keeps_its_old_trajectories(done: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import metalogic.extract.simulate as sim

    run = done.parent / "run"
    before = snapshot(run / "trajectories")
    real = sim.simulate_episodes

    def simulate_then_fail(*args: object, **kwargs: object) -> object:
        real(*args, **kwargs)
        raise MetalogicError.single("the simulator failed after writing")

    monkeypatch.setattr(sim, "simulate_episodes", simulate_then_fail)
    done.write_text(CONFIG.replace("seed = 3", "seed = 4"))
    with pytest.raises(MetalogicError, match="the simulator failed"):
        run_pipeline(load_config(done))
    assert snapshot(run / "trajectories") == before


def test_a_stage_killed_while_it_ran_gets_its_old_outputs_back(done: Path) -> None:
    """What a kill -9 in the middle of generate leaves: the old questions aside, new ones half
    written. The next run puts the old ones back before anything else."""
    run = done.parent / "run"
    before = snapshot(run / "questions")
    aside = run / ".metalogic" / "aside" / "generate"
    aside.mkdir(parents=True)
    (aside / "moved.json").write_text(json.dumps([[str(run / "questions"), "0"]]))
    os.replace(run / "questions", aside / "0")
    (run / "questions").mkdir()
    (run / "questions" / "queries.lp").write_text("query(q1, obj_dir(")  # cut off by the kill
    code, _out, err = run_cli("run", str(done))
    assert code == 0, err
    assert "generate: put back the outputs of its interrupted run" in err
    assert snapshot(run / "questions") == before and not aside.exists()


def test_an_edited_aside_record_never_moves_anything_outside_the_run(done: Path) -> None:
    run = done.parent / "run"
    victim = done.parent / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep")
    aside = run / ".metalogic" / "aside" / "generate"
    aside.mkdir(parents=True)
    (aside / "0").mkdir()
    (aside / "moved.json").write_text(
        json.dumps([[str(victim), "0"], ["../../victim", "0"], [str(run), "0"]])
    )
    code, _out, err = run_cli("run", str(done))
    assert code == 0, err
    assert (victim / "precious.txt").read_text() == "keep"
    assert (run / "questions" / "queries.lp").exists()
    shutil.rmtree(victim)
