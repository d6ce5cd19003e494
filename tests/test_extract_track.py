"""`metalogic extract`: real Ultralytics tracking on real renders, scene facts the checker reads,
and the tracker evaluation."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from helpers import run_cli
from metalogic.engine.errors import MetalogicError
from metalogic.engine.facts import read_facts
from metalogic.engine.terms import Fun, parse_term
from metalogic.extract.boxes import Detection, eligible
from metalogic.extract.evaluate import (
    edge_summary,
    measured_border_gap,
    measured_class_slack,
    on_their_objects,
    score_trajectory,
)
from metalogic.extract.tracking import DEFAULT_DETECTOR, DETECTORS, Tracker, class_slacks_of, load_model
from metalogic.extract.trajectory import Box, State, load_trajectory
from metalogic.extract.world import CLASSES


@pytest.fixture(scope="module")
def traj_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two short real episodes (household and tabletop) at the detector's frame size."""
    out = tmp_path_factory.mktemp("traj")
    for scenario, seed in (("household", 2), ("tabletop", 5)):
        code, _, err = run_cli(
            "simulate", "--scenario", scenario, "--steps", "4", "--seed", str(seed), "--out", str(out)
        )
        assert code == 0, err
    return out


def _facts(folder: Path) -> dict[str, list[tuple]]:
    by: dict[str, list[tuple]] = {}
    for f in read_facts(folder).facts:
        t = parse_term(f)
        assert isinstance(t, Fun)
        by.setdefault(t.name, []).append(t.args)
    return by


def test_tracking_with_the_shipped_detector(traj_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "facts"
    code, stdout, err = run_cli("extract", str(traj_dir), "--out", str(out), "--eval")
    assert code == 0, err
    assert stdout.startswith("wrote 2 facts files (")
    assert sorted(p.name for p in out.glob("*.lp")) == ["household_s2_e1.lp", "tabletop_s5_e1.lp"]
    facts = _facts(out)  # the checker's own reader accepts every line
    dets = facts["detection"]
    assert dets, "the shipped detector finds objects in real renders"
    for _t, _s, track, cls, conf, x1, y1, x2, y2 in dets:
        assert isinstance(track, int) and cls in CLASSES and 600 <= conf <= 1000
        assert 0 <= x1 <= x2 < 320 and 0 <= y1 <= y2 < 240
    truncated = {(t, s, o) for t, s, o in facts.get("truncated", [])}
    touching = {
        (t, s, o)
        for t, s, o, _, _, x1, y1, x2, y2 in dets
        if x1 <= 16 or y1 <= 12 or x2 >= 319 - 16 or y2 >= 239 - 12  # within the margin: 5% of the side
    }
    assert truncated == touching
    seen: dict[tuple, set] = {}
    for t, s, o, *_ in dets:
        seen.setdefault((t, o), set()).add(s)
    assert {(t, o) for t, o in facts.get("persistent", [])} == {k for k, v in seen.items() if len(v) >= 3}
    # Frame paths are relative to the facts folder and lead to the frames.
    for _t, _s, path in facts["frame"]:
        assert not os.path.isabs(path) and (out / path).is_file()
    assert len(facts["gt_pose"]) == len(facts["state"]) == len(facts["gt_camera"])
    # The classes the detector's card measured beyond the 4 px slack keep their own slack.
    card = class_slacks_of(DETECTORS[DEFAULT_DETECTOR])
    assert card and all(k > 4 for edges in card.values() for k in edges.values())
    trajs = {t for t, *_ in facts["trajectory"]}
    assert set(facts["class_slack"]) == {
        (t, c, e, k) for t in trajs for c, edges in card.items() for e, k in edges.items()
    }
    assert "exact_boxes" not in facts  # a learned detector's slack is an estimate, not a bound
    # Each written box is the detector's own box in that frame, not the tracker's estimate of it.
    tracker = Tracker(load_model(DETECTORS[DEFAULT_DETECTOR]))
    frames = {(t, s): out / path for t, s, path in facts["frame"]}
    for (t, s), path in frames.items():
        drawn = {(d.cls, d.box) for d in tracker.predict(str(path), s, (320, 240))}
        written = {
            (cls, (x1, y1, x2, y2)) for t2, s2, _, cls, _, x1, y1, x2, y2 in dets if (t2, s2) == (t, s)
        }
        assert written <= drawn, (t, s, written - drawn)
    # The evaluation counts every eligible ground-truth box once, as a hit or a miss.
    ev = json.loads((out / "extract.json").read_text())["eval"]
    eligible_boxes = 0
    for folder in sorted(traj_dir.iterdir()):
        eligible_boxes += sum(eligible(b) for st in load_trajectory(folder).states() for b in st.boxes or [])
    total = ev["total"]
    assert total["tp"] + total["fn"] == eligible_boxes
    assert total["tp"] + total["fp"] <= len(dets)
    assert total["recall"] >= 0.5 and total["precision"] >= 0.8  # a working detector, not a broken file
    assert "total" in stdout and "idsw" in stdout
    # Edge errors: over the hits whose true box is whole, against the slack the facts carry.
    whole_hits = 0
    for c in total["classes"].values():
        if "edges" in c:
            e = c["edges"]
            assert e["slack"] == 4 and 0.0 <= e["within_slack"] <= 1.0 and 1 <= e["boxes"] <= c["tp"]
            assert all(0 <= e[k]["p90"] <= e[k]["max"] < 320 for k in ("left", "top", "right", "bottom"))
            whole_hits += e["boxes"]
    assert 0 < whole_hits <= total["tp"]


def test_gt_detector_gives_the_simulator_boxes(traj_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "facts"
    code, _stdout, err = run_cli("extract", str(traj_dir), "--out", str(out), "--detector", "gt", "--eval")
    assert code == 0, err
    facts = _facts(out)
    gt = {(t, s, o, x1, y1, x2, y2) for t, s, o, x1, y1, x2, y2 in facts["gt_box"]}
    det = {(t, s, o, x1, y1, x2, y2) for t, s, o, _, _, x1, y1, x2, y2 in facts["detection"]}
    assert det and det <= gt
    assert {(t, o, g) for t, o, g in facts["gt_track"]} == {(t, o, o) for t, _, o, *_ in det}
    assert {t for (t,) in facts["exact_boxes"]} == {
        t for t, *_ in facts["trajectory"]
    }  # the slack bounds them
    ev = json.loads((out / "extract.json").read_text())["eval"]["total"]
    assert (ev["precision"], ev["recall"], ev["mean_iou"], ev["id_switches"]) == (1.0, 1.0, 1.0, 0)
    edges = [c["edges"] for c in ev["classes"].values() if "edges" in c]
    assert edges and all(e["slack"] == 1 and e["within_slack"] == 1.0 for e in edges)
    assert all(e[k]["max"] == 0 for e in edges for k in ("left", "top", "right", "bottom"))


def test_edge_errors_of_whole_boxes_per_class() -> None:
    """Ten mug boxes whose top edge is off by 0..9 px (the others exact): the 90th percentile is
    8 px (the ninth of ten), the largest 9, and 5 of 10 lie within a slack of 4. A box the border
    cuts, or one partly hidden, is no whole view and is left out; it is still a hit."""
    mugs = [Box(f"o{i}", "mug", (10 * i, 50, 10 * i + 9, 79), 300, False) for i in range(10)]
    cut = Box("o10", "duck", (0, 0, 9, 29), 300, True)
    hidden = Box("o11", "duck", (200, 0, 219, 29), 300, False, partly_hidden=True)
    dets = [Detection(0, i, "mug", 900, (10 * i, 50 - i, 10 * i + 9, 79)) for i in range(10)]
    dets += [Detection(0, 10, "duck", 900, (0, 0, 9, 31)), Detection(0, 11, "duck", 900, (200, 0, 219, 33))]
    sc = score_trajectory([State(0, "f0.png", boxes=[*mugs, cut, hidden])], dets)
    assert sc.tp == 12
    classes = sc.as_json(slack=4)["classes"]
    assert "edges" not in classes["duck"]
    e = classes["mug"]["edges"]
    assert e["boxes"] == 10 and e["top"] == {"p90": 8, "max": 9} and e["left"] == {"p90": 0, "max": 0}
    assert e["within_slack"] == 0.5
    assert (
        edge_summary(e)
        == "edges of 10 whole boxes: 50% within 4 px, worst top (90% within 8 px, largest 9 px)"
    )
    # The card's slack per class and edge: the largest error, where it exceeds the trajectory's slack.
    assert measured_class_slack(classes, 4) == {"mug": {"top": 9}}
    assert measured_class_slack(classes, 9) == {}
    # Without the frame size no border gap is measured; with it, the first mug's box and the cut
    # duck's reach the left border (0 columns short), and the duck's and the partly hidden one's the top.
    assert "border_gap" not in sc.as_json()
    sized = score_trajectory([State(0, "f0.png", boxes=[*mugs, cut, hidden])], dets, (320, 240))
    gaps = sized.as_json()["border_gap"]
    assert gaps["columns"] == {"boxes": 2, "p90": 0, "max": 0} and gaps["rows"] == {
        "boxes": 2,
        "p90": 0,
        "max": 0,
    }
    assert sorted(gaps["classes"]) == ["duck", "mug"]


def test_border_gaps_of_cut_objects_per_axis() -> None:
    """Boxes of objects the border cuts (their true boxes reach the first or last column or row)
    that end short of it: per axis the count, the 90th percentile and the largest gap; the card's
    border_gap is the largest. A whole object's box, however near the border, is not counted."""
    truth = [
        Box("o1", "robot", (0, 57, 79, 162), 5000, True),  # cut by the left border
        Box("o2", "shelf", (127, 0, 197, 162), 9000, True),  # cut by the top
        Box("o3", "car", (250, 150, 319, 239), 4000, True),  # cut by the right border and the bottom
        Box("o4", "mug", (3, 200, 30, 230), 600, False),  # whole, 3 px from the left border
    ]
    dets = [
        Detection(0, 1, "robot", 900, (18, 69, 96, 160)),
        Detection(0, 2, "shelf", 900, (130, 15, 192, 164)),
        Detection(0, 3, "car", 900, (252, 152, 312, 235)),
        Detection(0, 4, "mug", 900, (9, 200, 30, 230)),
    ]
    total = score_trajectory([State(0, "f0.png", boxes=truth)], dets, (320, 240)).as_json()
    assert total["border_gap"] == {
        "columns": {"boxes": 2, "p90": 18, "max": 18},
        "rows": {"boxes": 2, "p90": 15, "max": 15},
        "classes": {
            "car": {"columns": {"boxes": 1, "p90": 7, "max": 7}, "rows": {"boxes": 1, "p90": 4, "max": 4}},
            "robot": {"columns": {"boxes": 1, "p90": 18, "max": 18}},
            "shelf": {"rows": {"boxes": 1, "p90": 15, "max": 15}},
        },
    }
    assert measured_border_gap(total) == {
        "car": {"columns": 7, "rows": 4},
        "robot": {"columns": 18},
        "shelf": {"rows": 15},
    }
    assert measured_border_gap({"tp": 0}) == {}


def test_a_bad_detector_card_is_one_clear_error(tmp_path: Path) -> None:
    """The card beside a weights file gives the slack per class; a card that is not JSON, or whose
    class_slack is not class names with whole pixels, stops extract with one error; no card, or
    one without class_slack, gives none."""
    weights = tmp_path / "mine.pt"
    assert class_slacks_of(weights) == {} and class_slacks_of("gt") == {}
    card = tmp_path / "mine.json"
    card.write_text('{"trained_minutes": 3}')
    assert class_slacks_of(weights) == {}
    card.write_text('{"class_slack": {"Shelf": {"top": 41, "bottom": 12}, "mug": {}}}')
    assert class_slacks_of(weights) == {"shelf": {"top": 41, "bottom": 12}, "mug": {}}
    for entry in ('{"shelf": 12}', '{"shelf": {"up": 12}}', '{"shelf": {"top": 12.5}}'):
        card.write_text(f'{{"class_slack": {entry}}}')
        with pytest.raises(MetalogicError) as bad:
            class_slacks_of(weights)
        message = str(bad.value)
        assert message.startswith(f"the detector card {card} has a bad class_slack: {entry}")
        assert "expected: class names, each with edges (left, top, right, bottom) in whole pixels" in message
    card.write_text("{not json")
    with pytest.raises(MetalogicError) as broken:
        class_slacks_of(weights)
    assert str(broken.value).startswith(f"cannot read the detector card {card}: Expecting property name")


def test_score_counts_switches_misses_and_false_alarms() -> None:
    """A hand-checkable case: o1 is tracked by track 1, then track 2 (one switch); a box shifted
    by 2 of 10 pixels overlaps 8x10 of 12x10 = 0.667; a stray box is a false alarm; o2's second
    box is missed; o3 is too small to count either way."""
    b1 = Box("o1", "mug", (0, 0, 9, 9), 100, True)
    b2 = Box("o2", "duck", (50, 50, 69, 69), 400, False)
    tiny = Box("o3", "ball", (100, 100, 102, 102), 9, False)
    states = [
        State(0, "f0.png", boxes=[b1, b2, tiny]),
        State(1, "f1.png", boxes=[b1, b2]),
        State(2, "f2.png", boxes=[b1]),
    ]
    dets = [
        Detection(0, 1, "mug", 900, (0, 0, 9, 9)),
        Detection(0, 5, "duck", 900, (50, 50, 69, 69)),
        Detection(0, 9, "ball", 700, (100, 100, 102, 102)),  # matches the tiny box: ignored
        Detection(1, 2, "mug", 900, (2, 0, 11, 9)),  # o1 now on track 2, shifted by 2 px
        Detection(1, 6, "teddy", 800, (200, 200, 220, 220)),  # nothing there
        Detection(2, 2, "duck", 800, (0, 0, 9, 9)),
    ]  # right place, wrong class
    sc = score_trajectory(states, dets)
    assert (sc.tp, sc.fp, sc.fn, sc.id_switches, sc.frames) == (3, 2, 2, 1, 3)
    assert round(sc.mean_iou, 4) == round((1 + 1 + 80 / 120) / 3, 4)


def test_boxes_a_track_puts_on_another_object_are_not_written() -> None:
    """The truth of a question about a track is its tied object's, so a box the tracker gives
    the track on another object (the seed-503 drone: track 3, tied to o10, boxed o2 in frame 9 and
    the oracle's true depth of o10 broke MR17 there) or on nothing is dropped; its boxes on its own
    object stay, and so does every box of a trajectory without ground truth."""
    b1 = Box("o1", "mug", (0, 0, 9, 9), 100, False)
    b2 = Box("o2", "mug", (50, 50, 69, 69), 400, False)
    states = [State(s, f"f{s}.png", boxes=[b1, b2]) for s in range(3)]
    dets = [
        Detection(0, 1, "mug", 900, (0, 0, 9, 9)),
        Detection(1, 1, "mug", 900, (1, 0, 10, 9)),
        Detection(2, 1, "mug", 900, (50, 50, 69, 69)),  # the switch: track 1 (o1) on o2
        Detection(0, 2, "mug", 900, (50, 50, 69, 69)),
        Detection(1, 2, "mug", 900, (51, 50, 70, 69)),
        Detection(1, 2, "mug", 900, (120, 120, 140, 140)),  # nothing there
    ]
    kept = on_their_objects(states, dets)
    assert kept == [dets[0], dets[1], dets[3], dets[4]]
    unknown = [State(s, f"f{s}.png") for s in range(3)]
    assert on_their_objects(unknown, dets) == dets


def test_unknown_detector_and_tracker_are_clear_errors(traj_dir: Path, tmp_path: Path) -> None:
    code, _, err = run_cli("extract", str(traj_dir), "--out", str(tmp_path), "--detector", "metalogic-yolo2")
    assert code == 2
    assert err == (
        "error: unknown detector 'metalogic-yolo2': not a registered name and no such weights file\n"
        "  expected: gt, metalogic-yolo, or the path of an Ultralytics weights file (.pt)\n"
        "  fix: did you mean metalogic-yolo?\n"
    )
    code, _, err = run_cli("extract", str(traj_dir), "--out", str(tmp_path), "--tracker", "bytetrak.yaml")
    assert code == 2
    assert err.splitlines()[0] == "error: unknown tracker 'bytetrak.yaml'"
    assert err.splitlines()[-1] == "  fix: did you mean bytetrack.yaml?"
    assert not list(tmp_path.glob("*.lp"))


def test_malformed_states_line_is_reported_and_nothing_is_written(traj_dir: Path, tmp_path: Path) -> None:
    trajs = tmp_path / "traj"
    shutil.copytree(traj_dir, trajs)
    out = tmp_path / "facts"
    out.mkdir()
    (out / "earlier.lp").write_text("trajectory(earlier, video).\n")
    states = trajs / "tabletop_s5_e1" / "states.jsonl"
    lines = states.read_text().splitlines()
    lines[1] = lines[1].replace('"state":1', '"state":one')
    states.write_text("\n".join(lines) + "\n")
    code, _, err = run_cli("extract", str(trajs), "--out", str(out), "--detector", "gt")
    assert code == 2
    assert err == (
        f"error: {states}:2:10: malformed line: Expecting value\n"
        '  expected: a JSON object per line: {"state": N, "frame": "frames/....png", "action": ...}\n'
        "  fix: repair or remove the line, or rewrite the trajectory\n"
    )
    assert sorted(p.name for p in out.iterdir()) == ["earlier.lp"]  # what was there is kept, nothing added


def test_a_corrupt_frame_is_one_error_and_nothing_is_written(traj_dir: Path, tmp_path: Path) -> None:
    trajs = tmp_path / "traj"
    shutil.copytree(traj_dir, trajs)
    frame = sorted((trajs / "tabletop_s5_e1" / "frames").iterdir())[1]
    frame.write_bytes(b"\x89PNG\r\n\x1a\n not an image")
    out = tmp_path / "facts"
    code, _, err = run_cli("extract", str(trajs), "--out", str(out))
    assert code == 2
    assert err == (
        f"error: {frame}: this frame cannot be read as an image\n"
        "  expected: a PNG or JPEG file that an image viewer opens\n"
        "  fix: re-render or re-import the trajectory, or remove the state from states.jsonl\n"
    )
    assert not out.exists()


def test_eval_needs_ground_truth(tmp_path: Path) -> None:
    src = Path(__file__).parent / "data" / "extract" / "eb_nav"
    assert run_cli("import", "eb-nav", str(src), "--out", str(tmp_path / "traj"))[0] == 0
    code, _, err = run_cli("extract", str(tmp_path / "traj"), "--out", str(tmp_path / "facts"), "--eval")
    assert code == 2
    assert err == (
        "error: --eval needs ground-truth boxes, and these trajectories have none\n"
        "  expected: trajectories from 'metalogic simulate' (they carry boxes)\n"
        "  fix: drop --eval, or evaluate on simulated trajectories\n"
    )
    # Without --eval the imported trajectory becomes facts with dead-reckoned poses and no boxes.
    code, _, err = run_cli("extract", str(tmp_path / "traj"), "--out", str(tmp_path / "facts"))
    assert code == 0, err
    facts = _facts(tmp_path / "facts")
    assert len(facts["state"]) == 7 and len(facts["gt_pose"]) == 7 and "gt_box" not in facts
    assert facts["trajectory"] == [("ebnav_e1", "household")]


def test_detector_eval_measures_the_border_gaps_of_cut_objects(tmp_path: Path) -> None:
    """The real shipped detector on one fresh render of each world (3 frames each): the tabletop's
    table runs past both side borders in every frame, so its boxes give 6 column gaps there; the
    printed line and the card's border_gap are the largest gap per class and axis of the total."""
    code, out, err = run_cli(
        "detector",
        "eval",
        "--seeds",
        "1000",
        "--episodes",
        "1",
        "--steps",
        "2",
        "--out",
        str(tmp_path / "ev"),
    )
    assert code == 0, err
    report = json.loads((tmp_path / "ev" / "detector_eval.json").read_text())
    table = report["worlds"]["tabletop"]["border_gap"]["classes"]["table"]
    assert table["columns"]["boxes"] == 6 and "rows" not in table
    per_world = [w["border_gap"]["columns"]["boxes"] for w in report["worlds"].values() if "border_gap" in w]
    assert report["total"]["border_gap"]["columns"]["boxes"] == sum(per_world)
    gaps = measured_border_gap(report["total"])
    assert gaps["table"]["columns"] == max(
        w["border_gap"]["classes"]["table"]["columns"]["max"]
        for w in report["worlds"].values()
        if "table" in w.get("border_gap", {}).get("classes", {})
    )
    line = next(x for x in out.splitlines() if "the border cuts end short of it" in x)
    assert line.endswith(
        "; ".join(f"{c} " + " ".join(f"{a} {k}" for a, k in axes.items()) for c, axes in gaps.items())
    )
