"""A run directory as the ask loop sees it: scene facts, questions, and where frames live.

`metalogic generate` writes RUN_DIR/scene.lp, RUN_DIR/queries.lp and RUN_DIR/run.json (whose
"scene_root" is the facts folder that frame paths are relative to). Everything is read through the
validating facts reader; nothing here interprets the meaning of a query beyond naming its parts.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from metalogic.agents.base import Question
from metalogic.engine.errors import MetalogicError
from metalogic.engine.facts import FactSet, display_path, read_facts
from metalogic.engine.terms import Atom, Fun, Str, Term, parse_term, text

Box = tuple[int, int, int, int]


@dataclass
class Trajectory:
    """Scene facts of one trajectory, indexed for prompt building."""

    tid: Term
    scenario: str = ""
    image_size: tuple[int, int] | None = None
    step_mm: int | None = None
    camera: tuple[int, int, int, int] | None = None  # fx, fy, cx, cy
    frames: dict[int, str] = field(default_factory=dict)  # state -> path relative to scene_root
    boxes: dict[int, dict[Term, Box]] = field(default_factory=lambda: defaultdict(dict))
    classes: dict[Term, str] = field(default_factory=dict)
    truncated: set[tuple[int, Term]] = field(default_factory=set)

    def label(self, obj: Term) -> str:
        """How an object is named to a model: its class and track id ("mug o2"), or just the id
        when the id already says the class."""
        cls, oid = self.classes.get(obj, "object"), text(obj)
        return oid if oid.startswith(cls) else f"{cls} {oid}"


@dataclass
class RunDir:
    root: Path
    scene: FactSet
    queries: FactSet
    questions: list[Question]
    trajectories: dict[Term, Trajectory]
    scene_root: Path
    meta: dict[str, object]

    def program(self) -> str:
        """Scene and query facts as one program (what the truth semantics reads)."""
        return self.scene.program() + self.queries.program()

    def trajectory(self, q: Question) -> Trajectory:
        return self.trajectories.get(q.traj) or Trajectory(q.traj)

    def answers_dir(self) -> Path:
        return self.root / "answers"


def load_run(folder: str | Path) -> RunDir:
    """Read RUN_DIR (scene.lp, queries.lp, run.json); one clear error when something is missing."""
    root = Path(folder)
    if not root.is_dir():
        raise MetalogicError.single(
            f"run folder '{folder}' does not exist",
            expected="a folder written by 'metalogic generate'",
            fix="run 'metalogic generate FACTS_DIR --out RUN_DIR' first, then ask in RUN_DIR",
        )
    for name in ("scene.lp", "queries.lp"):
        if not (root / name).is_file():
            raise MetalogicError.single(
                f"{display_path(root / name)} is missing",
                expected="scene.lp and queries.lp in the run folder",
                fix="point at a folder written by 'metalogic generate'",
            )
    meta = _read_meta(root)
    scene = read_facts(root / "scene.lp")
    queries = read_facts(root / "queries.lp")
    questions = _questions(queries, root / "queries.lp")
    scene_root = Path(str(meta.get("scene_root") or root))
    if not scene_root.is_absolute():
        scene_root = (root / scene_root).resolve()
    return RunDir(root, scene, queries, questions, _trajectories(scene), scene_root, meta)


def _read_meta(root: Path) -> dict[str, object]:
    path = root / "run.json"
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # ValueError: not JSON, or not UTF-8
        raise MetalogicError.single(
            f"cannot read {display_path(path)}: "
            + ("it nests arrays or objects too deep" if isinstance(exc, RecursionError) else str(exc)[:200]),
            where=display_path(path),
            expected="the JSON file written by 'metalogic generate'",
            fix="re-run 'metalogic generate' to rewrite it",
        ) from None
    return data if isinstance(data, dict) else {}


def _questions(queries: FactSet, path: Path) -> list[Question]:
    contents: dict[str, Fun] = {}
    ids: dict[str, Term] = {}
    forms: dict[str, Term] = {}
    for fact in queries.facts:
        t = parse_term(fact)
        if not isinstance(t, Fun):
            continue
        if t.name == "query" and len(t.args) == 2 and isinstance(t.args[1], Fun):
            key = text(t.args[0])
            ids.setdefault(key, t.args[0])
            contents.setdefault(key, t.args[1])
        elif t.name == "form" and len(t.args) == 2:
            forms[text(t.args[0])] = t.args[1]
    if not contents:
        raise MetalogicError.single(
            f"no query/2 facts in {display_path(path)}",
            expected="query(Q, Content) facts, one per question",
            fix="run 'metalogic generate' to write the questions",
        )
    return [Question(ids[k], c, forms.get(k, Atom("choice"))) for k, c in contents.items()]


def _num(t: Term) -> int:
    return t if isinstance(t, int) and not isinstance(t, str) else 0


def _trajectories(scene: FactSet) -> dict[Term, Trajectory]:
    trajs: dict[Term, Trajectory] = {}
    class_votes: dict[Term, Counter[tuple[Term, str]]] = defaultdict(Counter)
    wanted = re.compile(r"(trajectory|image_size|step_mm|camera|frame|detection|truncated)\(")
    for fact in scene.facts:
        if not wanted.match(fact):
            continue
        t = parse_term(fact)
        assert isinstance(t, Fun)
        a = t.args
        tr = trajs.setdefault(a[0], Trajectory(a[0]))
        if t.name == "trajectory":
            tr.scenario = str(a[1])
        elif t.name == "image_size":
            tr.image_size = (_num(a[1]), _num(a[2]))
        elif t.name == "step_mm":
            tr.step_mm = _num(a[1])
        elif t.name == "camera":
            tr.camera = (_num(a[1]), _num(a[2]), _num(a[3]), _num(a[4]))
        elif t.name == "frame" and isinstance(a[2], Str):
            tr.frames[_num(a[1])] = str(a[2])
        elif t.name == "detection":
            tr.boxes[_num(a[1])][a[2]] = (_num(a[5]), _num(a[6]), _num(a[7]), _num(a[8]))
            class_votes[a[0]][(a[2], str(a[3]))] += 1
        elif t.name == "truncated":
            tr.truncated.add((_num(a[1]), a[2]))
    for tid, votes in class_votes.items():
        # an object keeps the class it was detected as most often
        for (obj, cls), _n in sorted(votes.items(), key=lambda kv: kv[1]):
            trajs[tid].classes[obj] = cls
    return trajs
