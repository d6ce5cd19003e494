"""Rule shapes that make clingo's grounding blow up, kept out of every shipped `.lp` file.

Each was found the slow way (a check or an audit taking minutes instead of seconds):

- a variable with a lower and an upper bound in linear comparisons (`D >= 5, D <= 1000004`, or
  `D = (X + 5) / 10, D > 0, D <= 100000`): clingo's grounder derives the interval and adds it to the
  rule as a range literal, and since its join order starts with the literal of the smallest estimate
  (a range of a million values beats any literal that nothing binds yet), it enumerates the whole
  range before it reads the facts that bind the variable. One such guard on depth answers cost 0.9
  billion instructions on every check, whatever the facts (28% of a 10k-answer check); another 42 s
  against 0.6 s on the audit's depth worlds. Keep one bound linear and write the other as a
  quotient (`X / 100001 = 0`) or on a derived value, or use `!=` where the other bound holds anyway;
- an MR rule that finds its own cases by `testcase(C, mrN, _), C = mrN(...)`: clingo joins with
  every test case of every MR before filtering by name. Derive a helper atom per MR instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import clingo.ast as ast
from clingo.ast import ASTType

from metalogic.logic import CORE_DIR

LOGIC = CORE_DIR.parent
# Ranges this small cost nothing to enumerate (a pitch between -60 and 30 degrees).
SMALL_RANGE = 1000


def _rules(path: Path) -> list[str]:
    text = re.sub(r"%[^\n]*", "", path.read_text(encoding="utf-8"))
    return [" ".join(r.split()) for r in re.split(r"\.\s*\n", text) if ":-" in r]


Linear = dict[str | None, int]  # variable -> coefficient; None -> the constant


def _linear(t: ast.AST) -> Linear | None:
    """A term as a linear sum, or None when it is not one (clingo's bound analysis skips those)."""
    if t.ast_type == ASTType.Variable:
        return {t.name: 1, None: 0} if t.name != "_" else None
    if t.ast_type == ASTType.SymbolicTerm:
        return {None: t.symbol.number} if t.symbol.type == t.symbol.type.Number else None
    if t.ast_type == ASTType.UnaryOperation and t.operator_type == ast.UnaryOperator.Minus:
        inner = _linear(t.argument)
        return None if inner is None else {k: -v for k, v in inner.items()}
    if t.ast_type != ASTType.BinaryOperation:
        return None
    left, right = _linear(t.left), _linear(t.right)
    if left is None or right is None:
        return None
    if t.operator_type in (ast.BinaryOperator.Plus, ast.BinaryOperator.Minus):
        sign = 1 if t.operator_type == ast.BinaryOperator.Plus else -1
        return {k: left.get(k, 0) + sign * right.get(k, 0) for k in {*left, *right}}
    if t.operator_type == ast.BinaryOperator.Multiplication:
        for a, b in ((left, right), (right, left)):
            if set(a) == {None}:
                return {k: v * a[None] for k, v in b.items()}
    return None


def _at_least_zero(rule: ast.AST) -> list[Linear]:
    """The rule's linear comparisons, each as a sum that must be >= 0."""
    cmp = ast.ComparisonOperator
    flip = {
        cmp.LessThan: cmp.GreaterEqual,
        cmp.LessEqual: cmp.GreaterThan,
        cmp.GreaterThan: cmp.LessEqual,
        cmp.GreaterEqual: cmp.LessThan,
        cmp.Equal: cmp.NotEqual,
        cmp.NotEqual: cmp.Equal,
    }
    out: list[Linear] = []
    for lit in rule.body:
        if lit.ast_type != ASTType.Literal or lit.atom.ast_type != ASTType.Comparison:
            continue
        if lit.sign != ast.Sign.NoSign and len(lit.atom.guards) > 1:
            continue  # `not A <= X <= B` is no conjunction of bounds
        left = lit.atom.term
        for guard in lit.atom.guards:
            rel = flip[guard.comparison] if lit.sign != ast.Sign.NoSign else guard.comparison
            a, b = _linear(left), _linear(guard.term)
            fixed = (
                rel == cmp.Equal and left.ast_type == ASTType.Variable and b is not None and set(b) == {None}
            )
            if a is not None and b is not None and rel != cmp.NotEqual and not fixed:
                diff = {k: a.get(k, 0) - b.get(k, 0) for k in {*a, *b}}  # a - b
                neg = {k: -v for k, v in diff.items()}
                if rel in (cmp.GreaterThan, cmp.LessThan):
                    d = diff if rel == cmp.GreaterThan else neg
                    out.append({**d, None: d.get(None, 0) - 1})
                elif rel == cmp.GreaterEqual:
                    out.append(diff)
                elif rel == cmp.LessEqual:
                    out.append(neg)
                else:
                    out += [diff, neg]
            left = guard.term
    return out


def linear_ranges(rule: ast.AST) -> dict[str, tuple[int, int]]:
    """The variables that the rule's linear comparisons bound on both sides, with their intervals:
    the ranges clingo adds to the rule (bounds propagated through the comparisons, as it does)."""
    lo: dict[str, int] = {}
    hi: dict[str, int] = {}
    sums = _at_least_zero(rule)
    for _ in range(20):
        changed = False
        for s in sums:
            for v, c in s.items():
                if v is None or c == 0:
                    continue
                rest = s.get(None, 0)  # c * v + rest + (the others at their largest) >= 0
                for u, cu in s.items():
                    if u is None or u == v or cu == 0:
                        continue
                    top = hi.get(u) if cu > 0 else lo.get(u)
                    if top is None:
                        break
                    rest += cu * top
                else:
                    if c > 0 and (v not in lo or -(rest // c) > lo[v]):
                        lo[v], changed = -(rest // c), True
                    elif c < 0 and (v not in hi or rest // -c < hi[v]):
                        hi[v], changed = rest // -c, True
        if not changed:
            break
    return {v: (lo[v], hi[v]) for v in lo if v in hi}


def _statements(path: Path) -> list[ast.AST]:
    out: list[ast.AST] = []
    ast.parse_files([str(path)], out.append)
    return [s for s in out if s.ast_type == ASTType.Rule]


def _where(rule: ast.AST) -> str:
    path = Path(rule.location.begin.filename).resolve().relative_to(LOGIC.resolve())
    return f"{path}:{rule.location.begin.line}"


def test_no_rule_bounds_a_variable_on_both_sides() -> None:
    found = {
        f"{_where(rule)}: {v} in {a}..{b}"
        for f in sorted(LOGIC.rglob("*.lp"))  # with the files they include
        for rule in _statements(f)
        for v, (a, b) in linear_ranges(rule).items()
        if b - a >= SMALL_RANGE
    }
    assert sorted(found) == []


def test_the_range_check_finds_the_slow_rules() -> None:
    def ranges(text: str) -> dict[str, tuple[int, int]]:
        rules: list[ast.AST] = []
        ast.parse_string(text, rules.append)
        return linear_ranges(rules[-1])

    assert ranges("p(D) :- q(X), D = (X + 5) / 10, D > 0, D <= 100000.") == {"D": (1, 100000)}
    assert ranges("p(D) :- q(D), D >= 5, D <= 1000004.") == {"D": (5, 1000004)}
    assert ranges("p(D) :- q(D), 5 <= D <= 1000004.") == {"D": (5, 1000004)}
    assert ranges("p(X) :- q(X, Y), X + Y <= 10, X >= 0, Y >= 2.") == {"X": (0, 8), "Y": (2, 10)}
    assert ranges("p(X) :- q(X), X > 0, X / 100001 = 0.") == {}
    assert ranges("p(X) :- q(X), X != 0, X <= 100000.") == {}
    assert ranges("p(X) :- q(X), not 0 <= X <= 10.") == {}
    assert ranges("p(X) :- q(X), not X > 10, X >= 0.") == {"X": (0, 10)}


def test_no_mr_rule_looks_up_its_cases_through_every_test_case() -> None:
    pattern = re.compile(r"testcase\((\w+), (mr\w+), _\), \1 = \2\(")
    found = [
        f"{f.relative_to(LOGIC)}: {rule[:100]}"
        for f in sorted((LOGIC / "mrs").glob("*.lp"))
        for rule in _rules(f)
        if (m := pattern.search(rule.split(":-", 1)[1])) and not rule.startswith(f"{m.group(2)}_")
    ]
    assert found == []


def test_every_result_is_decided_while_grounding() -> None:
    """The check's program is stratified: clingo settles every test case, violation and score while
    grounding. A cycle through a negation (a test case that depends on `not frac_lt`, while
    frac_lt's requests depend on test cases) left them open, and the score aggregates were then
    grounded for every possible count: 1.7 million score atoms for 1,300 cases of one agent."""
    import clingo

    from helpers import EXAMPLES
    from metalogic.engine.facts import read_facts
    from metalogic.engine.rules.loader import load_ruleset
    from metalogic.engine.session.runs import RESULTS
    from metalogic.logic import SHARED_TABLES

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
    from metalogic.engine.rules.loader import (
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
