"""Prompts: one question of a run rendered for a model, with a strict JSON answer format.

A prompt has four parts: what the model sees (the frames as images with the tracked boxes drawn,
or, for models without vision, the boxes listed as labelled coordinates), the question of the
query kind, the answer options of the surface form, and the reply format of the prompting
strategy (direct, cot, cogmap, memory). Every prompt also carries the JSON schema of its reply, for
backends that can constrain decoding to it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from metalogic.agents import PROMPTINGS
from metalogic.agents.base import ContextProvider, Question
from metalogic.agents.images import PromptImage, colour_name, frame_image
from metalogic.agents.rundir import RunDir, Trajectory
from metalogic.agents.values import AnswerSpace, space_for
from metalogic.engine.errors import MetalogicError
from metalogic.engine.facts import display_path
from metalogic.engine.paths import frame_place, open_root
from metalogic.engine.terms import Fun, Str, Term, text

MAX_LISTED = 8  # objects listed per frame for movement questions

QUESTIONS = {
    "move_dir": (
        "Between {v1} and {v2} you may have moved and turned. Describe that motion in your own body frame"
        " at step {s1}: which way did you travel (forward or backward, left or right, up or down, a "
        "combination, or none), and how had you turned by step {s2} (none, left, right or around)?"
    ),
    "move_dist": (
        "How far did you travel between step {s1} and step {s2}? Count the straight line from where you "
        "were at step {s1} to where you were at step {s2}, in steps of {step} mm, rounded to a whole "
        "number."
    ),
    "obj_dir": (
        "Where is the {a} relative to the {b} in this view? 'nearer' or 'farther' means closer to or "
        "further from the camera than the {b}; 'left' or 'right' as seen in the image; 'above' or 'below'"
        " means higher or lower in the scene. Join the parts that apply in that order with '_' (for "
        "example nearer_left); say 'same' when none applies."
    ),
    "obj_dist": "How far apart are the {a} and the {b} in the real world, measured between their centres?",
    "size": "How tall is the {o} in reality? Give its real height, not its size in the picture.",
    "depth": "How far is the {o} from the camera, measured along the direction the camera looks?",
    "map_dir": (
        "Picture a map of the scene seen from above, turned so that the way you face in this view points "
        "to the top of the map (north, n); east (e) is then to your right. On that map, in which "
        "direction does the {a} lie as seen from the {b}? Use n, ne, e, se, s, sw, w, nw, or eq if they "
        "stand at the same place."
    ),
    "map_dist": (
        "On a map of the scene seen from above, how far is the {a} from the {b} (horizontal distance, "
        "ignoring height)?"
    ),
    "ego_dist": "How far is the {o} from you (the camera), in a straight line?",
}
# The second wording (form `reworded`): the same question, said differently (MR3 compares the two).
REWORDED = {
    "move_dir": (
        "Compare {v1} with {v2}. Taking the way you faced at step {s1} as forward, in which direction did"
        " your position change, and how far had your heading rotated by step {s2} (none, left, right or "
        "around)?"
    ),
    "move_dist": (
        "Counted in steps of {step} mm and rounded to a whole number, what is the straight-line distance "
        "between your position at step {s1} and your position at step {s2}?"
    ),
    "obj_dir": (
        "Taking the {b} as the reference, describe where the {a} is as seen from the camera: nearer or "
        "farther from the camera, left or right in the image, above or below in the scene. Join the parts"
        " that apply in that order with '_' (for example farther_right_above); say 'same' when none "
        "applies."
    ),
    "obj_dist": "What is the real-world distance from the centre of the {b} to the centre of the {a}?",
    "size": "What is the actual height of the {o}, from its bottom to its top?",
    "depth": "Along the camera's line of sight, how deep in the scene is the {o}?",
    "map_dir": (
        "Draw the scene as a plan seen from above, turned so that your heading in this view is north (n) "
        "and your right hand is east (e). Standing at the {b}, in which direction is the {a}? Use n, ne, "
        "e, se, s, sw, w, nw, or eq for the same place."
    ),
    "map_dist": (
        "Ignoring height, how far apart are the {b} and the {a} on a plan of the scene seen from above?"
    ),
    "ego_dist": "What is the straight-line distance from your camera to the {o}?",
}
UNIT_WORDS = {
    "m": "a number of metres (decimals allowed)",
    "cm": "a whole number of centimetres",
    "steps": "a whole number of steps",
}
STRATEGY_TEXT = {
    "direct": "Reply with this JSON object and nothing else: {fmt}",
    "cot": (
        "Think it through first in a few short sentences. Then end your reply with this JSON object on "
        "its own last line: {fmt}"
    ),
    "cogmap": (
        "First sketch a map of the scene seen from above: a grid of 5 rows and 5 columns, one character "
        "per cell, with you ('X') in the centre cell facing the top row, each object drawn as the first "
        "letter of its label in the cell where it stands, and '.' for empty cells. Then answer. Reply "
        "with this JSON object and nothing else: {fmt}"
    ),
    "memory": "Reply with this JSON object and nothing else: {fmt}",
}
MEMORY_HEAD = "Notes from similar tasks you solved before (use them only where they fit):\n{context}\n\n"
PREAMBLE = (
    "You are an embodied agent. The views below come from your own camera as you move through a scene. "
    "Answer the spatial question about them."
)


@dataclass(frozen=True)
class PromptOptions:
    strategy: str = "direct"
    view: str = "image"  # image: frames as images; text: boxes listed as coordinates
    boxes: str = "both"  # drawn on the image, listed in the text, or both (image view only)
    max_side: int = 1024  # frames larger than this are scaled down (0: never)
    context: ContextProvider | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Prompt:
    text: str
    images: tuple[PromptImage, ...]
    schema: dict[str, Any]
    space: AnswerSpace

    def messages(self) -> list[dict[str, Any]]:
        """OpenAI chat messages: one user turn (some chat templates have no system role)."""
        if not self.images:
            return [{"role": "user", "content": self.text}]
        parts: list[dict[str, Any]] = []
        for img in self.images:
            parts.append({"type": "text", "text": img.caption})
            parts.append({"type": "image_url", "image_url": {"url": img.data_url}})
        parts.append({"type": "text", "text": self.text})
        return [{"role": "user", "content": parts}]

    def identity(self) -> dict[str, Any]:
        """What the reply depends on, with images by content hash (for the response cache)."""
        return {
            "text": self.text,
            "images": [[i.caption, i.sha256] for i in self.images],
            "schema": self.schema,
        }


class PromptBuilder:
    """Renders the questions of one run."""

    def __init__(self, run: RunDir, options: PromptOptions) -> None:
        if options.strategy not in PROMPTINGS:
            raise MetalogicError.single(
                f"unknown prompting strategy '{options.strategy}'", expected="one of " + ", ".join(PROMPTINGS)
            )
        if options.strategy == "memory" and options.context is None:
            raise MetalogicError.single(
                "the memory strategy needs a context provider",
                fix="pass context=... (the spatial memory's provider) to PromptOptions",
            )
        self.run, self.opt = run, options
        self._seen_frames: dict[Path, Path] = {}  # frame path -> where the file really is

    def space(self, q: Question) -> AnswerSpace:
        tr = self.run.trajectory(q)
        try:
            return space_for(q, tr.step_mm)
        except MetalogicError:  # say where the form stands (a scan of the file, so only on error)
            loc = self.run.queries.locate(Fun("form", (q.qid, q.form)))
            return space_for(q, tr.step_mm, loc[0] if loc else display_path(self.run.root / "queries.lp"))

    def build(self, q: Question) -> Prompt:
        tr = self.run.trajectory(q)
        space = self.space(q)
        images, seen = self._views(q, tr)
        question = self._question(q, tr, REWORDED if space.form == "reworded" else QUESTIONS)
        task = "\n\n".join(p for p in (PREAMBLE, seen, question, _options(space)) if p)
        fmt = _format(space, self.opt.strategy)
        body = task + "\n\n" + STRATEGY_TEXT[self.opt.strategy].format(fmt=fmt)
        if self.opt.strategy == "memory" and self.opt.context is not None:
            context = self.opt.context(q, task).strip()
            if context:
                body = MEMORY_HEAD.format(context=context) + body
        return Prompt(body, tuple(images), reply_schema(space, self.opt.strategy), space)

    # what the model sees -------------------------------------------------------------------------

    def _views(self, q: Question, tr: Trajectory) -> tuple[list[PromptImage], str]:
        a = q.content.args
        if q.kind in ("move_dir", "move_dist"):
            states, objs = [_int(a[1]), _int(a[2])], self._shared_objects(tr, _int(a[1]), _int(a[2]))
        else:
            states, objs = [_int(a[1])], list(a[2:])
        images: list[PromptImage] = []
        lines: list[str] = []
        drawn = self.opt.view == "image" and self.opt.boxes in ("drawn", "both") and len(states) == 1
        listed = self.opt.view == "text" or self.opt.boxes in ("listed", "both")
        for i, s in enumerate(states, start=1):
            word = "image" if self.opt.view == "image" else "view"
            name = f"{word} {i} (step {s})" if len(states) > 1 else f"the {word} (step {s})"
            present = [o for o in objs if o in tr.boxes.get(s, {})]
            if self.opt.view == "image":
                images.append(self._image(tr, s, name, present if drawn else []))
            if listed:
                lines.append(self._listing(tr, s, name, present, coloured=drawn))
            elif drawn:
                lines.append(
                    "Boxes on the image: "
                    + ", ".join(f"the {tr.label(o)} ({colour_name(k)})" for k, o in enumerate(present))
                    + "."
                )
        head = _geometry(tr, q.kind) if self.opt.view == "text" or listed else ""
        return images, "\n".join(p for p in [head, *lines] if p)

    def _shared_objects(self, tr: Trajectory, s1: int, s2: int) -> list[Term]:
        both = [o for o in tr.boxes.get(s1, {}) if o in tr.boxes.get(s2, {})]
        return sorted(both, key=text)[:MAX_LISTED]

    def preflight(self, q: Question) -> None:
        """Fail now, before anything is asked, if this question cannot be rendered."""
        self.space(q)
        if self.opt.view == "image":
            a = q.content.args
            for s in [_int(a[1]), _int(a[2])] if q.kind in ("move_dir", "move_dist") else [_int(a[1])]:
                self._frame_path(self.run.trajectory(q), s)

    def _frame_path(self, tr: Trajectory, s: int) -> Path:
        where = display_path(self.run.root / "scene.lp")
        if s not in tr.frames:
            raise MetalogicError.single(
                f"no frame/3 fact for trajectory {text(tr.tid)}, state {s}",
                where=where,
                expected='frame(T, S, "path") for every asked state',
                fix="ask with --view text (boxes as coordinates), or re-extract the trajectory with its "
                "frames",
            )
        path = self.run.scene_root / tr.frames[s]
        if path not in self._seen_frames:
            self._seen_frames[path] = self._checked_frame(tr, s, path, where)
        return self._seen_frames[path]

    def _checked_frame(self, tr: Trajectory, s: int, path: Path, where: str) -> Path:
        """The frame file's real place, once it is known to exist inside the run's folders."""
        try:
            exists = path.is_file()
            real = frame_place(path, self.run.scene_root) if exists else None
        except OSError as exc:  # e.g. a name too long for the file system
            exists, real = False, None
            path = Path(f"{str(path)[:120]}... ({exc.strerror})")
        if not exists:
            raise MetalogicError.single(
                f"frame image not found: {path}",
                where=where,
                expected="the frame files named by frame/3, relative to the run's scene_root (run.json)",
                fix="check scene_root in run.json, or ask without images: --view text",
            )
        if real is None:
            loc = self.run.scene.locate(Fun("frame", (tr.tid, s, Str(tr.frames[s]))))
            raise MetalogicError.single(
                f"the frame of trajectory {text(tr.tid)}, state {s} ({tr.frames[s]!r}) lies outside "
                f"the run's folders: it is {path.resolve()}",
                where=loc[0] if loc else where,
                expected=(
                    f"frame files inside the scene root {self.run.scene_root} or inside a trajectory "
                    "folder, also after following symbolic links"
                    if open_root(self.run.scene_root)
                    else "frame files inside a trajectory folder, also after following symbolic links (the "
                    f"scene root {self.run.scene_root} that run.json names is the file system's root or "
                    "holds the home folder, so it opens nothing)"
                ),
                fix="correct the frame/3 fact, or copy the frame into its trajectory folder",
            )
        return real

    def _image(self, tr: Trajectory, s: int, name: str, objs: list[Term]) -> PromptImage:
        boxes = [(tr.label(o), tr.boxes[s][o]) for o in objs]
        caption = name[0].upper() + name[1:] + ":"
        return frame_image(self._frame_path(tr, s), caption, boxes, self.opt.max_side)

    def _listing(self, tr: Trajectory, s: int, name: str, objs: list[Term], coloured: bool) -> str:
        if not objs:
            return f"In {name} no tracked object is visible."
        parts = []
        for k, o in enumerate(objs):
            x1, y1, x2, y2 = tr.boxes[s][o]
            colour = f" ({colour_name(k)} box)" if coloured else ""
            cut = ", cut off by the image border" if (s, o) in tr.truncated else ""
            parts.append(f"the {tr.label(o)}{colour} at [{x1}, {y1}, {x2}, {y2}]{cut}")
        return f"In {name}: " + "; ".join(parts) + "."

    def _question(self, q: Question, tr: Trajectory, wording: dict[str, str]) -> str:
        a = q.content.args
        step = tr.step_mm or 250
        if q.kind in ("move_dir", "move_dist"):
            s1, s2 = _int(a[1]), _int(a[2])
            v1, v2 = (
                (f"image 1 (step {s1})", f"image 2 (step {s2})")
                if self.opt.view == "image"
                else (f"view 1 (step {s1})", f"view 2 (step {s2})")
            )
            return wording[q.kind].format(s1=s1, s2=s2, v1=v1, v2=v2, step=step)
        if len(a) == 4:
            return wording[q.kind].format(a=tr.label(a[2]), b=tr.label(a[3]))
        return wording[q.kind].format(o=tr.label(a[2]))


def _geometry(tr: Trajectory, kind: str) -> str:
    parts = [
        "Objects are given by their boxes in the camera image: [x1, y1, x2, y2] in pixels, origin at the "
        "top-left corner, x to the right, y downwards."
    ]
    if tr.image_size:
        parts.append(f"Each image is {tr.image_size[0]} x {tr.image_size[1]} pixels.")
    if tr.camera and kind in ("size", "depth", "ego_dist", "obj_dist", "map_dist"):
        parts.append(f"The camera's focal length is {tr.camera[1]} pixels.")
    return " ".join(parts)


def _int(t: Term) -> int:
    return t if isinstance(t, int) and not isinstance(t, str) else 0


def _options(space: AnswerSpace) -> str:
    if space.is_magnitude:
        unit = UNIT_WORDS[space.unit]
        if space.options:
            shown = ", ".join(f"{space.to_unit(int(str(o))):g}" for o in space.options)
            return f"Answer with one of these values, as {unit}: {shown}."
        return f"Answer with {unit}."
    if space.is_move:
        if space.options:
            return (
                "Options (translation, turn): "
                + "; ".join(
                    f"{text(o.args[0])}, {text(o.args[1])}" for o in space.options if isinstance(o, Fun)
                )
                + "."
            )
        if space.form == "free":
            return (
                "Say the translation with the words forward, backward, left, right, up, down (or none) "
                "and the turn as none, left, right or around."
            )
        return f"Translation options: {', '.join(space.names)}. Turn options: {', '.join(space.turns)}."
    if space.options:
        return "Options: " + ", ".join(text(o) for o in space.options) + "."
    if space.form == "free":
        return "Say the direction in a few words."
    return "Options: " + ", ".join(space.names) + "."


def _format(space: AnswerSpace, strategy: str) -> str:
    fields: dict[str, str] = {"answer": "<direction>"}
    if space.is_move:
        fields = {"translation": "<translation>", "turn": "<turn>"}
    elif space.is_magnitude:
        fields = {"answer": "NUMBER"}
    lead = {"map": "<5 rows of 5 characters, separated by />"} if strategy == "cogmap" else {}
    return json.dumps({**lead, **fields}).replace('"NUMBER"', "<number>")


def reply_schema(space: AnswerSpace, strategy: str) -> dict[str, Any]:
    """The JSON schema of a reply, for constrained decoding."""
    props: dict[str, Any] = {}
    if strategy == "cot":
        props["reasoning"] = {"type": "string"}
    if strategy == "cogmap":
        props["map"] = {"type": "string"}
    if space.is_move:
        opts = space.options
        moves = [o for o in opts if isinstance(o, Fun)]
        props["translation"] = {
            "type": "string",
            "enum": sorted({text(o.args[0]) for o in moves}) if moves else list(space.names),
        }
        props["turn"] = {
            "type": "string",
            "enum": sorted({text(o.args[1]) for o in moves}) if moves else list(space.turns),
        }
    elif space.is_magnitude:
        if space.options:
            props["answer"] = {"type": "number", "enum": [space.to_unit(int(str(o))) for o in space.options]}
        else:
            props["answer"] = {"type": "integer" if space.unit in ("steps", "cm") else "number", "minimum": 0}
    else:
        names = [text(o) for o in space.options] if space.options else list(space.names)
        props["answer"] = {"type": "string", "enum": names}
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}
