"""The answers a violated case names as unable to be right together (logic/core/conflicts.lp and an
MR's own conflict/4 rules), which is what blame may retract, on both engines."""

from __future__ import annotations

from pathlib import Path

import pytest

from metalogic.engine.facts import read_facts
from metalogic.engine.rules.loader import load_ruleset
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
