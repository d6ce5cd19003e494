"""Where an object's centre projects within its box, per class, in the simulator's worlds: the source
of the class_centre/4 facts that `metalogic extract` writes for simulated trajectories
(extract/scene_facts.py, CLASS_CENTRE).

The truth's centre of an object is the centre of its 3-D bounding box. For every whole ground-truth
box (neither cut by the border nor hidden in part, at least 6 px a side) of episodes simulated from
the given seeds, the script projects that centre with the frame's camera pose and intrinsics and
records where it falls, as a fraction of the box's width (from the left edge) and height (from the
top). The MRs that read boxes assume it lies in the middle part `centre_span_permille` (500) of the
box; per class it lies much nearer the middle. The part a class needs is twice the largest distance
of a fraction from the middle; the part written adds `--margin` (thousandths) and is rounded up to
a multiple of 50.

    .venv/bin/python bench/centre_span.py                      # seeds 6000-6023: extract's CLASS_CENTRE
    .venv/bin/python bench/centre_span.py --trajectories DIR    # folders simulated before

Prints the table and writes bench/results/centre_span.json. Simulating takes about 8 s per episode
on a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from metalogic.engine.schema import SIMULATED
from metalogic.extract.trajectory import Pose, load_trajectory

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "centre_span.json"


def project(cam: Pose, fx: float, cx: float, cy: float, p: tuple[int, int, int]) -> tuple[float, float]:
    """Image column and row of world point p (mm) for a camera at `cam` (yaw about z from +x, pitch
    up), square pixels of focal length fx, principal point (cx, cy); rows grow downwards."""
    yaw, pitch = math.radians(cam.yaw_deg), math.radians(cam.pitch_deg)
    ahead = (math.cos(pitch) * math.cos(yaw), math.cos(pitch) * math.sin(yaw), math.sin(pitch))
    right = (math.sin(yaw), -math.cos(yaw), 0.0)
    up = (
        right[1] * ahead[2] - right[2] * ahead[1],
        right[2] * ahead[0] - right[0] * ahead[2],
        right[0] * ahead[1] - right[1] * ahead[0],
    )
    d = (p[0] - cam.x_mm, p[1] - cam.y_mm, p[2] - cam.z_mm)
    z = sum(a * b for a, b in zip(d, ahead, strict=True))
    x = sum(a * b for a, b in zip(d, right, strict=True))
    y = sum(a * b for a, b in zip(d, up, strict=True))
    return cx + fx * x / z, cy - fx * y / z


def fractions(folders: list[Path]) -> dict[str, list[tuple[float, float]]]:
    """Per class, (width fraction, height fraction) of the centre's projection in each whole box."""
    out: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for folder in folders:
        t = load_trajectory(folder)
        fx, cx, cy = t.camera["fx"], t.camera["cx"], t.camera["cy"]
        objects = {o.id: o for o in t.objects}
        for st in t.states():
            for b in st.boxes or []:
                x1, y1, x2, y2 = b.box
                if b.truncated or b.occluded or b.partly_hidden or x2 - x1 < 6 or y2 - y1 < 6:
                    continue
                assert st.camera_pose is not None
                u, v = project(st.camera_pose, fx, cx, cy, objects[b.object].position_mm)
                # pixel i covers [i, i + 1), as the projection's coordinates have it (the principal
                # point at the image's centre is the edge between two pixels)
                out[b.cls].append(((u - x1) / (x2 + 1 - x1), (v - y1) / (y2 + 1 - y1)))
    return out


def needed(xs: list[float], margin: int) -> tuple[int, int]:
    """(part needed, part written), thousandths: twice the largest distance from the middle, and that
    plus the margin rounded up to a multiple of 50 (at most 1000)."""
    need = math.ceil(2000 * max(abs(x - 0.5) for x in xs))
    return need, min(1000, -(-(need + margin) // 50) * 50)


def simulate(seeds: list[int], steps: int, out: Path) -> list[Path]:
    from metalogic.extract.simulate import simulate_episode
    from metalogic.extract.world import CameraSpec

    return [
        simulate_episode(world, seed, 1, steps, out, CameraSpec()) for seed in seeds for world in SIMULATED
    ]


def parse_seeds(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="6000-6023", help="seeds to simulate (every world, one episode each)")
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--margin", type=int, default=100, help="thousandths added to the part needed")
    ap.add_argument("--trajectories", type=Path, nargs="*", help="read these folders instead of simulating")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="centre_span-") as tmp:
        if args.trajectories:
            folders = sorted(f for root in args.trajectories for f in root.glob("*_s*_e*") if f.is_dir())
        else:
            folders = simulate(parse_seeds(args.seeds), args.steps, Path(tmp))
        found = fractions(folders)
    rows: dict[str, Any] = {}
    print("| class | boxes | width fraction | height fraction | part needed (W, H) | part written (W, H) |")
    print("|---|---|---|---|---|---|")
    for cls, xs in sorted(found.items()):
        ws, hs = [x for x, _ in xs], [y for _, y in xs]
        (nw, pw), (nh, ph) = needed(ws, args.margin), needed(hs, args.margin)
        rows[cls] = {
            "boxes": len(xs),
            "width": [min(ws), max(ws)],
            "height": [min(hs), max(hs)],
            "needed": [nw, nh],
            "written": [pw, ph],
        }
        print(
            f"| {cls} | {len(xs)} | {min(ws):.3f}..{max(ws):.3f} | {min(hs):.3f}..{max(hs):.3f} "
            f"| {nw}, {nh} | {pw}, {ph} |"
        )
    args.out.write_text(
        json.dumps(
            {
                "steps": args.steps,
                "margin": args.margin,
                "trajectories": sorted(f.name for f in folders),
                "classes": rows,
            },
            indent=1,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
