"""Frames per second of the extract slice: simulator rendering (per world and frame size) and
tracking with the shipped detector at 320 and 640 px inference size, compared in one run.

    .venv/bin/python bench/extract_speed.py [--frames 20] [--json out/bench/extract_speed.json]

Prints a table and writes the same numbers as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

from metalogic.engine.schema import SIMULATED


def bench_render(world: str, size: tuple[int, int], frames: int, out: Path) -> dict[str, object]:
    from metalogic.extract.simulate import simulate_episode
    from metalogic.extract.world import CameraSpec

    cam = CameraSpec(*size)
    t0 = time.perf_counter()
    done = [0]
    folder = simulate_episode(world, 7, 1, frames - 1, out, cam, lambda n: done.__setitem__(0, done[0] + n))
    dt = time.perf_counter() - t0
    return {
        "what": "simulate",
        "world": world,
        "size": f"{size[0]}x{size[1]}",
        "frames": done[0],
        "fps": round(done[0] / dt, 2),
        "folder": str(folder),
    }


def bench_track(folder: Path, imgsz: int, detector: str) -> dict[str, object]:
    from metalogic.extract.tracking import Tracker, load_model, resolve_detector
    from metalogic.extract.trajectory import load_trajectory

    traj = load_trajectory(folder)
    states = list(traj.states())
    tracker = Tracker(load_model(resolve_detector(detector)), imgsz=imgsz)
    tracker.track(traj, states[:2])  # warm-up (model fusion, first-call allocations)
    t0 = time.perf_counter()
    dets = tracker.track(traj, states)
    dt = time.perf_counter() - t0
    return {
        "what": "track",
        "world": traj.scenario,
        "size": f"{traj.image_size[0]}x{traj.image_size[1]}",
        "imgsz": imgsz,
        "frames": len(states),
        "detections": len(dets),
        "fps": round(len(states) / dt, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=20, help="frames per measurement")
    ap.add_argument("--detector", default="metalogic-yolo")
    ap.add_argument("--json", default="out/bench/extract_speed.json")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for world in SIMULATED:
            for size in ((320, 240), (640, 480)):
                rows.append(bench_render(world, size, args.frames, out / f"{size[0]}"))
        for world in SIMULATED:
            folder = Path(
                str(next(r["folder"] for r in rows if r["world"] == world and r["size"] == "320x240"))
            )
            for imgsz in (320, 640):
                rows.append(bench_track(folder, imgsz, args.detector))
    for r in rows:
        r.pop("folder", None)
    head = f"{'what':<9} {'world':<10} {'frame':<8} {'imgsz':>5} {'frames':>6} {'fps':>7}"
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r['what']:<9} {r['world']:<10} {r['size']:<8} {r.get('imgsz', '-')!s:>5} {r['frames']:>6} "
            f"{r['fps']:>7.2f}"
        )
    meta = {
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "torch_threads": _threads(),
    }
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    print(f"\nwrote {path}")


def _threads() -> int:
    import torch

    return int(torch.get_num_threads())


if __name__ == "__main__":
    main()
