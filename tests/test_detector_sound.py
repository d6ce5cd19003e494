"""The truthful agent with the shipped detector: real renders, real Ultralytics tracking, the whole
pipeline (simulate -> extract -> generate -> ask oracle -> check with clingo).

The detector's box of an object that the image border cuts often ends a few pixels short of the
border; the border margin (metalogic.extract.boxes.border_margin) must still call it truncated, or
the MRs that read whole boxes (MR9, MR11, MR16, ...) flag the truthful agent.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from metalogic.app.pipeline import run_pipeline
from metalogic.app.runconfig import load_config
from metalogic.engine.facts import read_facts
from metalogic.engine.terms import Fun, parse_term
from metalogic.extract.boxes import border_margin

CONFIG = """
out = "run"

[[world]]
scenario = "drone"
episodes = 3
steps = 12
seed = 7003

[extract]
detector = "default"
conf = 0.6

[generate]
max_per_trajectory = "all"
seed = 0

[[agent]]
spec = "oracle"

[check]
engine = "clingo"

[report]
enabled = false
"""


@pytest.fixture(scope="module")
def drone_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("border")
    (tmp / "eval.toml").write_text(CONFIG)
    run_pipeline(load_config(tmp / "eval.toml"))
    return tmp / "run"


def _facts(folder: Path) -> dict[str, list[tuple]]:
    by: dict[str, list[tuple]] = {}
    for f in read_facts(folder).facts:
        t = parse_term(f)
        assert isinstance(t, Fun)
        by.setdefault(t.name, []).append(t.args)
    return by


def test_detections_of_objects_the_border_cuts_are_truncated(drone_run: Path) -> None:
    facts = _facts(drone_run / "facts")
    size = {t: (w, h) for t, w, h in facts["image_size"]}
    tie = {(t, o): g for t, o, g in facts["gt_track"]}
    gt = {(t, s, g): box for t, s, g, *box in facts["gt_box"]}
    truncated = set(facts.get("truncated", []))
    cut = short = 0
    for t, s, o, _cls, _conf, *box in facts["detection"]:
        g = gt.get((t, s, tie.get((t, o))))
        w, h = size[t]
        if g is None:
            continue
        sides = [g[0] == 0, g[1] == 0, g[2] == w - 1, g[3] == h - 1]  # the border cuts the object there
        if not any(sides):
            continue
        cut += 1
        assert (t, s, o) in truncated, f"{t} state {s}: the border cuts track {o}; its box {box} is whole"
        # how far the detector's box ends short of a border that cuts the object
        gaps = [box[0], box[1], w - 1 - box[2], h - 1 - box[3]]
        short += min(gap for gap, side in zip(gaps, sides, strict=True) if side) > 2
    assert cut >= 5 and short >= 1, (cut, short)
    mx, my = border_margin((320, 240))
    assert mx >= 10 and my >= 8


def test_oracle_breaks_no_case_with_the_shipped_detector(drone_run: Path) -> None:
    with (drone_run / "check" / "scores_by_mr.csv").open() as f:
        rows = [r for r in csv.DictReader(f) if r["agent"] == "oracle"]
    cases = {r["mr"]: int(r["cases"]) for r in rows}
    assert sum(cases.values()) >= 60 and cases.get("mr9", 0) >= 10, cases
    assert [r for r in rows if int(r["violations"])] == []
