"""The answers a violated case names as unable to be right together (logic/core/conflicts.lp and an
MR's own conflict/4 rules), which is what blame may retract, on both engines."""

from __future__ import annotations

from pathlib import Path

import pytest

from metalogic.engine.facts import read_facts
from metalogic.engine.rules.loader import load_ruleset, select_mrs
from metalogic.engine.session.runs import run_engine

# MR11 (examples/facts/mr11_move_view.lp's hallway): a 10 cm box 2 m ahead fills 50 rows, 67 rows
# after a step forward. `near` says it came from 2 m to 0.7 m: the box would then have grown to
# about 143 rows, not 67, so its two depths cannot both be right, whatever the move; the move it
# answered (forward) fits the view. `back` answers the true depths and says it stepped back.
HALLWAY = """\
trajectory(hallway, household).
step_mm(hallway, 500).
image_size(hallway, 1000, 1000).
camera(hallway, 1000, 1000, 500, 500).
camera_pitch(hallway, 0, 0).
camera_pitch(hallway, 1, 0).
detection(hallway, 0, box, box, 900, 475, 475, 524, 524).
detection(hallway, 1, box, box, 900, 467, 467, 533, 533).
query(q751, depth(hallway, 0, box)).
query(q752, depth(hallway, 1, box)).
query(q753, move_dir(hallway, 0, 1)).
answer(near, q751, 2000).
answer(near, q752, 700).
answer(near, q753, move(forward, none)).
answer(back, q751, 2000).
answer(back, q752, 1500).
answer(back, q753, move(backward, none)).
"""


@pytest.mark.parametrize("engine", ["clingo", "prolog"])
def test_mr11_charges_depths_that_do_not_rescale_not_the_move(engine: str, tmp_path: Path) -> None:
    (tmp_path / "hallway.lp").write_text(HALLWAY)
    out = run_engine(engine, load_ruleset(), read_facts(tmp_path).program(), {})
    assert {v for v in out.lines["violation"] if "mr11" in v} == {
        "violation(near,mr11(q753),mr11,sc1a,depth_against_view)",
        "violation(back,mr11(q753),mr11,sc1a,move_against_view)",
    }
    assert out.lines["conflict_set"] == {
        "conflict_set(near,mr11(q753),rescale(box),q751)",
        "conflict_set(near,mr11(q753),rescale(box),q752)",
        "conflict_set(back,mr11(q753),views,q751)",
        "conflict_set(back,mr11(q753),views,q752)",
        "conflict_set(back,mr11(q753),views,q753)",
    }


# MR7 (examples/facts/mr7_view.lp's kitchen): the kettle's box lies 250 px right of the mug's, the
# cup's 300 px above it. `lefty` reads the boxes wrong ("left"), with depths; `low` says the cup is
# below the mug although, at the depths it gave, its box puts the cup higher.
KITCHEN = """\
trajectory(kitchen, household).
image_size(kitchen, 1000, 1000).
camera(kitchen, 1000, 1000, 500, 500).
camera_pitch(kitchen, 0, 0).
detection(kitchen, 0, mug, mug, 900, 450, 450, 549, 549).
detection(kitchen, 0, kettle, kettle, 900, 700, 450, 799, 549).
detection(kitchen, 0, cup, cup, 900, 450, 150, 549, 249).
query(q711, obj_dir(kitchen, 0, kettle, mug)).
query(q712, obj_dir(kitchen, 0, cup, mug)).
query(q713, depth(kitchen, 0, cup)).
query(q714, depth(kitchen, 0, mug)).
query(q715, depth(kitchen, 0, kettle)).
answer(lefty, q711, left).
answer(lefty, q714, 1000).
answer(lefty, q715, 1000).
answer(low, q712, below).
answer(low, q713, 1000).
answer(low, q714, 1000).
"""


@pytest.mark.parametrize("engine", ["clingo", "prolog"])
def test_mr7_blames_a_lateral_break_on_the_answer_alone(engine: str, tmp_path: Path) -> None:
    """Left/right reads only the boxes and the answer: the depths the case also reads are not in
    its set. Above/below places the boxes at the agent's depths: they are."""
    (tmp_path / "kitchen.lp").write_text(KITCHEN)
    out = run_engine(engine, load_ruleset(), read_facts(tmp_path).program(), {})
    assert {v for v in out.lines["violation"] if "mr7" in v} == {
        "violation(lefty,mr7(q711),mr7,sc2a,lateral_against_boxes)",
        "violation(low,mr7(q712),mr7,sc2a,vertical_against_boxes)",
    }
    assert {c for c in out.lines["conflict_set"] if "mr7" in c} == {
        "conflict_set(lefty,mr7(q711),lateral,q711)",
        "conflict_set(low,mr7(q712),depths,q712)",
        "conflict_set(low,mr7(q712),depths,q713)",
        "conflict_set(low,mr7(q712),depths,q714)",
    }


# MR18: four objects in one frame; `loop` says a is left of b, b of c and c of a (no placement fits),
# and a is right of d (which fits any placement of the loop).
LOOP = """\
trajectory(den, household).
query(q801, obj_dir(den, 0, a, b)).
query(q802, obj_dir(den, 0, b, c)).
query(q803, obj_dir(den, 0, c, a)).
query(q804, obj_dir(den, 0, a, d)).
answer(loop, q801, left).
answer(loop, q802, left).
answer(loop, q803, left).
answer(loop, q804, right).
"""


@pytest.mark.parametrize("engine", ["clingo", "prolog"])
def test_mr18_names_the_relations_of_the_cycle_not_the_whole_frame(engine: str, tmp_path: Path) -> None:
    (tmp_path / "den.lp").write_text(LOOP)
    out = run_engine(engine, load_ruleset(), read_facts(tmp_path).program(), {})
    assert "violation(loop,mr18(den,0),mr18,sc2a,no_placement)" in out.lines["violation"]
    assert {c for c in out.lines["conflict_set"] if "mr18" in c} == {
        f"conflict_set(loop,mr18(den,0),side,{q})" for q in ("q801", "q802", "q803")
    }
    # The explanation states each relation of the cycle on its axis, for the report's picture:
    # "a left of b" puts b beyond a on the side axis (right is the positive side).
    assert {e for e in out.lines["explain"] if "axis_relation" in e} == {
        "explain(loop,mr18(den,0),axis_relation(side,q801,b,a,beyond))",
        "explain(loop,mr18(den,0),axis_relation(side,q802,c,b,beyond))",
        "explain(loop,mr18(den,0),axis_relation(side,q803,a,c,beyond))",
    }


# MR17's move directions (examples/facts/mr17_ground.lp's lift): the camera rose 1000 mm, so a move
# answered level is wrong on its own; the case reads no other answer (no depth, no size).
LIFT = """\
trajectory(lift, drone).
camera(lift, 500, 500, 320, 240).
camera_height(lift, 0, 5000).
camera_height(lift, 1, 6000).
query(q903, move_dir(lift, 0, 1)).
query(q904, move_dist(lift, 0, 1)).
answer(level, q903, move(forward, none)).
answer(level, q904, 1).
"""


@pytest.mark.parametrize("engine", ["clingo", "prolog"])
def test_mr17_blames_a_move_direction_against_the_camera_height_alone(engine: str, tmp_path: Path) -> None:
    (tmp_path / "lift.lp").write_text(LIFT)
    out = run_engine(engine, load_ruleset(), read_facts(tmp_path).program(), {})
    assert {v for v in out.lines["violation"] if "mr17" in v} == {
        "violation(level,mr17w(q903),mr17,sc1a,direction_against_ground)"
    }
    assert {c for c in out.lines["conflict_set"] if "mr17" in c} == {
        "conflict_set(level,mr17w(q903),all,q903)"
    }


# No frame shows these moves (examples/facts/mr4_triangle.lp's corridor). MR4 compares move lengths
# only with each other, which any consistent distortion of them keeps (`double` answers every move
# twice its length): a length only MR4 reads (q403) is not tested, unless only the paper's MRs run.
# MR14 compares q401 and q402 with the move directions of the same steps, another capability, so
# those two are tested. `shaky` breaks the triangle; blame may retract q403, which then counts in no
# capability's blamed share.
CORRIDOR = """\
trajectory(corridor, household).
step_mm(corridor, 250).
query(q401, move_dist(corridor, 0, 1)).
query(q402, move_dist(corridor, 1, 2)).
query(q403, move_dist(corridor, 0, 2)).
query(q404, move_dir(corridor, 0, 1)).
query(q405, move_dir(corridor, 1, 2)).
answer(double, q401, 4).
answer(double, q402, 6).
answer(double, q403, 10).
answer(double, q404, move(forward, none)).
answer(double, q405, move(forward, none)).
answer(shaky, q401, 2).
answer(shaky, q402, 3).
answer(shaky, q403, 4).
answer(shaky, q404, move(forward, none)).
answer(shaky, q405, move(forward, none)).
"""


@pytest.mark.parametrize("engine", ["clingo", "prolog"])
@pytest.mark.parametrize(("mrs", "tested"), [("all", 2), ("mr4,mr14", 2), ("paper", 3), ("mr4", 3)])
def test_answers_only_the_papers_mrs_read_are_tested_only_when_those_alone_run(
    engine: str, mrs: str, tested: int, tmp_path: Path
) -> None:
    (tmp_path / "corridor.lp").write_text(CORRIDOR)
    out = run_engine(engine, select_mrs(load_ruleset(), mrs), read_facts(tmp_path).program(), {})
    assert "violation(shaky,mr4(q401,q402,q403),mr4,sc1b,not_sum)" in out.lines["violation"]
    assert not any(v.startswith("violation(double,") for v in out.lines["violation"])
    assert {t for t in out.lines["tested_answers"] if ",sc1b," in t} == {
        f"tested_answers(double,sc1b,{tested})",
        f"tested_answers(shaky,sc1b,{tested})",
    }
    assert out.lines["untested_suspect"] == ({"untested_suspect(shaky,q403)"} if tested == 2 else set())
