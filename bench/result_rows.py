"""Getting result rows out of clingo: the model's atoms as canonical text split into rows (what
`metalogic check` does) against walking the symbols' arguments through clingo's Python API (typed
rows with no text in between), on the model of one `check --out` of cloned household trajectories
(the facts of bench/check_scale.py). Both give the same rows; the table says which is cheaper.

    .venv/bin/python bench/result_rows.py               # 100k answers
    .venv/bin/python bench/result_rows.py --answers 10000

Prints a table and writes bench/results/result_rows.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from scale_facts import write_run  # noqa: E402  (the same generated facts)


def model_symbols(folder: Path) -> list[Any]:
    from metalogic.engine.facts import read_facts
    from metalogic.engine.rules.loader import load_ruleset
    from metalogic.engine.session.api import Session
    from metalogic.engine.session.runs import wanted

    session = Session("clingo").load(*load_ruleset().detail_lp_files)
    session.add(read_facts(folder).program()).show(*wanted(True).items())
    return session.symbols()


def by_text(symbols: list[Any]) -> list[tuple[str, tuple[str, ...]]]:
    """The way `check` goes: each atom printed by clingo, then split at its top-level commas."""
    from metalogic.engine.results import split_args

    return [(s.name, tuple(split_args(line))) for s in symbols for line in (str(s),)]


def by_symbols(symbols: list[Any]) -> list[tuple[str, tuple[str, ...]]]:
    """Typed parts straight from the symbols: numbers as numbers, names as names, and only
    compound arguments (case ids, facts) printed."""
    import clingo

    number, string = clingo.SymbolType.Number, clingo.SymbolType.String

    def part(a: clingo.Symbol) -> str:
        t = a.type
        if t == number:
            return str(a.number)
        if t == string:
            return str(a)
        return a.name if not a.arguments else str(a)

    return [(s.name, tuple(part(a) for a in s.arguments)) for s in symbols]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--answers", type=int, default=100_000)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "result_rows.json")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="result_rows-"))
    try:
        write_run(tmp, args.answers)
        symbols = model_symbols(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    timings: dict[str, float] = {}
    rows: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for name, fn in (("text, then split", by_text), ("symbol arguments", by_symbols)):
        t0 = time.perf_counter()
        rows[name] = fn(symbols)
        timings[name] = time.perf_counter() - t0
    same = sorted(rows["text, then split"]) == sorted(rows["symbol arguments"])
    kinds = Counter(s.name for s in symbols)
    print(f"{len(symbols):,} result atoms of a `check --out` of {args.answers:,} answers: {dict(kinds)}")
    print(f"{'way out of clingo':<20} {'seconds':>8} {'us/atom':>8}")
    for name, sec in timings.items():
        print(f"{name:<20} {sec:>8.2f} {sec / len(symbols) * 1e6:>8.2f}")
    print(f"same rows both ways: {same}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "answers": args.answers,
        "atoms": len(symbols),
        "kinds": kinds,
        "seconds": timings,
        "same": same,
    }
    args.out.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"wrote {args.out}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
