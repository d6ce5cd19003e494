"""Write logic/blame/neglog.facts: the table of -ln(P / 1000) in hundredths of a nat, P = 1..999,
which the blame rules of both engines read (integer arithmetic has no logarithm)."""

from __future__ import annotations

import math
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "logic" / "blame" / "neglog.facts"
HEADER = (
    "% neglog(P, L): L = round(100 * ln(1000 / P)), the evidence against a share of P thousandths,\n"
    "% in hundredths of a nat, for P = 1..999 (written by scripts/gen_neglog.py; tests/test_blame.py\n"
    "% checks it against math.log).\n"
)


def neglog(p: int) -> int:
    return round(100 * math.log(1000 / p))


def main() -> None:
    OUT.write_text(HEADER + "".join(f"neglog({p},{neglog(p)}).\n" for p in range(1, 1000)), encoding="utf-8")


if __name__ == "__main__":
    main()
