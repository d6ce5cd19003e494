"""The integer trig tables the rules read (logic/core/trig.facts, written by scripts/gen_trig.py):
every whole degree, cosine and sine rounded to thousandths (trig/3) and ten-thousandths (trig4/3)."""

from __future__ import annotations

import math
import re

from metalogic.logic import CORE_DIR

ROW = re.compile(r"(trig4?)\((-?\d+), (-?\d+), (-?\d+)\)\.")


def test_both_tables_hold_every_degree_rounded_to_their_unit() -> None:
    rows = [ROW.fullmatch(line) for line in (CORE_DIR / "trig.facts").read_text().splitlines()]
    found = {(m[1], int(m[2])): (int(m[3]), int(m[4])) for m in rows if m}
    for name, scale in (("trig", 1000), ("trig4", 10000)):
        for deg in range(-360, 361):
            c, s = found.pop((name, deg))
            assert abs(c - math.cos(math.radians(deg)) * scale) <= 0.5, (name, deg)
            assert abs(s - math.sin(math.radians(deg)) * scale) <= 0.5, (name, deg)
    assert not found, "no other rows"
