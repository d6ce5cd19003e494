"""Scene facts of one trajectory: the facts file `metalogic extract` writes (docs/facts.md).

Everything is an integer or an atom: millimetres, pixels, degrees, confidences in thousandths.
Frame paths are written relative to the facts folder, so a run folder can be moved together with
its trajectories.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from metalogic.engine.schema import EDGES
from metalogic.engine.terms import Atom, Fun, Str, Term, text
from metalogic.extract.boxes import Detection, overlapping, touches_border
from metalogic.extract.evaluate import track_objects
from metalogic.extract.trajectory import State, Trajectory

MIN_TRACK_STATES = 3  # a track seen in at least this many states is persistent


def ident(v: int | str) -> Term:
    return v if isinstance(v, int) else Atom(v)


def yaw180(deg: int) -> int:
    """An angle in (-180, 180]."""
    d = ((deg + 180) % 360) - 180
    return 180 if d == -180 else d


def _fact(name: str, *args: Term) -> str:
    return text(Fun(name, tuple(args))) + "."


def persistent_tracks(dets: Sequence[Detection], n_states: int, min_states: int) -> list[int | str]:
    states_per_track: dict[int | str, set[int]] = {}
    for d in dets:
        states_per_track.setdefault(d.track, set()).add(d.state)
    need = min(min_states, n_states)
    return sorted((t for t, s in states_per_track.items() if len(s) >= need), key=lambda t: (str(type(t)), t))


def scene_facts(
    traj: Trajectory,
    states: Sequence[State],
    dets: Sequence[Detection],
    facts_dir: Path,
    *,
    detector: str,
    min_states: int = MIN_TRACK_STATES,
    box_slack: int | None = None,
    class_slack: Mapping[str, Mapping[str, int]] | None = None,
) -> str:
    """The facts file text for one trajectory. `class_slack`: the edges of the classes whose boxes
    may lie further off there than box_slack (class_slack/4)."""
    assert traj.root is not None
    t = Atom(traj.id)
    w, h = traj.image_size
    lines = [
        f"% scene facts of trajectory {traj.id} ({traj.scenario}), written by metalogic extract",
        f"% detector: {detector}; {len(dets)} detections in {len(states)} states",
        _fact("trajectory", t, Atom(traj.scenario)),
        _fact("image_size", t, w, h),
    ]
    if box_slack is not None:
        lines.append(_fact("box_slack", t, box_slack))
    if detector == "gt":  # the silhouettes' own boxes: the slack is a bound (MR17's sizes read it)
        lines.append(_fact("exact_boxes", t))
    for cls, edges in sorted((class_slack or {}).items()):
        for edge in EDGES:
            if edge in edges:
                lines.append(_fact("class_slack", t, Atom(cls), Atom(edge), edges[edge]))
    if traj.step_mm:
        lines.append(_fact("step_mm", t, int(traj.step_mm)))
    cam = traj.camera
    if cam:
        lines.append(
            _fact("camera", t, round(cam["fx"]), round(cam["fy"]), round(cam["cx"]), round(cam["cy"]))
        )
    rel_root = Path(os.path.relpath(traj.root.resolve(), facts_dir.resolve()))
    for st in states:
        lines.append(_fact("state", t, st.state))
        lines.append(_fact("frame", t, st.state, Str((rel_root / st.frame).as_posix())))
        if st.action:
            lines.append(_fact("action", t, st.state, Atom(st.action)))
        if st.camera_pose is not None:  # the rig's known tilt (an observation, like the intrinsics)
            lines.append(_fact("camera_pitch", t, st.state, st.camera_pose.pitch_deg))
    hidden = occluded_detections(states, dets, exact_boxes=detector == "gt")
    for d in sorted(dets, key=lambda d: (d.state, str(d.track))):
        lines.append(_fact("detection", t, d.state, ident(d.track), Atom(d.cls), d.conf_milli, *d.box))
        if touches_border(d.box, traj.image_size):
            lines.append(_fact("truncated", t, d.state, ident(d.track)))
        if (d.state, d.track) in hidden:
            lines.append(_fact("occluded", t, d.state, ident(d.track)))
    for o in persistent_tracks(dets, len(states), min_states):
        lines.append(_fact("persistent", t, ident(o)))
    lines += ground_facts(traj, states, dets)
    lines += truth_facts(traj, states, dets)
    return "\n".join(lines) + "\n"


def occluded_detections(
    states: Sequence[State], dets: Sequence[Detection], exact_boxes: bool = False
) -> set[tuple[int, int | str]]:
    """(state, track) of the detections whose box may not show the whole object because something
    nearer hides part of it. Where the simulator recorded boxes, it decides through the
    ground-truth object the track follows: for its own exact boxes (`exact_boxes`, the gt detector)
    where the hidden part may reach beyond the visible box, for a learned detector wherever
    something nearer hides part of the object (the detector may take the part in front for the
    object's, or stop short of it: a table's box with a teddy on it ran 28 px past the table's
    legs). Elsewhere a box that overlaps another detection's box counts as hidden, since either of
    the two may cover the other."""
    gt = {st.state: {b.object: b for b in st.boxes} for st in states if st.boxes is not None}
    ties = track_objects(states, dets) if gt else {}
    by_state: dict[int, list[Detection]] = {}
    for d in dets:
        by_state.setdefault(d.state, []).append(d)
    out = set()
    for d in dets:
        if d.state in gt:
            obj = d.track if isinstance(d.track, str) else ties.get(d.track)
            box = gt[d.state].get(obj) if obj is not None else None
            hidden = box is not None and (box.occluded if exact_boxes else box.partly_hidden)
        else:
            hidden = overlapping(d.box, [o.box for o in by_state[d.state] if o is not d])
        if hidden:
            out.add((d.state, d.track))
    return out


# Where the centre of the simulator's objects of each class projects within a whole box: the middle
# part of its width and height, in thousandths, that holds it (class_centre/4; the MRs that read boxes
# assume the middle centre_span_permille, 500, of any object). Measured by bench/centre_span.py on 24
# episodes of each world (seeds 6000-6023, 12 steps, 2,396 whole boxes), each part twice the largest
# distance from the middle seen, plus 100 and rounded up to 50 (bench/results/centre_span.json). The
# simulator's own objects only: an imported video's teddy is not the simulator's, so imports get none.
CLASS_CENTRE: dict[str, tuple[int, int]] = {
    "ball": (200, 250),
    "car": (250, 450),
    "duck": (350, 400),
    "mug": (300, 250),
    "robot": (400, 300),
    "shelf": (350, 250),
    "table": (350, 250),
    "teddy": (500, 350),
}


def ground_facts(traj: Trajectory, states: Sequence[State], dets: Sequence[Detection]) -> list[str]:
    """What a simulated world knows of its layout, for the MRs that read the ground plane (MR17):
    the camera's height above the floor in each state, and for each track tied to an object the
    height of the surface it stands on (the simulator places every object resting on the floor or
    on a table or shelf: its bottom) and its footprint's reach (half its base's diagonal). Only for
    simulated trajectories: an imported pose's height is in the dataset's own frame, so there the
    user's statement of the rig (`rig_facts`) is all that is known."""
    if traj.source.get("kind") != "simulator":
        return rig_facts(traj, states, dets)
    t = Atom(traj.id)
    out = [
        _fact("camera_height", t, st.state, st.camera_pose.z_mm)
        for st in states
        if st.camera_pose is not None and st.camera_pose.z_mm > 0
    ]
    classes = {d.cls for d in dets}
    out += [_fact("class_centre", t, Atom(c), *CLASS_CENTRE[c]) for c in sorted(classes) if c in CLASS_CENTRE]
    by_id = {o.id: o for o in traj.objects}
    ties = track_objects(states, dets) if any(st.boxes for st in states) else {}
    for track in persistent_tracks(dets, len(states), 1):
        obj = by_id.get(str(track)) if isinstance(track, str) else by_id.get(ties.get(track, ""))
        if obj is None:
            continue
        sx, sy, sz = obj.size_mm
        out.append(_fact("support", t, ident(track), obj.position_mm[2] - sz // 2))
        out.append(_fact("footprint", t, ident(track), math.ceil(math.hypot(sx, sy) / 2) + 1))
    return out


def rig_facts(traj: Trajectory, states: Sequence[State], dets: Sequence[Detection]) -> list[str]:
    """The ground-plane facts of an imported trajectory, from what the user stated at import: the
    camera's height in every state, its pitch where known (and the rig did not record it), and the
    surface each track stands on, by the class the detector gave it most often."""
    rig = traj.rig
    if not rig:
        return []
    t = Atom(traj.id)
    out = []
    if rig.camera_height_mm is not None:
        out += [_fact("camera_height", t, st.state, rig.camera_height_mm) for st in states]
    for st, pitch in zip(states, rig.pitches([st.action for st in states]), strict=True):
        if pitch is not None and st.camera_pose is None:
            out.append(_fact("camera_pitch", t, st.state, pitch))
    classes: dict[int | str, Counter[str]] = {}
    for d in dets:
        classes.setdefault(d.track, Counter())[d.cls] += 1
    for track in persistent_tracks(dets, len(states), 1):
        cls = min(classes[track].items(), key=lambda kv: (-kv[1], kv[0]))[0]
        height = rig.support_of(cls)
        if height is not None:
            out.append(_fact("support", t, ident(track), height))
    return out


def truth_facts(traj: Trajectory, states: Sequence[State], dets: Sequence[Detection]) -> list[str]:
    """Ground-truth facts, for the parts of the trajectory that have them."""
    t = Atom(traj.id)
    out = []
    for st in states:
        if st.pose is not None:
            p = st.pose
            out.append(_fact("gt_pose", t, st.state, p.x_mm, p.y_mm, p.z_mm, yaw180(p.yaw_deg)))
        if st.camera_pose is not None:
            c = st.camera_pose
            out.append(
                _fact("gt_camera", t, st.state, c.x_mm, c.y_mm, c.z_mm, yaw180(c.yaw_deg), c.pitch_deg)
            )
    for o in traj.objects:
        x, y, z = o.position_mm
        out.append(_fact("gt_object", t, Atom(o.id), x, y, z, max(0, o.size_mm[2])))
    for st in states:
        for b in st.boxes or []:
            out.append(_fact("gt_box", t, st.state, Atom(b.object), *b.box))
    if any(st.boxes for st in states):
        ties = track_objects(states, dets)
        for track, obj in sorted(ties.items(), key=lambda kv: str(kv[0])):
            out.append(_fact("gt_track", t, ident(track), Atom(obj)))
    return out


def intrinsics(width: int, height: int, vfov_deg: float) -> dict[str, float]:
    """Pinhole intrinsics of a camera with square pixels and the principal point at the centre."""
    fy = (height / 2) / math.tan(math.radians(vfov_deg) / 2)
    return {"fx": round(fy, 3), "fy": round(fy, 3), "cx": width / 2, "cy": height / 2, "vfov_deg": vfov_deg}
