"""The biased:KIND reference agents: the oracle's truth, distorted in one consistent way.

Every test asks the real agents (real clingo, the rules of logic/truth/) over a small household
trajectory with hand-written ground truth, and compares with the oracle's answers. The expected
distortions are computed here from the sign triples of the name tables (`vocabulary().vectors`),
not from biased.lp, so a wrong rule shows up as a mismatch.
"""

from __future__ import annotations

import csv
import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import run_cli
from helpers_agents import read_answers, write_run
from metalogic.agents.reference import BiasedAgent, parse_bias
from metalogic.agents.registry import AgentSettings, build_agent
from metalogic.agents.rundir import load_run
from metalogic.agents.runner import ask_agent
from metalogic.agents.values import space_for
from metalogic.engine.terms import parse_term, text
from metalogic.engine.truth import true_answers
from metalogic.engine.vocab import vocabulary

# The agent stands at (0, 0), 1 m up, facing north; steps forward-left and turns left (1), climbs
# forward (2), turns right (3), turns around to face south (4).
POSES = [
    (0, 0, 1000, 90),
    (-250, 250, 1000, 180),
    (-500, 250, 1250, 180),
    (-500, 250, 1250, 90),
    (-500, 250, 1250, 270),
]
# name: x, y, z, height (mm). The cup sits level with the mug, 1 m to its left; the bin is behind
# the start (no depth there).
OBJECTS = {
    "mug": (500, 2000, 800, 120),
    "cup": (-500, 2000, 800, 100),
    "duck": (-400, 1500, 900, 90),
    "ball": (0, 3000, 1100, 220),
    "lamp": (-600, 2500, 1800, 300),
    "box": (700, 1200, 300, 250),
    "bin": (0, -1500, 500, 400),
}
MOVES = [(0, 1), (1, 2), (2, 3), (0, 2), (3, 4)]
FORMS = ("choice", "options(reversed)", "free", "reworded")
STATE = re.compile(r"^(\w+\(\w+),\d+")  # the state argument of a query content's text
KINDS = ("constant", "mirror", "nearfar", "updown", "turnmap", "scale:2", "stale", "shuffle")


def scene(t: str) -> str:
    lines = [f"trajectory({t}, household).", f"step_mm({t}, 250)."]
    for s, (x, y, z, yaw) in enumerate(POSES):
        lines += [f"state({t}, {s}).", f"gt_pose({t}, {s}, {x}, {y}, {z}, {yaw})."]
    lines += [f"gt_object({t}, {o}, {x}, {y}, {z}, {h})." for o, (x, y, z, h) in OBJECTS.items()]
    return "\n".join(lines) + "\n"


def queries(t: str, states: tuple[int, ...]) -> str:
    """Every ordered pair and object at `states`, in varied surface forms, and the moves."""
    contents: list[tuple[str, str]] = []
    for s in states:
        for i, (a, b) in enumerate(itertools.permutations(OBJECTS, 2)):
            contents += [
                (f"obj_dir({t}, {s}, {a}, {b})", FORMS[i % 4]),
                (f"map_dir({t}, {s}, {a}, {b})", "choice"),
            ]
            if i % 3 == 0:
                contents += [
                    (f"obj_dist({t}, {s}, {a}, {b})", "choice"),
                    (f"map_dist({t}, {s}, {a}, {b})", "free"),
                ]
        for o in OBJECTS:
            contents += [(f"{k}({t}, {s}, {o})", "choice") for k in ("size", "depth", "ego_dist")]
    contents += [(f"{k}({t}, {s1}, {s2})", "choice") for s1, s2 in MOVES for k in ("move_dir", "move_dist")]
    contents.append(
        (f"map_dir({t}, {states[0]}, mug, cup)", "options(e, n)")
    )  # truth e; mirrored w is not offered
    lines = []
    for n, (content, form) in enumerate(contents):
        lines += [f"query({t}_q{n}, {content}).", f"form({t}_q{n}, {form})."]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A run with every kind of question (and a second, smaller trajectory), and its truth."""
    folder = write_run(
        tmp_path_factory.mktemp("biased") / "run",
        queries=queries("hall", (0, 1, 4)) + queries("yard", (0,)),
        scene=scene("hall") + scene("yard"),
    )
    return folder, {k: v.replace(" ", "") for k, v in true_answers(load_run(folder).program()).items()}


def ask(run_dir: Path, spec: str, seed: int = 0) -> dict[str, str]:
    run = load_run(run_dir)
    settings = AgentSettings(seed=seed, name=f"{spec}@{seed}")
    agent, view = build_agent(spec, run, settings)
    result = ask_agent(run, agent, spec, settings, view, progress=False)
    assert not result.failures and result.invalid == 0
    return read_answers(result.facts)


def kinds(run_dir: Path) -> dict[str, str]:
    return {q.key: q.kind for q in load_run(run_dir).questions}


def vec(voc: str, name: str) -> tuple[int, int, int]:
    return vocabulary().vectors[(voc, name)]


def move_parts(value: str) -> tuple[str, str]:
    m = re.fullmatch(r"move\((\w+),(\w+)\)", value)
    assert m, value
    return m[1], m[2]


def expect_flip(truth: str, kind: str, axis: Callable[[int, int, int], tuple[int, int, int]]) -> str:
    """What flipping one axis of a truthful answer gives, from the tables' sign triples."""
    voc = {"obj_dir": "ego", "map_dir": "map", "move_dir": "move"}.get(kind)
    if voc is None:
        return truth  # a magnitude
    names = {v: n for (vv, n), v in vocabulary().vectors.items() if vv == voc}
    if voc != "move":
        return names[axis(*vec(voc, truth))]
    t, r = move_parts(truth)
    return f"move({names[axis(*vec('move', t))]},{r})"


def test_mirror_swaps_left_and_right_in_every_vocabulary(world: tuple[Path, dict[str, str]]) -> None:
    run_dir, truth = world
    got, kind = ask(run_dir, "biased:mirror"), kinds(run_dir)
    assert set(got) == set(truth)
    turns = vocabulary().turns
    by_count = {c: n for n, c in turns.items()}
    for q, t in truth.items():
        if kind[q] == "move_dir":
            (tt, tr), (gt, gr) = move_parts(t), move_parts(got[q])
            lat, dep, ver = vec("move", tt)
            assert vec("move", gt) == (-lat, dep, ver), (q, t, got[q])
            assert gr == by_count[(4 - turns[tr]) % 4], (q, t, got[q])
        else:
            assert got[q] == expect_flip(t, kind[q], lambda x, y, z: (-x, y, z)), (q, t, got[q])
    # spot checks written out by hand
    pairs = {(truth[q], got[q]) for q in truth}
    assert ("move(forward_left,left)", "move(forward_right,right)") in pairs
    assert ("move(none,right)", "move(none,left)") in pairs and (
        "move(none,around)",
        "move(none,around)",
    ) in pairs
    assert ("left", "right") in pairs and ("e", "w") in pairs and ("nw", "ne") in pairs
    assert all(got[q] == "right" for q in truth if truth[q] == "left")
    # a mirrored value the options do not offer is still a value of the vocabulary: kept, with a note
    journal = [json.loads(line) for line in (run_dir / "answers" / "biased_mirror_0.jsonl").open()]
    offered = [r for r in journal if r.get("form") == "options(e,n)"]
    assert offered and all(
        r["value"] == "w" and "not among the offered options" in r["note"] for r in offered
    )


@pytest.mark.parametrize(
    ("spec", "axis", "vocabs"),
    [
        ("biased:nearfar", lambda x, y, z: (x, -y, z), {"obj_dir"}),
        ("biased:updown", lambda x, y, z: (x, y, -z), {"obj_dir", "move_dir"}),
    ],
)
def test_one_axis_flips_touch_nothing_else(
    world: tuple[Path, dict[str, str]],
    spec: str,
    axis: Callable[[int, int, int], tuple[int, int, int]],
    vocabs: set[str],
) -> None:
    run_dir, truth = world
    got, kind = ask(run_dir, spec), kinds(run_dir)
    changed = {kind[q] for q in truth if got[q] != truth[q]}
    assert changed == vocabs, changed  # each flip really changes answers, and only in its vocabularies
    for q, t in truth.items():
        want = expect_flip(t, kind[q], axis) if kind[q] in vocabs else t
        assert got[q] == want, (spec, q, t, got[q])


def test_flips_undo_themselves_in_the_rules() -> None:
    """Mirror of mirror (and nearfar, updown twice) is the truth; turnmap:1 four times is too."""
    from metalogic.engine.truth import BIASED_RULES, truth_session

    for bias in ("mirror", "nearfar", "updown", "turnmap(1)"):
        shown = truth_session("", extra=f"bias({bias}).\n#show rename/4.\n", files=[BIASED_RULES]).symbols()
        table = {(str(s.arguments[1]), str(s.arguments[2])): str(s.arguments[3]) for s in shown}
        assert len(shown) == len(table)  # one image per name
        assert set(table) == set(vocabulary().vectors), bias  # every name of every vocabulary, once
        times = 4 if bias.startswith("turnmap") else 2
        for (voc, name), _ in table.items():
            n = name
            for _ in range(times):
                n = table[(voc, n)]
            assert n == name, (bias, voc, name)


def test_turnmap_turns_map_names_counter_clockwise(world: tuple[Path, dict[str, str]]) -> None:
    run_dir, truth = world
    kind = kinds(run_dir)
    sector = {"n": 0, "ne": 1, "e": 2, "se": 3, "s": 4, "sw": 5, "w": 6, "nw": 7}
    by_sector = {v: k for k, v in sector.items()}
    answers = {q: ask(run_dir, f"biased:turnmap:{q}") for q in (1, 2, 3, 4, -1)}
    assert answers[4] == truth and answers[-1] == answers[3]
    for q, t in truth.items():
        for turns in (1, 2, 3):
            want = by_sector[(sector[t] - 2 * turns) % 8] if kind[q] == "map_dir" else t
            assert answers[turns][q] == want, (turns, q, t)
    pairs = {(truth[q], answers[1][q]) for q in truth if kind[q] == "map_dir"}
    assert ("n", "w") in pairs and ("e", "n") in pairs and ("ne", "nw") in pairs
    assert ask(run_dir, "biased:turnmap") == answers[1]  # one quarter turn by default


def test_scale_multiplies_every_length_and_nothing_else(world: tuple[Path, dict[str, str]]) -> None:
    run_dir, truth = world
    space = {q.key: space_for(q) for q in load_run(run_dir).questions}
    double, half, huge = (ask(run_dir, f"biased:scale:{k}") for k in ("2", "0.5", "1000"))
    lengths = [q for q in truth if space[q].is_magnitude]
    assert {space[q].type for q in lengths} == {"mm", "steps"} and any(int(truth[q]) > 1000 for q in lengths)
    for q, t in truth.items():
        if q in lengths:
            assert int(double[q]) == 2 * int(t)
            assert int(half[q]) == (int(t) + 1) // 2  # halves round up
            assert int(huge[q]) == min(1_000_000, 1000 * int(t))  # capped at the schema's largest
        else:
            assert double[q] == half[q] == huge[q] == t


def test_constant_answers_one_value_per_kind(world: tuple[Path, dict[str, str]]) -> None:
    run_dir, truth = world
    kind = kinds(run_dir)
    want = {
        "move_dir": "move(none,none)",
        "obj_dir": "same",
        "map_dir": "eq",
        **dict.fromkeys(("move_dist", "obj_dist", "map_dist", "ego_dist"), "0"),
    }
    for spec, mm in (("biased:constant", "1000"), ("biased:constant:250", "250")):
        got = ask(run_dir, spec)
        assert set(got) == set(truth)
        for q, v in got.items():
            assert v == want.get(kind[q], mm), (spec, q, v)


def test_stale_answers_as_if_at_the_first_state(world: tuple[Path, dict[str, str]]) -> None:
    run_dir, truth = world
    run = load_run(run_dir)
    got = ask(run_dir, "biased:stale")
    # The same contents at state 0, answered by the truth rules as separate questions.
    contents = {
        q.key: STATE.sub(r"\1,0", text(q.content)) for q in run.questions if not q.kind.startswith("move")
    }
    rewritten = "".join(f"query(at0_{k}, {c}).\n" for k, c in contents.items())
    at0 = {k[4:]: v.replace(" ", "") for k, v in true_answers(run.scene.program() + rewritten).items()}
    states = {q.key: q.content.args[1] for q in run.questions}
    fallback = 0
    for q in run.questions:
        k = q.key
        if k not in truth:
            assert k not in got  # no truth, no answer
        elif q.kind == "move_dir":
            assert got[k] == "move(none,none)"
        elif q.kind == "move_dist":
            assert got[k] == "0"
        elif k in at0:
            assert got[k] == at0[k], (k, q.content)
            if str(states[k]) == "0":
                assert got[k] == truth[k]
        else:  # no truth at the first state (the bin is behind the camera there): the truth stays
            assert got[k] == truth[k]
            fallback += 1
    assert fallback > 0 and sum(got[k] != truth[k] for k in got) > 100
    journal = [json.loads(line) for line in (run_dir / "answers" / "biased_stale_0.jsonl").open()]
    notes = [r["note"] for r in journal if r["type"] == "answer"]
    assert sum("no distorted value" in n for n in notes) == fallback


def test_shuffle_is_a_seeded_derangement_within_groups(
    world: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    run_dir, truth = world
    run = load_run(run_dir)
    agent = BiasedAgent(parse_bias("shuffle"), run.program(), space_for, seed=5, questions=run.questions)
    src = agent.sources()
    assert set(src) == set(truth) and sorted(src.values()) == sorted(src)  # a permutation of the answered
    by_key = {q.key: q for q in run.questions}
    group = {k: (str(by_key[k].traj), by_key[k].kind, frozenset(space_for(by_key[k]).offered())) for k in src}
    sizes = {g: sum(1 for k in src if group[k] == g) for g in group.values()}
    for k, s in src.items():
        assert group[s] == group[k]
        assert (s != k) == (sizes[group[k]] > 1), k
    assert 1 in sizes.values() and max(sizes.values()) > 20
    got = ask(run_dir, "biased:shuffle", seed=5)
    assert got == {k: truth[s] for k, s in src.items()}
    # the same answers when asked in reverse order, in two sessions, in another folder
    again = write_run(
        tmp_path / "again",
        queries=(run_dir / "queries.lp").read_text(),
        scene=(run_dir / "scene.lp").read_text(),
    )
    rerun = load_run(again)
    agent2, _ = build_agent("biased:shuffle", rerun, AgentSettings(seed=5))
    assert {
        a.question.key: str(a.value) for a in agent2.answer(rerun.questions[::-1]) if a.value is not None
    } == got
    agent3, _ = build_agent("biased:shuffle", rerun, AgentSettings(seed=5))
    first = ask_agent(rerun, agent3, "biased:shuffle", AgentSettings(seed=5), limit=40, progress=False)
    agent4, _ = build_agent("biased:shuffle", rerun, AgentSettings(seed=5))
    rest = ask_agent(rerun, agent4, "biased:shuffle", AgentSettings(seed=5), progress=False)
    # questions without a truth (none in the world's answers) are skipped, and counted in the limit
    assert first.answered + first.skipped == 40 and rest.had == first.answered
    assert read_answers(rest.facts) == got
    assert ask(run_dir, "biased:shuffle", seed=6) != got  # another seed, another shuffle


def test_every_kind_fits_its_space_in_its_own_file_and_check_reads_them(
    world: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    src, _truth = world
    run_dir = write_run(
        tmp_path / "run", queries=(src / "queries.lp").read_text(), scene=(src / "scene.lp").read_text()
    )
    specs = ["oracle", *(f"biased:{k}" for k in KINDS), "biased:scale:0.5", "biased:turnmap:2"]
    for spec in specs:
        code, _out, err = run_cli("ask", str(run_dir), "--agent", spec)
        assert code == 0, err
    files = sorted(p.name for p in (run_dir / "answers").glob("*.lp"))
    assert len(files) == len(specs)  # distinct names, distinct files
    run = load_run(run_dir)
    for f in files:
        for key, value in read_answers(run_dir / "answers" / f).items():
            q = next(q for q in run.questions if q.key == key)
            assert space_for(q).contains(parse_term(value)), (f, key, value)
    code, _out, err = run_cli("check", str(run_dir), "--out", str(tmp_path / "check"), "--format", "csv")
    assert code == 0, err
    with (tmp_path / "check" / "scores.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert {r["agent"] for r in rows} == set(specs)
    violated = {a: sum(int(r["violations"]) for r in rows if r["agent"] == a) for a in specs}
    # answers shuffled between questions contradict each other; the truth never does
    assert violated["oracle"] == 0 and violated["biased:shuffle"] > 100, violated


def test_bad_biased_specs_say_what_to_do(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run")
    scale = "error: biased:scale needs a positive decimal factor for every length, got"
    cases = {
        "biased:mirorr": "error: unknown bias 'mirorr' in 'biased:mirorr'\n",
        "biased:scale": f"{scale} none\n",
        "biased:scale:0": f"{scale} '0'\n",
        "biased:scale:two": f"{scale} 'two'\n",
        "biased:constant:-5": "error: biased:constant needs the size and depth to answer in whole mm",
        "biased:turnmap:1.5": "error: biased:turnmap needs a whole number of quarter turns",
        "biased:stale:3": "error: biased:stale takes no argument, got 'biased:stale:3'\n",
        "biased": "error: agent 'biased' needs an argument\n",
    }
    for spec, first in cases.items():
        code, _out, err = run_cli("ask", str(run_dir), "--agent", spec)
        assert code == 2 and err.startswith(first) and "Traceback" not in err, (spec, err)
        assert "expected:" in err
    _code, _out, err = run_cli("ask", str(run_dir), "--agent", "biased:mirorr")
    assert "fix: Did you mean mirror?" in err and "biased:turnmap[:Q]" in err
    _code, _out, err = run_cli("ask", str(run_dir), "--agent", "biased:scale:0")
    assert "fix: write it as biased:scale:2 or biased:scale:0.5" in err
