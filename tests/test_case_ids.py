"""A test case id belongs to one MR within a capability: the per-MR counts of score.lp are added up
into the pooled and per-kind scores, so a user MR that reuses another MR's case ids is refused by
the rules (rule_error/1), on both engines, with one clear message."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import EXAMPLES, run_cli

DECLARATIONS = """mr(dup).
mr_name(dup, "copy of MR2's cases").
mr_law(dup, "none: it only reuses MR2's case ids").
mr_serves(dup, sc2a).
"""
# The same rule text is a valid clingo rule and a valid Prolog clause: one copy serves both halves,
# after each one's include of the declarations.
RULE = "testcase(mr2(Q1, Q2), dup, sc2a) :- testcase(mr2(Q1, Q2), mr2, sc2a).\n"


@pytest.mark.parametrize("engine", ["clingo", "prolog"])
def test_a_case_id_shared_by_two_mrs_is_refused(tmp_path: Path, engine: str) -> None:
    (tmp_path / "dup.decl").write_text(DECLARATIONS, encoding="utf-8")
    (tmp_path / "dup.lp").write_text('#include "dup.decl".\n' + RULE, encoding="utf-8")
    (tmp_path / "dup.pl").write_text(":- include('dup.decl').\n" + RULE, encoding="utf-8")
    code, out, err = run_cli(
        "check", str(EXAMPLES / "mr2_symmetry.lp"), "--rules", str(tmp_path), "--engine", engine
    )
    assert code != 0 and out == ""
    assert "error: test case mr2(" in err
    assert "is derived by two MRs, dup and mr2, for capability sc2a" in err
    assert "fix: give the cases of one of the two MR files ids of their own" in err
    assert "Traceback" not in err


def test_distinct_case_ids_pass() -> None:
    code, out, _ = run_cli("check", str(EXAMPLES / "mr2_symmetry.lp"), "--engine", "both")
    assert code == 0 and "sc2a" in out
