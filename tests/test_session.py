"""engine.session: one program on either engine, and engine.check.differential's comparison."""

from __future__ import annotations

from pathlib import Path

import pytest

from metalogic.engine.audit.worlds import ENTRY
from metalogic.engine.check.differential import differences
from metalogic.engine.errors import MetalogicError
from metalogic.engine.generate.combos import ENUMERATE
from metalogic.engine.rules.entries import included, twin
from metalogic.engine.rules.loader import CORE_ENTRY, CORE_NAMES
from metalogic.engine.session.api import Session
from metalogic.engine.session.runs import EngineOutput
from metalogic.engine.terms import Atom, Fun, Str
from metalogic.engine.truth import TRUTH_ENTRY

TWIN_LP = 'pair(a, 1).\npair(b, "two words").\npair(c, f(x, -3)).\nbig(X) :- pair(X, N), N > 0.\n'
TWIN_PL = 'pair(a, 1).\npair(b, "two words").\npair(c, f(x, -3)).\nbig(X) :- pair(X, N), integer(N), N > 0.\n'


def twin_files(tmp: Path, name: str = "twin") -> tuple[Path, Path]:
    lp, pl = tmp / f"{name}.lp", tmp / f"{name}.pl"
    lp.write_text(TWIN_LP, encoding="utf-8")
    pl.write_text(TWIN_PL.replace("pair", f"{name}_pair").replace("big", f"{name}_big"), encoding="utf-8")
    return lp, pl


def test_rows_are_canonical_text_on_both_engines(tmp_path: Path) -> None:
    lp, _ = twin_files(tmp_path)
    _, pl = twin_files(tmp_path, "tw")
    clingo_rows = Session("clingo", tables=False).load(lp).rows("pair", 2)
    assert clingo_rows == {"pair(a,1)", 'pair(b,"two words")', "pair(c,f(x,-3))"}
    prolog_rows = Session("prolog").load(pl).rows("tw_pair", 2)
    assert {r.replace("tw_", "") for r in prolog_rows} == clingo_rows
    assert Session("prolog").load(pl).rows("tw_big", 1) == {"tw_big(a)"}


def test_prolog_prints_strings_as_clingo_does(tmp_path: Path) -> None:
    """The driver's printer (one string built of pieces, each string's text kept for the run) gives
    clingo's text for strings with escapes, quotes, brackets, tabs, line separators and non-ASCII."""
    texts = [
        'say \\"hi\\"',
        "back\\\\slash",
        "new\\nline",
        "tab\there",
        "sep\u2028x",
        "caf\u00e9 \U0001f600",
        "it's (a, b) % no comment",
        "",
    ]
    facts = "".join(f'str_{i}(k, "{t}", f("{t}", -{i})).\n' for i, t in enumerate(texts))
    (tmp_path / "s.lp").write_text(facts.replace("str_", "s"), encoding="utf-8")
    (tmp_path / "s.pl").write_text(facts, encoding="utf-8")
    for i in range(len(texts)):
        clingo_rows = Session("clingo", tables=False).load(tmp_path / "s.lp").rows(f"s{i}", 3)
        prolog_rows = Session("prolog").load(tmp_path / "s.pl").rows(f"str_{i}", 3)
        assert len(clingo_rows) == 1 and {r.replace("str_", "s") for r in prolog_rows} == clingo_rows, texts[
            i
        ]


def test_a_prolog_session_swaps_in_its_own_rule_files(tmp_path: Path) -> None:
    _, first = twin_files(tmp_path, "one")
    _, second = twin_files(tmp_path, "two")
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
    _, pl = twin_files(tmp_path, "three")
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


def test_an_entry_names_its_files_relative_to_itself(tmp_path: Path) -> None:
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "base.lp").write_text("base(1).\n", encoding="utf-8")
    (tmp_path / "core" / "more.lp").write_text("more(X) :- base(X).\n", encoding="utf-8")
    (tmp_path / "core" / "all.lp").write_text('% the core\n#include "base.lp".\n#include "more.lp".\n')
    entry = tmp_path / "entry.lp"
    entry.write_text('#include "core/all.lp".  % nested\n#include "extra.facts".\n', encoding="utf-8")
    (tmp_path / "extra.facts").write_text("extra(2).\n", encoding="utf-8")
    files = included(entry)
    assert files == [(tmp_path / p).resolve() for p in ("core/base.lp", "core/more.lp", "extra.facts")]
    # clingo, loading the entry itself, finds the same files (and loads a file named twice once).
    session = Session("clingo", tables=False).load(entry, tmp_path / "core" / "base.lp")
    assert session.lines() == {"base(1)", "more(1)", "extra(2)"}
    assert [twin(p).name for p in files] == ["base.pl", "more.pl", "extra.facts"]


def test_an_entry_holds_only_includes(tmp_path: Path) -> None:
    entry = tmp_path / "entry.lp"
    entry.write_text('#include "a.lp".\nrule(1).\n', encoding="utf-8")
    with pytest.raises(MetalogicError) as err:
        included(entry)
    assert err.value.problems[0].what.startswith("the entry file includes a.lp, which does not exist")
    (tmp_path / "a.lp").write_text("a.\n", encoding="utf-8")
    with pytest.raises(MetalogicError) as err:
        included(entry)
    assert err.value.problems[0].where.endswith("entry.lp:2")


def test_the_shipped_entries_name_existing_files_with_their_twins() -> None:
    for entry in (CORE_ENTRY, TRUTH_ENTRY, ENUMERATE, *ENTRY.values()):
        files = included(entry)
        assert files and all(p.is_file() for p in files), entry
    # The check's core runs on both engines: each clingo file has its SWI-Prolog twin.
    assert all(twin(p).is_file() for p in included(CORE_ENTRY))
    assert [p.stem for p in included(CORE_ENTRY) if p.suffix == ".lp"] == list(CORE_NAMES)
