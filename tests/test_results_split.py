"""Result lines are split into their arguments two ways: a scanner that knows strings, and a fast
split for the lines without strings (most of them). On every line without strings they agree."""

from __future__ import annotations

import random

import pytest

from metalogic.engine.results import _split_plain, _split_scan, split_args


def _term(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.4:
        return rng.choice(["a", "b1", "-3", "12", "move", "()"])
    args = ",".join(_term(rng, depth - 1) for _ in range(rng.randint(1, 3)))
    return rng.choice(["f", "mr2", ""]) + f"({args})"  # "" makes a tuple


def test_fast_split_agrees_with_the_scanner() -> None:
    rng = random.Random(7)
    for _ in range(5000):
        line = "p(" + ",".join(_term(rng, 3) for _ in range(rng.randint(1, 5))) + ")"
        assert _split_plain(line) == _split_scan(line), line


def test_strings_with_commas_and_brackets_stay_whole() -> None:
    line = 'violation("gpt-4o, (v2)",mr2(q1,q2),mr2,sc2a,not_inverse)'
    assert split_args(line) == ['"gpt-4o, (v2)"', "mr2(q1,q2)", "mr2", "sc2a", "not_inverse"]


def _hostile_term(rng: random.Random, depth: int) -> str:
    """Terms as the engines print them, with strings that hold commas, brackets, quotes, escapes
    and line separators, and nesting deeper than the bulk pattern takes."""
    if depth == 0 or rng.random() < 0.3:
        text = "".join(
            rng.choice(["a", ",", "(", ")", "\\\\", '\\"', "\\n", "\u2028", "é", " ", "'"]) for _ in range(4)
        )
        return rng.choice(["a", "b1", "-3", "12", "()", f'"{text}"', '""'])
    args = ",".join(_hostile_term(rng, depth - 1) for _ in range(rng.randint(1, 3)))
    return rng.choice(["f", "mr2", ""]) + f"({args})"


def test_bulk_split_is_split_args(monkeypatch: pytest.MonkeyPatch) -> None:
    """split_many (one pattern over all lines) gives split_args' pieces, in the lines' order."""
    from metalogic.engine import results

    rng = random.Random(11)
    lines = list(
        {"p(" + ",".join(_hostile_term(rng, rng.randint(1, 5)) for _ in range(3)) + ")" for _ in range(3000)}
    )
    monkeypatch.setattr(results, "_BULK", 10)
    missed = results._parts(results._series(lines, ordered=False), "p", 3)["a0"].is_null().sum()
    assert 100 < missed < len(lines) - 100  # both ways of splitting are taken
    assert results.split_many(lines, "p", 3) == [tuple(split_args(line)) for line in lines]
    assert results.split_many(set(lines), "p", 3, ordered=True) == [
        tuple(split_args(x)) for x in sorted(lines)
    ]


def test_bulk_explanations_are_those_of_each_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The explanations made in bulk are those made line by line: each (agent, case)'s facts in
    the order of their lines, an atom and a string agent of one label together."""
    from metalogic.engine import results

    rng = random.Random(12)
    agents = ["ag", '"ag"', '"say \\"hi\\""', '"x\u2028y"']
    lines = {
        f"explain({rng.choice(agents)},{_hostile_term(rng, rng.randint(0, 4))},{_hostile_term(rng, 3)})"
        for _ in range(4000)
    }
    expected: dict[tuple[str, str], list[str]] = {}
    for line in sorted(lines):
        ag, c, fact = split_args(line)
        expected.setdefault((results.label(ag), c), []).append(fact)
    for facts in expected.values():
        facts.sort(key=lambda f: f + ")")
    assert results._explanations(lines, results.label) == expected
    monkeypatch.setattr(results, "_BULK", 10)
    assert results._explanations(lines, results.label) == expected
    monkeypatch.setattr(results, "_CHUNK", 7)  # many slices, keys cut at their ends
    assert results._explanations(lines, results.label) == expected
    given = set(lines)
    assert results._explanations(given, results.label, release=True) == expected
    assert not given  # given away: emptied once polars holds the text
