"""The offline detector: render a labelled dataset from the simulator, train a small Ultralytics
model on CPU, and validate it on layouts it never saw.

Labels come from the segmentation mask (the visible extent of each object), so the dataset needs
no human. Training seeds and validation seeds are disjoint; validation renders fresh episodes of
all three worlds from the held-out seeds and scores plain detections at the chosen confidence
with the same matching as `metalogic extract --eval`.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from metalogic.engine.errors import MetalogicError
from metalogic.engine.schema import SIMULATED
from metalogic.engine.whole_files import write_text_whole
from metalogic.extract.boxes import match_frame
from metalogic.extract.evaluate import Score, edge_summary, measured_border_gap, measured_class_slack
from metalogic.extract.importers import read_image
from metalogic.extract.simulate import simulate_episode
from metalogic.extract.tracking import (
    BOX_SLACK_LEARNED,
    DETECTORS,
    WEIGHTS_DIR,
    Tracker,
    load_model,
    resolve_detector,
)
from metalogic.extract.trajectory import Trajectory, load_trajectory
from metalogic.extract.world import CLASSES, CameraSpec

MODEL_YAML = Path(__file__).resolve().parent / "metalogic-yolo.yaml"
WORLDS = SIMULATED  # the detector is trained and evaluated on every simulated world
LABEL_MIN_SIDE, LABEL_MIN_PIXELS = 3, 10  # smaller slivers are left unlabelled


@dataclass
class TrainConfig:
    out: Path
    train_seeds: list[int]
    val_seeds: list[int]
    episodes: int = 1
    steps: int = 12
    every: int = 2  # keep every N-th frame of an episode (neighbouring frames look alike)
    epochs: int = 30
    imgsz: int = 320
    batch: int = 16
    lr0: float = 0.003
    model_yaml: str | None = None
    init: str | None = None  # start from these weights (a previous stage) instead of the YAML
    worlds: tuple[str, ...] = WORLDS
    extra: dict[str, Any] = field(default_factory=dict)


def render_split(
    seeds: list[int], episodes: int, steps: int, out: Path, worlds: tuple[str, ...] = WORLDS
) -> list[Path]:
    """Simulate every (world, seed, episode); reuse folders already rendered by an earlier run."""
    from tqdm import tqdm

    cam = CameraSpec()
    paths = []
    jobs = [(w, s, e) for s in seeds for w in worlds for e in range(1, episodes + 1)]
    with tqdm(total=len(jobs), unit="episode", desc=f"render {out.name}", disable=None) as bar:
        for w, s, e in jobs:
            folder = out / f"{w}_s{s}_e{e}"
            if not (folder / "trajectory.json").is_file():
                simulate_episode(w, s, e, steps, out, cam)
            paths.append(folder)
            bar.update(1)
    return paths


def write_yolo_split(trajs: list[Path], images: Path, labels: Path, every: int = 1) -> int:
    """Link frames and write YOLO label files (class cx cy w h, normalised) for one split."""
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    index = {c: i for i, c in enumerate(CLASSES)}
    n = 0
    for folder in trajs:
        t = load_trajectory(folder)
        w, h = t.image_size
        for st in t.states():
            if st.state % every:
                continue
            name = f"{t.id}_{st.state:03d}"
            img = images / f"{name}.png"
            if not img.exists():
                img.symlink_to((folder / st.frame).resolve())
            rows = []
            for b in st.boxes or []:
                x1, y1, x2, y2 = b.box
                if b.pixels < LABEL_MIN_PIXELS or min(x2 - x1 + 1, y2 - y1 + 1) < LABEL_MIN_SIDE:
                    continue
                cx, cy = (x1 + x2 + 1) / 2 / w, (y1 + y2 + 1) / 2 / h
                rows.append(
                    f"{index[b.cls]} {cx:.6f} {cy:.6f} {(x2 - x1 + 1) / w:.6f} {(y2 - y1 + 1) / h:.6f}"
                )
            (labels / f"{name}.txt").write_text("\n".join(rows) + ("\n" if rows else ""))
            n += 1
    return n


def build_dataset(cfg: TrainConfig) -> Path:
    overlap = set(cfg.train_seeds) & set(cfg.val_seeds)
    if overlap:
        raise MetalogicError.single(
            f"training and validation seeds overlap: {sorted(overlap)[:5]}",
            expected="disjoint seed lists",
            fix="choose held-out --val-seeds",
        )
    root = cfg.out / "dataset"
    counts = {}
    for split, seeds in (("train", cfg.train_seeds), ("val", cfg.val_seeds)):
        trajs = render_split(seeds, cfg.episodes, cfg.steps, cfg.out / "trajectories" / split, cfg.worlds)
        counts[split] = write_yolo_split(
            trajs, root / "images" / split, root / "labels" / split, cfg.every if split == "train" else 1
        )
    data = root / "data.yaml"
    names = "\n".join(f"  {i}: {c}" for i, c in enumerate(CLASSES))
    data.write_text(f"path: {root.resolve()}\ntrain: images/train\nval: images/val\nnames:\n{names}\n")
    print(
        f"dataset: {counts['train']} training and {counts['val']} validation images in {root}",
        file=sys.stderr,
    )
    return data


def train_detector(cfg: TrainConfig, *, install: bool = False) -> str:
    from metalogic.engine.offline import ensure_offline

    ensure_offline()
    from ultralytics import YOLO

    data = build_dataset(cfg)
    yaml_path = Path(cfg.model_yaml) if cfg.model_yaml else MODEL_YAML
    if cfg.init and not Path(cfg.init).is_file():
        raise MetalogicError.single(
            f"--init weights '{cfg.init}' do not exist",
            expected="the weights of a previous training stage (.pt)",
            fix="train the first stage first, e.g. runs/detector/train/weights/last.pt",
        )
    started = time.time()
    model = YOLO(str(cfg.init or yaml_path), task="detect")
    model.train(
        data=str(data),
        epochs=cfg.epochs,
        imgsz=cfg.imgsz,
        batch=cfg.batch,
        device="cpu",
        workers=1,
        project=str(cfg.out.resolve()),
        name="train",
        exist_ok=True,
        pretrained=str(Path(cfg.init).resolve()) if cfg.init else False,  # False would drop --init's weights
        amp=False,
        plots=False,
        val=False,
        seed=0,
        deterministic=True,
        cache="ram",
        verbose=False,
        # Few images and few epochs: step the optimiser on every batch (nbs = batch, no gradient
        # accumulation) with AdamW at a rate suited to training from scratch, after a short warm-up.
        nbs=cfg.batch,
        optimizer="AdamW",
        lr0=cfg.lr0,
        warmup_epochs=1,
        # a later stage ramps every rate up from zero, so fresh optimiser state cannot wreck its weights
        **({"warmup_bias_lr": 0.0} if cfg.init else {}),
        close_mosaic=8,
        **cfg.extra,
    )
    minutes = (time.time() - started) / 60
    weights = cfg.out / "train" / "weights" / "last.pt"
    report = evaluate_detector(
        str(weights),
        cfg.val_seeds,
        episodes=cfg.episodes,
        steps=cfg.steps,
        conf=0.6,
        imgsz=cfg.imgsz,
        out=cfg.out / "eval",
        trajectories=cfg.out / "trajectories" / "val",
    )
    summary = json.loads((cfg.out / "eval" / "detector_eval.json").read_text())
    prov = {
        "trained_minutes": round(minutes, 1),
        "config": {k: str(v) if isinstance(v, Path) else v for k, v in asdict(cfg).items()},
        "classes": list(CLASSES),
        "validation": summary,
        # the box slack extract writes per class and edge (class_slack/4): the validation's largest errors
        "class_slack": measured_class_slack(summary["total"]["classes"], BOX_SLACK_LEARNED),
        # how far short of the border its boxes of cut objects ended (a record; the margin stays 5%)
        "border_gap": measured_border_gap(summary["total"]),
        "reproduce": "metalogic detector train " + " ".join(sys.argv[3:]) if len(sys.argv) > 3 else "",
    }
    if cfg.init:  # keep the whole recipe: the earlier stage's provenance travels along
        earlier = Path(cfg.init).resolve().parent.parent.parent / "provenance.json"
        if earlier.is_file():
            prov["init_provenance"] = json.loads(earlier.read_text())
    write_text_whole(cfg.out / "provenance.json", json.dumps(prov, indent=1) + "\n")
    if install:
        dest = DETECTORS["metalogic-yolo"]
        WEIGHTS_DIR.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_suffix(".pt.tmp")
        shutil.copyfile(weights, tmp)
        tmp.replace(dest)
        write_text_whole(dest.with_suffix(".json"), json.dumps(prov, indent=1) + "\n")
        report += f"\ninstalled {dest}"
    return f"trained in {minutes:.1f} min: {weights}\n{report}"


def evaluate_detector(
    spec: str,
    seeds: list[int],
    *,
    episodes: int,
    steps: int,
    conf: float,
    imgsz: int,
    out: Path,
    trajectories: Path | None = None,
) -> str:
    """Plain detection quality (no tracking) on held-out renders, per world and per class."""
    path = resolve_detector(spec)
    if path == "gt":
        raise MetalogicError.single("'gt' is not a detector to evaluate", expected="a weights file or name")
    tracker = Tracker(load_model(path), conf=conf, imgsz=imgsz)
    folders = render_split(seeds, episodes, steps, trajectories or out / "trajectories")
    per_world: dict[str, Score] = {w: Score() for w in WORLDS}
    for folder in folders:
        t = load_trajectory(folder)
        per_world[t.scenario].add(_score_frames(tracker, t))
    total = Score()
    for s in per_world.values():
        total.add(s)
    result = {
        "detector": str(spec),
        "conf": conf,
        "nms_iou": tracker.nms_iou,
        "imgsz": imgsz,
        "seeds": seeds,
        "episodes": episodes,
        "total": (total_json := total.as_json(BOX_SLACK_LEARNED)),
        "worlds": {w: s.as_json(BOX_SLACK_LEARNED) for w, s in per_world.items()},
    }
    write_text_whole(out / "detector_eval.json", json.dumps(result, indent=1) + "\n")
    lines = [
        f"held-out seeds {seeds[0]}..{seeds[-1]}, conf {conf}: "
        f"precision {total.precision:.3f}, recall {total.recall:.3f}, mean IoU {total.mean_iou:.3f} "
        f"({total.tp} hits, {total.fp} false alarms, {total.fn} misses in {total.frames} frames)"
    ]
    for w, s in per_world.items():
        lines.append(
            f"  {w:<10} precision {s.precision:.3f}  recall {s.recall:.3f}  mean IoU {s.mean_iou:.3f}"
        )
    for cls, c in sorted(total_json["classes"].items()):
        edges = f"; {edge_summary(c['edges'])}" if "edges" in c else ""
        lines.append(
            f"  class {cls:<7} precision {c['precision']:.3f}  recall {c['recall']:.3f}  "
            f"(tp {c['tp']}, fp {c['fp']}, fn {c['fn']}){edges}"
        )
    slack = measured_class_slack(total_json["classes"], BOX_SLACK_LEARNED)
    lines.append(
        f"  box slack per class and edge beyond {BOX_SLACK_LEARNED} px (the largest errors; `detector train` "
        "writes them to the card): "
        + (
            "; ".join(f"{c} " + " ".join(f"{e} {k}" for e, k in edges.items()) for c, edges in slack.items())
            or "none"
        )
    )
    gaps = measured_border_gap(total_json)
    lines.append(
        "  boxes of objects the border cuts end short of it by at most (px, per class and axis; "
        "`detector train` writes them to the card as border_gap): "
        + (
            "; ".join(f"{c} " + " ".join(f"{a} {k}" for a, k in axes.items()) for c, axes in gaps.items())
            or "none seen"
        )
    )
    return "\n".join(lines)


def _score_frames(tracker: Tracker, t: Trajectory) -> Score:
    assert t.root is not None
    sc = Score()
    for st in t.states():
        dets = tracker.predict(read_image(t.root / st.frame)[:, :, ::-1].copy(), st.state, t.image_size)
        fm = match_frame(dets, st.boxes or [])
        sc.frames += 1
        for d, g, ov in fm.pairs:
            sc.add_pair(d, g, ov, t.image_size)
        sc.fp += len(fm.false_pos)
        sc.fn += len(fm.missed)
        for d in fm.false_pos:
            sc.per_class[d.cls]["fp"] += 1
        for g in fm.missed:
            sc.per_class[g.cls]["fn"] += 1
    return sc
