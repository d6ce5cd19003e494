"""Answers per second of `metalogic ask` against a local model server, and cache-hit replay speed.

Starts llama-cpp-python's OpenAI-compatible server with the packaged Gemma 3 270M model, writes a
run folder of N text-view questions, and asks them through the `openai` backend at concurrency
1, 4 and 16 (each round with an empty response cache, so every answer is a model call). Then it
replays the last round from its cache (--restart: every answer a cache hit) a few times.
Prints a table and writes JSON.

    .venv/bin/python bench/ask_throughput.py --questions 12 --max-tokens 16
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
from pathlib import Path

from metalogic.agents.localserver import llama_server
from metalogic.agents.model import GenParams
from metalogic.agents.registry import AgentSettings
from metalogic.agents.runner import ask

SCENE = """\
trajectory(hall, household).
step_mm(hall, 250).
image_size(hall, 320, 240).
camera(hall, 277, 277, 160, 120).
detection(hall, 0, mug, mug, 910, 220, 120, 250, 150).
detection(hall, 0, duck, duck, 880, 70, 110, 100, 130).
detection(hall, 0, ball, ball, 950, 140, 90, 180, 130).
detection(hall, 0, box, box, 930, 10, 150, 60, 200).
detection(hall, 1, mug, mug, 900, 230, 120, 265, 155).
detection(hall, 1, duck, duck, 870, 55, 110, 90, 135).
detection(hall, 1, ball, ball, 940, 138, 88, 182, 132).
detection(hall, 1, box, box, 925, 0, 152, 50, 205).
"""
OBJECTS = ("mug", "duck", "ball", "box")


def questions(n: int) -> str:
    """n distinct questions: direction and distance questions over object pairs and frames."""
    contents = []
    for s in (0, 1):
        for a in OBJECTS:
            for b in OBJECTS:
                if a != b:
                    contents += [
                        f"obj_dir(hall, {s}, {a}, {b})",
                        f"map_dir(hall, {s}, {a}, {b})",
                        f"obj_dist(hall, {s}, {a}, {b})",
                    ]
    if n > len(contents):
        raise SystemExit(f"at most {len(contents)} questions")
    return "".join(f"query(b{i}, {c}).\nform(b{i}, choice).\n" for i, c in enumerate(contents[:n]))


def write_run(folder: Path, n: int) -> Path:
    folder.mkdir(parents=True)
    (folder / "scene.lp").write_text(SCENE)
    (folder / "queries.lp").write_text(questions(n))
    (folder / "run.json").write_text(json.dumps({"scene_root": str(folder)}))
    return folder


def one_round(
    run: Path, base_url: str, concurrency: int, cache: Path, max_tokens: int, restart: bool
) -> dict:
    settings = AgentSettings(
        view="text",
        base_url=base_url,
        concurrency=concurrency,
        cache=str(cache),
        params=GenParams(max_tokens=max_tokens),
        name=f"bench-c{concurrency}",
    )
    t0 = time.perf_counter()
    res = ask(run, "openai:gemma", settings, restart=restart, progress=False)
    wall = time.perf_counter() - t0
    manifest = json.loads(res.manifest.read_text())
    return {
        "concurrency": concurrency,
        "answers": res.answered,
        "cached": res.cached,
        "invalid": res.invalid,
        "wall_s": round(wall, 3),
        "answers_per_s": round(res.answered / wall, 3),
        # the ask loop alone (prompts, cache, requests, journal), without reading the run folder
        "loop_s": round(res.wall_s, 4),
        "loop_answers_per_s": round(res.answered / res.wall_s, 3) if res.wall_s else None,
        "completion_tokens": manifest["tokens"]["completion_spent"],
        "latency_p50_s": manifest["latency_s"]["p50"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--questions", type=int, default=12)
    ap.add_argument("--max-tokens", type=int, default=16)
    ap.add_argument("--levels", default="1,4,16")
    ap.add_argument("--replays", type=int, default=5)
    ap.add_argument("--out", default="bench/results/ask_throughput.json")
    args = ap.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    rows, replays = [], []
    with tempfile.TemporaryDirectory() as tmp, llama_server() as base_url:
        run = write_run(Path(tmp) / "run", args.questions)
        for c in levels:
            rows.append(one_round(run, base_url, c, Path(tmp) / f"cache-{c}.sqlite3", args.max_tokens, False))
            print(f"concurrency {c}: {rows[-1]['answers_per_s']} answers/s", flush=True)
        last = levels[-1]
        for _ in range(args.replays):
            replays.append(
                one_round(run, base_url, last, Path(tmp) / f"cache-{last}.sqlite3", args.max_tokens, True)
            )
    replay = {
        "questions": args.questions,
        "runs": args.replays,
        "answers_per_s_median": statistics.median(r["answers_per_s"] for r in replays),
        "loop_answers_per_s_median": statistics.median(r["loop_answers_per_s"] for r in replays),
        "all_cached": all(r["cached"] == r["answers"] for r in replays),
    }
    print(f"\n{'mode':<22}{'answers':>8}{'wall s':>9}{'answers/s':>11}", end="")
    print(f"{'loop answers/s':>16}{'p50 latency s':>15}")
    for r in rows:
        print(
            f"{'model, concurrency ' + str(r['concurrency']):<22}{r['answers']:>8}{r['wall_s']:>9.2f}"
            f"{r['answers_per_s']:>11.2f}{r['loop_answers_per_s'] or 0:>16.2f}"
            f"{r['latency_p50_s'] or 0:>15.2f}"
        )
    print(
        f"{'cache replay (median)':<22}{args.questions:>8}{'':>9}{replay['answers_per_s_median']:>11.1f}"
        f"{replay['loop_answers_per_s_median']:>16.1f}{'':>15}"
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "model": "gemma3-270m q4_k_m via llama_cpp.server",
                "max_tokens": args.max_tokens,
                "machine": {"python": platform.python_version(), "cpus": _cpus()},
                "rounds": rows,
                "replay": replay,
                "replay_rounds": replays,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"\nwrote {out}")


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0))


if __name__ == "__main__":
    main()
