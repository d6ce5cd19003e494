"""Click commands of the extract slice: simulate, import, extract, detector (registered lazily in
app/cli.py, so the heavy packages load only when one of them runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from metalogic.engine.errors import MetalogicError
from metalogic.engine.schema import SCENARIOS, SIMULATED


def _seeds(text: str) -> list[int]:
    """'0-9,20' -> [0..9, 20]."""
    out: list[int] = []
    try:
        for part in text.split(","):
            lo, _, hi = part.strip().partition("-")
            out += list(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        raise MetalogicError.single(
            f"bad seed list '{text}'",
            expected="numbers and ranges, e.g. 0-39 or 1,2,5",
            fix="write the seeds as FIRST-LAST or a comma-separated list",
        ) from None
    return out


def _bar(total: int | None, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="frame", desc=desc, disable=None)


@click.command()
@click.option("--scenario", type=click.Choice(SIMULATED), required=True, help="Which world to simulate.")
@click.option("--episodes", type=click.IntRange(1), default=1, show_default=True)
@click.option(
    "--steps",
    type=click.IntRange(1),
    default=12,
    show_default=True,
    help="Most actions per episode (an episode ends early when the agent reaches its goal).",
)
@click.option(
    "--seed", type=click.IntRange(0), default=0, show_default=True, help="Layouts follow from the seed."
)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True)
@click.option("--size", default="320x240", show_default=True, metavar="WxH", help="Frame size in pixels.")
def simulate(scenario: str, episodes: int, steps: int, seed: int, out_dir: str, size: str) -> None:
    """Render trajectories of an agent in a PyBullet world, with ground truth.

    Example: metalogic simulate --scenario household --episodes 3 --steps 12 --seed 0 --out runs/traj
    """
    from metalogic.extract.simulate import parse_size, simulate_episodes

    w, h = parse_size(size)
    paths = simulate_episodes(
        scenario, episodes=episodes, steps=steps, seed=seed, out=Path(out_dir), width=w, height=h
    )
    click.echo(f"wrote {len(paths)} trajectories to {out_dir}: " + ", ".join(p.name for p in paths))


@click.group(name="import")
def import_group() -> None:
    """Import your own frames, videos or EmbodiedBench logs as trajectory folders."""


common_import = [
    click.option(
        "--out",
        "out_dir",
        type=click.Path(file_okay=False),
        required=True,
        help="Folder that receives the trajectory folder.",
    ),
    click.option(
        "--every", type=click.IntRange(1), default=1, show_default=True, help="Keep every N-th frame."
    ),
    click.option("--scenario", type=click.Choice(SCENARIOS), default="video", show_default=True),
    click.option(
        "--fov", type=click.FloatRange(1, 179), help="Vertical field of view in degrees (gives intrinsics)."
    ),
    click.option(
        "--step-mm", type=click.IntRange(1), help="Length of one movement step, if the source has steps."
    ),
]


rig_options = [
    click.option(
        "--camera-height",
        type=click.IntRange(1, 100_000),
        metavar="MM",
        help="Height of the camera above the floor in mm, as the rig knows it (anchors depths; MR17).",
    ),
    click.option(
        "--pitch",
        type=click.IntRange(-89, 89),
        metavar="DEG",
        help="Tilt of the camera in degrees, positive upwards (in the first frame for eb-nav).",
    ),
    click.option(
        "--support",
        "supports",
        multiple=True,
        metavar="CLASS=MM",
        help="Objects of this detector class stand on a surface MM above the floor (0: the floor; "
        "* for every other class). Repeatable.",
    ),
]


def _with_common(f: Any) -> Any:
    for opt in reversed(common_import + rig_options):
        f = opt(f)
    return f


def _with_rig(f: Any) -> Any:
    for opt in reversed(rig_options):
        f = opt(f)
    return f


def _rig(camera_height: int | None, pitch: int | None, supports: tuple[str, ...]) -> Any:
    from metalogic.extract.rig import make_rig

    return make_rig(camera_height, pitch, supports)


@import_group.command(name="frames")
@click.argument("folder", type=click.Path())
@click.option("--id", "traj_id", help="Trajectory id (default: from the folder name).")
@_with_common
def import_frames_cmd(
    folder: str,
    traj_id: str | None,
    out_dir: str,
    every: int,
    scenario: str,
    fov: float | None,
    step_mm: int | None,
    camera_height: int | None,
    pitch: int | None,
    supports: tuple[str, ...],
) -> None:
    """A folder of images (in name order) as one trajectory.

    Example: metalogic import frames my_run/frames --out runs/traj --every 2 --fov 60
    --camera-height 1200 --pitch -10 --support chair=0 --support cup=740
    """
    from metalogic.extract.importers import import_frames

    rig = _rig(camera_height, pitch, supports)
    with _bar(None, "import") as bar:
        p = import_frames(
            Path(folder),
            Path(out_dir),
            traj_id=traj_id,
            every=every,
            scenario=scenario,
            fov=fov,
            step_mm=step_mm,
            progress=bar.update,
            rig=rig,
        )
    click.echo(f"wrote trajectory {p.name} to {p}")


@import_group.command(name="video")
@click.argument("video", type=click.Path())
@click.option("--id", "traj_id", help="Trajectory id (default: from the file name).")
@click.option(
    "--max-frames", type=click.IntRange(0), default=0, help="Stop after this many kept frames (0: all)."
)
@_with_common
def import_video_cmd(
    video: str,
    traj_id: str | None,
    max_frames: int,
    out_dir: str,
    every: int,
    scenario: str,
    fov: float | None,
    step_mm: int | None,
    camera_height: int | None,
    pitch: int | None,
    supports: tuple[str, ...],
) -> None:
    """Frames of a video file (OpenCV) as one trajectory.

    Example: metalogic import video walk.mp4 --out runs/traj --every 15 --fov 60 --camera-height 1500
    --pitch 0 --support '*=0'
    """
    from metalogic.extract.importers import import_video

    rig = _rig(camera_height, pitch, supports)
    with _bar(None, "import") as bar:
        p = import_video(
            Path(video),
            Path(out_dir),
            traj_id=traj_id,
            every=every,
            max_frames=max_frames,
            scenario=scenario,
            fov=fov,
            step_mm=step_mm,
            progress=bar.update,
            rig=rig,
        )
    click.echo(f"wrote trajectory {p.name} to {p}")


@import_group.command(name="eb-nav")
@click.argument("log_dir", type=click.Path())
@click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True)
@click.option("--episode", "episodes", type=int, multiple=True, help="Only this episode (repeatable).")
@click.option(
    "--fov",
    type=click.FloatRange(1, 179),
    default=100.0,
    show_default=True,
    help="Field of view the episodes were rendered with.",
)
@click.option("--prefix", default="ebnav", show_default=True, help="Trajectory ids are PREFIX_e<episode>.")
@_with_rig
def import_eb_nav_cmd(
    log_dir: str,
    out_dir: str,
    episodes: tuple[int, ...],
    fov: float,
    prefix: str,
    camera_height: int | None,
    pitch: int | None,
    supports: tuple[str, ...],
) -> None:
    """EmbodiedBench EB-Navigation episode logs (JSON lines + step images). With --pitch, each
    tilt action turns the camera by 30 degrees from there.

    Example: metalogic import eb-nav running/eb_nav/base --out runs/traj --episode 3
    """
    from metalogic.extract.importers import import_eb_nav

    rig = _rig(camera_height, pitch, supports)
    with _bar(None, "import") as bar:
        paths = import_eb_nav(
            Path(log_dir),
            Path(out_dir),
            episodes=list(episodes) or None,
            fov=fov,
            prefix=prefix,
            progress=bar.update,
            rig=rig,
        )
    click.echo(f"wrote {len(paths)} trajectories to {out_dir}: " + ", ".join(p.name for p in paths))


@click.command()
@click.argument("traj_dir", type=click.Path())
@click.option(
    "--out", "out_dir", type=click.Path(file_okay=False), required=True, help="Facts folder to write."
)
@click.option(
    "--detector",
    default="metalogic-yolo",
    show_default=True,
    help="metalogic-yolo (shipped), gt (simulator boxes) or an Ultralytics weights file.",
)
@click.option(
    "--conf", type=float, default=0.6, show_default=True, help="Keep detections at this confidence."
)
@click.option("--tracker", default="bytetrack.yaml", show_default=True, help="Ultralytics tracker config.")
@click.option("--imgsz", type=click.IntRange(32), default=320, show_default=True, help="Inference size.")
@click.option(
    "--min-track",
    type=click.IntRange(1),
    default=3,
    show_default=True,
    help="A track seen in this many states is persistent.",
)
@click.option(
    "--box-slack",
    type=click.IntRange(0, 1000),
    default=None,
    help="Pixels a box edge may lie off the object (written as box_slack/2; default: 1 for gt, "
    "4 for a learned detector).",
)
@click.option("--eval", "evaluate", is_flag=True, help="Score the tracks against ground-truth boxes.")
def extract(
    traj_dir: str,
    out_dir: str,
    detector: str,
    conf: float,
    tracker: str,
    imgsz: int,
    min_track: int,
    box_slack: int | None,
    evaluate: bool,
) -> None:
    """Track objects through trajectories and write scene facts (one .lp per trajectory).

    Example: metalogic extract runs/traj --out runs/facts --eval
    """
    from metalogic.extract.evaluate import render_table
    from metalogic.extract.pipeline import run_extract

    res = run_extract(
        traj_dir,
        out_dir,
        detector=detector,
        conf=conf,
        tracker=tracker,
        imgsz=imgsz,
        min_states=min_track,
        box_slack=box_slack,
        evaluate=evaluate,
    )
    click.echo(f"wrote {len(res.facts)} facts files ({res.detections} detections) to {out_dir}")
    if evaluate:
        click.echo(render_table([*res.scores, ("total", res.total())]))


@click.group()
def detector() -> None:
    """Build and validate the offline detector."""


@detector.command()
@click.option(
    "--out", "out_dir", type=click.Path(file_okay=False), default="runs/detector", show_default=True
)
@click.option("--train-seeds", default="0-23", show_default=True, help="Seeds of the training layouts.")
@click.option("--val-seeds", default="1000-1003", show_default=True, help="Held-out seeds for validation.")
@click.option(
    "--episodes", type=click.IntRange(1), default=1, show_default=True, help="Episodes per seed and world."
)
@click.option("--steps", type=click.IntRange(1), default=12, show_default=True)
@click.option(
    "--every",
    type=click.IntRange(1),
    default=2,
    show_default=True,
    help="Keep every N-th training frame of an episode.",
)
@click.option("--epochs", type=click.IntRange(1), default=30, show_default=True)
@click.option("--imgsz", type=click.IntRange(32), default=320, show_default=True)
@click.option(
    "--model", "model_yaml", default=None, help="Model YAML (default: extract/metalogic-yolo.yaml)."
)
@click.option("--init", default=None, help="Start from these weights (a previous stage) instead of the YAML.")
@click.option(
    "--lr0",
    type=click.FloatRange(0, 1, min_open=True),
    default=0.003,
    show_default=True,
    help="Initial learning rate (AdamW).",
)
@click.option("--install", is_flag=True, help="Copy the trained weights to the shipped default.")
def train(
    out_dir: str,
    train_seeds: str,
    val_seeds: str,
    episodes: int,
    steps: int,
    every: int,
    epochs: int,
    imgsz: int,
    model_yaml: str | None,
    init: str | None,
    lr0: float,
    install: bool,
) -> None:
    """Render a labelled dataset from the simulator and train a detector on CPU.

    Example: metalogic detector train --out runs/detector --epochs 30 --install
    """
    from metalogic.extract.detector import TrainConfig, train_detector

    cfg = TrainConfig(
        out=Path(out_dir),
        train_seeds=_seeds(train_seeds),
        val_seeds=_seeds(val_seeds),
        episodes=episodes,
        steps=steps,
        every=every,
        epochs=epochs,
        imgsz=imgsz,
        model_yaml=model_yaml,
        init=init,
        lr0=lr0,
    )
    report = train_detector(cfg, install=install)
    click.echo(report)


@detector.command(name="eval")
@click.option("--detector", "spec", default="metalogic-yolo", show_default=True)
@click.option("--seeds", default="1000-1003", show_default=True, help="Held-out seeds to render and score.")
@click.option("--episodes", type=click.IntRange(1), default=1, show_default=True)
@click.option("--steps", type=click.IntRange(1), default=12, show_default=True)
@click.option("--conf", type=float, default=0.6, show_default=True)
@click.option("--imgsz", type=click.IntRange(32), default=320, show_default=True)
@click.option(
    "--out", "out_dir", type=click.Path(file_okay=False), default="runs/detector-eval", show_default=True
)
def eval_cmd(spec: str, seeds: str, episodes: int, steps: int, conf: float, imgsz: int, out_dir: str) -> None:
    """Precision, recall and IoU of a detector on freshly rendered held-out layouts.

    Example: metalogic detector eval --seeds 1000-1003 --conf 0.6
    """
    from metalogic.extract.detector import evaluate_detector

    click.echo(
        evaluate_detector(
            spec, _seeds(seeds), episodes=episodes, steps=steps, conf=conf, imgsz=imgsz, out=Path(out_dir)
        )
    )
