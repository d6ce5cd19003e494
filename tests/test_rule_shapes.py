"""Rule shapes that make clingo's grounding blow up, kept out of every shipped `.lp` file.

Both were found the slow way (a check or an audit taking minutes instead of seconds):

- a variable assigned by an equation and bounded on both sides (`D = (X + 5) / 10, D > 0,
  D <= 100000`): clingo enumerates the whole range for every binding of X (42 s against 0.6 s on the
  audit's depth worlds). Bound the variable the equation reads instead;
- an MR rule that finds its own cases by `testcase(C, mrN, _), C = mrN(...)`: clingo joins with
  every test case of every MR before filtering by name. Derive a helper atom per MR instead.
"""

from __future__ import annotations

import re
from pathlib import Path

from metalogic.logic import CORE_DIR

LOGIC = CORE_DIR.parent


def _rules(path: Path) -> list[str]:
    text = re.sub(r"%[^\n]*", "", path.read_text(encoding="utf-8"))
    return [" ".join(r.split()) for r in re.split(r"\.\s*\n", text) if ":-" in r]


def _range_bounded(body: str) -> list[str]:
    """Variables assigned by `V = expr` in the body and compared with something on both sides."""
    out = []
    for v in set(re.findall(r"(?<![\w<>!=])([A-Z]\w*) = (?![=.]|#)", body)):
        low = re.search(rf"(?<!\w){v} >=? |<=? {v}(?!\w)", body)
        high = re.search(rf"(?<!\w){v} <=? |>=? {v}(?!\w)", body)
        if low and high:
            out.append(v)
    return out


def test_no_assigned_variable_is_bounded_on_both_sides() -> None:
    found = [
        f"{f.relative_to(LOGIC)}: {v} in {rule[:100]}"
        for f in sorted(LOGIC.rglob("*.lp"))
        for rule in _rules(f)
        for v in _range_bounded(rule.split(":-", 1)[1])
    ]
    assert found == []


def test_the_shape_check_finds_the_slow_rule() -> None:
    slow = "p(D) :- q(X), D = (X + 5) / 10, D > 0, D <= 100000"
    fast = "p(D) :- q(X), X >= 5, X <= 1000004, D = (X + 5) / 10"
    assert _range_bounded(slow.split(":-", 1)[1]) == ["D"]
    assert _range_bounded(fast.split(":-", 1)[1]) == []


def test_no_mr_rule_looks_up_its_cases_through_every_test_case() -> None:
    pattern = re.compile(r"testcase\((\w+), (mr\w+), _\), \1 = \2\(")
    found = [
        f"{f.relative_to(LOGIC)}: {rule[:100]}"
        for f in sorted((LOGIC / "mrs").glob("*.lp"))
        for rule in _rules(f)
        if pattern.search(rule.split(":-", 1)[1]) and not rule.startswith(f"{pattern.search(rule).group(2)}_")
    ]
    assert found == []


def test_every_result_is_decided_while_grounding() -> None:
    """The check's program is stratified: clingo settles every test case, violation and score while
    grounding. A cycle through a negation (a test case that depends on `not frac_lt`, while
    frac_lt's requests depend on test cases) left them open, and the score aggregates were then
    grounded for every possible count: 1.7 million score atoms for 1,300 cases of one agent."""
    import clingo

    from helpers import EXAMPLES
    from metalogic.engine.backends import RESULTS
    from metalogic.engine.facts import read_facts
    from metalogic.engine.rules import SHARED_TABLES, load_ruleset

    ctl = clingo.Control(["--warn=none"])
    ctl.load(str(SHARED_TABLES))
    for f in load_ruleset().lp_files:
        ctl.load(str(f))
    ctl.add("base", [], read_facts(str(EXAMPLES)).program())
    ctl.ground([("base", [])])
    results = [sa for sa in ctl.symbolic_atoms if sa.symbol.name in RESULTS]
    assert len(results) > 100
    assert sorted({str(sa.symbol) for sa in results if not sa.is_fact})[:5] == []


def test_shipped_files_pass_the_checks_a_users_file_gets() -> None:
    """load_ruleset() alone skips the per-file checks on the shipped MRs (0.14 s of every check);
    they must hold, which the checks run on every file with a user's folder beside them show."""
    from metalogic.engine.rules import (
        CORE_NAMES,
        DETAIL,
        HOOKS,
        _clashes,
        head_signatures,
        load_ruleset,
        unmet_needs,
    )

    shipped = load_ruleset().mrs
    core_heads = {h for n in (*CORE_NAMES, DETAIL) for h in head_signatures(CORE_DIR / f"{n}.lp")} - HOOKS
    owner: dict[str, Path] = {}
    for mr in shipped:
        assert unmet_needs(mr.lp) == [], mr.id
        assert _clashes(mr.lp, core_heads, owner) == [], mr.id
    assert len(owner) > 20  # the helpers were read
    with_user = load_ruleset([LOGIC.parent / "examples" / "rules"])
    assert {m.id for m in shipped} < {m.id for m in with_user.mrs}
