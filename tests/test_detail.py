"""`metalogic check` without --out derives only what the score table needs (logic/core/detail.lp is
left out): every other result line is the same as in a full run, on both engines."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import EXAMPLES, run_cli
from metalogic.engine.facts import read_facts
from metalogic.engine.rules.loader import load_ruleset
from metalogic.engine.session.runs import DETAIL_RESULTS, run_engine


@pytest.mark.parametrize("engine", ["clingo", "prolog"])
def test_scores_alone_equal_the_full_run(engine: str) -> None:
    rules, program = load_ruleset(), read_facts(EXAMPLES).program()
    full = run_engine(engine, rules, program, {}, detail=True)
    lean = run_engine(engine, rules, program, {}, detail=False)
    for kind in full.lines:
        if kind in DETAIL_RESULTS:
            assert full.lines[kind], kind  # the examples have violations, trajectories, answers
            assert lean.lines[kind] == set(), kind
        else:
            assert lean.lines[kind] == full.lines[kind], kind


@pytest.mark.parametrize("engine", ["clingo", "prolog"])
def test_the_counts_match_the_rows_they_stand_for(engine: str) -> None:
    """Without --out the table prints case_count/1 and violation_count/2 instead of counting rows:
    they must count exactly the testcase/3 and violation/5 rows of a full run."""
    from metalogic.engine.results import label, parse_output, split_args

    full = run_engine(engine, load_ruleset(), read_facts(EXAMPLES).program(), {}, detail=True)
    assert full.lines["case_count"] == {f"case_count({len(full.lines['testcase'])})"}
    per_agent: dict[str, int] = {}
    for line in full.lines["violation"]:
        agent = label(split_args(line)[0])
        per_agent[agent] = per_agent.get(agent, 0) + 1
    rows = parse_output(full)
    assert rows.violation_counts == {a: per_agent.get(a, 0) for a in rows.violation_counts}
    assert sorted(rows.violation_counts) == sorted({r[0] for r in rows.scores})
    assert rows.violation_count == len(full.lines["violation"]) > 0


def test_check_prints_the_same_table_with_and_without_out(tmp_path: Path) -> None:
    code, plain, _ = run_cli("check", str(EXAMPLES))
    code2, written, _ = run_cli("check", str(EXAMPLES), "--out", str(tmp_path / "out"))
    assert code == code2 == 0
    assert written.startswith(plain.rstrip("\n"))  # then "wrote N files to ..."
    assert (tmp_path / "out" / "run.json").is_file()
