"""Randomized differential test: clingo and SWI-Prolog derive identical results on random facts.

Thousands of small random worlds (a few objects and states, random queries of every kind in
random surface forms, random answers including `invalid` and answers that do not fit, random
detections and truncations, some malformed combinations the rules report as input errors) are
batched into a few engine runs: each world has its own trajectory, query ids and objects, so the
worlds cannot interact. Every result line of every kind must be identical on both engines.
On a disagreement the test shrinks it to a minimal fact set and prints it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from helpers import ROOT, WORLDS_PER_BATCH, make_batch, ruleset, run_cli
from metalogic.engine.check import differential
from metalogic.engine.check.differential import INPUT_CHECKS
from metalogic.engine.check.run import resolve_params
from metalogic.engine.results import split_args
from metalogic.engine.session.runs import EngineOutput

SEED = 20260214
BATCHES = 6


def run_both(lines: list[str], params: dict[str, int]) -> tuple[EngineOutput, EngineOutput]:
    return differential.run_both(ruleset(), "".join(f"{x}\n" for x in lines), params)


def differences(a: EngineOutput, b: EngineOutput, only: tuple[str, ...] | None = None) -> list[str]:
    """The differing lines (of the predicates `only`, when given), each marked with the engine that
    alone derived it."""
    out = []
    for d in differential.differences(a, b, only):
        out += [f"only clingo: {x}" for x in d.only_first] + [f"only prolog: {x}" for x in d.only_second]
    return out


def shrink(items: list[list[str]], fails: Callable[[list[list[str]]], bool]) -> list[list[str]]:
    """Greedy minimisation: drop chunks of items (halves, quarters, ... single items) while the
    failure persists."""
    chunk = max(1, len(items) // 2)
    while True:
        i, changed = 0, False
        while i < len(items):
            trial = items[:i] + items[i + chunk :]
            if trial and fails(trial):
                items, changed = trial, True
            else:
                i += chunk
        if chunk == 1 and not changed:
            return items
        chunk = max(1, chunk // 2)


def reproducer(
    worlds: list[list[str]], params: dict[str, int], settings: list[str], only: tuple[str, ...] | None = None
) -> str:
    def fails(ws: list[list[str]]) -> bool:
        return bool(differences(*run_both([x for w in ws for x in w], params), only))

    ws = shrink(worlds, fails)
    facts = shrink([[x] for w in ws for x in w], fails)
    lines = [x[0] for x in facts]
    diff = differences(*run_both(lines, params), only)
    return (
        "minimal reproducer (metalogic check DIR --engine both "
        + " ".join(f"-c {s}" for s in settings)
        + "):\n"
        + "\n".join(lines)
        + "\n\ndifferences:\n"
        + "\n".join(diff)
    )


@cache
def run_batch(
    batch: int, faults: bool = False
) -> tuple[EngineOutput, EngineOutput, list[list[str]], dict[str, int], list[str]]:
    worlds, settings = make_batch(SEED + batch, faults)
    params = resolve_params(ruleset(), settings)
    clingo, prolog = run_both([x for w in worlds for x in w], params)
    return clingo, prolog, worlds, params, settings


@pytest.mark.parametrize("batch", range(BATCHES))
def test_engines_agree_on_random_worlds(batch: int) -> None:
    clingo, prolog, worlds, params, settings = run_batch(batch)
    # The batch must exercise the rules: many cases, verdicts both ways, input errors (answers that
    # do not fit, empty boxes, answers to no question).
    assert len(clingo.lines["testcase"]) > 2 * WORLDS_PER_BATCH
    assert len(clingo.lines["violation"]) > WORLDS_PER_BATCH
    assert clingo.lines["input_error"]
    diff = differences(clingo, prolog)
    if diff:
        pytest.fail(
            f"the engines disagree ({len(diff)} lines, first: {diff[0]})\n"
            + reproducer(worlds, params, settings)
        )


@pytest.mark.parametrize("batch", range(BATCHES))
def test_engines_agree_on_the_faults_of_random_worlds(batch: int) -> None:
    """With every fault in (a second answer, a second box, a reused query id), both engines find
    the same faults: the check stops at them, before any result of the MRs."""
    clingo, prolog, worlds, params, settings = run_batch(batch, faults=True)
    kinds = {line.split("(", 2)[1] for line in clingo.lines["input_error"]}
    assert {"two_answers", "two_boxes", "query_reused"} <= kinds
    diff = differences(clingo, prolog, INPUT_CHECKS)
    if diff:
        pytest.fail(
            f"the engines find other faults ({len(diff)} lines, first: {diff[0]})\n"
            + reproducer(worlds, params, settings, INPUT_CHECKS)
        )


def test_batches_cover_every_mr_and_capability_both_ways() -> None:
    """Across the batches, every (MR, capability) pair has test cases and violations."""
    served = {(m.id, sc) for m in ruleset().mrs for sc in m.serves}
    cases, violated = set(), set()
    for batch in range(BATCHES):
        clingo = run_batch(batch)[0]
        cases |= {tuple(split_args(x)[1:]) for x in clingo.lines["testcase"]}
        violated |= {tuple(split_args(x)[2:4]) for x in clingo.lines["violation"]}
    assert served <= cases
    assert served <= violated


def test_random_worlds_are_valid_facts(tmp_path: pytest.TempPathFactory) -> None:
    """The generator writes only facts the reader accepts, so the batches are real inputs."""
    from pathlib import Path

    from metalogic.engine.facts import read_facts

    worlds, _ = make_batch(SEED)
    folder = Path(str(tmp_path))
    (folder / "worlds.lp").write_text("".join(f"{x}\n" for w in worlds for x in w), encoding="utf-8")
    facts = read_facts(folder)
    assert len(facts) == sum(len(w) for w in worlds)


def test_the_shrinker_finds_a_minimal_failing_set() -> None:
    items = [[str(i)] for i in range(40)]
    found = shrink(items, lambda ws: {"7", "23"} <= {x for w in ws for x in w})
    assert found == [["7"], ["23"]]


def test_repeated_facts_change_nothing(tmp_path: Path) -> None:
    """Facts are a set: the shipped examples with every fact stated twice get the results of the
    examples as they are, from `check --engine both` (the engines agree, and no duplicate-box or
    duplicate-pitch input error arises)."""
    examples = sorted((ROOT / "examples" / "facts").glob("*.lp"))
    lines = [x for f in examples for x in f.read_text(encoding="utf-8").splitlines()]
    results = []
    for name, facts in (("once", lines), ("twice", lines + lines[::-1])):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "facts.lp").write_text("".join(f"{x}\n" for x in facts), encoding="utf-8")
        out = tmp_path / f"{name}-out"
        code, _out, err = run_cli(
            "check", str(folder), "--engine", "both", "--out", str(out), "--format", "csv"
        )
        assert code == 0, err
        results.append((out / "violations.csv").read_text())
    assert results[0] == results[1] and results[0].count("\n") > 20


def test_both_engines_report_a_fault_before_comparing_the_mrs(tmp_path: Path) -> None:
    """Two depth answers to one question: each engine's MR11 may read either depth (here clingo
    flags the move and SWI-Prolog does not), but the check stops at the fault, on both engines."""
    facts = [
        "query(q2,depth(t9,1,o1)).",
        "query(q3,depth(t9,2,o1)).",
        "query(q4,move_dist(t9,1,2)).",
        'answer("say \\"hi\\"",q2,6).',
        'answer("say \\"hi\\"",q2,4000).',
        'answer("say \\"hi\\"",q3,11).',
        'answer("say \\"hi\\"",q4,11).',
        "trajectory(t9,household).",
        "step_mm(t9,250).",
        "camera(t9,50000,50000,19999,240).",
        "camera_pitch(t9,1,60).",
        "camera_pitch(t9,2,15).",
        "detection(t9,1,o1,obj,751,1,2,3,62).",
        "detection(t9,2,o1,obj,94,355,249,357,309).",
    ]
    (tmp_path / "facts.lp").write_text("\n".join(facts) + "\n", encoding="utf-8")
    code, out, err = run_cli("check", str(tmp_path), "--engine", "both", "-c", "eps=1")
    assert code == 2 and out == ""
    assert (
        err.splitlines()[0]
        == f'error: {tmp_path / "facts.lp"}:4:1: agent "say \\"hi\\"" answers query q2 twice (4000 and 6)'
    )
    assert "disagree" not in err
