"""engine.session: one program on either engine, and engine.differential's comparison."""

from __future__ import annotations

from pathlib import Path

import pytest

from metalogic.engine.backends import EngineOutput
from metalogic.engine.differential import differences
from metalogic.engine.errors import MetalogicError
from metalogic.engine.session import Session
from metalogic.engine.terms import Atom, Fun, Str

TWIN_LP = 'pair(a, 1).\npair(b, "two words").\npair(c, f(x, -3)).\nbig(X) :- pair(X, N), N > 0.\n'
TWIN_PL = 'pair(a, 1).\npair(b, "two words").\npair(c, f(x, -3)).\nbig(X) :- pair(X, N), integer(N), N > 0.\n'


def twin(tmp: Path, name: str = "twin") -> tuple[Path, Path]:
    lp, pl = tmp / f"{name}.lp", tmp / f"{name}.pl"
    lp.write_text(TWIN_LP, encoding="utf-8")
    pl.write_text(TWIN_PL.replace("pair", f"{name}_pair").replace("big", f"{name}_big"), encoding="utf-8")
    return lp, pl


def test_rows_are_canonical_text_on_both_engines(tmp_path: Path) -> None:
    lp, _ = twin(tmp_path)
    _, pl = twin(tmp_path, "tw")
    clingo_rows = Session("clingo", tables=False).load(lp).rows("pair", 2)
    assert clingo_rows == {"pair(a,1)", 'pair(b,"two words")', "pair(c,f(x,-3))"}
    prolog_rows = Session("prolog").load(pl).rows("tw_pair", 2)
    assert {r.replace("tw_", "") for r in prolog_rows} == clingo_rows
    assert Session("prolog").load(pl).rows("tw_big", 1) == {"tw_big(a)"}


def test_a_prolog_session_swaps_in_its_own_rule_files(tmp_path: Path) -> None:
    _, first = twin(tmp_path, "one")
    _, second = twin(tmp_path, "two")
    assert Session("prolog").load(first).rows("one_big", 1) == {"one_big(a)"}
    assert Session("prolog").load(second).rows("two_big", 1) == {"two_big(a)"}
    assert Session("prolog").load(second).rows("one_big", 1) == set()  # unloaded by the swap


def test_text_and_data_facts_meet_in_one_program() -> None:
    s = Session("clingo", tables=False).add("q(X) :- p(X, _).\n#show q/1.\n#show p/2.\n")
    s.add([Fun("p", (Atom("a"), 1)), Fun("p", (Str("x). evil(1"), Fun("f", (Atom("b"),))))])
    assert s.rows("q", 1) == {"q(a)", 'q("x). evil(1")'}
    assert s.rows("p", 2) == {"p(a,1)", 'p("x). evil(1",f(b))'}
    assert s.rows("evil", 1) == set()  # a string passed as data never becomes a rule


def test_a_data_fact_must_be_named_plainly() -> None:
    with pytest.raises(ValueError, match="not a fact"):
        Session("clingo").add([Fun("p(X) :- q", (1,))])


def test_constants_and_the_tables() -> None:
    s = Session("clingo", consts={"n": 3}).add(
        "#const n = 1.\nnum(1..n).\n#show num/1.\n#show magnitude/1.\n"
    )
    assert s.rows("num", 1) == {"num(1)", "num(2)", "num(3)"}
    assert "magnitude(mm)" in s.rows("magnitude", 1)  # logic/core/tables.facts is loaded first
    assert Session("clingo", tables=False).add("#show magnitude/1.\n").rows("magnitude", 1) == set()


def test_a_clingo_file_that_does_not_parse_names_its_place(tmp_path: Path) -> None:
    bad = tmp_path / "bad.lp"
    bad.write_text("ok(1).\nbroken(:- .\n", encoding="utf-8")
    with pytest.raises(MetalogicError) as err:
        Session("clingo").load(bad)
    (p,) = err.value.problems[:1]
    assert p.where.endswith("bad.lp:2:8") and "unexpected" in p.what


def test_a_prolog_file_that_does_not_load_names_its_place(tmp_path: Path) -> None:
    bad = tmp_path / "badpl.pl"
    bad.write_text("badpl_ok(1).\nbadpl_broken(1 :- .\n", encoding="utf-8")
    with pytest.raises(MetalogicError) as err:
        Session("prolog").load(bad).rows("badpl_ok", 1)
    p = err.value.problems[0]
    assert p.what.startswith("SWI-Prolog error:") and "badpl.pl:2" in p.where


def test_a_resident_module_survives_rule_swaps(tmp_path: Path) -> None:
    module = tmp_path / "echo.pl"
    module.write_text(
        ":- module(ml_test_echo, [echo_lines/2]).\n"
        'echo_lines(Facts, Lines) :- findall(L, (member(F, Facts), format(string(L), "~w", [F])), Lines).\n',
        encoding="utf-8",
    )
    echo = Session("prolog").load(module, resident=True)
    facts = [Fun("seen", (Atom("a"), 7))]
    assert echo.call("ml_test_echo", "echo_lines", facts) == ["seen(a,7)"]
    _, pl = twin(tmp_path, "three")
    assert Session("prolog").load(pl).rows("three_big", 1) == {"three_big(a)"}
    assert echo.call("ml_test_echo", "echo_lines", facts) == ["seen(a,7)"]


def test_the_first_model_only_and_satisfiability() -> None:
    choice = Session("clingo", tables=False).add("{ pick(1..3) } = 1.\n#show pick/1.\n")
    assert len(choice.symbols()) == 1 and choice.satisfiable
    none = Session("clingo", tables=False).add("p. :- p.\n")
    assert none.symbols() == [] and not none.satisfiable


def test_differences_per_predicate_in_order() -> None:
    a, b = EngineOutput("clingo"), EngineOutput("prolog")
    a.lines["testcase"] |= {"testcase(1,mr1,sc2a)", "testcase(2,mr1,sc2a)"}
    b.lines["testcase"] |= {"testcase(1,mr1,sc2a)"}
    a.lines["violation"].add("violation(ag,1,mr1,sc2a,x)")
    b.lines["violation"].add("violation(ag,1,mr1,sc2a,x)")
    b.lines["input_error"].add("input_error(oops)")
    diffs = differences(a, b)
    assert [(d.predicate, d.only_first, d.only_second) for d in diffs] == [
        ("testcase", ["testcase(2,mr1,sc2a)"], []),
        ("input_error", [], ["input_error(oops)"]),
    ]
    assert differences(a, a) == []
