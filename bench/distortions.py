"""Wrong agents the reference set does not have: how far each systematic distortion of the oracle's
answers falls, capability by capability, next to the share of its answers that are wrong.

The `biased:KIND` reference agents distort the truth the ways docs/performance.md's table shows. This script
takes the oracle's answers of a finished run and distorts one kind of answer at a time in ways
those agents do not: one kind of length scaled or offset (sizes halved, depths doubled, every
length 500 mm too long, steps doubled or one too many), one direction vocabulary mirrored, fixed or
inverted, every move "forward". Each distortion becomes an answers file of its own; the real
`metalogic check` (clingo) scores them all with the oracle in one run.

A cell is `score / share wrong`; MISS marks a capability where at least half the answers are
wrong and the score is still above 0.5 (a distortion the MRs do not catch well enough there).

    .venv/bin/metalogic run examples/runs/reference_agents.toml
    .venv/bin/python bench/distortions.py out/reference_agents

Prints the table and writes bench/results/distortions.json. It takes about 10 s on two cores.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl

from metalogic.engine.vocab import vocabulary

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "distortions.json"
METALOGIC = Path(sys.executable).with_name("metalogic")
CAPS = {kind: q.sc for kind, q in vocabulary().query_kinds.items()}  # query kind -> capability
SCS = tuple(vocabulary().capabilities)
DISTANCES = ("obj_dist", "map_dist", "ego_dist")
MAP_MIRROR = {"e": "w", "w": "e", "ne": "nw", "nw": "ne", "se": "sw", "sw": "se"}
INVERSE = {
    "left": "right",
    "right": "left",
    "nearer": "farther",
    "farther": "nearer",
    "above": "below",
    "below": "above",
}

Change = Callable[[str], str]


def lengths(f: Callable[[int], float]) -> Change:
    """A change of a magnitude answer (whole mm or steps); other answers (invalid) stay."""
    return lambda v: str(max(0, round(f(int(v))))) if v.lstrip("-").isdigit() else v


def rename(table: dict[str, str]) -> Change:
    """A change of each part of a direction name (forward_left -> its parts renamed)."""
    return lambda v: "_".join(table.get(p, p) for p in v.split("_"))


# distortion -> {query kind: change}
DISTORTIONS: dict[str, dict[str, Change]] = {
    "sizes_half": {"size": lengths(lambda x: x / 2)},
    "sizes_double": {"size": lengths(lambda x: x * 2)},
    "sizes_300": {"size": lengths(lambda x: 300)},
    "depths_double": {"depth": lengths(lambda x: x * 2)},
    "depths_half": {"depth": lengths(lambda x: x / 2)},
    "depths_2000": {"depth": lengths(lambda x: 2000)},
    "distances_double": {k: lengths(lambda x: x * 2) for k in DISTANCES},
    "distances_half": {k: lengths(lambda x: x / 2) for k in DISTANCES},
    "lengths_plus_500": {k: lengths(lambda x: x + 500) for k in (*DISTANCES, "depth", "size")},
    "steps_double": {"move_dist": lengths(lambda x: x * 2)},
    "steps_plus_1": {"move_dist": lengths(lambda x: x + 1)},
    "moves_forward": {"move_dir": lambda v: "move(forward,none)"},
    "map_mirrored": {"map_dir": lambda v: MAP_MIRROR.get(v, v)},
    "map_north": {"map_dir": lambda v: "n"},
    "relations_inverted": {"obj_dir": rename(INVERSE)},
    "relations_mirrored": {"obj_dir": rename({"left": "right", "right": "left"})},
    "relations_nearer_left": {"obj_dir": lambda v: "nearer_left"},
}
ANSWER = re.compile(r'answer\((".*?"|[^,]+), (\w+), (.*)\)\.$')
QUERY = re.compile(r"query\((\w+), (\w+)\(")


def read_answers(path: Path) -> dict[str, str]:
    return {m.group(2): m.group(3) for m in map(ANSWER.match, path.read_text().splitlines()) if m}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", type=Path, help="a run folder with facts/ and questions/ (oracle answers)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    questions = args.run / "questions"
    oracle = read_answers(questions / "answers" / "oracle.lp")
    kind = {
        m.group(1): m.group(2)
        for m in map(QUERY.match, (questions / "queries.lp").read_text().splitlines())
        if m
    }
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="metalogic-distortions-") as tmp:
        folder = Path(tmp)
        for f in (args.run / "facts").glob("*.lp"):
            (folder / f.name).write_text(f.read_text())
        (folder / "queries.lp").write_text((questions / "queries.lp").read_text())
        (folder / "oracle.lp").write_text((questions / "answers" / "oracle.lp").read_text())
        wrong: dict[tuple[str, str], list[int]] = {}
        for name, changes in DISTORTIONS.items():
            lines = []
            for q, v in oracle.items():
                k = kind.get(q, "")
                new = changes[k](v) if k in changes else v
                lines.append(f"answer({name}, {q}, {new}).")
                tally = wrong.setdefault((name, CAPS.get(k, "")), [0, 0])
                tally[0] += new != v
                tally[1] += 1
            (folder / f"{name}.lp").write_text("\n".join(lines) + "\n")
        out = folder / "check"
        subprocess.run(
            [str(METALOGIC), "check", str(folder), "--out", str(out)], check=True, capture_output=True
        )
        scores = pl.read_csv(out / "scores.csv")
    secs = time.perf_counter() - t0
    rows, misses = [], []
    print("| distortion | " + " | ".join(SCS) + " |")
    print("|---" * (len(SCS) + 1) + "|")
    for name in ("oracle", *DISTORTIONS):
        cells: list[str] = []
        row: dict[str, object] = {"distortion": name}
        for sc in SCS:
            r = scores.filter((pl.col("agent") == name) & (pl.col("sc") == sc))
            score = r["score"][0] if r.height else None
            bad, total = wrong.get((name, sc), [0, 0])
            share = bad / total if total else 0.0
            row[sc] = {"score": score, "wrong": share, "cases": int(r["cases"][0]) if r.height else 0}
            cell = "-" if score is None else f"{score:.3f} / {share:.2f}"
            if score is not None and share >= 0.5 and score > 0.5:
                cell += " MISS"
                misses.append(f"{name} {sc}")
            cells.append(cell)
        rows.append(row)
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"\nmisses: {', '.join(misses) or 'none'} ({secs:.1f} s)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {"run": str(args.run), "seconds": round(secs, 1), "rows": rows, "misses": misses}, indent=1
        )
        + "\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
