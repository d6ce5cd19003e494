"""`metalogic generate` on a hand-written kitchen trajectory (tests/data/generate/kitchen.lp).

The generated queries are checked against the real MR rules: every query serves a test case,
every requested capability and MR gets cases, and `metalogic check` finds exactly the reported
cases once hand-written answers are added. The answers come from small tables written by hand
for this trajectory (where the agent stood, where the objects are, how tall they are).
"""

from __future__ import annotations

import json
import math
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import clingo
import pytest

from helpers import ROOT, run_cli
from metalogic.engine.check import run_check
from metalogic.engine.generate import generate
from metalogic.engine.rules import SHARED_TABLES, load_ruleset
from metalogic.engine.terms import Fun, parse_term, text
from metalogic.engine.vocab import vocabulary

SCENE = ROOT / "tests" / "data" / "generate"
Manifest = dict[str, Any]
ALL_SCS = ["sc1a", "sc1b", "sc2a", "sc2b", "sc3a", "sc3b", "sc4a", "sc4b"]

# Hand-written truth for the kitchen trajectory. The agent never turns; its position in steps
# (right, forward) after the actions forward, forward, right, forward, backward.
POSITION = {0: (0, 0), 1: (0, 1), 2: (0, 2), 3: (1, 2), 4: (1, 3), 5: (1, 2)}
STEP_MM = 250
# The objects stand in a row 2000 mm ahead of the start: x in mm (right), and real heights.
OBJECT_X = {1: -400, 2: -150, 3: 200, 4: 600}
OBJECT_Y = 2000
HEIGHT = {1: 95, 2: 60, 3: 230, 4: 600}
DETECTION = re.compile(r"detection\(kitchen, (\d+), (\d+), \w+, \d+, (\d+), (\d+), (\d+), (\d+)\)")


def boxes() -> dict[tuple[int, int], tuple[int, int, int, int]]:
    out = {}
    for m in DETECTION.finditer((SCENE / "kitchen.lp").read_text()):
        s, o, x1, y1, x2, y2 = map(int, m.groups())
        out[(s, o)] = (x1, y1, x2, y2)
    return out


def sign(v: float) -> int:
    return (v > 0) - (v < 0)


def truthful(content: Fun) -> str:
    """The answer a careful agent gives to one query about the kitchen."""
    kind, args = content.name, content.args
    box = boxes()
    if kind in ("move_dir", "move_dist"):
        (x1, y1), (x2, y2) = POSITION[int(args[1])], POSITION[int(args[2])]
        if kind == "move_dist":
            return str(round(math.hypot(x2 - x1, y2 - y1)))
        names = {v: n for (voc, n), v in vocabulary().vectors.items() if voc == "move"}
        return f"move({names[(sign(x2 - x1), sign(y2 - y1), 0)]},none)"
    s = int(args[1])
    if kind in ("obj_dir", "map_dir"):
        a, b = (box[(s, int(o))] for o in args[2:])
        left = (a[0] + a[2]) < (b[0] + b[2])
        return {
            ("obj_dir", True): "left",
            ("obj_dir", False): "right",
            ("map_dir", True): "w",
            ("map_dir", False): "e",
        }[(kind, left)]
    if kind in ("obj_dist", "map_dist"):
        return str(abs(OBJECT_X[int(args[2])] - OBJECT_X[int(args[3])]))
    o = int(args[2])
    if kind == "ego_dist":
        ax, ay = (c * STEP_MM for c in POSITION[s])
        return str(round(math.hypot(OBJECT_X[o] - ax, OBJECT_Y - ay)))
    if kind == "size":
        return str(HEIGHT[o])
    assert kind == "depth"
    return str(100_000 // (box[(s, o)][3] - box[(s, o)][1]))  # depth falls as the box grows


def read_queries(run: Path) -> dict[str, tuple[Fun, str]]:
    out: dict[str, tuple[Fun, str]] = {}
    contents: dict[str, Fun] = {}
    for line in (run / "queries.lp").read_text().splitlines():
        if line.startswith("%"):
            continue
        fact = parse_term(line.rstrip("."))
        assert isinstance(fact, Fun)
        q = text(fact.args[0])
        if fact.name == "query":
            assert isinstance(fact.args[1], Fun)
            contents[q] = fact.args[1]
        else:
            out[q] = (contents[q], text(fact.args[1]))
    assert set(out) == set(contents), "every query has exactly one form"
    return out


def write_answers(run: Path, agent: str, flip: str | None = None) -> None:
    lines = []
    for q, (content, _) in sorted(read_queries(run).items()):
        value = truthful(content)
        if q == flip:
            value = {"left": "right", "right": "left", "w": "e", "e": "w"}[value]
        lines.append(f"answer({agent}, {q}, {value}).\n")
    (run / "answers").mkdir(exist_ok=True)
    (run / "answers" / f"{agent}.lp").write_text("".join(lines))


def gen(tmp_path: Path, name: str, *args: str) -> tuple[Path, Manifest]:
    run = tmp_path / name
    code, _, err = run_cli("generate", str(SCENE), "--out", str(run), *args)
    assert code == 0, err
    return run, json.loads((run / "run.json").read_text())


def query_uses(run: Path) -> Counter[str]:
    """How many test cases need or use each query for support, straight from clingo."""
    ctl = clingo.Control(["--warn=none"])
    ctl.load(str(SHARED_TABLES))
    for f in load_ruleset().lp_files:
        ctl.load(str(f))
    ctl.load(str(run / "scene.lp"))
    ctl.load(str(run / "queries.lp"))
    ctl.add("base", [], "#show case_query/2. #show case_support/2.")
    ctl.ground([("base", [])])
    uses: Counter[str] = Counter()
    ctl.solve(on_model=lambda m: uses.update(str(s.arguments[1]) for s in m.symbols(shown=True)))
    return uses


def used_queries(run: Path) -> set[str]:
    return set(query_uses(run))


@pytest.fixture(scope="module")
def sampled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Manifest]:
    return gen(tmp_path_factory.mktemp("gen"), "run", "--max-per-trajectory", "40", "--seed", "3")


@pytest.fixture(scope="module")
def everything(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Manifest, str]:
    """Every candidate combination, and the summary the command printed."""
    run = tmp_path_factory.mktemp("gen") / "all"
    code, out, err = run_cli("generate", str(SCENE), "--out", str(run), "--max-per-trajectory", "all")
    assert code == 0, err
    return run, json.loads((run / "run.json").read_text()), out


def test_every_query_serves_a_test_case_and_is_asked_once(sampled: tuple[Path, Manifest]) -> None:
    run, manifest = sampled
    queries = read_queries(run)
    assert len(queries) == manifest["queries"] > 0
    assert used_queries(run) == set(queries)
    pairs = [(text(c), f) for c, f in queries.values()]
    assert len(set(pairs)) == len(pairs), "one id per content and form"
    shared = [q for q, n in query_uses(run).items() if n > 1]
    assert len(shared) > len(queries) / 2, "most queries serve several test cases"
    assert manifest["queries_per_testcase"] == round(manifest["queries"] / manifest["testcases"], 3)


def test_each_capability_and_each_of_its_mrs_gets_cases(sampled: tuple[Path, Manifest]) -> None:
    _, manifest = sampled
    served = {(sc, m.id) for m in load_ruleset().mrs for sc in m.serves}
    got = {(sc, mr) for sc, mrs in manifest["testcases_by_sc_mr"].items() for mr, n in mrs.items() if n > 0}
    assert got == served
    assert manifest["sc"] == ALL_SCS
    kitchen = manifest["trajectories"]["kitchen"]
    assert kitchen["sampled"] == 40 < kitchen["candidates"]


def test_scene_is_kept_and_left_out_boxes_are_not_asked_about(everything: tuple[Path, Manifest, str]) -> None:
    run, manifest, _ = everything
    scene = (run / "scene.lp").read_text()
    assert "gt_pose(kitchen,5,250,500,1200,90)." in scene.replace(" ", "")
    assert manifest["scene_root"] == str(SCENE.resolve())
    contents = [c for c, _ in read_queries(run).values()]
    mentioned = {
        (int(c.args[1]), int(o))
        for c in contents
        if c.name not in ("move_dir", "move_dist")
        for o in c.args[2:]
    }
    assert {o for _, o in mentioned} == {1, 2, 3, 4}, "track 9 is not persistent"
    assert (5, 2) not in mentioned, "the bowl's box in state 5 is below the confidence threshold"
    assert (4, 2) in mentioned
    whole = {(int(c.args[1]), int(c.args[2])) for c in contents if c.name in ("size", "depth")}
    assert (2, 4) not in whole, "the plant is truncated in state 2"
    assert {(1, 4), (3, 4)} <= whole
    pairs = {(int(c.args[1]), frozenset(c.args[2:])) for c in contents if c.name in ("obj_dir", "map_dir")}
    assert (1, frozenset({2, 3})) not in pairs, "bowl and kettle overlap left/right in state 1"
    assert (0, frozenset({2, 3})) in pairs
    distances = {(int(c.args[1]), frozenset(c.args[2:])) for c in contents if c.name == "obj_dist"}
    assert (1, frozenset({2, 3})) in distances, "distances need no clear left/right"


def test_check_finds_the_generated_test_cases(tmp_path: Path, sampled: tuple[Path, Manifest]) -> None:
    src, manifest = sampled
    run = tmp_path / "answered"
    shutil.copytree(src, run)
    write_answers(run, "careful")
    code, out, err = run_cli("check", str(run))
    assert code == 0, err
    assert f"{manifest['testcases']} test cases, 0 violations" in out
    res = run_check(str(run))
    found: dict[str, dict[str, int]] = {}
    for _, mr, sc in res.rows.testcases:
        found.setdefault(sc, {}).setdefault(mr, 0)
        found[sc][mr] += 1
    assert found == manifest["testcases_by_sc_mr"]
    assert all(n > 0 for _, _, n, _ in res.rows.scores)

    # One wrong answer: the left/right of one pair asked both ways is given the wrong way round.
    case = next(c for c, mr, sc in res.rows.testcases if mr == "mr2" and sc == "sc2a")
    term = parse_term(case)
    assert isinstance(term, Fun)
    flipped = text(term.args[0])
    write_answers(run, "careful", flip=flipped)
    res = run_check(str(run))
    assert ("careful", case, "mr2", "sc2a", "not_inverse") in res.rows.violations
    for agent, c, *_ in res.rows.violations:
        assert any(f.startswith(f"query({flipped},") for f in res.rows.explain[(agent, c)])


def test_same_seed_same_bytes_and_another_seed_another_sample(tmp_path: Path) -> None:
    runs = [
        gen(tmp_path, name, "--max-per-trajectory", "15", "--seed", seed)[0]
        for name, seed in (("a", "7"), ("b", "7"), ("c", "8"))
    ]
    for f in ("scene.lp", "queries.lp", "run.json"):
        assert (runs[0] / f).read_bytes() == (runs[1] / f).read_bytes()
    assert (runs[0] / "queries.lp").read_bytes() != (runs[2] / "queries.lp").read_bytes()


def test_sharing_strategy_asks_fewer_queries_per_case(tmp_path: Path) -> None:
    _, share = gen(tmp_path, "share", "--max-per-trajectory", "30", "--strategy", "share")
    _, spread = gen(tmp_path, "spread", "--max-per-trajectory", "30", "--strategy", "spread")
    assert share["queries_per_testcase"] < spread["queries_per_testcase"]


def test_chosen_capabilities_only_and_a_limit_per_trajectory(tmp_path: Path) -> None:
    scene = tmp_path / "scene"
    scene.mkdir()
    kitchen = (SCENE / "kitchen.lp").read_text()
    (scene / "a.lp").write_text(kitchen)
    (scene / "b.lp").write_text(kitchen.replace("kitchen", "pantry"))
    run = tmp_path / "run"
    res = generate(scene, run, scs=["sc3", "sc1b"], max_per_trajectory=6, seed=1)
    assert res.scs == ["sc1b", "sc3a", "sc3b"]
    assert {sc for sc, _ in res.cases} == {"sc1b", "sc3a", "sc3b"}
    assert {t: s for t, (_, s) in res.trajectories.items()} == {"kitchen": 6, "pantry": 6}
    kinds = {c.name for c, _ in read_queries(run).values()}
    assert kinds == {"move_dist", "move_dir", "size", "depth"}, "move_dir only as MR4 support"


def test_generate_everything_then_the_summary_table(everything: tuple[Path, Manifest, str]) -> None:
    run, manifest, out = everything
    kitchen = manifest["trajectories"]["kitchen"]
    assert kitchen["sampled"] == kitchen["candidates"]
    assert used_queries(run) == set(read_queries(run))
    head = out.splitlines()[0].split()
    assert head == ["sc", "capability", *(f"mr{i}" for i in range(1, 7)), "cases", "queries", "q/case"]
    total = next(line for line in out.splitlines() if line.startswith("all")).split()
    assert total[1:3] == [str(manifest["testcases"]), str(manifest["queries"])]


def test_parameters_change_what_is_asked(tmp_path: Path) -> None:
    args = ("--sc", "sc2b,sc3b", "--max-per-trajectory", "all")
    _, default = gen(tmp_path, "default", *args)
    run, weak = gen(tmp_path, "weak", *args, "-c", "min_conf=400")
    _, near = gen(tmp_path, "near", *args, "-c", "max_gap=1")
    assert weak["params"] == {**default["params"], "min_conf": 400}
    objects_in_5 = {int(c.args[2]) for c, _ in read_queries(run).values() if int(c.args[1]) == 5}
    assert 2 in objects_in_5, "the bowl's weak box in state 5 counts with min_conf=400"

    def candidates(manifest: Manifest) -> int:
        return int(manifest["trajectories"]["kitchen"]["candidates"])

    assert candidates(near) < candidates(default) < candidates(weak)


def test_a_capability_without_cases_is_named(tmp_path: Path) -> None:
    run = tmp_path / "run"
    code, _, err = run_cli("generate", str(SCENE), "--out", str(run), "--sc", "sc2", "-c", "sep_permille=999")
    assert code == 0, err
    assert err == (
        "note: sc2a: no test case (needs two persistent objects clearly apart left/right in one frame)\n"
    )
    assert set(json.loads((run / "run.json").read_text())["testcases_by_sc_mr"]) == {"sc2b"}


# ---- errors: one clear message each, exit status 2, nothing written ---------------------------


def error_of(tmp_path: Path, *args: str) -> str:
    code, out, err = run_cli("generate", *args)
    assert code == 2, out
    assert not (tmp_path / "out").exists()
    return err


def test_error_missing_and_empty_facts_folders(tmp_path: Path) -> None:
    out = str(tmp_path / "out")
    assert error_of(tmp_path, str(tmp_path / "nope"), "--out", out) == (
        f"error: facts folder '{tmp_path / 'nope'}' does not exist\n"
        "  expected: a folder of scene facts (*.lp), as metalogic extract writes\n"
        "  fix: check the path, e.g. metalogic generate facts/ --out runs/first\n"
    )
    (tmp_path / "empty").mkdir()
    assert error_of(tmp_path, str(tmp_path / "empty"), "--out", out) == (
        f"error: no facts files (*.lp) under '{tmp_path / 'empty'}'\n"
        "  expected: at least one *.lp file of ground facts (see docs/facts.md)\n"
        "  fix: point at the folder that holds the facts, or write them there first\n"
    )


def test_error_no_persistent_objects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("moves").mkdir()
    Path("moves/a.lp").write_text("trajectory(t, household).\nstate(t, 0).\nstate(t, 1).\nstate(t, 2).\n")
    assert error_of(tmp_path, "moves", "--out", "out", "--sc", "sc1a,sc3b") == (
        "error: moves: no persistent/2 facts, but sc3b asks about objects\n"
        "  expected: persistent(T, O) facts for the objects tracked over each trajectory\n"
        "  fix: write the scene facts with metalogic extract (it marks persistent tracks), "
        "or choose movement only: --sc sc1a,sc1b\n"
    )
    code, _, err = run_cli("generate", "moves", "--out", "out", "--sc", "sc1")
    assert code == 0, err


def test_error_no_combination_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("one").mkdir()
    Path("one/a.lp").write_text(
        "state(t, 0).\npersistent(t, 1).\ndetection(t, 0, 1, cup, 900, 0, 0, 50, 50).\n"
    )
    assert error_of(tmp_path, "one", "--out", "out", "--sc", "sc3b") == (
        "error: no test case can be built from 'one' for sc3b\n"
        "  expected: sc3b: a persistent object with a whole box in two frames\n"
        "  fix: check the scene facts (metalogic schema lists them), or lower -c min_conf / -c min_box_px\n"
    )


def test_error_unknown_capability_and_bad_limit(tmp_path: Path) -> None:
    out = str(tmp_path / "out")
    assert error_of(tmp_path, str(SCENE), "--out", out, "--sc", "sc2a,sc5a") == (
        "error: unknown capability 'sc5a' in --sc\n"
        "  expected: one or more of sc1a, sc1b, sc2a, sc2b, sc3a, sc3b, sc4a, sc4b "
        "(sc1 .. sc4 stand for both halves)\n"
        "  fix: did you mean sc4a?\n"
    )
    for bad in ("0", "-3", "ten"):
        assert error_of(tmp_path, str(SCENE), "--out", out, "--max-per-trajectory", bad) == (
            f"error: bad --max-per-trajectory '{bad}'\n"
            "  expected: a whole number of combinations per trajectory, at least 1, or 'all'\n"
            "  fix: e.g. --max-per-trajectory 50\n"
        )
    assert error_of(tmp_path, str(SCENE), "--out", out, "-c", "min_cnf=500") == (
        "error: unknown generation parameter 'min_cnf'\n"
        "  expected: one of max_gap, min_box_px, min_conf, sep_permille\n"
        "  fix: did you mean min_conf?\n"
    )


def test_error_run_folder_as_facts_and_answers_in_the_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sampled: tuple[Path, Manifest]
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(sampled[0], "run")
    first = Path("run/queries.lp").read_text().splitlines()[2]
    assert error_of(tmp_path, "run", "--out", "out") == (
        "error: run/queries.lp:3:1: the facts folder holds form/2, query/2 facts; "
        "generate reads scene facts only\n"
        f"    {first}\n"
        "    ^\n"
        "  expected: scene and truth facts (trajectory, state, detection, ...), "
        "as metalogic extract writes them\n"
        "  fix: point at the scene facts folder, not at a run folder\n"
    )
    write_answers(Path("run"), "careful")
    before = Path("run/queries.lp").read_bytes()
    code, _, err = run_cli("generate", str(SCENE), "--out", "run", "--seed", "99")
    assert code == 2
    assert err == (
        "error: run/answers/careful.lp: 'run' already holds answers or other facts; "
        "new query ids would leave them without their queries\n"
        "  expected: a new run folder, or one holding only scene.lp, queries.lp and run.json\n"
        "  fix: choose another --out folder, or move the other facts away first\n"
    )
    assert Path("run/queries.lp").read_bytes() == before
