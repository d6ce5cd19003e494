"""`metalogic compare` on hand-built runs whose counts reproduce Newcombe's worked examples.

Newcombe (1998, Statistics in Medicine 17:873-890, Table II, method 10) gives the hybrid score
interval for a difference of proportions: 56/70 - 48/80 -> (0.0524, 0.3339); 9/10 - 3/10 ->
(0.1705, 0.8090); 0/10 - 0/20 -> (-0.1611, 0.2775). Each run below is built so that an agent holds
exactly that many symmetry test cases (MR2: a distance or move asked both ways), and the comparison
must print those published intervals.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli

# sc -> (query kind, answers that hold, answers that break the law)
KINDS = {
    "sc1a": ("move_dir", ("move(forward, none)", "move(backward, none)"), ("move(forward, none)",) * 2),
    "sc1b": ("move_dist", ("2", "2"), ("2", "3")),
    "sc2b": ("obj_dist", ("1500", "1500"), ("1500", "2500")),
}


def write_questions(folder: Path, cases: dict[str, int]) -> None:
    """`cases[sc]` independent MR2 test cases per capability: each a pair of questions asked both
    ways, on states (or objects) no other pair shares."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["trajectory(walk, household).", "step_mm(walk, 250)."]
    for sc, n in cases.items():
        kind = KINDS[sc][0]
        for k in range(n):
            if kind == "obj_dist":
                there, back = f"walk, 0, o{k}a, o{k}b", f"walk, 0, o{k}b, o{k}a"
            else:
                there, back = f"walk, {2 * k}, {2 * k + 1}", f"walk, {2 * k + 1}, {2 * k}"
            lines += [f"query({sc}_{k}a, {kind}({there})).", f"query({sc}_{k}b, {kind}({back}))."]
    (folder / "queries.lp").write_text("\n".join(lines) + "\n")


def write_answers(folder: Path, agent: str, cases: dict[str, int], held: dict[str, int]) -> None:
    lines = []
    for sc, n in cases.items():
        _, good, bad = KINDS[sc]
        for k in range(n):
            there, back = good if k < held[sc] else bad
            lines += [f"answer({agent}, {sc}_{k}a, {there}).", f"answer({agent}, {sc}_{k}b, {back})."]
    name = agent.strip('"').replace("+", "_")
    (folder / "answers").mkdir(exist_ok=True)
    (folder / "answers" / f"{name}.lp").write_text("\n".join(lines) + "\n")


def two_runs(tmp: Path) -> tuple[Path, Path]:
    """Run A: gemma holds 48/80 (sc1b), 9/10 (sc1a), 0/20 (sc2b); run B: 56/70, 3/10, 0/10."""
    a, b = tmp / "direct", tmp / "cogmap"
    cases_a, cases_b = {"sc1a": 10, "sc1b": 80, "sc2b": 20}, {"sc1a": 10, "sc1b": 70, "sc2b": 10}
    write_questions(a, cases_a)
    write_answers(a, "gemma", cases_a, {"sc1a": 9, "sc1b": 48, "sc2b": 0})
    write_answers(a, "oracle", cases_a, cases_a)
    write_questions(b, cases_b)
    write_answers(b, "gemma", cases_b, {"sc1a": 3, "sc1b": 56, "sc2b": 0})
    write_answers(b, "random", cases_b, {"sc1a": 5, "sc1b": 35, "sc2b": 5})
    return a, b


def test_compare_reproduces_newcombes_published_intervals(tmp_path: Path) -> None:
    a, b = two_runs(tmp_path)
    outs = [tmp_path / "cmp.json", tmp_path / "cmp.csv", tmp_path / "cmp.md"]
    code, out, err = run_cli(
        "compare", str(a), str(b), "--mrs", "paper", *(x for p in outs for x in ("--out", str(p)))
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[:2] == [f"A: gemma in {a}", f"B: gemma in {b}"]  # only gemma answers in both runs
    assert lines[4:8] == [
        "sc1a  movement direction                10    0.900       10    0.300  -0.600  [-0.809, -0.171] *",
        "sc1b  movement distance                 80    0.600       70    0.800  +0.200  [+0.052, +0.334] *",
        "sc2b  object-object distance            20    0.000       10    0.000  +0.000  [-0.161, +0.278]",
        "all   capabilities tested in both      110    0.518       90    0.656  +0.137  [+0.000, +0.266] *",
    ]
    doc = json.loads(outs[0].read_text())
    rows = {r["sc"]: r for r in doc["rows"]}
    published = {"sc1a": (-0.8090, -0.1705), "sc1b": (0.0524, 0.3339), "sc2b": (-0.1611, 0.2775)}
    for sc, (low, high) in published.items():
        assert abs(rows[sc]["ci_low"] - low) < 5e-5 and abs(rows[sc]["ci_high"] - high) < 5e-5, sc
    assert (rows["all"]["cases_a"], rows["all"]["violations_a"]) == (110, 53)
    assert abs(rows["all"]["difference"] - (59 / 90 - 57 / 110)) < 1e-12
    csv_lines = outs[1].read_text().splitlines()
    assert csv_lines[0] == (
        "agent_a,agent_b,sc,capability,cases_a,violations_a,score_a,cases_b,violations_b,score_b,"
        "difference,ci_low,ci_high"
    )
    assert csv_lines[2].startswith("gemma,gemma,sc1b,movement distance,80,32,0.6,70,14,0.8")
    md = outs[2].read_text().splitlines()
    assert md[4] == (
        "| gemma | gemma | sc1a | movement direction | 10 | 0.900 | 10 | 0.300 | -0.600 "
        "| [-0.809, -0.171] * |"
    )
    assert out.rstrip().endswith(f"wrote {outs[2]}")


def test_compare_two_agents_of_one_run(tmp_path: Path) -> None:
    run = tmp_path / "run"
    cases = {"sc1a": 10}
    write_questions(run, cases)
    write_answers(run, "gemma", cases, {"sc1a": 9})
    write_answers(run, '"gemma+cogmap"', cases, {"sc1a": 3})
    code, out, err = run_cli("compare", str(run), str(run), "--agent", "gemma", "--agent", "gemma+cogmap")
    assert code == 0, err
    assert out.splitlines()[:2] == [f"A: gemma in {run}", f"B: gemma+cogmap in {run}"]
    assert out.splitlines()[4] == (
        "sc1a  movement direction                10    0.900       10    0.300  -0.600  [-0.809, -0.171] *"
    )


def test_compare_bad_input_gives_one_clear_error(tmp_path: Path) -> None:
    a, b = two_runs(tmp_path)
    missing = tmp_path / "nope"
    assert run_cli("compare", str(a), str(missing)) == (
        2,
        "",
        f"error: run folder '{missing}' does not exist\n"
        "  expected: a run folder (or any facts folder) holding answer facts\n"
        "  fix: check the path; runs are written by 'metalogic generate' and answered by 'metalogic ask'\n",
    )
    unanswered = tmp_path / "unanswered"
    write_questions(unanswered, {"sc1a": 2})
    assert run_cli("compare", str(a), str(unanswered))[2] == (
        f"error: no agent answers in {unanswered}\n"
        "  expected: answer(Agent, Query, Value) facts under the folder\n"
        f"  fix: answer the questions first: metalogic ask {unanswered} --agent oracle\n"
    )
    other = tmp_path / "other"
    write_questions(other, {"sc1a": 2})
    write_answers(other, "llava", {"sc1a": 2}, {"sc1a": 1})
    assert run_cli("compare", str(a), str(other))[2] == (
        f"error: no agent answers in both runs: {a} has gemma, oracle; {other} has llava\n"
        "  expected: an agent present in both runs, or the two agents to compare given with --agent\n"
        "  fix: name the two agents: --agent gemma --agent llava\n"
    )
    assert run_cli("compare", str(a), str(b), "--agent", "gema")[2] == (
        f"error: no agent 'gema' in {a}\n  expected: one of gemma, oracle\n  fix: did you mean gemma?\n"
    )
    assert run_cli("compare", str(a), str(b), "--agent", "gemma", "--agent", "randon")[2] == (
        f"error: no agent 'randon' in {b}\n  expected: one of gemma, random\n  fix: did you mean random?\n"
    )
    assert run_cli("compare", str(a), str(b), "--agent", "x", "--agent", "y", "--agent", "z")[2] == (
        "error: --agent given 3 times\n"
        "  expected: --agent once (that agent in both runs) or twice (the agent of RUN_A, then of RUN_B)\n"
        "  fix: e.g. metalogic compare RUN RUN --agent gemma --agent gemma+cogmap\n"
    )
    assert run_cli("compare", str(a), str(a))[2] == (
        "error: RUN_A and RUN_B are the same folder, so every agent would be compared with itself\n"
        "  expected: two different runs, or two agents of this run\n"
        "  fix: name the two agents: --agent gemma --agent oracle\n"
    )
    code, out, err = run_cli("compare", str(a), str(b), "--out", str(tmp_path / "cmp.xlsx"))
    assert (code, out) == (2, "")  # refused before any engine runs
    assert err == (
        f"error: cannot tell the format of --out {tmp_path / 'cmp.xlsx'}\n"
        "  expected: a file name ending in .csv, .json, .md\n"
        "  fix: e.g. --out cmp.csv\n"
    )
    assert not (tmp_path / "cmp.xlsx").exists()
