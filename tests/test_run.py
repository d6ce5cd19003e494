"""`metalogic run`: the whole pipeline from a TOML file, with stages skipped when up to date."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli
from metalogic.app.pipeline import run_pipeline
from metalogic.app.runconfig import load_config

CONFIG = """
out = "run"

[[world]]
scenario = "household"
episodes = 1
steps = 5
seed = 3

[extract]
detector = "gt"

[generate]
max_per_trajectory = 30
seed = 1

[[agent]]
spec = "oracle"

[[agent]]
spec = "{noisy}"

[check]
engine = "clingo"

[report]
enabled = true
"""


def write(tmp: Path, noisy: str = "noisy:0.2") -> Path:
    path = tmp / "eval.toml"
    path.write_text(CONFIG.replace("{noisy}", noisy))
    return path


def test_rerun_does_no_work_and_a_changed_agent_is_asked_alone(tmp_path: Path) -> None:
    first = run_pipeline(load_config(write(tmp_path)))
    assert first.ran == [
        "world-household",
        "extract",
        "generate",
        "ask-oracle",
        "ask-noisy_0.2",
        "check",
        "report",
    ]
    assert first.report is not None and first.report.read_text().lower().startswith("<!doctype html>")
    scores = (tmp_path / "run" / "check" / "scores.csv").read_text()
    assert "oracle" in scores and "noisy:0.2" in scores

    again = run_pipeline(load_config(write(tmp_path)))
    assert again.ran == []
    assert (tmp_path / "run" / "check" / "scores.csv").read_text() == scores

    changed = run_pipeline(load_config(write(tmp_path, "noisy:0.5")))
    assert changed.ran == ["ask-noisy_0.5", "check", "report"]
    scores = (tmp_path / "run" / "check" / "scores.csv").read_text()
    assert "noisy:0.5" in scores and "noisy:0.2" not in scores  # the old agent left the run
    assert len(list((tmp_path / "run" / "questions" / "answers").glob("*.lp"))) == 2
    assert [p.name for p in (tmp_path / "run" / "retired-answers").glob("*.lp")] == ["noisy_0.2.lp"]


def test_bad_config_is_reported_before_anything_runs(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text('[[world]]\nscenario = "househld"\n\n[[agent]]\nspec = "oracle"\n')
    code, _out, err = run_cli("run", str(cfg))
    assert code == 2
    assert err == (
        f"error: {cfg}:2: unknown scenario 'househld'\n"
        '    scenario = "househld"\n'
        "    ^\n"
        "  expected: one of household, tabletop, drone\n"
        "  fix: did you mean household?\n"
    )
    assert not (tmp_path / "bad").exists()


def test_wrongly_typed_settings_are_reported_together_before_anything_runs(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text(
        '[[world]]\nscenario = "household"\n\n[[agent]]\nspec = "oracle"\nlimit = -5\n'
        'temperature = "hot"\nconcurrency = 0\n\n[report]\nenabled = "no"\n'
    )
    code, _out, err = run_cli("run", str(cfg))
    assert code == 2 and "Traceback" not in err
    heads = [line for line in err.splitlines() if str(cfg) in line]
    assert heads == [
        f"error: {cfg}:6: limit = -5 asks no question",
        f"{cfg}:7: 'temperature' is str 'hot'",
        f"{cfg}:8: concurrency = 0 is outside 1..1024",
        f"{cfg}:11: 'enabled' is str 'no'",
    ], err
    assert "  expected: a sampling temperature from 0 to 2, such as 0.0\n" in err
    assert not (tmp_path / "bad").exists()


def test_a_changed_rule_file_reruns_the_check_and_nothing_before_it(tmp_path: Path) -> None:
    import shutil

    from helpers import ROOT

    shutil.copytree(ROOT / "examples" / "rules", tmp_path / "my_rules")
    cfg = write(tmp_path)
    cfg.write_text(cfg.read_text().replace('engine = "clingo"', 'engine = "clingo"\nrules = ["my_rules"]'))
    first = run_pipeline(load_config(cfg))
    assert "check" in first.ran and "generate" in first.ran
    assert run_pipeline(load_config(cfg)).ran == []
    rule = tmp_path / "my_rules" / "vertical_order.lp"
    rule.write_text(rule.read_text() + "\n% a comment changes the file, so the check runs again\n")
    assert run_pipeline(load_config(cfg)).ran == ["check", "report"]


def test_a_run_never_deletes_a_folder_it_did_not_write(tmp_path: Path) -> None:
    """With out = "." in a folder that already holds the user's facts/, the run stops before the
    extract stage would replace them; the user's files and everything else stay as they were. A
    folder the run wrote itself is replaced on the next run as before."""
    config = write(tmp_path).read_text().replace('out = "run"', 'out = "."')
    (tmp_path / "eval.toml").write_text(config)
    mine = tmp_path / "facts" / "mine.lp"
    mine.parent.mkdir()
    mine.write_text("trajectory(t, household).\n")
    code, _out, err = run_cli("run", str(tmp_path / "eval.toml"))
    assert code == 2, err
    assert err.startswith(
        f"error: {tmp_path / 'eval.toml'}: {tmp_path / 'facts'} holds files that 'metalogic run' did "
        "not write; the extract stage would replace them\n"
    )  # before any stage ran
    assert not (tmp_path / "trajectories").exists()
    assert "fix: move your files out of" in err and "Traceback" not in err
    assert mine.read_text() == "trajectory(t, household).\n"
    mine.unlink()  # an empty folder is the run's to use
    first = run_pipeline(load_config(tmp_path / "eval.toml"))
    assert "extract" in first.ran and (tmp_path / "facts" / ".metalogic-owned").exists()
    (tmp_path / "eval.toml").write_text(config.replace("max_per_trajectory = 30", "max_per_trajectory = 20"))
    again = run_pipeline(load_config(tmp_path / "eval.toml"))
    assert again.ran[0] == "generate"  # its own questions/ folder is replaced without a word


def test_demo_keeps_a_demo_toml_it_did_not_write(tmp_path: Path) -> None:
    (tmp_path / "demo.toml").write_text("mine\n")
    code, _out, err = run_cli("demo", "--out", str(tmp_path))
    assert code == 2
    assert err.startswith(
        f"error: {tmp_path / 'demo.toml'} exists and is not the demo's own configuration; "
        "the demo would overwrite it\n"
    )
    assert (tmp_path / "demo.toml").read_text() == "mine\n"


def test_a_changed_extractor_reruns_extract(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The extract stage's key holds the extractor's code: after an upgrade that changes it, the old
    facts are not kept as up to date (they lacked camera_pitch/3 once)."""
    from metalogic.app import pipeline

    run_pipeline(load_config(write(tmp_path)))
    assert run_pipeline(load_config(write(tmp_path))).ran == []
    real = pipeline.code_hash
    monkeypatch.setattr(pipeline, "code_hash", lambda package: real(package) + "-changed")
    assert run_pipeline(load_config(write(tmp_path))).ran[0] == "extract"
