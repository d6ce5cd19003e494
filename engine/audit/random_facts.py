"""Random worlds of facts, one generator for every check that needs them: the audit's engine
agreement (`metalogic audit`, part d), the shard probes (engine/shards/run.py) and the randomized
differential tests.

Each world is one small trajectory: queries of every kind over a few states and objects, many in
motifs that form MR cases (a triple of relations, moves over three states, sizes and depths in two
frames, ...), some asked again or mirrored, random answers from each query's vocabulary (sometimes
invalid, not fitting or missing), the scene facts the anchored MRs read (camera, pitch, step, the
ground plane) and random detections, truncations and occlusions. With faults, some worlds also
break the input rules (a second answer, a second box, a reused query id).
"""

from __future__ import annotations

import random
from typing import TypeVar

from metalogic.engine.schema import SIMULATED
from metalogic.engine.terms import quote
from metalogic.engine.vocab import vocabulary

T = TypeVar("T")
# Agent names: atoms and strings, including a string that spells an atom and one that needs escapes.
AGENTS = ("ag", "bot_2", quote("ag"), quote('say "hi" \\ twice'), quote("gpt-4o\nnew line"))
FORMS = ("choice", "options(b,a,c)", "verify(left)", "7", "yes_no(2,1)")


class World:
    """One random world, written as fact lines; `w` keeps its ids apart from every other world."""

    def __init__(
        self,
        rng: random.Random,
        w: int,
        faults: bool = True,
        *,
        traj: str | None = None,
        answers: random.Random | None = None,
        scene: str | None = None,
    ) -> None:
        # faults=False leaves out the faults that make an MR read one thing twice (an id reused for
        # another content, a second answer to one question, a second box of one object in one
        # frame): the check stops at those, and the MRs' results are only defined without them.
        # The same random draws are made either way.
        # traj: the trajectory's name, which then prefixes every id (copies of one world under other
        # names, as the shard probes make); answers: draw the answers from this generator instead;
        # scene: the kind of world every trajectory states (else a random one, sometimes none).
        self.rng, self.w, self.faults, self.scene_name = rng, w, faults, scene
        self.answer_rng = answers or rng
        self.named = traj
        self.lines: list[str] = []
        vocab = vocabulary()
        t = f"w{w}" if rng.random() < 0.8 else str(900_000 + w)
        self.t = traj or t
        self.states = list(range(rng.randint(2, 4)))
        pool = [f"o{w}_{c}" for c in "abcd"] + [str(1_000 * w + i) for i in range(2)]
        if traj:  # objects are scoped by their trajectory: copies of a world share them
            pool = ["a", "b", "c", "d", "1", "2"]
        self.objects = rng.sample(pool, rng.randint(2, 4))
        self.kinds = list(vocab.query_kinds.values())
        self.queries: list[tuple[str, str, str]] = []  # (id, content, answer type)

    def qid(self, i: int) -> str:
        plain = self.rng.random() < 0.7
        if self.named:
            return f"{self.named}q{i}"
        return f"q{self.w}_{i}" if plain else str(10_000_000 + 10_000 * self.w + i)

    def content(self) -> tuple[str, str]:
        rng = self.rng
        k = rng.choice(self.kinds)
        s, s2 = rng.choice(self.states), rng.choice(self.states)
        a, b = rng.choice(self.objects), rng.choice(self.objects)
        args = {3: [self.t, str(s), a], 4: [self.t, str(s), a, b]}[k.arity]
        if k.name.startswith("move_"):
            args = [self.t, str(s), str(s2)]
        return f"{k.name}({','.join(args)})", k.answer_type

    def distinct(self, pool: list[T]) -> list[T]:
        return (self.rng.sample(pool, 3) if len(pool) >= 3 else self.rng.sample(pool, len(pool)) * 2)[:3]

    def motif(self) -> list[tuple[str, str]]:
        """A group of queries that forms MR cases: a triple of relations, a move over three
        states, sizes of two objects in two frames, a depth in two frames, an ego triangle, or a
        map seen before and after a move."""
        rng, t = self.rng, self.t
        # Mostly distinct states and objects (cases need them), sometimes repeated ones.
        s1, s2, s3 = rng.sample(self.states * 2, 3) if rng.random() < 0.2 else self.distinct(self.states)
        a, b, c = rng.sample(self.objects * 2, 3) if rng.random() < 0.2 else self.distinct(self.objects)
        shape = rng.choice(["triple", "moves", "sizes", "depths", "ego", "view", "placed", "moved", "kinds"])
        if shape == "triple":
            k, ty = rng.choice(
                [("obj_dir", "ego"), ("obj_dist", "mm"), ("map_dir", "map"), ("map_dist", "mm")]
            )
            return [(f"{k}({t},{s1},{x},{y})", ty) for x, y in ((a, b), (b, c), (a, c))]
        if shape == "moves":
            out = [(f"move_dist({t},{x},{y})", "steps") for x, y in ((s1, s2), (s2, s3), (s1, s3))]
            return out + [(f"move_dir({t},{x},{y})", "move") for x, y in ((s1, s2), (s2, s3), (s1, s3))]
        if shape == "sizes":
            return [(f"size({t},{s},{o})", "mm") for s in (s1, s2) for o in (a, b)]
        if shape == "depths":
            return [(f"depth({t},{s},{a})", "mm") for s in (s1, s2)]
        if shape == "ego":
            return [
                (f"ego_dist({t},{s1},{a})", "mm"),
                (f"ego_dist({t},{s1},{b})", "mm"),
                (f"map_dist({t},{s1},{a},{b})", "mm"),
            ]
        if shape == "placed":  # relations and sizes of objects whose depths are asked too (MR7-MR10)
            k, ty = rng.choice(
                [("obj_dir", "ego"), ("map_dir", "map"), ("obj_dist", "mm"), ("map_dist", "mm")]
            )
            return [
                (f"{k}({t},{s1},{a},{b})", ty),
                (f"size({t},{s1},{a})", "mm"),
                (f"ego_dist({t},{s1},{a})", "mm"),
                (f"depth({t},{s1},{a})", "mm"),
                (f"depth({t},{s1},{b})", "mm"),
            ]
        if shape == "moved":  # a move with the depth of one object in both frames (MR11, MR14)
            return [
                (f"move_dir({t},{s1},{s2})", "move"),
                (f"move_dist({t},{s1},{s2})", "steps"),
                (f"depth({t},{s1},{a})", "mm"),
                (f"depth({t},{s2},{a})", "mm"),
            ]
        if shape == "kinds":  # the same pair asked in two kinds (MR12, MR13)
            return [
                (f"obj_dir({t},{s1},{a},{b})", "ego"),
                (f"map_dir({t},{s1},{a},{b})", "map"),
                (f"obj_dist({t},{s1},{a},{b})", "mm"),
                (f"map_dist({t},{s1},{a},{b})", "mm"),
            ]
        return [
            (f"map_dir({t},{s1},{a},{b})", "map"),
            (f"map_dir({t},{s2},{a},{b})", "map"),
            (f"move_dir({t},{s1},{s2})", "move"),
        ]

    def build(self) -> list[str]:
        rng = self.rng
        contents = [c for _ in range(rng.randint(0, 3)) for c in self.motif()]
        contents += [self.content() for _ in range(rng.randint(0, 5))]
        for i, (content, ty) in enumerate(contents):
            self.queries.append((self.qid(i), content, ty))
            if rng.random() < 0.25:  # the same question again, or its mirror
                again = self.mirror(content) if rng.random() < 0.5 else content
                self.queries.append((self.qid(1000 + i), again, ty))
        ids = set()
        for q, content, _ in self.queries:
            if q in ids:
                continue
            ids.add(q)
            self.lines.append(f"query({q},{content}).")
            if rng.random() < 0.3:
                self.lines.append(f"form({q},{rng.choice(FORMS)}).")
        if self.queries and rng.random() < 0.03:  # an id reused for another content
            q, _, _ = rng.choice(self.queries)
            reused = f"query({q},{self.content()[0]})."
            if self.faults:
                self.lines.append(reused)
        if rng.random() < 0.03:
            self.lines.append(f"form(q{self.w}_missing,choice).")
        self.answers()
        self.scene()
        self.detections()
        return self.lines

    def scene(self) -> None:
        """What the anchored MRs read besides boxes: the kind of world, the step, the camera's
        intrinsics and pitch, and the tracker's slack (each sometimes missing)."""
        rng, t = self.rng, self.t
        if rng.random() < 0.85 and not self.scene_name:
            self.lines.append(f"trajectory({t},{rng.choice(SIMULATED)}).")
        if self.scene_name:
            self.lines.append(f"trajectory({t},{self.scene_name}).")
        if rng.random() < 0.85:
            self.lines.append(f"step_mm({t},{rng.choice([250, 250, 50, 1000])}).")
        if rng.random() < 0.85:
            fx = rng.choice([300, 600, 600, 1500, 50_000])
            self.lines.append(
                f"camera({t},{fx},{fx - rng.choice([0, 0, 7])},{rng.choice([320, 19_999])},240)."
            )
        for s in self.states:
            if rng.random() < 0.85:
                self.lines.append(f"camera_pitch({t},{s},{rng.choice([0, 0, 0, -10, 15, 60, -89])}).")
        if rng.random() < 0.3:
            self.lines.append(f"box_slack({t},{rng.choice([0, 1, 3, 100])}).")
        # The ground plane (MR17): camera heights, supports, footprints, drawn from a generator of
        # their own (seeded from the world's, which it leaves as it is: the other draws stay the same).
        g = random.Random(f"ground:{rng.getstate()[1][:4]}:{self.w}")
        if g.random() < 0.6:
            for s in self.states:
                if g.random() < 0.9:
                    self.lines.append(f"camera_height({t},{s},{g.choice([1200, 1500, 1500, 300, 50])}).")
            for o in self.objects:
                if g.random() < 0.8:
                    self.lines.append(f"support({t},{o},{g.choice([0, 0, 400, 1400])}).")
                if g.random() < 0.3:
                    self.lines.append(f"footprint({t},{o},{g.choice([50, 200, 600])}).")

    def mirror(self, content: str) -> str:
        name, args = content[:-1].split("(", 1)
        parts = args.split(",")
        if name.startswith("move_"):
            parts[1], parts[2] = parts[2], parts[1]
        elif len(parts) == 4:
            parts[2], parts[3] = parts[3], parts[2]
        return f"{name}({','.join(parts)})"

    def answers(self) -> None:
        rng = self.answer_rng
        for agent in rng.sample(AGENTS, rng.randint(1, 3)):
            for q, _, ty in self.queries:
                if rng.random() < 0.15:
                    continue
                self.lines.append(f"answer({agent},{q},{self.value(ty)}).")
                second = f"answer({agent},{q},{self.value(ty)})." if rng.random() < 0.02 else ""
                if second and self.faults:  # a second, different answer
                    self.lines.append(second)
            if rng.random() < 0.03:
                self.lines.append(f"answer({agent},{self.named or f'q{self.w}_'}nowhere,n).")

    def value(self, ty: str) -> str:
        rng, vocab = self.answer_rng, vocabulary()
        r = rng.random()
        if r < 0.08:
            return "invalid"
        if r < 0.11:  # does not fit (another vocabulary, a number, a broken move)
            return rng.choice(["left", "ne", "7", "move(forward)", "move(up,sideways)", "forward", "same"])
        if ty == "move":
            common = ("none", "forward", "backward", "left", "right")
            names = vocab.names["move"] if rng.random() < 0.3 else common
            return f"move({rng.choice(names)},{rng.choice(list(vocab.turns))})"
        if ty in vocab.names:
            names = vocab.names[ty]
            return rng.choice(names if rng.random() < 0.5 else names[:7])
        return str(rng.choice([0, 1, 2, 3, 4, 5, 6, 10, 11, 12, 100, 800, 1500, 4000, 999_999, 1_000_000]))

    def detections(self) -> None:
        rng = self.rng
        for s in self.states:
            for o in self.objects:
                if rng.random() < 0.3:
                    continue
                heights = [0, 3, 10, 40, 44, 60, 80, 88, 120, 400, 800, 1200, 19_990, 19_993]
                h = rng.choice(heights) if rng.random() < 0.97 else -1
                if rng.random() < 0.5:  # a box anywhere in a 640 x 480 frame, of any width
                    x1, y1 = rng.randint(0, 600), rng.randint(0, 440)
                    w = rng.choice([0, 2, 20, 60, 200])
                else:  # a narrow box at the top left corner
                    x1, y1, w = rng.randint(0, 3), rng.randint(0, 5), rng.randint(0, 2)
                self.lines.append(
                    f"detection({self.t},{s},{o},obj,{rng.randint(0, 1000)},{x1},{y1},"
                    f"{x1 + w},{min(y1 + max(h, 0), 19_999)})."
                )
                if rng.random() < 0.02 and self.faults:  # a second box
                    self.lines.append(f"detection({self.t},{s},{o},obj,500,0,0,5,{y1 + 3}).")
                if rng.random() < 0.2:
                    self.lines.append(f"truncated({self.t},{s},{o}).")
                if rng.random() < 0.1:
                    self.lines.append(f"occluded({self.t},{s},{o}).")


def random_worlds(rng: random.Random, count: int, faults: bool = True) -> list[list[str]]:
    """`count` worlds, each its own trajectory with its own ids: lists of fact lines."""
    return [World(rng, w, faults).build() for w in range(count)]


def random_program(
    rng: random.Random, traj: str, answers: random.Random | None = None, scene: str | None = None
) -> str:
    """One random world without faults as program text, its trajectory named `traj` (which prefixes
    its ids). `answers`: draw the agents' answers from this generator instead of `rng` (two calls
    with equal `rng` seeds then differ in their answers alone); `scene`: the kind of world it states."""
    return "".join(
        f"{line}\n" for line in World(rng, 0, False, traj=traj, answers=answers, scene=scene).build()
    )
