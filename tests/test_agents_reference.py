"""Reference agents: oracle (through the logic's truth semantics), noisy:p and random.

noisy and random are tested against a hand-written truth table, so that these tests do not
depend on how the truth rules evolve; the oracle test compares `metalogic ask --agent oracle`
with the truth rules' own output. Scores come from the real `metalogic check` (clingo).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from helpers import run_cli
from helpers_agents import read_answers, write_run
from metalogic.agents.reference import NoisyAgent, RandomAgent
from metalogic.agents.registry import AgentSettings
from metalogic.agents.rundir import load_run
from metalogic.agents.runner import ask_agent
from metalogic.agents.values import space_for
from metalogic.engine.check.run import run_check
from metalogic.engine.vocab import vocabulary

RATES = (0.0, 0.1, 0.3, 0.6, 1.0)
N_PAIRS = 80  # contents, each asked in two surface forms (so MR3 forms one test case per content)


def twin_run(folder: Path) -> tuple[Path, dict[str, str]]:
    """80 obj_dir / map_dir questions, each asked as `choice` and `options(reversed)`, on disjoint
    object pairs (no MR1/MR2 cases), and a hand truth table for them."""
    ego, maps = vocabulary().names["ego"], vocabulary().names["map"]
    lines, table = [], {}
    for i in range(N_PAIRS):
        kind, names = ("obj_dir", ego) if i % 2 == 0 else ("map_dir", maps)
        content = f"{kind}(hall, {i}, a{i}, b{i})"
        truth = names[(7 * i) % len(names)]  # any valid value will do: the table is the truth here
        for j, form in enumerate(("choice", "options(reversed)")):
            qid = f"q{i}_{j}"
            lines += [f"query({qid}, {content}).", f"form({qid}, {form})."]
            table[qid] = truth
    run = write_run(folder, queries="\n".join(lines) + "\n", scene="trajectory(hall, household).\n")
    return run, table


def ask_reference(run_dir: Path, agent: NoisyAgent | RandomAgent, spec: str) -> dict[str, str]:
    result = ask_agent(load_run(run_dir), agent, spec, AgentSettings(), progress=False)
    assert result.answered == result.asked and not result.failures
    return read_answers(result.facts)


def test_noisy_corruption_is_nested_valid_and_near_its_rate(tmp_path: Path) -> None:
    run_dir, table = twin_run(tmp_path / "run")
    run = load_run(run_dir)
    space = {q.key: space_for(q) for q in run.questions}
    corrupted: list[set[str]] = []
    for p in RATES:
        agent = NoisyAgent(
            p, run.program(), lambda q: space[q.key], seed=3, truth=lambda _prog: table, name=f"noisy:{p:g}"
        )
        answers = ask_reference(run_dir, agent, f"noisy:{p:g}")
        assert set(answers) == set(table)
        wrong = {k for k, v in answers.items() if v != table[k]}
        for k in wrong:  # a corrupted answer is still a value of the question's vocabulary
            assert answers[k] in space[k].names
        corrupted.append(wrong)
        n = len(table)
        assert abs(len(wrong) / n - p) <= 0.12, (p, len(wrong))
    assert corrupted[0] == set() and len(corrupted[-1]) == len(table)
    for lower, higher in itertools.pairwise(corrupted):
        assert lower <= higher  # coupled across p: a question wrong at rate p stays wrong above it


def test_noisy_scores_fall_as_p_rises_and_random_is_lowest(tmp_path: Path) -> None:
    run_dir, table = twin_run(tmp_path / "run")
    run = load_run(run_dir)
    for p in RATES:
        ask_reference(
            run_dir,
            NoisyAgent(
                p,
                run.program(),
                lambda q: space_for(q),
                seed=1,
                truth=lambda _prog: table,
                name=f"noisy:{p:g}",
            ),
            f"noisy:{p:g}",
        )
    ask_reference(run_dir, RandomAgent(lambda q: space_for(q), seed=1), "random")
    rows = run_check(str(run_dir)).rows
    held: dict[str, int] = {}
    total: dict[str, int] = {}
    for agent, _sc, cases, violated in rows.scores:
        held[agent] = held.get(agent, 0) + cases - violated
        total[agent] = total.get(agent, 0) + cases
    rate = {a: held[a] / total[a] for a in total}
    ladder = [rate[f"noisy:{p:g}"] for p in RATES]
    assert ladder[0] == 1.0
    assert all(a > b for a, b in itertools.pairwise(ladder)), ladder
    assert rate["random"] < ladder[3], (rate["random"], ladder)


def test_oracle_answers_are_the_truth_rules_answers(tmp_path: Path) -> None:
    from metalogic.engine.truth import true_answers

    run_dir = write_run(tmp_path / "run")
    code, out, err = run_cli("ask", str(run_dir), "--agent", "oracle")
    assert code == 0, err
    assert "oracle: 6 to ask of 6 questions (0 answered before); 6 answered, 0 invalid" in out
    answers = read_answers(run_dir / "answers" / "oracle.lp")
    truth = true_answers(load_run(run_dir).program())
    assert len(answers) == 6 and all(answers[k] == v.replace(" ", "") for k, v in truth.items())
    assert answers["q2"] == answers["q1"]  # one content in two forms: one truth
    manifest = json.loads((run_dir / "answers" / "oracle.json").read_text())
    assert manifest["answers"] == {"total": 6, "invalid": 0, "missing": 0, "from_cache": 0}
    # asked again, nothing is left to ask
    code, out, _ = run_cli("ask", str(run_dir), "--agent", "oracle")
    assert code == 0 and "oracle: 0 to ask of 6 questions (6 answered before)" in out


def test_reference_agents_ignore_prompting_with_a_clear_error(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run")
    code, _out, err = run_cli("ask", str(run_dir), "--agent", "random", "--prompting", "cot")
    assert code == 2
    assert err == (
        "error: --prompting cot does not apply to the reference agent 'random'\n"
        "  fix: leave --prompting out for oracle, noisy, random and biased\n"
    )


def test_unknown_agent_suggests_the_closest(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run")
    code, _out, err = run_cli("ask", str(run_dir), "--agent", "oracel")
    assert code == 2
    assert err == (
        "error: unknown agent 'oracel'\n"
        "  expected: one of: openai:MODEL, vllm:MODEL, llamacpp or llamacpp:PATH.gguf, oracle, "
        "noisy:P (0 <= P <= 1), random, "
        "biased:KIND[:ARG] (KIND: constant, mirror, nearfar, updown, turnmap, scale, stale, shuffle)\n"
        "  fix: Did you mean oracle?\n"
    )
    code, _out, err = run_cli("ask", str(run_dir), "--agent", "noisy:1.5")
    assert code == 2 and err.startswith("error: noisy needs a corruption rate between 0 and 1, got '1.5'")


def test_vllm_without_vllm_says_what_to_do(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run")
    code, _out, err = run_cli("ask", str(run_dir), "--agent", "vllm:Qwen/Qwen2.5-VL-7B-Instruct")
    assert code == 2
    assert err == (
        "error: the vllm backend needs vLLM, which is not installed here\n"
        "  expected: a machine with CUDA GPUs and 'pip install vllm'\n"
        "  fix: install vLLM on a GPU machine, or serve the model with 'vllm serve MODEL' and ask it "
        "with --agent openai:MODEL --base-url http://HOST:8000/v1\n"
    )
