"""The report's picture of a joint-realisability violation (MR18) on the hand-checkable run of
tests/data/report, with a fourth object: which relations close the cycle (from the rules), where
the truthful answers place the objects, and the page that draws it in the real headless Chromium."""

from __future__ import annotations

import json
from pathlib import Path

from helpers_report import Chromium, chromium, make_run

from helpers import run_cli
from metalogic.app.report import build_report

__all__ = ["chromium"]  # the fixture, used by name

# A toy 3 m ahead and 0.3 m right of the agent's start; the scene's duck, mug and ball stand 1.5, 2
# and 2.5 m ahead (tests/data/report/scene.lp), so on the depth axis duck < mug < ball < toy.
TOY = """\
gt_object(hall, toy, 300, 3000, 1000, 200).
persistent(hall, toy).
query(qj1, obj_dir(hall, 0, ball, toy)).
query(qj2, obj_dir(hall, 0, toy, duck)).
"""
# `loopy` says the ball is farther than the toy (wrong), the toy farther than the duck (right) and
# the duck farther than the ball (wrong): a cycle of "farther" on the depth axis that no placement
# fits. Its other relations of state 0 are truthful, and so are the rest of its answers.
LOOPY = """\
answer(loopy, qj1, farther).
answer(loopy, qj2, farther).
answer(loopy, qo1, farther).
answer(loopy, qo2, farther_left_above).
answer(loopy, qo3, nearer_left).
answer(loopy, qo4, farther_right).
answer(loopy, qo5, farther_right).
"""


def _run(tmp_path: Path) -> Path:
    run = make_run(tmp_path)
    with (run / "scene.lp").open("a") as f:
        f.write(TOY)
    (run / "answers" / "loopy.lp").write_text(LOOPY)
    return run


def test_an_mr18_violation_carries_the_truthful_placement_and_the_agents_cycle(tmp_path: Path) -> None:
    rep = build_report(str(_run(tmp_path)), agents=["loopy"])
    [entry] = [v for v in rep.data["violations"] if v["mr"] == "mr18"]
    assert entry["case"] == "mr18(hall,0)" and entry["reason"] == "no_placement"
    [view] = entry["placement"]  # only the depth axis has a cycle
    assert view["axis"] == "depth" and view["beyond"] == "farther than" and view["truth"] is True
    places = {o["o"]: o["x"] for o in view["objects"]}
    assert sorted(places, key=places.__getitem__) == ["duck", "mug", "ball", "toy"]
    rels = {r["q"]: (r["u"], r["v"], r["kind"], r["true_sign"], r["against"]) for r in view["relations"]}
    # The two wrong relations and the right one of the loop, and the ball-mug-duck loop it closes
    # with the truthful "ball farther than mug" and "mug farther than duck" (qo3, qo4).
    assert rels == {
        "qj1": ("ball", "toy", "beyond", -1, True),
        "qj2": ("toy", "duck", "beyond", 1, False),
        "qo1": ("duck", "ball", "beyond", -1, True),
        "qo2": ("ball", "mug", "beyond", 1, False),
        "qo3": ("mug", "duck", "beyond", 1, False),
        "qo4": ("mug", "duck", "beyond", 1, False),
    }
    for r in view["relations"]:  # the truthful placement keeps every truthful relation
        gap = places[r["u"]] - places[r["v"]]
        assert gap >= 2 if r["true_sign"] == 1 else gap <= -2


def test_the_page_draws_the_placement_beside_the_truth(tmp_path: Path, chromium: Chromium) -> None:
    run = _run(tmp_path)
    code, _, err = run_cli("report", str(run), "--no-plots", "--agent", "loopy")
    assert code == 0, err
    chromium.load(run / "report" / "report.html")
    state = json.loads(
        chromium.js(
            """JSON.stringify({
      strips: [...document.querySelectorAll("svg.placement")].map(s => s.dataset.axis),
      objects: [...document.querySelectorAll("svg.placement g.obj text")].map(t => t.textContent),
      truthful: document.querySelectorAll("svg.placement g.rel.truthful").length,
      answered: document.querySelectorAll("svg.placement g.rel.answered").length,
      against: document.querySelectorAll("svg.placement g.rel.answered.against").length,
    })"""
        )
    )
    assert state == {
        "strips": ["depth"],
        "objects": ["ball", "toy", "duck", "mug"],
        "truthful": 6,
        "answered": 6,
        "against": 2,
    }
    assert chromium.problems() == []


def test_without_truth_the_objects_stand_in_the_order_named(tmp_path: Path) -> None:
    run = _run(tmp_path)
    scene = run / "scene.lp"
    scene.write_text("".join(ln for ln in scene.read_text().splitlines(True) if not ln.startswith("gt_")))
    rep = build_report(str(run), agents=["loopy"])
    [entry] = [v for v in rep.data["violations"] if v["mr"] == "mr18"]
    [view] = entry["placement"]
    assert view["truth"] is False
    assert [(o["o"], o["x"]) for o in view["objects"]] == [("ball", 0), ("toy", 2), ("duck", 4), ("mug", 6)]
    assert {r["against"] for r in view["relations"]} == {None}


def test_an_axis_relation_of_another_shape_is_not_drawn() -> None:
    from metalogic.app.placement import relations

    assert (
        relations(
            ["axis_relation(side,q1)", "axis_relation(up,q1,a,b,beyond)", "axis_relation(side,q1,a,b,x)"]
        )
        == {}
    )
    assert relations(["axis_relation(side,q1,a,b,level)"]) == {"side": [("q1", "a", "b", "level")]}
