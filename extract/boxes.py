"""Boxes: detections, overlap, and the matching of detections to ground-truth boxes.

One matching rule serves the tracker evaluation, the detector's validation and the tie from
tracks to ground-truth objects (gt_track/3), so all three count the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from metalogic.extract.trajectory import Box

IOU_MATCH = 0.5  # a detection and a ground-truth box of the same class match at this overlap
# Ground-truth boxes too small or too hidden to ask a detector for: matches to them are ignored
# rather than counted (neither a hit nor a false alarm), as in the usual "difficult" flag.
MIN_SIDE_PX = 10
MIN_PIXELS = 100


@dataclass(frozen=True)
class Detection:
    state: int
    track: int | str  # tracker id (int), or the ground-truth object id for --detector gt
    cls: str
    conf_milli: int
    box: tuple[int, int, int, int]  # x1, y1, x2, y2 in pixels (inclusive)


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    ix = min(a[2], b[2]) - max(a[0], b[0]) + 1
    iy = min(a[3], b[3]) - max(a[1], b[1]) + 1
    if ix <= 0 or iy <= 0:
        return 0.0
    inter = ix * iy
    area = (a[2] - a[0] + 1) * (a[3] - a[1] + 1) + (b[2] - b[0] + 1) * (b[3] - b[1] + 1) - inter
    return inter / area


def eligible(b: Box) -> bool:
    """Whether a ground-truth box counts for recall (big and visible enough to detect)."""
    x1, y1, x2, y2 = b.box
    return b.pixels >= MIN_PIXELS and x2 - x1 + 1 >= MIN_SIDE_PX and y2 - y1 + 1 >= MIN_SIDE_PX


# The border margin: a box whose edge comes within this many thousandths of the image's width (left
# and right edges) or height (top and bottom) of the border may be cut by it, and is not a whole
# view (docs/facts.md, Boxes). A detector's box of an object that the border cuts rarely ends on
# the first or last pixel: on fresh 320 x 240 renders the shipped detector's boxes of cut objects
# ended 7-8 pixels short on the tabletop, up to 23 from the drone and 16 on household shelves, and
# 5% (16 columns, 12 rows there) flagged every one of 299. A share of the side rather than pixels,
# since a detector's error grows with the frame when it sees it at a fixed inference size. Never
# under BORDER_MIN_PX, the anti-aliasing of an exact silhouette.
BORDER_MARGIN_PERMILLE = 50
BORDER_MIN_PX = 2


def border_margin(size: tuple[int, int]) -> tuple[int, int]:
    """The margin in pixels (columns, rows) for an image of `size` (width, height), rounded up."""
    w, h = size
    return (
        max(BORDER_MIN_PX, -(-w * BORDER_MARGIN_PERMILLE // 1000)),
        max(BORDER_MIN_PX, -(-h * BORDER_MARGIN_PERMILLE // 1000)),
    )


def touches_border(box: Sequence[int], size: tuple[int, int]) -> bool:
    """Whether a box (inclusive pixel indices) comes within the border margin: then it is truncated."""
    w, h = size
    mx, my = border_margin(size)
    return box[0] <= mx or box[1] <= my or box[2] >= w - 1 - mx or box[3] >= h - 1 - my


def cut_by_border(box: Sequence[int], size: tuple[int, int]) -> bool:
    """Whether an exact box (a silhouette's extent) reaches the first or last row or column."""
    w, h = size
    return box[0] <= 0 or box[1] <= 0 or box[2] >= w - 1 or box[3] >= h - 1


def overlapping(box: Sequence[int], others: Sequence[Sequence[int]]) -> bool:
    """Whether `box` shares a pixel with any of `others` (then one of them may hide the other)."""
    return any(
        min(box[2], o[2]) >= max(box[0], o[0]) and min(box[3], o[3]) >= max(box[1], o[1]) for o in others
    )


@dataclass
class FrameMatch:
    pairs: list[tuple[Detection, Box, float]]  # matched (detection, gt box, IoU)
    false_pos: list[Detection]
    missed: list[Box]  # eligible gt boxes no detection matched


def match_frame(dets: Sequence[Detection], gts: Sequence[Box]) -> FrameMatch:
    """Greedy one-to-one matching by IoU (>= IOU_MATCH, same class), best pairs first. Unmatched
    detections overlapping an ineligible gt box are ignored; other unmatched detections are false
    positives; unmatched eligible gt boxes are misses."""
    cand = sorted(
        ((iou(d.box, g.box), i, j) for i, d in enumerate(dets) for j, g in enumerate(gts) if d.cls == g.cls),
        reverse=True,
    )
    used_d: set[int] = set()
    used_g: set[int] = set()
    pairs = []
    for ov, i, j in cand:
        if ov < IOU_MATCH:
            break
        if i in used_d or j in used_g:
            continue
        used_d.add(i)
        used_g.add(j)
        pairs.append((dets[i], gts[j], ov))
    fps = []
    for i, d in enumerate(dets):
        if i in used_d:
            continue
        if any(
            iou(d.box, g.box) >= IOU_MATCH for j, g in enumerate(gts) if j not in used_g and not eligible(g)
        ):
            continue
        fps.append(d)
    # A match to an ineligible box is not a hit to count, but it is not a false alarm either.
    counted = [(d, g, ov) for d, g, ov in pairs if eligible(g)]
    missed = [g for j, g in enumerate(gts) if j not in used_g and eligible(g)]
    return FrameMatch(counted, fps, missed)


def split_class_switches(dets: Sequence[Detection]) -> list[Detection]:
    """Tracks cut where the detector's class changes: a tracker that carries one id from a mug
    over to the duck beside it joins two objects into one track, and every MR that compares an
    object's frames (its size in two states, its depth before and after a move) would then blame
    the truthful agent. Each run of one class within a track keeps the id for its first run and
    gets a new integer id (above every id in use) for each later run. A detector that wavers
    between two labels for one object only costs that object its long track."""
    used = [d.track for d in dets if isinstance(d.track, int)]
    fresh = max(used, default=0) + 1
    by_track: dict[int | str, list[Detection]] = {}
    for d in dets:
        by_track.setdefault(d.track, []).append(d)
    renamed: dict[tuple[int, int | str], int | str] = {}  # (state, old id) -> new id
    for track, ds in by_track.items():
        current, last_cls = track, None
        for d in sorted(ds, key=lambda d: d.state):
            if last_cls is not None and d.cls != last_cls and isinstance(track, int):
                current, fresh = fresh, fresh + 1
            last_cls = d.cls
            renamed[(d.state, track)] = current
    return [
        Detection(d.state, renamed[(d.state, d.track)], d.cls, d.conf_milli, d.box)
        if renamed[(d.state, d.track)] != d.track
        else d
        for d in dets
    ]
