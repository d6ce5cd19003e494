"""`metalogic run`: the whole pipeline from a TOML file, with stages skipped when up to date."""

from __future__ import annotations

from pathlib import Path

from helpers import run_cli
from metalogic.engine.pipeline import run_pipeline
from metalogic.engine.runconfig import load_config

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
