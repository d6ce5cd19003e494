"""False positives of the MRs that read pixels: how often a truthful agent (the oracle) is flagged
on varied synthetic worlds, per MR and per family of worlds.

The worlds come from metalogic.extract.synthetic: 3-8 upright cuboids (0.05-0.6 m wide and deep,
0.05-1.5 m tall, on the floor or on a 0.7-0.8 m table) 0.8-7 m from the camera's start, a pinhole
camera 1.0-1.6 m up with a 45-60 degree vertical field of view, and a 12-state walk of 250 mm moves
with now and then a quarter turn. Their boxes are the exact bounding boxes of the projected
cuboids, so every violation the oracle gets here is a false positive of the MR itself. Three
families, --worlds worlds each:

- level:   camera pitch 0, exact boxes (box_slack 1);
- pitched: pitch drawn from -35..-5 degrees per world, exact boxes;
- noisy:   pitch from -35..0, each box edge moved by -2..2 pixels (box_slack 3).

The real pipeline runs on them: `metalogic generate FACTS --out RUN --max-per-trajectory all`,
`metalogic ask RUN --agent oracle` and metalogic.engine.check.run.run_check (clingo). The table gives,
per pixel MR (mr5, mr7-mr11, mr16, mr17) and family, the test cases, the oracle's violations and
their rate; MR5 also split by distance (the nearer of its two answered depths, under 2 m or 2 m and
more). Test cases are those the check derives (metalogic check's testcase/3), attributed to a family
by the trajectory of their queries. The logic MRs (mr1-mr4, mr6, mr13-mr15, mr18) compare answers
only, so a truthful agent can never break them: their total must be 0, and the script exits with
status 1 if it is not.

    .venv/bin/python bench/pixel_fp.py                            # 3 x 40 worlds, 640x480
    .venv/bin/python bench/pixel_fp.py --worlds 10 --seed 3 --size 320x240

Prints the table and writes bench/results/pixel_fp.json (with the violations' reasons and a few
example cases per MR: their queries and the oracle's answers). The default run takes about 80 s
on a 2-core machine, most of it generate and check.

With --detector the worlds are rendered instead: `metalogic simulate` episodes of the household,
tabletop and drone worlds (a family each) from fresh seeds, `metalogic extract --detector D`
(the shipped detector is `metalogic-yolo`: real Ultralytics tracking on the frames), then the same
generate, ask and check. Every violation of the oracle there is a false positive of an MR under a
real detector's boxes (or of the scene facts the tracker gives it). Besides the table, it counts the
detections of objects that the image border cuts (by the ground-truth box the track follows) and
how far short of that border the detector's box ends, and how many of them are not `truncated`
(must be 0). Writes bench/results/pixel_fp_detector.json.

    .venv/bin/python bench/pixel_fp.py --detector metalogic-yolo --seed 9001 --episodes 4 --steps 12
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from metalogic.engine.schema import SIMULATED

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "pixel_fp.json"
RESULTS_DETECTOR = HERE / "results" / "pixel_fp_detector.json"
PIXEL_MRS = ("mr5", "mr7", "mr8", "mr9", "mr10", "mr11", "mr16", "mr17")
LOGIC_MRS = ("mr1", "mr2", "mr3", "mr4", "mr6", "mr13", "mr14", "mr15", "mr18")
# The argument of a case term that names its trajectory, for the MRs whose cases are named by
# trajectory and object (mr16(T, O)), trajectory and state (mr18(T, S)) or kind, trajectory and
# object(s) (mr15(K, T, X)).
TRAJ_ARG = {"mr15": 1, "mr16": 0, "mr18": 0}
# family -> (pitch range in degrees, edge noise in pixels)
FAMILIES: dict[str, tuple[tuple[int, int], int]] = {
    "level": ((0, 0), 0),
    "pitched": ((-35, -5), 0),
    "noisy": ((-35, 0), 2),
}
NEAR_MM = 2000  # MR5's split by distance


def make_facts(folder: Path, worlds: int, seed: int, size: tuple[int, int]) -> dict[str, str]:
    """Write the worlds of every family; returns trajectory id -> family."""
    from metalogic.extract.synthetic import WorldSpec, make_world, write_worlds

    made, family_of = [], {}
    for k, (fam, (pitch, noise)) in enumerate(FAMILIES.items()):
        spec = WorldSpec(width=size[0], height=size[1], pitch_deg=pitch, noise_px=noise)
        for i in range(worlds):
            tid = f"{fam}_s{seed}_w{i}"
            made.append(make_world(tid, (seed, k, i), spec))
            family_of[tid] = fam
    write_worlds(made, folder)
    return family_of


SCENARIOS = SIMULATED


def make_rendered(
    root: Path, seed: int, episodes: int, steps: int, detector: str, size: str
) -> tuple[Path, dict[str, str], dict[str, float]]:
    """Render fresh episodes of every scenario and extract their scene facts with `detector`;
    returns the facts folder, trajectory id -> family (its scenario) and the stages' seconds."""
    traj, facts = root / "traj", root / "facts"
    times = {"simulate": 0.0}
    for sc in SCENARIOS:
        times["simulate"] += metalogic(
            "simulate", "--scenario", sc, "--episodes", str(episodes), "--steps", str(steps),
            "--seed", str(seed), "--size", size, "--out", str(traj),
        )  # fmt: skip
    times["extract"] = metalogic("extract", str(traj), "--out", str(facts), "--detector", detector)
    family_of = {}
    for f in facts.glob("*.lp"):
        family_of[f.stem] = f.stem.split("_")[0]
    return facts, family_of, times


def border_cuts(facts: Path) -> dict[str, Any]:
    """Detections whose ground-truth object the border cuts (its box reaches the first or last row
    or column): how many, how many are not truncated, and how far short of that border the box ends."""
    from metalogic.engine.facts import read_facts
    from metalogic.engine.terms import Fun, parse_term

    by: dict[str, list[tuple[Any, ...]]] = {}
    for f in read_facts(facts).facts:
        t = parse_term(f)
        assert isinstance(t, Fun)
        by.setdefault(t.name, []).append(t.args)
    size = {str(t): (w, h) for t, w, h in by.get("image_size", [])}
    tie = {(str(t), str(o)): str(g) for t, o, g in by.get("gt_track", [])}
    gt = {(str(t), s, str(g)): box for t, s, g, *box in by.get("gt_box", [])}
    truncated = {(str(t), s, str(o)) for t, s, o in by.get("truncated", [])}
    out: dict[str, Any] = {}
    for t, s, o, _cls, _conf, *box in by.get("detection", []):
        t, o = str(t), str(o)
        g = gt.get((t, s, tie.get((t, o), "")))
        if g is None:
            continue
        w, h = size[t]
        sides = [g[0] == 0, g[1] == 0, g[2] == w - 1, g[3] == h - 1]
        if not any(sides):
            continue
        gaps = [box[0], box[1], w - 1 - box[2], h - 1 - box[3]]
        gap = min(v for v, side in zip(gaps, sides, strict=True) if side)
        row = out.setdefault(t.split("_")[0], {"cut": 0, "not_truncated": 0, "gaps": Counter()})
        row["cut"] += 1
        row["not_truncated"] += (t, s, o) not in truncated
        row["gaps"][gap] += 1
    for row in out.values():
        gaps = sorted(row["gaps"].elements())
        row["max_gap_px"] = gaps[-1]
        row["gap_over_2px"] = sum(g > 2 for g in gaps)
        row["gaps"] = {str(k): v for k, v in sorted(row["gaps"].items())}
    return out


def metalogic(*args: str) -> float:
    """Run a metalogic command as a user would; returns its wall time."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "metalogic", *args], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def query_table(facts: list[str]) -> tuple[dict[str, Any], dict[str, int]]:
    """(query id -> content term, query id -> the oracle's integer answer) from the run's facts."""
    from metalogic.engine.terms import Fun, parse_term

    contents: dict[str, Any] = {}
    values: dict[str, int] = {}
    for f in facts:
        if f.startswith("query("):
            t = parse_term(f)
            assert isinstance(t, Fun)
            contents[str(t.args[0])] = t.args[1]
        elif f.startswith("answer(oracle,"):
            t = parse_term(f)
            assert isinstance(t, Fun)
            if isinstance(t.args[2], int):
                values[str(t.args[1])] = t.args[2]
    return contents, values


def case_queries(case: str, contents: dict[str, Any]) -> list[str]:
    """The query ids named in a test case term such as mr5(q1,q2) or mr11(q3,o2)."""
    from metalogic.engine.terms import Fun, parse_term

    out, todo = [], [parse_term(case)]
    while todo:
        t = todo.pop()
        if isinstance(t, Fun):
            todo.extend(reversed(t.args))
        elif str(t) in contents:
            out.append(str(t))
    return out


def tally(res: Any, family_of: dict[str, str]) -> dict[str, Any]:
    """Cases and violations per (mr, family, split), the logic MRs' totals, the reasons."""
    from metalogic.engine.terms import text

    contents, values = query_table(res.facts.facts)
    violated = {(c, sc): reason for ag, c, _, sc, reason in res.rows.violations if ag == "oracle"}
    counts: Counter[tuple[str, str, str, str]] = Counter()
    reasons: Counter[tuple[str, str]] = Counter()
    examples: dict[str, list[dict[str, Any]]] = {}
    for case, mr, sc in res.rows.testcases:
        qs = case_queries(case, contents)
        if mr in TRAJ_ARG:
            from metalogic.engine.terms import parse_term

            traj = str(parse_term(case).args[TRAJ_ARG[mr]])
        else:
            traj = str(contents[qs[0]].args[0])
        fam = family_of[traj]
        splits = ["all"]
        if mr == "mr5":
            near = min(values.get(q, 0) for q in qs)
            splits.append("under_2m" if near < NEAR_MM else "2m_and_more")
        bad = (case, sc) in violated
        for split in splits:
            counts[(mr, fam, split, "cases")] += 1
            counts[(mr, fam, split, "violations")] += bad
        if bad:
            reasons[(mr, violated[(case, sc)])] += 1
            if len(examples.setdefault(mr, [])) < 5:
                asked = {q: text(contents[q]) for q in qs}
                answered = {q: values.get(q) for q in qs}
                examples[mr].append({"case": case, "queries": asked, "oracle": answered})
    return {"counts": counts, "reasons": reasons, "examples": examples}


def table_rows(counts: Counter[tuple[str, str, str, str]], families: list[str]) -> list[dict[str, Any]]:
    rows = []
    fams = [*families, "all"]
    for mr in PIXEL_MRS:
        splits = ("all", "under_2m", "2m_and_more") if mr == "mr5" else ("all",)
        for split in splits:
            for fam in fams:
                keys = families if fam == "all" else [fam]
                n = sum(counts[(mr, f, split, "cases")] for f in keys)
                v = sum(counts[(mr, f, split, "violations")] for f in keys)
                rows.append(
                    {
                        "mr": mr,
                        "split": split,
                        "family": fam,
                        "cases": n,
                        "violations": v,
                        "rate": _rate(v, n),
                    }
                )
    for fam in fams:
        keys = families if fam == "all" else [fam]
        n = sum(counts[(mr, f, "all", "cases")] for mr in LOGIC_MRS for f in keys)
        v = sum(counts[(mr, f, "all", "violations")] for mr in LOGIC_MRS for f in keys)
        rows.append(
            {"mr": "logic", "split": "all", "family": fam, "cases": n, "violations": v, "rate": _rate(v, n)}
        )
    return rows


def _rate(v: int, n: int) -> float | None:
    return round(v / n, 4) if n else None


def render(rows: list[dict[str, Any]], families: list[str]) -> str:
    """One line per MR and split, a column group (cases, violations, rate) per family."""
    fams = [*families, "all"]
    head = f"{'mr':<6} {'split':<12}" + "".join(f" | {f:>7} {'viol.':>5} {'rate':>6}" for f in fams)
    lines = [head, "-" * len(head)]
    by = {(r["mr"], r["split"], r["family"]): r for r in rows}
    for mr, split in dict.fromkeys((r["mr"], r["split"]) for r in rows):
        cells = []
        for f in fams:
            r = by[(mr, split, f)]
            rate = "-" if r["rate"] is None else f"{100 * r['rate']:.1f}%"
            cells.append(f" | {r['cases']:>7} {r['violations']:>5} {rate:>6}")
        lines.append(f"{mr:<6} {split:<12}" + "".join(cells))
    return "\n".join(lines)


def parse_size(text: str) -> tuple[int, int]:
    w, _, h = text.lower().partition("x")
    return int(w), int(h)


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--worlds", type=int, default=40, help="synthetic worlds per family")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", help="image size: 640x480 (synthetic) or 320x240 (rendered) unless given")
    ap.add_argument(
        "--detector", help="render PyBullet worlds and extract with this detector (metalogic-yolo, gt, a .pt)"
    )
    ap.add_argument(
        "--episodes", type=int, default=4, help="rendered episodes per scenario (with --detector)"
    )
    ap.add_argument("--steps", type=int, default=12, help="steps per rendered episode (with --detector)")
    ap.add_argument(
        "--workers", type=int, default=min(2, os.cpu_count() or 1), help="processes for the check"
    )
    ap.add_argument("--json", help="where to write the JSON (default bench/results/pixel_fp[_detector].json)")
    ap.add_argument("--keep", help="keep the facts and run folders under this folder")
    args = ap.parse_args()
    from metalogic.engine.check.run import run_check

    rendered = args.detector is not None
    size = args.size or ("320x240" if rendered else "640x480")
    cuts: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep or tmp)
        run = root / "run"
        if rendered:
            facts, family_of, times = make_rendered(
                root, args.seed, args.episodes, args.steps, args.detector, size
            )
            families = [sc for sc in SCENARIOS if sc in family_of.values()]
            cuts = border_cuts(facts)
        else:
            facts = root / "facts"
            t0 = time.perf_counter()
            family_of = make_facts(facts, args.worlds, args.seed, parse_size(size))
            times = {"worlds": time.perf_counter() - t0}
            families = list(FAMILIES)
        times["generate"] = metalogic(
            "generate", str(facts), "--out", str(run), "--max-per-trajectory", "all"
        )
        times["ask"] = metalogic("ask", str(run), "--agent", "oracle")
        t0 = time.perf_counter()
        res = run_check(str(run), workers=args.workers)
        times["check"] = time.perf_counter() - t0
    got = tally(res, family_of)
    rows = table_rows(got["counts"], families)
    print(render(rows, families))
    print("(logic: mr1-mr4, mr6, mr13-mr15, mr18 together)")
    logic = next(r for r in rows if r["mr"] == "logic" and r["family"] == "all")
    print(f"\nlogic MRs: {logic['violations']} violations in {logic['cases']} cases (must be 0)")
    for (mr, reason), n in sorted(got["reasons"].items()):
        print(f"  {mr} {reason}: {n}")
    missed = sum(c["not_truncated"] for c in cuts.values())
    for fam, c in cuts.items():
        print(
            f"{fam}: {c['cut']} detections of objects the border cuts, {c['gap_over_2px']} ending more than"
            f" 2 px short of it (at most {c['max_gap_px']} px), {c['not_truncated']} not truncated"
        )
    print("seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in times.items()))
    meta: dict[str, Any] = {"seed": args.seed, "size": size}
    if rendered:
        meta |= {"detector": args.detector, "episodes_per_scenario": args.episodes, "steps": args.steps}
        meta["trajectories"] = dict(Counter(family_of.values()))
    else:
        meta["worlds_per_family"] = args.worlds
        meta["families"] = {f: {"pitch_deg": list(p), "noise_px": n} for f, (p, n) in FAMILIES.items()}
    meta |= {
        "seconds": {k: round(v, 1) for k, v in times.items()},
        "workers": args.workers,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }
    report = {
        "meta": meta,
        "rows": rows,
        "reasons": [
            {"mr": mr, "reason": r, "violations": n} for (mr, r), n in sorted(got["reasons"].items())
        ],
        "examples": got["examples"],
    }
    if rendered:
        report["border_cuts"] = cuts
    path = Path(args.json or (RESULTS_DETECTOR if rendered else RESULTS))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {path}")
    return 1 if logic["violations"] or missed else 0


if __name__ == "__main__":
    sys.exit(main())
