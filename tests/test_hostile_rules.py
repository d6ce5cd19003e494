"""User rule folders (`--rules`) written carelessly or with intent: a declaration that puts a user's
MR into the published `paper` set, a Prolog twin calling a predicate nothing defines in a clause no
run reaches, a declaration file with a byte order mark; and `--engine prolog`, which never grounds
the clingo twins. Each ends in one clear error or a documented correct result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli

DECL = """\
% Height order: above twice means above.
mr(height).
mr_name(height, "height order").
mr_law(height, "above(A,B) and above(B,C) in any frames imply above(A,C)").
mr_serves(height, sc2a).
"""
LP = """\
% Height order: above twice means above.
#include "height.decl".
testcase(height(Q1, Q2, Q3), height, sc2a) :- pair_query(Q1, obj_dir, T, S1, A, B),
    pair_query(Q2, obj_dir, T, S2, B, C), pair_query(Q3, obj_dir, T, _, A, C), S1 != S2.
case_query(height(Q1, Q2, Q3), (Q1; Q2; Q3)) :- testcase(height(Q1, Q2, Q3), height, _).
height_up(Ag, Q) :- dir_answer(Ag, Q, N), dir_name(ego, N, _, _, 1).
violates(Ag, height(Q1, Q2, Q3), not_above) :- testcase(height(Q1, Q2, Q3), height, _),
    height_up(Ag, Q1), height_up(Ag, Q2), dir_answer(Ag, Q3, _), not height_up(Ag, Q3).
"""
PL = """\
% Height order: above twice means above.
:- include('height.decl').
testcase(height(Q1, Q2, Q3), height, sc2a) :- pair_query(Q1, obj_dir, T, S1, A, B),
    pair_query(Q2, obj_dir, T, S2, B, C), S1 \\== S2, pair_query(Q3, obj_dir, T, _, A, C).
case_query(height(Q1, Q2, Q3), Q) :- testcase(height(Q1, Q2, Q3), height, _), member(Q, [Q1, Q2, Q3]).
height_up(Ag, Q) :- dir_answer(Ag, Q, N), dir_name(ego, N, _, _, 1).
violates(Ag, height(Q1, Q2, Q3), not_above) :- testcase(height(Q1, Q2, Q3), height, _),
    height_up(Ag, Q1), height_up(Ag, Q2), dir_answer(Ag, Q3, _), \\+ height_up(Ag, Q3).
"""
FACTS = """\
query(q1, obj_dir(t, 0, a, b)).
query(q2, obj_dir(t, 1, b, c)).
query(q3, obj_dir(t, 2, a, c)).
answer(ag, q1, above).
answer(ag, q2, above).
answer(ag, q3, below).
"""


def folder(tmp: Path, decl: str | bytes = DECL, lp: str = LP, pl: str = PL) -> tuple[Path, Path]:
    """A facts folder and a rules folder holding the height MR: (facts, rules)."""
    facts, rules = tmp / "facts", tmp / "rules"
    facts.mkdir(exist_ok=True)
    (facts / "a.lp").write_text(FACTS)
    rules.mkdir(exist_ok=True)
    (rules / "height.lp").write_text(lp)
    (rules / "height.pl").write_text(pl)
    if isinstance(decl, bytes):
        (rules / "height.decl").write_bytes(decl)
    else:
        (rules / "height.decl").write_text(decl)
    return facts, rules


def violations(out: Path) -> list[tuple[str, str]]:
    return [(r["case"], r["reason"]) for r in json.loads((out / "violations.json").read_text())]


def test_a_users_mr_cannot_join_the_paper_set(tmp_path: Path) -> None:
    facts, rules = folder(tmp_path, DECL + "mr_set(height, paper).\n")
    code, out, err = run_cli("check", str(facts), "--rules", str(rules), "--mrs", "paper")
    assert code == 2 and out == ""
    assert err == (
        f"error: {rules / 'height.decl'}:6: MR height is not one of metalogic's own MRs and cannot join the "
        "set 'paper' (the six published MRs)\n"
        "  expected: a set of your own, e.g. mr_set(height, mine), or none (a user's MR is in the set "
        "'user')\n"
        "  fix: remove mr_set(height, paper) or name another set\n"
    )
    facts, rules = folder(tmp_path, DECL + "mr_set(height, mine).\n")  # a set of its own is fine
    code, _out, err = run_cli(
        "check", str(facts), "--rules", str(rules), "--mrs", "height", "--out", str(tmp_path / "o")
    )
    assert code == 0, err
    assert violations(tmp_path / "o") == [("height(q1,q2,q3)", "not_above")]
    # its set is a name --mrs takes (the declarations list the sets; nothing else must name it)
    code, _out, err = run_cli(
        "check", str(facts), "--rules", str(rules), "--mrs", "mine", "--out", str(tmp_path / "m")
    )
    assert code == 0, err
    assert violations(tmp_path / "m") == [("height(q1,q2,q3)", "not_above")]
    code, _out, err = run_cli("check", str(facts), "--rules", str(rules), "--mrs", "mien")
    assert code == 2
    assert err == (
        "error: unknown MR or set of MRs 'mien' in --mrs\n"
        "  expected: all, paper, anchored, across, joint, mine, user, or MR ids such as mr1 "
        "(comma-separated)\n"
        "  fix: did you mean mine?\n"
    )


def test_a_prolog_twin_calling_an_undefined_predicate_is_refused_where_no_run_reaches_it(
    tmp_path: Path,
) -> None:
    """The clause calling the typo is never run on these facts (nothing calls height_spare/1), so
    SWI-Prolog never raised its existence error: the twin passed; the .lp twin with the same typo
    was refused when loaded."""
    spare = "height_spare(X) :- findall(Y, dir_answr(X, Y, _), L), \\+ height_empty(L).\n"
    facts, rules = folder(tmp_path, pl=PL + spare)
    for engine in ("prolog", "both"):
        code, out, err = run_cli("check", str(facts), "--rules", str(rules), "--engine", engine)
        assert code == 2 and out == "", (engine, err)
        assert err == (
            f"error: {rules / 'height.pl'}:9: SWI-Prolog: dir_answr/3 is called by height_spare/1 but no "
            "rule or fact defines it\n"
            "  expected: a predicate defined by a rule file or declared in docs/facts.md\n"
            "  fix: check the spelling of the predicate in the .pl file\n"
            f"{rules / 'height.pl'}:9: SWI-Prolog: height_empty/1 is called by height_spare/1 but no rule or "
            "fact defines it\n"
            "  expected: a predicate defined by a rule file or declared in docs/facts.md\n"
            "  fix: check the spelling of the predicate in the .pl file\n"
        ), (engine, err)
    code, _out, err = run_cli(
        "check", str(facts), "--rules", str(rules), "--engine", "prolog", "--out", str(tmp_path / "o")
    )
    assert code == 2  # also with --out, and the good twin passes:
    (tmp_path / "good").mkdir()
    facts, rules = folder(tmp_path / "good")  # another folder: SWI-Prolog keeps the files it loaded
    code, _out, err = run_cli(
        "check", str(facts), "--rules", str(rules), "--engine", "both", "--out", str(tmp_path / "o")
    )
    assert code == 0, err


def test_engine_prolog_does_not_ground_the_clingo_twins(tmp_path: Path) -> None:
    """--engine prolog runs the .pl twins only: a typo in the .lp twin, found by grounding it, is
    reported by the engines that run it (clingo, both), not by a Prolog-only check."""
    facts, rules = folder(
        tmp_path, lp=LP.replace("height_up(Ag, Q) :- dir_answer(", "height_up(Ag, Q) :- dir_answr(")
    )
    code, _out, err = run_cli(
        "check", str(facts), "--rules", str(rules), "--engine", "prolog", "--out", str(tmp_path / "o")
    )
    assert code == 0, err
    assert violations(tmp_path / "o") == [("height(q1,q2,q3)", "not_above")]
    for engine in ("clingo", "both"):
        code, _out, err = run_cli("check", str(facts), "--rules", str(rules), "--engine", engine)
        assert code == 2
        assert err.startswith(
            f"error: {rules / 'height.lp'}:6:21: 'dir_answr(Ag,Q,N)' is used but no rule"
        ), err


@pytest.mark.parametrize("name", ["height.decl", "height.lp", "height.pl"])
def test_a_rule_file_with_a_byte_order_mark_is_one_clear_error(tmp_path: Path, name: str) -> None:
    """clingo reads no byte order mark (in a file it loads or includes): its message quoting the
    bytes stopped the whole process ('PANIC: exception in nothrow scope'), or the declarations were
    refused as "unexpected '\ufeff'". Now: one error naming the file and what to do."""
    facts, rules = folder(tmp_path)
    path = rules / name
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    code, out, err = run_cli("check", str(facts), "--rules", str(rules), "--engine", "both")
    assert code == 2 and out == ""
    assert err == (
        f"error: {path}: {name} starts with a byte order mark (U+FEFF), which clingo cannot read\n"
        "  expected: a rule file saved as UTF-8 without a byte order mark\n"
        f"  fix: save {name} as 'UTF-8' rather than 'UTF-8 with BOM' (or delete its first 3 bytes)\n"
    )


def test_a_rule_file_that_is_not_utf8_is_one_clear_error(tmp_path: Path) -> None:
    facts, rules = folder(tmp_path)
    path = rules / "height.lp"
    path.write_bytes(LP.replace("above twice", "above\xe9twice").encode("latin-1"))
    code, _out, err = run_cli("check", str(facts), "--rules", str(rules))
    assert code == 2
    assert err.startswith(f"error: {path}:1: height.lp is not UTF-8 text: byte 0xe9 at offset 21\n"), err


def test_the_code_walk_finds_nothing_undefined_in_the_shipped_twins() -> None:
    """The check that refuses a user's .pl twin, run on every shipped one (and the example MR): no
    false alarm, so a refusal always names a real undefined call."""
    from metalogic.engine.rules.loader import load_ruleset
    from metalogic.engine.session.api import Session

    examples = Path(__file__).parent.parent / "examples" / "rules"
    rules = load_ruleset([examples], engine="prolog")
    assert len(rules.mrs) > 10
    assert Session("prolog").load(*rules.pl_files).undefined_calls([m.pl for m in rules.mrs]) == []
