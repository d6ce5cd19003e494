"""Multi-object tracking with Ultralytics (ByteTrack by default) over a trajectory's frames.

Detectors are named: `metalogic-yolo` (the weights shipped in extract/weights/, trained on this
project's simulator renders by `metalogic detector train`), `gt` (the simulator's own boxes), or a
path to any Ultralytics weights file (e.g. a yolo11n.pt you brought). Nothing is downloaded.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from metalogic.engine.errors import MetalogicError, did_you_mean
from metalogic.engine.schema import EDGES
from metalogic.extract.boxes import Detection, eligible, iou, split_class_switches
from metalogic.extract.rig import class_atom
from metalogic.extract.trajectory import State, Trajectory

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
DETECTORS: dict[str, Path] = {"metalogic-yolo": WEIGHTS_DIR / "metalogic-yolo.pt"}
DEFAULT_DETECTOR = "metalogic-yolo"
TRACKERS = ("bytetrack.yaml", "botsort.yaml")
DEFAULT_CONF = 0.6
NMS_IOU = 0.5
# How far a box edge may lie off the object's silhouette, written into the scene facts (box_slack/2)
# for the MRs that read boxes: the simulator's boxes are exact up to the mask's pixel edge; a learned
# detector's edges were within 4 px in 9 of 10 matched boxes on simulated frames, but not for every
# class (robots, shelves and tables often lie further off): `metalogic detector eval` reports the
# share within this slack per class.
BOX_SLACK_GT = 1
BOX_SLACK_LEARNED = 4


def box_slack_of(detector: str) -> int:
    return BOX_SLACK_GT if detector == "gt" else BOX_SLACK_LEARNED


def class_slacks_of(weights: str | Path) -> dict[str, dict[str, int]]:
    """The box slack of each class and edge the detector's card gives: the JSON file beside its
    weights (`detector train` writes there, as `class_slack`, the largest error its validation found
    per class and edge where that exceeds BOX_SLACK_LEARNED). {} for gt, and for weights without a
    card or whose card says nothing of it."""
    if str(weights) == "gt":
        return {}
    card = Path(weights).with_suffix(".json")
    if not card.is_file():
        return {}
    try:
        found = json.loads(card.read_text(encoding="utf-8")).get("class_slack", {})
    except (OSError, ValueError, AttributeError) as exc:
        raise MetalogicError.single(
            f"cannot read the detector card {card}: {exc}".splitlines()[0],
            expected="the JSON object written beside the weights by 'metalogic detector train'",
            fix="repair or delete the card (without one every class gets --box-slack)",
        ) from None
    ok = isinstance(found, dict) and all(
        isinstance(c, str)
        and isinstance(edges, dict)
        and all(e in EDGES and _pixels(k) for e, k in edges.items())
        for c, edges in found.items()
    )
    if not ok:
        raise MetalogicError.single(
            f"the detector card {card} has a bad class_slack: {json.dumps(found)[:80]}",
            expected="class names, each with edges (left, top, right, bottom) in whole pixels 0..100, "
            'e.g. {"shelf": {"top": 41}}',
            fix="repair or delete the class_slack entry",
        )
    return {class_atom(c): dict(edges) for c, edges in found.items()}


def _pixels(k: object) -> bool:
    return isinstance(k, int) and not isinstance(k, bool) and 0 <= k <= 100


def resolve_detector(spec: str) -> str | Path:
    """'gt', a registered name, or an existing weights file."""
    if spec == "gt":
        return "gt"
    if spec in DETECTORS:
        path = DETECTORS[spec]
        if not path.is_file():
            raise MetalogicError.single(
                f"the weights of detector '{spec}' are missing ({path})",
                expected="the weights file shipped with metalogic",
                fix="reinstall metalogic, or rebuild them with 'metalogic detector train --install'",
            )
        return path
    path = Path(spec)
    if path.is_file():
        return path
    hint = did_you_mean(spec, [*DETECTORS, "gt"])
    raise MetalogicError.single(
        f"unknown detector '{spec}': not a registered name and no such weights file",
        expected="gt, " + ", ".join(DETECTORS) + ", or the path of an Ultralytics weights file (.pt)",
        fix=hint or "give the path of a weights file, e.g. --detector ~/models/yolo11n.pt",
    )


def resolve_tracker(spec: str) -> str:
    if spec in TRACKERS or Path(spec).is_file():
        return spec
    hint = did_you_mean(spec, TRACKERS)
    raise MetalogicError.single(
        f"unknown tracker '{spec}'",
        expected="bytetrack.yaml, botsort.yaml or the path of a tracker YAML file",
        fix=hint or "use --tracker bytetrack.yaml",
    )


def load_model(path: str | Path) -> Any:
    """An Ultralytics model, loaded offline."""
    from metalogic.engine.offline import ensure_offline

    ensure_offline()
    from ultralytics import YOLO

    try:
        return YOLO(str(path), task="detect")
    except Exception as exc:  # Ultralytics raises many kinds for a bad file
        raise MetalogicError.single(
            f"cannot load detector weights '{path}': {exc}".splitlines()[0],
            expected="an Ultralytics detection weights file (.pt)",
            fix="check the file, or use --detector metalogic-yolo",
        ) from None


@dataclass
class Tracker:
    """Tracks objects through one trajectory at a time; ids start again at 1 for each."""

    model: Any
    conf: float = DEFAULT_CONF
    tracker: str = "bytetrack.yaml"
    imgsz: int = 320
    # Non-maximum suppression merges same-class boxes overlapping by more than this. Ultralytics'
    # 0.7 kept a second box on half-hidden tables and cars (a third of the shipped detector's false
    # alarms on held-out renders); two distinct objects of one class rarely overlap that much.
    nms_iou: float = NMS_IOU

    def names(self) -> dict[int, str]:
        return {int(k): class_atom(v) for k, v in self.model.names.items()}

    def _reset(self) -> None:
        predictor = getattr(self.model, "predictor", None)
        for t in getattr(predictor, "trackers", None) or []:
            t.reset()

    def track(
        self, traj: Trajectory, states: Sequence[State], progress: Callable[[int], None] | None = None
    ) -> list[Detection]:
        """The detections of every state, each with its track's id and the detector's own box.

        Ultralytics' trackers report a track's box from their motion model (a Kalman filter's
        estimate, which trails an object whose box grows or slides from frame to frame: up to 13 px
        off on a drone's approach), not the box the detector drew. The MRs read boxes as the
        detector's, within its slack, so the tracker is used only to tie detections to tracks:
        a callback ahead of the tracker's keeps each frame's detections, and each tracked box is
        replaced by the detection it was matched with (same class and confidence)."""
        assert traj.root is not None
        self._reset()
        names = self.names()
        w, h = traj.image_size
        out: list[Detection] = []
        detected: list[list[float]] = []

        def keep_detections(predictor: Any) -> None:
            detected[:] = predictor.results[0].boxes.data.tolist()  # x1, y1, x2, y2, conf, cls

        callbacks = self.model.callbacks["on_predict_postprocess_end"]
        callbacks.insert(0, keep_detections)  # before the tracker's, which replaces the boxes
        try:
            for st in states:
                res = self.model.track(
                    str(traj.root / st.frame),
                    persist=True,
                    tracker=self.tracker,
                    conf=self.conf,
                    iou=self.nms_iou,
                    imgsz=self.imgsz,
                    verbose=False,
                )[0]
                boxes = res.boxes
                if boxes is not None and boxes.id is not None:
                    for tid, cls, cf, xyxy in zip(
                        boxes.id.int().tolist(),
                        boxes.cls.int().tolist(),
                        boxes.conf.tolist(),
                        boxes.xyxy.tolist(),
                        strict=True,
                    ):
                        if cf < self.conf:
                            continue
                        box = pixel_box(detected_box(detected, cls, cf, xyxy), w, h)
                        out.append(Detection(st.state, int(tid), names[cls], round(cf * 1000), box))
                if progress:
                    progress(1)
        finally:
            callbacks.remove(keep_detections)
        return split_class_switches(out)

    def predict(self, image: Any, state: int, size: tuple[int, int]) -> list[Detection]:
        """Plain detection of one image (no tracking): for validating a detector."""
        names = self.names()
        res = self.model.predict(image, conf=self.conf, iou=self.nms_iou, imgsz=self.imgsz, verbose=False)[0]
        b = res.boxes
        return [
            Detection(state, i, names[c], round(cf * 1000), pixel_box(xyxy, *size))
            for i, (c, cf, xyxy) in enumerate(
                zip(b.cls.int().tolist(), b.conf.tolist(), b.xyxy.tolist(), strict=True)
            )
        ]


def detected_box(
    detected: Sequence[Sequence[float]], cls: int, conf: float, tracked: Sequence[float]
) -> list[float]:
    """The detection a tracked box stands for: of the frame's detections (x1, y1, x2, y2, conf,
    cls), the one of the same class and confidence (a track takes its detection's score when they
    are matched), the one overlapping the tracked box most where several share them; the tracked
    box itself where none does (no tracker in Ultralytics reports an unmatched track)."""
    matched = [d for d in detected if int(d[5]) == cls and d[4] == conf]
    if not matched:
        return list(tracked)
    return list(max(matched, key=lambda d: iou(d[:4], tracked))[:4])


def pixel_box(xyxy: Sequence[float], w: int, h: int) -> tuple[int, int, int, int]:
    """Continuous box corners to inclusive pixel indices inside the image."""
    x1, y1, x2, y2 = xyxy
    return (
        min(max(round(x1), 0), w - 1),
        min(max(round(y1), 0), h - 1),
        min(max(round(x2) - 1, 0), w - 1),
        min(max(round(y2) - 1, 0), h - 1),
    )


def gt_detections(states: Sequence[State]) -> list[Detection]:
    """The simulator's boxes as detections (track id = object id), for `--detector gt`."""
    return [
        Detection(st.state, b.object, b.cls, 1000, b.box)
        for st in states
        for b in st.boxes or []
        if eligible(b)
    ]


def check_frame(frame: Path) -> None:
    """A frame the tracker cannot decode is one clear error (the tracker raised IndexError)."""
    import cv2

    image = cv2.imread(str(frame), cv2.IMREAD_UNCHANGED) if frame.is_file() else None
    if image is None or image.size == 0:
        raise MetalogicError.single(
            "this frame cannot be read as an image",
            where=str(frame),
            expected="a PNG or JPEG file that an image viewer opens",
            fix="re-render or re-import the trajectory, or remove the state from states.jsonl",
        )
