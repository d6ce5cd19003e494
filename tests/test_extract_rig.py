"""An imported trajectory's rig (camera height, pitch, supports by class): stated at import, it
gives the same ground-plane facts the simulator writes for its own worlds, and with them the
ground-anchored test cases; bad statements give one clear error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers import run_cli
from metalogic.engine.errors import MetalogicError
from metalogic.extract.rig import Rig, make_rig, rig_from_json
from metalogic.extract.trajectory import load_trajectory

GROUND = re.compile(r"^(camera_height|camera_pitch|support)\(\w+,(.*)\)\.$")


def ground_facts(facts: Path) -> dict[str, set[tuple[int, ...]]]:
    out: dict[str, set[tuple[int, ...]]] = {}
    for line in next(facts.glob("*.lp")).read_text().splitlines():
        m = GROUND.match(line.replace(" ", ""))
        if m:
            out.setdefault(m[1], set()).add(tuple(int(v) for v in m[2].split(",")))
    return out


def cases_by_sc(facts: Path, run: Path) -> dict[str, dict[str, int]]:
    code, _, err = run_cli("generate", str(facts), "--out", str(run))
    assert code == 0, err
    return dict(json.loads((run / "run.json").read_text())["testcases_by_sc_mr"])


def test_imported_frames_with_their_rig_give_the_simulators_ground_facts(tmp_path: Path) -> None:
    code, _, err = run_cli(
        "simulate", "--scenario", "household", "--seed", "11", "--steps", "8", "--out", str(tmp_path / "sim")
    )
    assert code == 0, err
    sim = tmp_path / "sim" / "household_s11_e1"
    meta = json.loads((sim / "trajectory.json").read_text())
    cam = json.loads((sim / "states.jsonl").read_text().splitlines()[0])["camera_pose"]
    bottoms: dict[str, set[int]] = {}
    for o in meta["objects"]:
        bottoms.setdefault(o["class"], set()).add(o["position_mm"][2] - o["size_mm"][2] // 2)
    supports = [f"{cls}={max(b)}" for cls, b in sorted(bottoms.items())]
    rig = ["--camera-height", str(cam["z_mm"]), "--pitch", str(cam["pitch_deg"])]
    rig += [arg for s in supports for arg in ("--support", s)]
    frames = str(sim / "frames")
    for name, extra in (("with", rig), ("without", [])):
        code, _, err = run_cli(
            "import", "frames", frames, "--out", str(tmp_path / name), "--id", "hh", "--fov", "60", *extra
        )
        assert code == 0, err
    assert load_trajectory(tmp_path / "with" / "hh").rig == Rig(
        cam["z_mm"], cam["pitch_deg"], None, {cls: max(b) for cls, b in bottoms.items()}
    )
    for name in ("sim", "with", "without"):
        code, _, err = run_cli("extract", str(tmp_path / name), "--out", str(tmp_path / f"facts_{name}"))
        assert code == 0, err
    simulated, stated = ground_facts(tmp_path / "facts_sim"), ground_facts(tmp_path / "facts_with")
    assert stated["camera_height"] == simulated["camera_height"] and len(stated["camera_height"]) == 9
    assert stated["camera_pitch"] == simulated["camera_pitch"]
    # the same detector on the same frames makes the same tracks; a class's objects may rest a
    # millimetre apart (two teddies on two tables), the statement gives the class one height
    sim_support = {t[0]: t[1] for t in simulated["support"]}
    assert {t for t, _ in stated["support"]} == set(sim_support)
    assert all(abs(mm - sim_support[t]) <= 2 for t, mm in stated["support"])
    assert ground_facts(tmp_path / "facts_without") == {}
    with_rig = cases_by_sc(tmp_path / "facts_with", tmp_path / "run_with")
    without = cases_by_sc(tmp_path / "facts_without", tmp_path / "run_without")
    assert not any("mr17" in mrs for mrs in without.values())
    assert sum(mrs.get("mr17", 0) for mrs in with_rig.values()) > 10
    # the pitch also opens the capabilities that need a level map (the allocentric ones) and the
    # moves read off the view; without it, moves get only the MRs that compare move answers. (Map
    # directions also need two whole boxes clearly apart: with the detector card's slack for a
    # table's left edge, 35 px, none of this household's frames gives a pair, so here only the map
    # distances open.)
    assert "sc4b" in set(with_rig) - set(without) and "sc4a" not in without
    for sc in ("sc1a", "sc1b"):
        assert {"mr11", "mr17"} & set(with_rig[sc]), with_rig[sc]
        assert set(without[sc]) <= {"mr1", "mr2", "mr3", "mr4", "mr14"}, without[sc]


def test_the_pitch_follows_the_tilts_of_a_known_size() -> None:
    actions = [None, "tilt_down", "move_forward", "tilt_up", "tilt_up", None]
    assert Rig(1500, -10, 30).pitches(actions) == [-10, -10, -40, -40, -10, 20]
    assert Rig(1500, -10, None).pitches(actions) == [-10, -10, None, None, None, None]  # tilt size unknown
    assert Rig(1500, 70, 30).pitches(["tilt_up", None]) == [70, None]  # 100 degrees is no camera pitch
    assert Rig(1500).pitches([None, None]) == [None, None]


def test_eb_nav_tilts_are_thirty_degrees(tmp_path: Path) -> None:
    from helpers import ROOT

    sample = ROOT / "tests" / "data" / "extract" / "eb_nav"
    code, _, err = run_cli("import", "eb-nav", str(sample), "--out", str(tmp_path), "--pitch", "0")
    assert code == 0, err
    rig = load_trajectory(tmp_path / "ebnav_e1").rig
    assert rig == Rig(None, 0, 30, {})
    code, _, err = run_cli("import", "eb-nav", str(sample), "--out", str(tmp_path / "plain"))
    assert code == 0, err
    assert load_trajectory(tmp_path / "plain" / "ebnav_e1").rig is None
    assert "rig" not in json.loads((tmp_path / "plain" / "ebnav_e1" / "trajectory.json").read_text())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--support", "cup"], "error: --support 'cup' is not CLASS=MM"),
        (["--support", "cup=-5"], "error: --support 'cup=-5' is not CLASS=MM"),
        (
            ["--support", "cup=700", "--support", "cup=750"],
            "error: --support gives class 'cup' two heights (700 and 750 mm)",
        ),
        (["--pitch", "95"], "Error: Invalid value for '--pitch': 95 is not in the range -89<=x<=89."),
        (
            ["--camera-height", "0"],
            "Error: Invalid value for '--camera-height': 0 is not in the range 1<=x<=100000.",
        ),
    ],
)
def test_bad_rig_options_are_refused_before_anything_is_written(
    tmp_path: Path, args: list[str], message: str
) -> None:
    src = tmp_path / "frames"
    src.mkdir()
    (src / "0.png").write_bytes(
        (Path(__file__).parent / "data" / "extract" / "eb_nav").glob("*.png").__next__().read_bytes()
    )
    code, out, err = run_cli("import", "frames", str(src), "--out", str(tmp_path / "traj"), *args)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "traj").exists()


@pytest.mark.parametrize(
    ("rig", "found"),
    [
        ({"camera_height_mm": "1.5 m"}, "field 'rig.camera_height_mm' is wrong: found \"1.5 m\""),
        ({"pitch_deg": 120}, "field 'rig.pitch_deg' is wrong: found 120"),
        ({"supports": {"cup": 7.5}}, "field 'rig.supports' is wrong at \"cup\""),
        ({"supports": {"a(b)": 0}}, "field 'rig.supports' is wrong at \"a(b)\""),
        ({"height": 1}, "field 'rig' is wrong: found {\"height\": 1}"),
        ([1], "field 'rig' is wrong: found [1]"),
    ],
)
def test_a_bad_rig_in_trajectory_json_names_the_field(rig: object, found: str) -> None:
    with pytest.raises(MetalogicError) as exc:
        rig_from_json(rig, "t/trajectory.json")
    assert str(exc.value).startswith(f"t/trajectory.json: {found}")


def test_options_that_state_nothing_make_no_rig() -> None:
    assert make_rig(None, None, ()) is None
    assert make_rig(None, None, ("*=0",)) == Rig(None, None, None, {"*": 0})
    assert Rig(None, None, None, {"*": 0, "cup": 740}).support_of("chair") == 0
    assert Rig(None, None, None, {"cup": 740}).support_of("chair") is None


def test_support_classes_are_read_as_the_facts_write_them() -> None:
    rig = make_rig(None, None, ("Dining Table=750", "TV=1200", "*=0"))
    assert rig == Rig(None, None, None, {"dining_table": 750, "tv": 1200, "*": 0})
