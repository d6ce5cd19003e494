"""MR17 (the ground anchor) on simulated trajectories, through the real pipeline (simulate ->
extract with the simulator's boxes -> generate -> the oracle -> check with clingo).

The simulator writes what it knows of its layout (the camera's height, the surface each object
stands on and its footprint); the oracle must break none of MR17's cases, and agents made from the
oracle's answers by one metric distortion the other MRs let through (every depth doubled, every
distance doubled, every length 500 mm too long) must fall to at most 0.5 where MR17 reads them
(500 mm more is within the tolerance of the drone's distances of tens of metres, so only its sizes
and depths are asserted), and so must an agent that answers every move as "none" on the direction of
its moves, which MR17 reads from the camera's change of height and the anchored objects alone, and
one that answers every map direction "n" on those directions.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from metalogic.app.pipeline import run_pipeline
from metalogic.app.runconfig import load_config
from metalogic.engine.check.run import run_check

WORLDS = "".join(
    f'\n[[world]]\nscenario = "{s}"\nepisodes = 1\nsteps = 10\nseed = 29\n' for s in ("household", "drone")
)
CONFIG = f"""
out = "run"
{WORLDS}
[extract]
detector = "gt"

[generate]
max_per_trajectory = "all"
seed = 1

[[agent]]
spec = "oracle"

[report]
enabled = false
"""
ANSWER = re.compile(r"answer\(oracle, (\w+), (\d+)\)\.$")
MOVE = re.compile(r"answer\(oracle, (\w+), move\(\w+, ?\w+\)\)\.$")
MAP = re.compile(r"answer\(oracle, (\w+), (?:n|ne|e|se|s|sw|w|nw|eq)\)\.$")
QUERY = re.compile(r"query\((\w+), (\w+)\(")
DISTANCES = ("obj_dist", "map_dist", "ego_dist")
DISTORTIONS = {  # name: (the query kinds it changes, how)
    "depths_double": (("depth",), lambda v: 2 * v),
    "distances_double": (DISTANCES, lambda v: 2 * v),
    "lengths_plus_500": ((*DISTANCES, "depth", "size"), lambda v: v + 500),
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("ground")
    (tmp / "eval.toml").write_text(CONFIG)
    run_pipeline(load_config(tmp / "eval.toml"))
    return tmp / "run"


def test_the_simulator_writes_the_ground_facts(run: Path) -> None:
    text = "\n".join(f.read_text() for f in sorted((run / "facts").glob("*.lp")))
    heights = re.findall(r"^camera_height\((\w+),(\d+),(\d+)\)\.$", text, re.M)
    supports = re.findall(r"^support\((\w+),(\w+),(-?\d+)\)\.$", text, re.M)
    footprints = re.findall(r"^footprint\((\w+),(\w+),(\d+)\)\.$", text, re.M)
    states = re.findall(r"^state\((\w+),(\d+)\)\.$", text, re.M)
    assert sorted((t, s) for t, s, _ in heights) == sorted(states)  # every state has one
    assert {t for t, _, _ in heights} == {"household_s29_e1", "drone_s29_e1"}
    assert supports and {(t, o) for t, o, _ in supports} == {(t, o) for t, o, _ in footprints}
    assert {int(h) for _, _, h in supports} & {0}, "some objects stand on the floor"
    # where a class's centre projects in its boxes, for every class the boxes name (CLASS_CENTRE)
    detected = set(re.findall(r"^detection\((\w+),\d+,\w+,(\w+),", text, re.M))
    centres = re.findall(r"^class_centre\((\w+),(\w+),(\d+),(\d+)\)\.$", text, re.M)
    assert {(t, c) for t, c, _, _ in centres} == detected
    assert all(0 < int(w) <= 500 and 0 < int(h) <= 500 for _, _, w, h in centres)


def test_the_oracle_breaks_no_ground_case_and_metric_distortions_fall(run: Path, tmp_path: Path) -> None:
    questions = run / "questions"
    queries = (questions / "queries.lp").read_text()
    kind = {m.group(1): m.group(2) for m in map(QUERY.match, queries.splitlines()) if m}
    oracle = (questions / "answers" / "oracle.lp").read_text()
    for f in (run / "facts").glob("*.lp"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "queries.lp").write_text(queries)
    (tmp_path / "oracle.lp").write_text(oracle)
    wrong: dict[tuple[str, str], int] = {}
    for name, (kinds, change) in DISTORTIONS.items():
        lines = []
        for line in oracle.splitlines():
            m = ANSWER.match(line)
            if m and kind.get(m.group(1)) in kinds:
                line = f"answer({name}, {m.group(1)}, {change(int(m.group(2)))})."
                wrong[(name, kind[m.group(1)])] = 1
            else:
                line = line.replace("answer(oracle,", f"answer({name},")
            lines.append(line)
        (tmp_path / f"{name}.lp").write_text("\n".join(lines) + "\n")
    # An agent that says it never moved (its other answers the oracle's).
    still = [MOVE.sub(r"answer(still, \1, move(none, none)).", line) for line in oracle.splitlines()]
    still = [line.replace("answer(oracle,", "answer(still,") for line in still]
    (tmp_path / "still.lp").write_text("\n".join(still) + "\n")
    # And one that puts every object due north of the other on the map.
    north = [MAP.sub(r"answer(north, \1, n).", line) for line in oracle.splitlines()]
    north = [line.replace("answer(oracle,", "answer(north,") for line in north]
    (tmp_path / "north.lp").write_text("\n".join(north) + "\n")
    # Both engines on the whole run (they must agree on every case, violation, score and
    # explanation, or the check fails): MR17 and MR18 on real simulated boxes and answers.
    res = run_check(str(tmp_path), mrs=["mr17", "mr18"], engine="both")
    scores = {(a, sc): (n, v) for a, sc, n, v in res.rows.scores}
    oracle_cases = {sc: n for (a, sc), (n, v) in scores.items() if a == "oracle"}
    assert oracle_cases.get("sc3b", 0) >= 20 and oracle_cases.get("sc2b", 0) >= 3
    assert [r for r in res.rows.violations if r[0] == "oracle"] == []
    for name, sc in (
        ("depths_double", "sc3b"),
        ("distances_double", "sc2b"),
        ("distances_double", "sc4b"),
        ("lengths_plus_500", "sc3a"),
        ("lengths_plus_500", "sc3b"),
        ("still", "sc1a"),
        ("north", "sc4a"),
    ):
        n, v = scores[(name, sc)]
        assert n > 0 and (n - v) / n <= 0.5, (name, sc, n, v)
