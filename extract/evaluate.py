"""Tracker quality against ground-truth boxes: precision, recall, mean IoU, id switches, and how
far the edges of matched boxes lie from the truth.

Counts follow the CLEAR-MOT conventions: per frame, detections are matched one-to-one to ground-
truth boxes of the same class at IoU >= 0.5; an id switch is counted when a ground-truth object is
matched to a different track than the last time it was matched.

The edge errors are what the pixel MRs assume away: they read a whole box (neither cut by the
border nor hidden in part) as the silhouette's box give or take the trajectory's box_slack. So the
errors are taken over matched boxes whose true box is whole (not truncated, occluded or partly
hidden), per class and per edge. The border gaps are the other side of it: how far short of the
image border a box ends where the border cuts the object, which the border margin must cover for
the box to be marked truncated.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from metalogic.engine.schema import EDGES
from metalogic.extract.boxes import IOU_MATCH, Detection, cut_by_border, iou, match_frame
from metalogic.extract.trajectory import Box, State


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    iou_sum: float = 0.0
    id_switches: int = 0
    frames: int = 0
    tracks: int = 0
    per_class: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    # class -> (left, top, right, bottom) absolute edge errors in pixels, one per matched whole box
    edges: dict[str, list[tuple[int, int, int, int]]] = field(default_factory=lambda: defaultdict(list))
    # (class, "columns" or "rows", pixels): how far short of the border the detector's box of an
    # object the border cuts ends, on a side where it cuts it; one per matched cut box and side
    border_gaps: list[tuple[str, str, int]] = field(default_factory=list)

    def add_pair(
        self, det: Detection, truth: Box, overlap: float, size: tuple[int, int] | None = None
    ) -> None:
        """One matched detection: a hit, and where its true box is whole, its edge errors; given the
        image `size`, where the border cuts the true box, how far short of that border the box ends."""
        self.tp += 1
        self.iou_sum += overlap
        self.per_class[truth.cls]["tp"] += 1
        d, g = det.box, truth.box
        if not (truth.truncated or truth.occluded or truth.partly_hidden):
            errors = (abs(d[0] - g[0]), abs(d[1] - g[1]), abs(d[2] - g[2]), abs(d[3] - g[3]))
            self.edges[truth.cls].append(errors)
        if size is not None and cut_by_border(g, size):
            w, h = size
            for cut, gap, axis in (
                (g[0] <= 0, d[0], "columns"),
                (g[1] <= 0, d[1], "rows"),
                (g[2] >= w - 1, w - 1 - d[2], "columns"),
                (g[3] >= h - 1, h - 1 - d[3], "rows"),
            ):
                if cut:
                    self.border_gaps.append((truth.cls, axis, max(0, int(gap))))

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def mean_iou(self) -> float:
        return self.iou_sum / self.tp if self.tp else 0.0

    def add(self, other: Score) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.iou_sum += other.iou_sum
        self.id_switches += other.id_switches
        self.frames += other.frames
        self.tracks += other.tracks
        for cls, c in other.per_class.items():
            self.per_class[cls].update(c)
        for cls, e in other.edges.items():
            self.edges[cls].extend(e)
        self.border_gaps.extend(other.border_gaps)

    def as_json(self, slack: int | None = None) -> dict[str, Any]:
        """`slack`: the box slack the trajectories' facts will carry; each class then says what share
        of its whole boxes have every edge within it."""
        classes: dict[str, dict[str, Any]] = {}
        for cls, c in sorted(self.per_class.items()):
            tp, fp, fn = c["tp"], c["fp"], c["fn"]
            classes[cls] = {
                "tp": tp,
                "fp": fp,
                "fn": fn,
                "precision": round(tp / (tp + fp), 4) if tp + fp else 1.0,
                "recall": round(tp / (tp + fn), 4) if tp + fn else 1.0,
            }
            if self.edges.get(cls):
                classes[cls]["edges"] = edge_accuracy(self.edges[cls], slack)
        return {
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "mean_iou": round(self.mean_iou, 4),
            "id_switches": self.id_switches,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "frames": self.frames,
            "tracks": self.tracks,
            "classes": classes,
            **({"border_gap": border_gap_summary(self.border_gaps)} if self.border_gaps else {}),
        }


def quantile(sorted_xs: Sequence[int], q: float) -> int:
    """The q-quantile of sorted values, by the nearest rank at or above it (an observed value)."""
    return sorted_xs[min(len(sorted_xs) - 1, max(0, math.ceil(q * len(sorted_xs)) - 1))]


def edge_accuracy(errors: Sequence[tuple[int, int, int, int]], slack: int | None = None) -> dict[str, Any]:
    """Per edge the 90th percentile and the largest error (pixels) over the boxes; with a slack,
    the share of boxes whose four edges all lie within it."""
    out: dict[str, Any] = {"boxes": len(errors)}
    for i, name in enumerate(EDGES):
        xs = sorted(e[i] for e in errors)
        out[name] = {"p90": quantile(xs, 0.9), "max": xs[-1]}
    if slack is not None:
        out["slack"] = slack
        out["within_slack"] = round(sum(max(e) <= slack for e in errors) / len(errors), 4)
    return out


def border_gap_summary(gaps: Sequence[tuple[str, str, int]]) -> dict[str, Any]:
    """Per axis (columns for the left and right sides, rows for the top and bottom), over the boxes of
    objects the border cuts: how many, and the 90th percentile and the largest gap (pixels) between
    the box and the border it should reach; the same per class under "classes"."""

    def summary(xs: list[int]) -> dict[str, int]:
        xs = sorted(xs)
        return {"boxes": len(xs), "p90": quantile(xs, 0.9), "max": xs[-1]}

    out: dict[str, Any] = {}
    for axis in ("columns", "rows"):
        if xs := [g for _, a, g in gaps if a == axis]:
            out[axis] = summary(xs)
    per_class: dict[str, dict[str, dict[str, int]]] = {}
    for cls in sorted({c for c, _, _ in gaps}):
        per_class[cls] = {
            axis: summary(xs)
            for axis in ("columns", "rows")
            if (xs := [g for c, a, g in gaps if c == cls and a == axis])
        }
    out["classes"] = per_class
    return out


def measured_border_gap(total: dict[str, Any]) -> dict[str, dict[str, int]]:
    """The border gap a detector's card records (from its validation's as_json total): per class and
    axis the largest gap seen. Where it exceeds the border margin (extract/boxes.py), boxes of cut
    objects of that class can be read as whole. extract does not widen the margin to it: on the
    calibration worlds that cost many truthful cases and caught no cut box (docs/facts.md, Boxes)."""
    classes = total.get("border_gap", {}).get("classes", {})
    return {cls: {axis: g["max"] for axis, g in axes.items()} for cls, axes in sorted(classes.items())}


def measured_class_slack(classes: dict[str, dict[str, Any]], base: int) -> dict[str, dict[str, int]]:
    """The box slack per class and edge a detector's card records (from its validation's as_json
    classes): the largest error of the edge over the class's whole boxes, where that exceeds the
    trajectory-wide `base`. The largest, not a percentile: every box an MR reads must lie within its
    slack, and a box that merges two objects (a shelf's running 41 px above its top) is rare but real."""
    out: dict[str, dict[str, int]] = {}
    for cls, c in sorted(classes.items()):
        beyond = {
            name: c["edges"][name]["max"] for name in EDGES if "edges" in c and c["edges"][name]["max"] > base
        }
        if beyond:
            out[cls] = beyond
    return out


def edge_summary(edges: dict[str, Any]) -> str:
    """One line's end for a class: its boxes within the slack and its worst edge."""
    worst = max(EDGES, key=lambda name: (edges[name]["max"], edges[name]["p90"]))
    within = f"{edges['within_slack']:.0%} within {edges['slack']} px, " if "slack" in edges else ""
    return (
        f"edges of {edges['boxes']} whole boxes: {within}worst {worst} "
        f"(90% within {edges[worst]['p90']} px, largest {edges[worst]['max']} px)"
    )


def score_trajectory(
    states: Sequence[State], dets: Iterable[Detection], size: tuple[int, int] | None = None
) -> Score:
    """Score the detections of one trajectory against its ground-truth boxes (`size`: the frames'
    width and height, to measure the border gaps)."""
    by_state: dict[int, list[Detection]] = defaultdict(list)
    for d in dets:
        by_state[d.state].append(d)
    sc = Score()
    last_track: dict[str, int | str] = {}
    seen_tracks: set[int | str] = set()
    for st in states:
        if st.boxes is None:
            continue
        fm = match_frame(by_state.get(st.state, []), st.boxes)
        sc.frames += 1
        for d, g, ov in fm.pairs:
            sc.add_pair(d, g, ov, size)
            if g.object in last_track and last_track[g.object] != d.track:
                sc.id_switches += 1
            last_track[g.object] = d.track
        for d in fm.false_pos:
            sc.fp += 1
            sc.per_class[d.cls]["fp"] += 1
        for g in fm.missed:
            sc.fn += 1
            sc.per_class[g.cls]["fn"] += 1
        seen_tracks.update(d.track for d in by_state.get(st.state, []))
    sc.tracks = len(seen_tracks)
    return sc


def track_objects(states: Sequence[State], dets: Iterable[Detection]) -> dict[int | str, str]:
    """Tie each track to the ground-truth object it matches in most of its matched states."""
    by_state: dict[int, list[Detection]] = defaultdict(list)
    for d in dets:
        by_state[d.state].append(d)
    votes: dict[int | str, Counter[str]] = defaultdict(Counter)
    for st in states:
        if not st.boxes:
            continue
        fm = match_frame(by_state.get(st.state, []), st.boxes)
        for d, g, _ in fm.pairs:
            votes[d.track][g.object] += 1
    return {t: c.most_common(1)[0][0] for t, c in votes.items()}


def on_their_objects(states: Sequence[State], dets: Sequence[Detection]) -> list[Detection]:
    """The detections whose box shows the object their track is tied to (track_objects), where the
    trajectory has ground-truth boxes (else all of them). The truth of a question about a track is
    that of its tied object, so a box the tracker gave the track on another object (an identity
    switch) or on no object of the scene would pair one object's box with another's truth: the MRs
    that read it would flag a truthful answer. Such a box must overlap its object's box by IOU_MATCH
    and no other object's box more."""
    if not any(st.boxes for st in states):
        return list(dets)
    ties = track_objects(states, dets)
    boxes = {st.state: st.boxes for st in states}
    kept = []
    for d in dets:
        gts = boxes.get(d.state)
        if gts is None:
            kept.append(d)
            continue
        best = max(gts, key=lambda g: iou(d.box, g.box), default=None)
        tie = ties.get(d.track, d.track if isinstance(d.track, str) else None)  # str: --detector gt
        if best is not None and best.object == tie and iou(d.box, best.box) >= IOU_MATCH:
            kept.append(d)
    return kept


def render_table(rows: Sequence[tuple[str, Score]]) -> str:
    head = f"{'trajectory':<28} {'frames':>6} {'prec':>6} {'recall':>6} {'mIoU':>6} {'idsw':>5} {'tracks':>6}"
    lines = [head, "-" * len(head)]
    for name, s in rows:
        lines.append(
            f"{name:<28} {s.frames:>6} {s.precision:>6.3f} {s.recall:>6.3f} {s.mean_iou:>6.3f} "
            f"{s.id_switches:>5} {s.tracks:>6}"
        )
    return "\n".join(lines)
