"""The bundled examples report exactly the violations their files document, on both engines."""

from __future__ import annotations

import re

import pytest

from helpers import EXAMPLES
from metalogic.engine.check.run import run_check
from metalogic.engine.terms import parse_term, text

EXPECT = re.compile(r"^%\s*expect:\s*(.+?)\s*$")


def documented() -> set[str]:
    out = set()
    for path in sorted(EXAMPLES.glob("*.lp")):
        for line in path.read_text().splitlines():
            m = EXPECT.match(line)
            if m:
                out.add(text(parse_term(m.group(1))))
    return out


@pytest.mark.parametrize("engine", ["clingo", "prolog", "both"])
def test_examples_report_exactly_the_documented_violations(engine: str) -> None:
    res = run_check(str(EXAMPLES), engine=engine)
    got = {f"violation({a},{c},{mr},{sc},{r})" for a, c, mr, sc, r in res.rows.violations}
    want = documented()
    assert len(want) == 49
    assert got == want


def test_steady_agent_holds_everywhere_and_shaky_breaks_every_capability() -> None:
    res = run_check(str(EXAMPLES), engine="clingo")
    steady = {sc: (n, v) for a, sc, n, v in res.rows.scores if a == "steady"}
    shaky = {sc: (n, v) for a, sc, n, v in res.rows.scores if a == "shaky"}
    assert all(v == 0 and n > 0 for n, v in steady.values())
    assert all(v > 0 for _, v in shaky.values())
