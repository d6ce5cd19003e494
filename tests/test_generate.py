"""`metalogic generate` on a hand-written kitchen trajectory (tests/data/generate/kitchen.lp) and on
synthetic worlds whose boxes are the projections of real cuboids (metalogic.extract.synthetic).

The generated queries are checked against the real MR rules: every query serves a test case, every
capability and MR gets cases, the questions the frames cannot answer are left out, and `metalogic
check` finds exactly the reported cases, none of them violated by the oracle (the truth rules) on
the synthetic worlds, and the right ones once an answer is flipped.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from helpers import ROOT, run_cli
from metalogic.engine.check.run import run_check
from metalogic.engine.generate.run import NEEDS, generate
from metalogic.engine.rules.loader import load_ruleset
from metalogic.engine.session.api import Session
from metalogic.engine.terms import Fun, parse_term, text
from metalogic.extract.synthetic import WorldSpec, make_world, write_worlds

SCENE = ROOT / "tests" / "data" / "generate"
Manifest = dict[str, Any]
ALL_SCS = ["sc1a", "sc1b", "sc2a", "sc2b", "sc3a", "sc3b", "sc4a", "sc4b"]


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


def write_answers(run: Path, agent: str) -> None:
    """Answers of the real `random` reference agent (any valid value will do where answers only
    need to exist)."""
    code, _, err = run_cli("ask", str(run), "--agent", "random", "--name", agent)
    assert code == 0, err


def gen(tmp_path: Path, name: str, *args: str) -> tuple[Path, Manifest]:
    run = tmp_path / name
    code, _, err = run_cli("generate", str(SCENE), "--out", str(run), *args)
    assert code == 0, err
    return run, json.loads((run / "run.json").read_text())


def query_uses(run: Path) -> Counter[str]:
    """How many test cases need or use each query for support, straight from clingo."""
    session = Session("clingo").load(*load_ruleset().lp_files, run / "scene.lp", run / "queries.lp")
    shown = session.show(("case_query", 2), ("case_support", 2)).symbols()
    return Counter(str(s.arguments[1]) for s in shown)


def used_queries(run: Path) -> set[str]:
    return set(query_uses(run))


def synthetic_scene(folder: Path) -> Path:
    """Three synthetic household worlds, camera pitched 10-20 degrees down, 640x480 frames."""
    worlds = [make_world(f"room{s}", s, WorldSpec(pitch_deg=(-20, -10))) for s in (1, 2, 3)]
    write_worlds(worlds, folder)
    return folder


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Manifest]:
    """Every candidate on the synthetic worlds, answered by the oracle (the truth rules)."""
    base = tmp_path_factory.mktemp("synthetic")
    run = base / "run"
    code, _, err = run_cli(
        "generate", str(synthetic_scene(base / "facts")), "--out", str(run), "--max-per-trajectory", "all"
    )
    assert code == 0, err
    code, _, err = run_cli("ask", str(run), "--agent", "oracle")
    assert code == 0, err
    return run, json.loads((run / "run.json").read_text())


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


def test_every_query_serves_a_test_case_and_is_asked_once(
    sampled: tuple[Path, Manifest], synthetic: tuple[Path, Manifest]
) -> None:
    for run, manifest in (sampled, synthetic):
        queries = read_queries(run)
        assert len(queries) == manifest["queries"] > 0
        assert used_queries(run) == set(queries)
        pairs = [(text(c), f) for c, f in queries.values()]
        assert len(set(pairs)) == len(pairs), "one id per content and form"
        assert manifest["queries_per_testcase"] == round(manifest["queries"] / manifest["testcases"], 3)
    # A depth answer places its object for the MRs that check other answers against the frame.
    uses = query_uses(synthetic[0])
    depths = [q for q, (c, _) in read_queries(synthetic[0]).items() if c.name == "depth"]
    assert sum(uses[q] > 1 for q in depths) > len(depths) / 2, "most depths serve several test cases"


def test_each_capability_and_each_of_its_mrs_gets_cases(
    sampled: tuple[Path, Manifest], synthetic: tuple[Path, Manifest]
) -> None:
    _, manifest = synthetic
    served = {(sc, m.id) for m in load_ruleset().mrs for sc in m.serves}
    got = {(sc, mr) for sc, mrs in manifest["testcases_by_sc_mr"].items() for mr, n in mrs.items() if n > 0}
    assert got == served
    assert manifest["sc"] == ALL_SCS
    kitchen = sampled[1]["trajectories"]["kitchen"]
    assert kitchen["sampled"] == 40 < kitchen["candidates"]


def test_every_capability_has_cases_that_check_answers_against_the_frames(
    sampled: tuple[Path, Manifest], synthetic: tuple[Path, Manifest]
) -> None:
    """Questions are chosen so that every capability has cases of the MRs that check answers
    against the frames (the headline score is that of the weakest kind of evidence, so a
    consistently wrong agent cannot hide behind consistency where such cases exist), and they hold
    most of all cases, in a sample too."""
    anchored = {m.id for m in load_ruleset().mrs if "anchored" in m.sets}

    def share(mrs: dict[str, int]) -> float:
        return sum(n for mr, n in mrs.items() if mr in anchored) / sum(mrs.values())

    by_sc = synthetic[1]["testcases_by_sc_mr"]
    assert set(by_sc) == {"sc1a", "sc1b", "sc2a", "sc2b", "sc3a", "sc3b", "sc4a", "sc4b"}
    for sc, mrs in by_sc.items():
        assert share(mrs) > 0.25, (sc, mrs)
    for name, manifest in (("synthetic", synthetic[1]), ("sampled", sampled[1])):
        every: dict[str, int] = {}
        for mrs in manifest["testcases_by_sc_mr"].values():
            for mr, n in mrs.items():
                every[mr] = every.get(mr, 0) + n
        assert share(every) > 0.5, (name, every)


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
    assert (2, 4) not in mentioned, "the plant is truncated in state 2: no question can be checked there"
    assert (4, 2) in mentioned
    whole = {(int(c.args[1]), int(c.args[2])) for c in contents if c.name in ("size", "depth")}
    assert {(1, 4), (3, 4)} <= whole
    pairs = {(int(c.args[1]), frozenset(c.args[2:])) for c in contents if c.name in ("obj_dir", "map_dir")}
    assert (1, frozenset({2, 3})) not in pairs, "bowl and kettle overlap left/right in state 1"
    assert (0, frozenset({2, 3})) in pairs
    distances = {(int(c.args[1]), frozenset(c.args[2:])) for c in contents if c.name == "obj_dist"}
    assert (1, frozenset({2, 3})) not in distances, "their boxes do not bound a distance there either"
    assert (0, frozenset({2, 3})) in distances
    # Every object a question names in a frame has its depth asked there (the anchored MRs need it).
    depths = {(int(c.args[1]), int(c.args[2])) for c in contents if c.name == "depth"}
    assert mentioned <= depths


def test_check_finds_the_generated_test_cases(tmp_path: Path, synthetic: tuple[Path, Manifest]) -> None:
    src, manifest = synthetic
    code, out, err = run_cli("check", str(src))
    assert code == 0, err
    assert f"{manifest['testcases']} test cases, 0 violations" in out, "the oracle breaks no MR here"
    res = run_check(str(src))
    found: dict[str, dict[str, int]] = {}
    for _, mr, sc in res.rows.testcases:
        found.setdefault(sc, {}).setdefault(mr, 0)
        found[sc][mr] += 1
    assert found == manifest["testcases_by_sc_mr"]
    assert all(n > 0 for _, _, n, _ in res.rows.scores)

    # One wrong answer: the left/right of one pair asked both ways is given the wrong way round.
    run = tmp_path / "flipped"
    shutil.copytree(src, run)
    case = next(c for c, mr, sc in res.rows.testcases if mr == "mr2" and sc == "sc2a")
    term = parse_term(case)
    assert isinstance(term, Fun)
    flipped = text(term.args[0])
    oracle = run / "answers" / "oracle.lp"
    lines = oracle.read_text().splitlines()
    swap = {"left": "right", "right": "left"}
    for i, line in enumerate(lines):
        if line.startswith(f"answer(oracle,{flipped},") or line.startswith(f"answer(oracle, {flipped},"):
            value = line.rsplit(",", 1)[1].strip(" ).")
            parts = value.split("_")
            lines[i] = line.replace(value, "_".join(swap.get(p, p) for p in parts))
    oracle.write_text("\n".join(lines) + "\n")
    res = run_check(str(run))
    assert ("oracle", case, "mr2", "sc2a", "not_inverse") in res.rows.violations
    assert ("oracle", f"mr7({flipped})", "mr7", "sc2a", "lateral_against_boxes") in res.rows.violations
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


def test_sharing_strategy_reuses_queries(tmp_path: Path) -> None:
    _run_share, share = gen(tmp_path, "share", "--max-per-trajectory", "30", "--strategy", "share")
    _run_spread, spread = gen(tmp_path, "spread", "--max-per-trajectory", "30", "--strategy", "spread")
    assert share["trajectories"] == spread["trajectories"], "the same number of combinations"
    assert share["queries"] < spread["queries"], "share picks combinations that ask what is asked already"


def test_chosen_capabilities_only_and_a_limit_per_trajectory(tmp_path: Path) -> None:
    scene = tmp_path / "scene"
    scene.mkdir()
    kitchen = (SCENE / "kitchen.lp").read_text()
    (scene / "a.lp").write_text(kitchen)
    (scene / "b.lp").write_text(kitchen.replace("kitchen", "pantry"))
    run = tmp_path / "run"
    res = generate(scene, run, scs=["sc3", "sc1b"], max_per_trajectory=6, seed=1)
    assert res.scs == ["sc1b", "sc3a", "sc3b"]
    # An ego distance asked with a depth (MR9) tests SC4-b as well as SC3-b.
    assert {"sc1b", "sc3a", "sc3b"} <= {sc for sc, _ in res.cases} <= {"sc1b", "sc3a", "sc3b", "sc4b"}
    assert {t: s for t, (_, s) in res.trajectories.items()} == {"kitchen": 6, "pantry": 6}
    kinds = {c.name for c, _ in read_queries(run).values()}
    assert kinds <= {"move_dist", "move_dir", "size", "depth", "ego_dist"}, "depths and distances anchor them"
    assert {"move_dist", "size", "depth"} <= kinds


def test_generate_everything_then_the_summary_table(everything: tuple[Path, Manifest, str]) -> None:
    run, manifest, out = everything
    kitchen = manifest["trajectories"]["kitchen"]
    assert kitchen["sampled"] == kitchen["candidates"]
    assert used_queries(run) == set(read_queries(run))
    head = out.splitlines()[0].split()
    ids = [m.id for m in load_ruleset().mrs]
    assert ids[:3] == ["mr1", "mr2", "mr3"] and ids[-2:] == ["mr17", "mr18"], "MRs in their number's order"
    assert head == ["sc", "capability", *ids, "cases", "queries", "q/case"]
    total = next(line for line in out.splitlines() if line.startswith("all")).split()
    assert total[1:3] == [str(manifest["testcases"]), str(manifest["queries"])]


def test_parameters_change_what_is_asked(tmp_path: Path) -> None:
    args = ("--sc", "sc2b,sc3b", "--max-per-trajectory", "all")
    _, default = gen(tmp_path, "default", *args)
    run, weak = gen(tmp_path, "weak", *args, "-c", "min_conf=400")
    _, rare = gen(tmp_path, "rare", *args, "-c", "relational_every=0")
    assert weak["params"] == {**default["params"], "min_conf": 400}
    objects_in_5 = {int(c.args[2]) for c, _ in read_queries(run).values() if int(c.args[1]) == 5}
    assert 2 in objects_in_5, "the bowl's weak box in state 5 counts with min_conf=400"

    def candidates(manifest: Manifest) -> int:
        return int(manifest["trajectories"]["kitchen"]["candidates"])

    assert candidates(rare) < candidates(default) < candidates(weak)


def test_a_capability_without_cases_is_named(tmp_path: Path) -> None:
    # The kitchen without its camera pitch (no object can be placed) and with no box tall enough to
    # compare across frames: objects are still clearly apart, but no size can be checked.
    facts = tmp_path / "facts"
    facts.mkdir()
    kitchen = (SCENE / "kitchen.lp").read_text().splitlines(keepends=True)
    (facts / "kitchen.lp").write_text("".join(x for x in kitchen if not x.startswith("camera_pitch(")))
    run = tmp_path / "run"
    code, _, err = run_cli(
        "generate", str(facts), "--out", str(run), "--sc", "sc2a,sc3a", "-c", "min_box_px=999"
    )
    assert code == 0, err
    assert err == (
        "note: sc3a: no test case (needs a persistent object seen whole in a frame whose camera pitch "
        "is known)\n"
    )
    assert "sc3a" not in json.loads((run / "run.json").read_text())["testcases_by_sc_mr"]


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
    # The MRs that compare move answers with each other need no view: a trajectory whose frames
    # share no object at all still gets its relational frames' moves (and no MR11 case).
    code, _, err = run_cli("generate", "moves", "--out", "out", "--sc", "sc1a")
    assert code == 0, err
    by_mr = json.loads(Path("out/run.json").read_text())["testcases_by_sc_mr"]["sc1a"]
    assert set(by_mr) == {"mr1", "mr2", "mr3"}, by_mr
    shutil.rmtree("out")
    # Without relational frames a move is asked only where an object seen in both frames shows it.
    assert error_of(tmp_path, "moves", "--out", "out", "--sc", "sc1a", "-c", "relational_every=0") == (
        "error: no test case can be built from 'moves' for sc1a\n"
        f"  expected: sc1a: {NEEDS['sc1a']}\n"
        "  fix: check the scene facts (metalogic schema lists them), or lower -c min_conf / -c min_obj_px\n"
    )


def test_error_no_combination_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("one").mkdir()
    Path("one/a.lp").write_text(
        "state(t, 0).\npersistent(t, 1).\ndetection(t, 0, 1, cup, 900, 0, 0, 50, 50).\n"
    )
    assert error_of(tmp_path, "one", "--out", "out", "--sc", "sc3b") == (
        "error: no test case can be built from 'one' for sc3b\n"
        f"  expected: sc3b: {NEEDS['sc3b']}\n"
        "  fix: check the scene facts (metalogic schema lists them), or lower -c min_conf / -c min_obj_px\n"
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
        "  expected: one of max_gap, min_box_px, min_conf, min_obj_px, relational_every, sep_permille\n"
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


def test_sparse_views_get_moves_two_states_apart_and_small_boxes_their_size(tmp_path: Path) -> None:
    # tests/data/generate_sparse/hover.lp: a drone that sees its one object, 20 px tall, only in
    # every other state. Spans of one, three or five states share nothing, so each movement
    # capability gets spans of two: directions from states 0, 4, 8, distances from 2, 6 (no window,
    # no pair of states asked both ways). One-frame size and depth questions need no tall box.
    run = tmp_path / "run"
    code, _, err = run_cli(
        "generate",
        str(ROOT / "tests" / "data" / "generate_sparse"),
        "--out",
        str(run),
        "--max-per-trajectory",
        "all",
    )
    assert code == 0, err
    asked = {text(c) for c, _ in read_queries(run).values()}
    moves = {q for q in asked if q.startswith("move_")}
    assert moves == {
        "move_dir(hover,0,2)",
        "move_dir(hover,4,6)",
        "move_dist(hover,2,4)",
        "move_dist(hover,6,8)",
    }
    assert {"size(hover,0,1)", "size(hover,2,1)", "depth(hover,0,1)"} <= asked
