"""Each MR's declarations (and the core's parameters) are stated once, in a NAME.decl file that both
engines read through their twins' includes and the loader reads as data."""

from __future__ import annotations

from pathlib import Path

import pytest

from metalogic.engine.rules.declarations import DECLARATIONS, read_declarations
from metalogic.engine.rules.loader import CORE_DECLS, load_ruleset
from metalogic.engine.session.api import Session
from metalogic.engine.terms import quote
from metalogic.logic import CORE_DIR, LOGIC_DIR, MRS_DIR

ROOT = Path(__file__).resolve().parent.parent
USER_FOLDERS = [ROOT / "examples" / "rules", *sorted((ROOT / "tests" / "data" / "audit").iterdir())]
FOLDERS = [MRS_DIR, *USER_FOLDERS]


def _declaring_lines(path: Path) -> list[str]:
    """Clauses of a rule file that state a declaration predicate (at the start of a line)."""
    return [
        f"{path.name}:{n}"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if any(line.startswith(f"{p}(") for p in DECLARATIONS)
    ]


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_twins_declare_nothing_themselves(folder: Path) -> None:
    rule_files = sorted([*folder.glob("*.lp"), *folder.glob("*.pl")])
    assert rule_files
    assert [x for f in rule_files for x in _declaring_lines(f)] == []
    for lp in folder.glob("*.lp"):
        decl = lp.with_suffix(".decl")
        assert decl.is_file()
        assert f'#include "{decl.name}".' in lp.read_text(encoding="utf-8")
        assert f":- include('{decl.name}')." in lp.with_suffix(".pl").read_text(encoding="utf-8")


def test_core_rule_files_declare_no_parameter_themselves() -> None:
    files = [p for p in CORE_DIR.iterdir() if p.suffix in (".lp", ".pl", ".facts")]
    assert [x for f in files for x in _declaring_lines(f)] == []
    assert [p.name for p in CORE_DECLS] == ["params.decl"]


def _expected(rules_dirs: list[Path]) -> dict[tuple[str, int], set[str]]:
    rs = load_ruleset(rules_dirs)
    want: dict[tuple[str, int], set[str]] = {
        ("mr", 1): {f"mr({m.id})" for m in rs.mrs},
        ("mr_name", 2): {f"mr_name({m.id},{quote(m.name)})" for m in rs.mrs},
        ("mr_law", 2): {f"mr_law({m.id},{quote(m.law)})" for m in rs.mrs},
        ("mr_serves", 2): {f"mr_serves({m.id},{sc})" for m in rs.mrs for sc in m.serves},
        ("mr_set", 2): {f"mr_set({m.id},{s})" for m in rs.mrs for s in m.sets if s != "user"},
        ("param_default", 3): {
            f"param_default({p.name},{p.default},{quote(p.doc)})" for p in rs.params.values()
        },
        ("param_scale", 2): {f"param_scale({p.name},{p.scale})" for p in rs.params.values() if p.scale != 1},
    }
    return want


@pytest.mark.parametrize("engine", ["clingo", "prolog"])
def test_both_engines_read_the_declaration_files(engine: str) -> None:
    """The real clingo and the real SWI-Prolog, loading the twins, report exactly the declarations
    the loader read from the .decl files (shipped MRs, a user MR and the core's parameters)."""
    user = [ROOT / "examples" / "rules"]
    rs = load_ruleset(user)
    files = rs.lp_files if engine == "clingo" else rs.pl_files
    session = Session(engine).load(*files)
    for (name, arity), want in _expected(user).items():
        assert session.rows(name, arity) == want, name
    assert "vertical_order" in {m.id for m in rs.mrs}


def test_the_loader_reads_declarations_as_data(tmp_path: Path) -> None:
    """A declaration file is never run: a directive in it is a problem, not an action."""
    bad = tmp_path / "x.decl"
    bad.write_text(':- shell("touch pwned").\nmr(x).\n', encoding="utf-8")
    decl, problems = read_declarations(bad)
    assert [p.where.rsplit(":", 2)[-2] for p in problems] == ["1"]
    assert decl == {"mr": [(["x"], 2)]}
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()


def test_memory_rules_declare_their_parameters_once() -> None:
    for lp in sorted((LOGIC_DIR / "memory").glob("*.lp")):
        assert _declaring_lines(lp) == [] and _declaring_lines(lp.with_suffix(".pl")) == [], lp.name


def test_result_predicates_have_one_table() -> None:
    """schema.RESULTS is the one table of result predicates: backends asks for it, the facts reader
    names each one as derived, and the Prolog driver prints exactly these."""
    import re

    from metalogic.engine import schema
    from metalogic.engine.session import runs as backends

    assert backends.RESULTS is schema.RESULTS
    assert set(schema.RESULTS) <= schema.DERIVED
    driver = (CORE_DIR / "driver.pl").read_text(encoding="utf-8")
    # A line is printed by ml_emit/2, or (many lines at once) through ml_pieces/3 or a findall/3 of the
    # result's own atoms.
    patterns = [
        r"ml_emit\(S, (\w+)\(([^()]*)\)\)",
        r"ml_pieces\((\w+)\(((?:[^()]|\([^()]*\))*)\), P0",
        r"findall\((\w+)\(([^()]*)\), \1\(",
    ]
    found = [m for p in patterns for m in re.finditer(p, driver)]
    emitted = {(m[1], re.sub(r"\([^()]*\)", "", m[2]).count(",") + 1) for m in found}
    # Blame's results come from engine/check/blame.py, which runs the blame programs after the check.
    blame = {(k, a) for k, a in schema.RESULTS.items() if k in schema.BLAME_RESULTS}
    assert emitted == set(schema.RESULTS.items()) - blame
    assert blame == set(schema.BLAME_RESULTS.items())


def test_capability_names_come_from_tables_facts() -> None:
    """tables.facts names the capabilities once; every table, report and summary prints those names."""
    import re

    from metalogic.engine import vocab
    from metalogic.engine.vocab import vocabulary

    text = (CORE_DIR / "tables.facts").read_text(encoding="utf-8")
    stated = dict(re.findall(r'^capability\((\w+), "([^"]*)"\)\.', text, flags=re.M))
    assert vocabulary().capabilities == stated
    assert len(stated) == 8 and stated["sc4a"] == "ego-allo direction"
    assert not hasattr(vocab, "CAPABILITY_NAMES")
    sources = [*(ROOT / "engine").rglob("*.py"), *(ROOT / "memory").glob("*.py")]
    assert [p.name for p in sources if any(n in p.read_text(encoding="utf-8") for n in stated.values())] == []


def test_query_kinds_agree_everywhere() -> None:
    """tables.facts lists the query kinds (query_kind/4); the facts schema types each kind's
    arguments, and queries.lp decodes each kind in a rule of its own (clingo cannot take a term's
    name apart; the Prolog twin decodes every kind from query_kind/4). The three must name the same
    kinds, with the same arity."""
    from metalogic.engine import schema
    from metalogic.engine.schema import STATE
    from metalogic.engine.vocab import vocabulary

    kinds = vocabulary().query_kinds
    assert {k: len(args) for k, args in schema.QUERY_KINDS.items()} == {k: q.arity for k, q in kinds.items()}
    contents = {
        k: f"{k}({', '.join(str(i) if t is STATE else f'x{i}' for i, t in enumerate(args))})"
        for k, args in schema.QUERY_KINDS.items()
    }
    facts = "".join(f"query(q_{k}, {c}).\n" for k, c in contents.items())
    session = Session("clingo").load(CORE_DIR / "queries.lp").add(facts)
    assert session.rows("query_of", 3) == {f"query_of(q_{k},{k},x0)" for k in kinds}
    assert session.rows("query_type", 2) == {f"query_type(q_{k},{q.answer_type})" for k, q in kinds.items()}
    assert session.rows("query_sc", 2) == {f"query_sc(q_{k},{q.sc})" for k, q in kinds.items()}
