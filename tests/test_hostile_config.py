"""`metalogic run` on careless and hostile configurations and run folders: every wrong setting is
one error at its line before any stage runs (nothing is written), and no file the run did not
write is deleted or overwritten, whatever its stage records say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli
from metalogic.app.pipeline import run_pipeline
from metalogic.app.runconfig import load_config

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
enabled = false
"""


def write(tmp: Path, text: str = CONFIG) -> Path:
    path = tmp / "eval.toml"
    path.write_text(text, encoding="utf-8")
    return path


def after(line: str, extra: str) -> str:
    assert line in CONFIG
    return CONFIG.replace(line, f"{line}\n{extra}", 1)


# (config text, the first line of the error: where, what)
BAD = {
    "world list": (
        CONFIG.replace(
            '[[world]]\nscenario = "household"\nepisodes = 1\nsteps = 5\nseed = 3\n', "world = [1, 2]\n"
        ),
        "eval.toml:3: world 1 is int 1, not a table",
    ),
    "size int": (after("seed = 3", "size = 5"), "eval.toml:8: 'size' is int 5"),
    "size text": (after("seed = 3", 'size = "huge"'), "eval.toml:8: bad frame size 'huge'"),
    "world name int": (after("seed = 3", "name = 5"), "eval.toml:8: 'name' is int 5"),
    "world name path": (
        after("seed = 3", 'name = "../../elsewhere"'),
        "eval.toml:8: world name '../../elsewhere' cannot name a stage",
    ),
    "scenario int": (
        CONFIG.replace('scenario = "household"', "scenario = 5"),
        "eval.toml:4: 'scenario' is int 5",
    ),
    "steps huge": (
        CONFIG.replace("steps = 5", "steps = 100000000000"),
        "eval.toml:6: steps = 100000000000 is outside 1..10000",
    ),
    "detector int": (CONFIG.replace('detector = "gt"', "detector = 5"), "eval.toml:10: 'detector' is int 5"),
    "imgsz text": (after('detector = "gt"', 'imgsz = "big"'), "eval.toml:11: 'imgsz' is str 'big'"),
    "sc unknown": (after("seed = 1", 'sc = ["bogus"]'), "eval.toml:15: unknown capability 'bogus' in --sc"),
    "sc string": (
        after("seed = 1", 'sc = "sc1a"'),
        "eval.toml:15: [generate] sc = 'sc1a' is one string, not a list of capabilities\n"
        '    sc = "sc1a"\n    ^\n'
        '  expected: a list of capabilities, e.g. sc = ["sc1a", "sc2"]\n'
        '  fix: write sc = ["sc1a"]\n',
    ),
    "detector passwd": (
        CONFIG.replace('detector = "gt"', 'detector = "/etc/passwd"'),
        "eval.toml:10: [extract] detector '/etc/passwd' is not a weights file (.pt): passwd\n",
    ),
    "detector folder": (
        CONFIG.replace('detector = "gt"', 'detector = "/etc"'),
        "eval.toml:10: [extract] detector '/etc' is a folder, not a weights file\n",
    ),
    "detector missing": (
        CONFIG.replace('detector = "gt"', 'detector = "nowhere.pt"'),
        "eval.toml:10: [extract] detector 'nowhere.pt': not a detector name and no such file\n",
    ),
    "noisy inf": (
        CONFIG.replace('spec = "oracle"', 'spec = "noisy:1e309"'),
        "eval.toml:17: noisy needs a corruption rate between 0 and 1, got '1e309'\n",
    ),
    "oracle cot": (
        after('spec = "oracle"', 'prompting = "cot"'),
        "eval.toml:18: prompting = 'cot' does not apply to the reference agent 'oracle'\n",
    ),
    "agent name int": (after('spec = "oracle"', "name = 5"), "eval.toml:18: 'name' is int 5\n"),
    "agent name list": (after('spec = "oracle"', 'name = ["x"]'), "eval.toml:18: 'name' is list ['x']\n"),
    "second agent name": (
        after('spec = "oracle"', 'name = "first"') + '\n[[agent]]\nspec = "random"\nname = 7\n',
        "eval.toml:28: 'name' is int 7\n",
    ),
    "second import missing": (
        CONFIG + '\n[[world]]\nname = "b"\nimport = "video"\npath = "nope.mp4"\n',
        "eval.toml:28: world 'b': import source 'nope.mp4' does not exist\n",
    ),
    "llamacpp image": (
        CONFIG.replace('spec = "oracle"', 'spec = "llamacpp"\nview = "image"'),
        "eval.toml:18: the llamacpp backend takes text only\n",
    ),
    "memory prompting": (
        CONFIG.replace('spec = "oracle"', 'spec = "openai:m"\nprompting = "memory"'),
        "eval.toml:18: prompting = 'memory' needs a memory bank, which a run configuration does not name\n",
    ),
    "detector empty": (
        CONFIG.replace('detector = "gt"', 'detector = ""'),
        "eval.toml:10: [extract] detector = '' names no detector\n",
    ),
    "out etc": (
        CONFIG.replace('out = "run"', 'out = "/etc"'),
        "eval.toml:1: out = '/etc' is /etc, a system folder; the run would write its folders "
        "(trajectories/, facts/, questions/, check/, ...) there\n",
    ),
    "out root": (
        CONFIG.replace('out = "run"', 'out = "/usr/../"'),
        "eval.toml:1: out = '/usr/../' is /, a system folder;",
    ),
    "strategy int": (after("seed = 1", "strategy = 5"), "eval.toml:15: 'strategy' is int 5"),
    "max text": (
        CONFIG.replace("max_per_trajectory = 10", 'max_per_trajectory = "lots"'),
        "eval.toml:13: bad --max-per-trajectory 'lots'",
    ),
    "view int": (after('spec = "oracle"', "view = 5"), "eval.toml:18: 'view' is int 5"),
    "options text": (after('spec = "oracle"', 'options = "x"'), "eval.toml:18: 'options' is str 'x'"),
    "prompting list": (after('spec = "oracle"', "prompting = [1]"), "eval.toml:18: 'prompting' is list [1]"),
    "name control": (
        after('spec = "oracle"', 'name = "a\\u0007b"'),
        "eval.toml:18: the agent name 'a\\x07b' holds the control character '\\x07'",
    ),
    "structured": (
        after('spec = "oracle"', 'structured = "maybe"'),
        "eval.toml:18: unknown structured 'maybe'",
    ),
    "names clash": (
        CONFIG + '\n[[agent]]\nspec = "oracle"\nname = "x y"\n\n[[agent]]\nspec = "oracle"\nname = "x_y"\n',
        "eval.toml:16: the agents 'x y' and 'x_y' would share the answers file or stage record 'x_y'",
    ),
    "engine list": (
        CONFIG.replace('engine = "clingo"', 'engine = ["clingo"]'),
        "eval.toml:20: 'engine' is list ['clingo']",
    ),
    "rules int": (
        after('engine = "clingo"', "rules = [5]"),
        "eval.toml:21: rules = [5] is not a list of folder names",
    ),
    "rules missing": (
        after('engine = "clingo"', 'rules = ["nowhere"]'),
        "eval.toml: the rule folder 'nowhere' does not exist",
    ),
    "mrs unknown": (
        after('engine = "clingo"', 'mrs = ["mr999"]'),
        "eval.toml: [check]: unknown MR or set of MRs 'mr999' in --mrs",
    ),
    "const text": (
        after('engine = "clingo"', 'const = { eps = "abc" }'),
        "eval.toml: const eps = 'abc' is not a number",
    ),
    "const unknown": (
        after('engine = "clingo"', "const = { nope = 1 }"),
        "eval.toml: [check]: unknown parameter 'nope'",
    ),
    "const exponent": (
        after('engine = "clingo"', "const = { eps = 1e-300 }"),
        "eval.toml: [check]: bad value '0.",  # written out as a plain decimal, then refused
    ),
    "enabled text": (
        CONFIG.replace("enabled = false", 'enabled = "no"'),
        "eval.toml:23: 'enabled' is str 'no'",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_wrong_setting_is_one_error_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    text, first = BAD[case]
    monkeypatch.chdir(tmp_path)
    write(tmp_path, text)
    code, out, err = run_cli("run", "eval.toml")
    assert code == 2, err
    assert err.startswith(f"error: {first}"), err
    assert "Traceback" not in err and out == ""
    assert not (tmp_path / "run").exists()  # no stage ran


def test_every_wrong_setting_is_its_own_error(tmp_path: Path) -> None:
    """Three wrong settings in three tables: three errors, each at its own line, in one go."""
    text = after("seed = 1", 'sc = "sc2"').replace('detector = "gt"', 'detector = "/etc"')
    cfg = write(tmp_path, text.replace('spec = "oracle"', 'spec = "noisy:nan"'))
    code, _out, err = run_cli("run", str(cfg))
    assert code == 2
    heads = [line.removeprefix("error: ") for line in err.splitlines() if not line.startswith(" ")]
    assert [h.split(": ")[0] for h in heads] == [f"{cfg}:10", f"{cfg}:15", f"{cfg}:18"], err
    assert "detector '/etc' is a folder" in err and "sc = 'sc2' is one string" in err
    assert "noisy needs a corruption rate between 0 and 1, got 'nan'" in err
    assert not (tmp_path / "run").exists()


def test_a_detector_file_that_is_not_weights_is_refused_before_any_stage(tmp_path: Path) -> None:
    fake = tmp_path / "weights.pt"
    fake.write_text("not weights at all\n")
    cfg = write(tmp_path, CONFIG.replace('detector = "gt"', 'detector = "weights.pt"'))
    code, _out, err = run_cli("run", str(cfg))
    assert code == 2
    assert err == (
        f"error: {cfg}:10: [extract] detector 'weights.pt' is not a weights file: weights.pt does not start "
        "as one written by torch.save\n"
        '    detector = "weights.pt"\n    ^\n'
        "  expected: gt, default, metalogic-yolo, or the path of an Ultralytics weights file (.pt)\n"
        "  fix: give the path of a .pt weights file\n"
    )
    assert not (tmp_path / "run").exists()


def test_out_through_a_symlink_loop_is_one_error(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    cfg = write(tmp_path, CONFIG.replace('out = "run"', 'out = "loop/run"'))
    code, _out, err = run_cli("run", str(cfg))
    assert code == 2 and "Traceback" not in err
    assert err.startswith(f"error: {cfg}:1: out = 'loop/run' cannot be resolved: "), err
    assert "  fix: point out = ... at a real folder\n" in err


def test_out_in_the_metalogic_checkout_needs_out_anywhere(tmp_path: Path) -> None:
    from metalogic.app.runpaths import checkout as find_checkout

    checkout = find_checkout()
    if checkout is None:
        pytest.skip("metalogic is installed as a package, not run from its checkout")
    cfg = write(tmp_path, CONFIG.replace('out = "run"', f'out = "{checkout}"'))
    code, _out, err = run_cli("run", str(cfg))
    assert code == 2
    assert err.startswith(f"error: {cfg}:1: out = '{checkout}' is {checkout}, the metalogic checkout;"), err
    assert "  fix: set out = ... to another folder (or pass --out-anywhere if you really mean it)\n" in err
    (tmp_path / "b").mkdir()
    engine = write(tmp_path / "b", CONFIG.replace('out = "run"', f'out = "{checkout / "engine" / "x"}"'))
    assert "inside metalogic's own code" in run_cli("run", str(engine))[2]
    # the option lets it through (checked here on the configuration alone: nothing runs)
    assert load_config(cfg, out_anywhere=True).out == checkout


def test_a_config_with_a_byte_order_mark_runs(tmp_path: Path) -> None:
    cfg = tmp_path / "eval.toml"
    cfg.write_bytes(b"\xef\xbb\xbf" + CONFIG.encode())
    assert load_config(cfg).agents[0].spec == "oracle"


def test_a_config_that_is_not_utf8_is_one_error(tmp_path: Path) -> None:
    cfg = tmp_path / "eval.toml"
    cfg.write_bytes(CONFIG.encode() + b"# caf\xe9\n")
    code, _out, err = run_cli("run", str(cfg))
    assert code == 2
    assert err.startswith(f"error: {cfg}: not UTF-8 text: byte 0xe9 at offset {len(CONFIG) + 5}\n")


def test_structured_true_and_false_mean_on_and_off(tmp_path: Path) -> None:
    """`structured = false` once reached the agent as False, which it read as 'not off': the replies
    were constrained after all."""
    off = load_config(write(tmp_path, after('spec = "oracle"', "structured = false"))).agents[0]
    assert off.settings["structured"] == "off"
    on = load_config(write(tmp_path, after('spec = "oracle"', "structured = true"))).agents[0]
    assert on.settings["structured"] == "on"


def test_an_edited_stage_record_never_deletes_outside_the_run(tmp_path: Path) -> None:
    """A run's .metalogic/ records are files anyone can edit (or send): a world record naming
    '../..' or an absolute path as its folders once made a changed world delete that folder."""
    cfg = write(tmp_path)
    run_pipeline(load_config(cfg))
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep")
    record = tmp_path / "run" / ".metalogic" / "world-household.json"
    data = json.loads(record.read_text())
    data.update(key="edited", folders=["../../victim", str(victim), "..", "."])
    record.write_text(json.dumps(data))
    again = run_pipeline(load_config(cfg))
    assert again.ran[0] == "world-household"
    assert (victim / "precious.txt").read_text() == "keep"
    assert (tmp_path / "run" / "trajectories" / "household_s3_e1" / "trajectory.json").exists()
    record.write_text("[1, 2]")  # not a record at all: the stage runs again
    assert run_pipeline(load_config(cfg)).ran[0] == "world-household"


def test_out_naming_a_file_is_one_error(tmp_path: Path) -> None:
    cfg = write(tmp_path, CONFIG.replace('out = "run"', 'out = "afile/sub"'))
    (tmp_path / "afile").write_text("mine")
    code, _out, err = run_cli("run", str(cfg))
    assert code == 2
    assert err == (
        f"error: {cfg}: the run's output folder {tmp_path / 'afile' / 'sub'} cannot be made: "
        f"{tmp_path / 'afile'} is a file\n"
        "  expected: out = a folder (missing, empty, or one an earlier run wrote)\n"
        "  fix: set out = ... to a folder path\n"
    )
    assert (tmp_path / "afile").read_text() == "mine"


@pytest.mark.parametrize(
    ("folder", "what"),
    [("trajectories/household_s3_e1", "the world stages"), ("report", "the report stage")],
)
def test_the_run_keeps_trajectories_and_reports_it_did_not_write(
    tmp_path: Path, folder: str, what: str
) -> None:
    cfg = write(
        tmp_path, CONFIG.replace('out = "run"', 'out = "."').replace("enabled = false", "enabled = true")
    )
    mine = tmp_path / folder / "notes.txt"
    mine.parent.mkdir(parents=True)
    mine.write_text("mine")
    code, _out, err = run_cli("run", str(cfg))
    assert code == 2
    top = folder.split("/")[0]
    assert err.startswith(
        f"error: {cfg}: {tmp_path / top} holds files that 'metalogic run' did not write; {what} would "
        "replace them\n"
    )
    assert mine.read_text() == "mine" and not (tmp_path / ".metalogic").exists()
    mine.unlink()
    mine.parent.rmdir()
    first = run_pipeline(load_config(cfg))  # an empty or missing folder is the run's to use
    assert first.report is not None and first.report.exists()
    assert (tmp_path / "trajectories" / ".metalogic-owned").exists()
    assert (tmp_path / "report" / ".metalogic-owned").exists()
    assert run_pipeline(load_config(cfg)).ran == []
