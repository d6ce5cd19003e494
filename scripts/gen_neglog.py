"""Write the two tables the blame rules of both engines read (integer arithmetic has no logarithm
and no exponential): logic/blame/neglog.facts, -ln(P / 1000) in hundredths of a nat for P = 1..999,
and logic/blame/logistic.facts, the thousandths 1000 / (1 + e^(W / 100)) for W = -760..760
hundredths of a nat (beyond, the value rounds to 0 or 1000)."""

from __future__ import annotations

import math
from pathlib import Path

BLAME = Path(__file__).resolve().parent.parent / "logic" / "blame"
OUT = BLAME / "neglog.facts"
LOGISTIC = BLAME / "logistic.facts"
HEADER = (
    "% neglog(P, L): L = round(100 * ln(1000 / P)), the evidence against a share of P thousandths,\n"
    "% in hundredths of a nat, for P = 1..999 (written by scripts/gen_neglog.py; tests/test_blame.py\n"
    "% checks it against math.log).\n"
)
LOGISTIC_HEADER = (
    "% logistic(W, P): P = round(1000 / (1 + e^(W / 100))), the share in thousandths of an answer whose\n"
    "% log-odds of being right are W hundredths of a nat, for W = -760..760 (written by\n"
    "% scripts/gen_neglog.py; tests/test_blame.py checks it against math.exp).\n"
)
LOGISTIC_LIMIT = 760


def neglog(p: int) -> int:
    return round(100 * math.log(1000 / p))


def logistic(w: int) -> int:
    """Half up, as both engines would round: the table is the one source of the values."""
    return math.floor(1000 / (1 + math.exp(w / 100)) + 0.5)


def main() -> None:
    OUT.write_text(HEADER + "".join(f"neglog({p},{neglog(p)}).\n" for p in range(1, 1000)), encoding="utf-8")
    rows = "".join(f"logistic({w},{logistic(w)}).\n" for w in range(-LOGISTIC_LIMIT, LOGISTIC_LIMIT + 1))
    LOGISTIC.write_text(LOGISTIC_HEADER + rows, encoding="utf-8")


if __name__ == "__main__":
    main()
