"""Result lines are split into their arguments two ways: a scanner that knows strings, and a fast
split for the lines without strings (most of them). On every line without strings they agree."""

from __future__ import annotations

import random

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
