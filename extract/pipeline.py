"""`metalogic extract`: trajectory folders in, one scene-facts file per trajectory out.

Each facts file is written whole (temporary file, then rename) as soon as its trajectory is done,
so an interrupted run keeps every finished trajectory and never leaves a partial file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from metalogic.engine.errors import MetalogicError
from metalogic.engine.whole_files import write_text_whole
from metalogic.extract.boxes import Detection
from metalogic.extract.evaluate import Score, on_their_objects, score_trajectory
from metalogic.extract.scene_facts import MIN_TRACK_STATES, scene_facts
from metalogic.extract.tracking import (
    DEFAULT_CONF,
    DEFAULT_DETECTOR,
    Tracker,
    box_slack_of,
    class_slacks_of,
    gt_detections,
    load_model,
    resolve_detector,
    resolve_tracker,
)
from metalogic.extract.trajectory import find_trajectories, load_trajectory

MANIFEST = "extract.json"


@dataclass
class ExtractResult:
    facts: list[Path] = field(default_factory=list)
    scores: list[tuple[str, Score]] = field(default_factory=list)
    detections: int = 0

    def total(self) -> Score:
        tot = Score()
        for _, s in self.scores:
            tot.add(s)
        return tot


def run_extract(
    traj_dir: str | Path,
    out: str | Path,
    *,
    detector: str = DEFAULT_DETECTOR,
    conf: float = DEFAULT_CONF,
    tracker: str = "bytetrack.yaml",
    imgsz: int = 320,
    min_states: int = MIN_TRACK_STATES,
    box_slack: int | None = None,
    evaluate: bool = False,
    progress: bool = True,
) -> ExtractResult:
    if not 0.0 < conf <= 1.0:
        raise MetalogicError.single(f"--conf {conf} is outside 0..1", expected="a confidence such as 0.6")
    folders = find_trajectories(traj_dir)
    trajs = [load_trajectory(f) for f in folders]
    states = {t.id: list(t.states()) for t in trajs}
    if evaluate and not any(st.boxes is not None for sts in states.values() for st in sts):
        raise MetalogicError.single(
            "--eval needs ground-truth boxes, and these trajectories have none",
            expected="trajectories from 'metalogic simulate' (they carry boxes)",
            fix="drop --eval, or evaluate on simulated trajectories",
        )
    det = resolve_detector(detector)
    slack = box_slack if box_slack is not None else box_slack_of(detector)
    # an edge of a class the detector's card measured further off than the trajectory's slack keeps its own
    class_slack = {
        c: beyond
        for c, edges in class_slacks_of(det).items()
        if (beyond := {e: k for e, k in edges.items() if k > slack})
    }
    trk = None
    if det != "gt":
        trk = Tracker(load_model(det), conf=conf, tracker=resolve_tracker(tracker), imgsz=imgsz)
    if trk is not None:  # every frame decodes, before anything is written
        from metalogic.extract.tracking import check_frame

        for t in trajs:
            assert t.root is not None
            for st in states[t.id]:
                check_frame(t.root / st.frame)
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    result = ExtractResult()
    from tqdm import tqdm

    bar = tqdm(
        total=sum(len(s) for s in states.values()),
        unit="frame",
        desc="extract",
        disable=None if progress else True,
    )
    try:
        for t in trajs:
            sts = states[t.id]
            if trk is None:
                dets: Sequence[Detection] = gt_detections(sts)
                bar.update(len(sts))
            else:
                dets = trk.track(t, sts, bar.update)
            path = out_dir / f"{t.id}.lp"
            shown = on_their_objects(sts, dets)
            write_text_whole(
                path,
                scene_facts(
                    t,
                    sts,
                    shown,
                    out_dir,
                    detector=str(detector),
                    min_states=min_states,
                    box_slack=slack,
                    class_slack=class_slack,
                ),
            )
            result.facts.append(path)
            result.detections += len(dets)
            if evaluate and any(st.boxes is not None for st in sts):
                result.scores.append((t.id, score_trajectory(sts, dets)))
    finally:
        bar.close()
    write_text_whole(
        out_dir / MANIFEST,
        json.dumps(manifest(traj_dir, detector, conf, tracker, imgsz, result, slack), indent=1) + "\n",
    )
    return result


def manifest(
    traj_dir: str | Path,
    detector: str,
    conf: float,
    tracker: str,
    imgsz: int,
    res: ExtractResult,
    slack: int | None = None,
) -> dict[str, Any]:
    """extract.json; with --eval, the scores (and the edge errors against `slack`, the box slack the
    facts carry)."""
    m: dict[str, Any] = {
        "trajectories": str(Path(traj_dir).resolve()),
        "detector": detector,
        "conf": conf,
        "tracker": tracker if detector != "gt" else None,
        "imgsz": imgsz,
        "facts": [p.name for p in res.facts],
        "detections": res.detections,
    }
    if res.scores:
        m["eval"] = {
            "total": res.total().as_json(slack),
            "trajectories": {k: s.as_json(slack) for k, s in res.scores},
        }
    return m
