"""Do the headline scores measure what they name? Per capability, over a panel of agents whose
true accuracy is known, the Spearman rank correlation and the mean absolute difference between the
headline score and the true accuracy (over the answers some case tests, which is what the headline
speaks of), and the lowest score on a capability whose answers are all truthful.

The panel, from each run folder (made by `metalogic run` on simulated worlds with the reference
agents, e.g. examples/runs/reference_agents.toml, once with `detector = "gt"` and once with the
shipped detector):
- the run's own agents (oracle, noisy:P, random, biased:KIND, ...);
- noise on one kind only: the answers of the run's noisiest `noisy:P` agent on one query kind, the
  oracle's on every other (`one_KIND`);
- one consistent distortion of one kind (bench/distortions.py's DISTORTIONS);
- `lagged`: every answer the truth one state earlier (the oracle asked the shifted questions);
- `confused`: in each trajectory the two objects asked about most are taken for each other (the
  oracle asked every question with the two swapped).
The real `metalogic check --out` (clingo) scores the whole panel in one run per folder.

    .venv/bin/metalogic run examples/runs/reference_agents.toml
    .venv/bin/python bench/calibration.py out/reference_agents [more run folders]

Prints one table per run folder and writes bench/results/calibration.json. `-c NAME=VALUE`
(repeatable) passes a parameter to the check, to compare settings of blame on the same panel, e.g.
`-c blame_held_weight=140 --out /tmp/held140.json`.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from distortions import DISTORTIONS, QUERY, SCS, read_answers

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "calibration.json"
METALOGIC = Path(sys.executable).with_name("metalogic")
ONE_KIND = ("move_dir", "move_dist", "obj_dir", "obj_dist", "size", "depth", "map_dir", "ego_dist")
NOISY = re.compile(r"noisy_([0-9.]+)\.lp$")


def ranks(xs: list[float]) -> list[float]:
    """Ranks from 1, ties sharing their mean rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(xs: list[float], ys: list[float]) -> float | None:
    if len(xs) < 3:
        return None
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx) ** 0.5
    vy = sum((b - my) ** 2 for b in ry) ** 0.5
    return cov / (vx * vy) if vx and vy else None


def _noise(path: Path) -> float:
    m = NOISY.search(path.name)
    return float(m.group(1)) if m else 0.0


def panel_folder(run: Path, folder: Path) -> list[str]:
    """The run's facts, questions and answers in `folder`, with the panel's made agents; their names."""
    questions = run / "questions"
    for f in (run / "facts").glob("*.lp"):
        (folder / f.name).write_text(f.read_text())
    (folder / "queries.lp").write_text((questions / "queries.lp").read_text())
    names = []
    for f in sorted((questions / "answers").glob("*.lp")):
        (folder / f"answers_{f.name}").write_text(f.read_text())
    kind = {
        m.group(1): m.group(2)
        for m in map(QUERY.match, (questions / "queries.lp").read_text().splitlines())
        if m
    }
    oracle = read_answers(questions / "answers" / "oracle.lp")
    noisy_files = sorted(questions.glob("answers/noisy_*.lp"), key=_noise)
    made: dict[str, dict[str, str]] = {}
    if noisy_files:
        noisy = read_answers(noisy_files[-1])
        for k in ONE_KIND:
            made[f"one_{k}"] = {q: (noisy.get(q, v) if kind.get(q) == k else v) for q, v in oracle.items()}
    for name, changes in DISTORTIONS.items():
        made[name] = {q: (changes[kind[q]](v) if kind.get(q) in changes else v) for q, v in oracle.items()}
    made["lagged"] = {**oracle, **lagged_answers(questions, folder.parent / "lagged")}
    made["confused"] = {**oracle, **confused_answers(questions, folder.parent / "confused")}
    for name, answers in made.items():
        (folder / f"made_{name}.lp").write_text(
            "".join(f"answer({name}, {q}, {v}).\n" for q, v in answers.items())
        )
        names.append(name)
    return names


# query(Id, Kind(T, S, Rest...)) or query(Id, move_KIND(T, S1, S2)): the states to shift.
STATES = re.compile(r"query\((\w+), (\w+)\((\w+),(\d+),(\w+)(.*)\)\)\.$")


def lagged_answers(questions: Path, folder: Path) -> dict[str, str]:
    """An agent one state behind: each question answered truthfully as if asked one state earlier
    (a move S1 -> S2 as S1 - 1 -> S2 - 1; state 0 as itself), by the real oracle on the shifted
    questions under the same ids."""
    lines = []
    for line in (questions / "queries.lp").read_text().splitlines():
        m = STATES.match(line)
        if not m:
            lines.append(line)
            continue
        q, kind, t, a, b, rest = m.groups()
        if kind.startswith("move_") and int(a) > 0 and int(b) > 0:
            a, b = str(int(a) - 1), str(int(b) - 1)
        elif not kind.startswith("move_"):
            a = str(max(0, int(a) - 1))
        lines.append(f"query({q}, {kind}({t},{a},{b}{rest})).")
    return oracle_on(questions, lines, folder)


def oracle_on(questions: Path, queries: list[str], folder: Path) -> dict[str, str]:
    """The real oracle's answers to `queries` (query/2 lines under the run's ids, some changed) on
    the run's scene, asked in a folder of their own."""
    folder.mkdir()
    (folder / "scene.lp").write_text((questions / "scene.lp").read_text())
    (folder / "queries.lp").write_text("\n".join(queries) + "\n")
    subprocess.run([str(METALOGIC), "ask", str(folder), "--agent", "oracle"], check=True, capture_output=True)
    return read_answers(folder / "answers" / "oracle.lp")


# query(Id, Kind(T, S, Objects...)) for the kinds about objects (the moves name none).
OBJECTS = re.compile(
    r"query\((\w+), ((?:obj|map)_(?:dir|dist)|size|depth|ego_dist)\((\w+),(\d+),([^()]*)\)\)\.$"
)


def confused_answers(questions: Path, folder: Path) -> dict[str, str]:
    """An agent that takes two objects for each other: in each trajectory the two objects the most
    questions name (ties by name) are swapped in every question about them, which the real oracle
    answers truthfully under the same ids (A left of B becomes B left of A; A's depth B's)."""
    parsed = [(line, OBJECTS.match(line)) for line in (questions / "queries.lp").read_text().splitlines()]
    named: dict[str, Counter[str]] = defaultdict(Counter)
    for _, m in parsed:
        if m:
            named[m.group(3)].update(m.group(5).split(","))
    swap = {}
    for t, counts in named.items():
        top = sorted(counts, key=lambda o: (-counts[o], o))[:2]
        if len(top) == 2:
            swap[t] = {top[0]: top[1], top[1]: top[0]}
    lines = []
    for line, m in parsed:
        if m and m.group(3) in swap:
            q, kind, t, s, objs = m.groups()
            objs = ",".join(swap[t].get(o, o) for o in objs.split(","))
            line = f"query({q}, {kind}({t},{s},{objs}))."
        lines.append(line)
    return oracle_on(questions, lines, folder)


# The headline as it is (blame) and as it was before blame (the share of test cases kept).
ALTERNATIVES = {"blame": "score", "cases kept": "consistency"}


def measure(acc: pl.DataFrame, sc: str, column: str) -> dict[str, object]:
    """Spearman and mean absolute difference of `column` against the tested accuracy over the
    agents with tested answers of capability sc, and the lowest `column` where every tested answer
    is right."""
    rows = acc.filter((pl.col("sc") == sc) & (pl.col("tested") > 0) & pl.col(column).is_not_null())
    scores, truth = rows[column].to_list(), rows["tested_accuracy"].to_list()
    worst = rows.filter(pl.col("tested_accuracy") == 1.0).sort(column).head(1)
    return {
        "agents": rows.height,
        "spearman": spearman(scores, truth),
        "mae": sum(abs(a - b) for a, b in zip(scores, truth, strict=True)) / len(scores) if scores else None,
        "worst_truthful": worst[column][0] if worst.height else None,
        "worst_truthful_agent": worst["agent"][0] if worst.height else None,
    }


def calibrate(run: Path, consts: list[str] = []) -> dict[str, object]:  # noqa: B006 - read only
    with tempfile.TemporaryDirectory(prefix="metalogic-calibration-") as tmp:
        folder = Path(tmp, "facts")
        folder.mkdir()
        panel_folder(run, folder)
        out = Path(tmp, "check")
        t0 = time.perf_counter()
        subprocess.run(
            [
                str(METALOGIC),
                "check",
                str(folder),
                "--out",
                str(out),
                *(a for c in consts for a in ("-c", c)),
            ],
            check=True,
            capture_output=True,
        )
        secs = time.perf_counter() - t0
        acc = pl.read_csv(out / "accuracy.csv").filter(pl.col("sc") != "all")
    per_sc: dict[str, dict[str, object]] = {}
    for sc in SCS:
        per_sc[sc] = {name: measure(acc, sc, column) for name, column in ALTERNATIVES.items()}
    agents = acc.select("agent", "sc", "score", "tested_accuracy").to_dicts()
    return {
        "run": str(run),
        "consts": consts,
        "check_seconds": round(secs, 1),
        "per_sc": per_sc,
        "agents": agents,
    }


def show(result: dict[str, object]) -> None:
    per_sc = result["per_sc"]
    assert isinstance(per_sc, dict)
    given = result.get("consts")
    consts = " ".join(f"-c {c}" for c in given) if isinstance(given, list) else ""
    print(f"\n{result['run']} {consts} (check {result['check_seconds']} s)".replace("  ", " "))
    names = list(ALTERNATIVES)
    print(
        "| capability | agents | "
        + " | ".join(f"Spearman, {n} | mean abs. diff., {n} | worst truthful, {n}" for n in names)
        + " |"
    )
    print("|---|---|" + "---|---|---|" * len(names))
    for sc, by in per_sc.items():
        cells = [sc, str(by[names[0]]["agents"])]
        for n in names:
            r = by[n]
            cells.append("-" if r["spearman"] is None else f"{r['spearman']:.2f}")
            cells.append("-" if r["mae"] is None else f"{r['mae']:.3f}")
            cells.append(
                "-"
                if r["worst_truthful"] is None
                else f"{r['worst_truthful']:.2f} ({r['worst_truthful_agent']})"
            )
        print("| " + " | ".join(cells) + " |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "runs", type=Path, nargs="+", help="run folders with facts/ and questions/ (with oracle answers)"
    )
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument(
        "-c",
        "--const",
        dest="consts",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an MR or blame parameter for the check (repeatable), e.g. -c blame_held_weight=35",
    )
    args = ap.parse_args()
    results = [calibrate(run, args.consts) for run in args.runs]
    for r in results:
        show(r)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"runs": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
