"""Randomized differential test: clingo and SWI-Prolog derive identical results on random facts.

Thousands of small random worlds (a few objects and states, random queries of every kind in
random surface forms, random answers including `invalid` and answers that do not fit, random
detections and truncations, some malformed combinations the rules report as input errors) are
batched into a few engine runs: each world has its own trajectory, query ids and objects, so the
worlds cannot interact. Every result line of every kind must be identical on both engines.
On a disagreement the test shrinks it to a minimal fact set and prints it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache, lru_cache
from pathlib import Path
from typing import TypeVar

import pytest

from helpers import ROOT, run_cli
from metalogic.engine.check import differential
from metalogic.engine.check.differential import INPUT_CHECKS
from metalogic.engine.check.run import resolve_params
from metalogic.engine.results import split_args
from metalogic.engine.rules.loader import RuleSet, load_ruleset
from metalogic.engine.session.runs import EngineOutput
from metalogic.engine.terms import quote
from metalogic.engine.vocab import vocabulary

T = TypeVar("T")
SEED = 20260214
BATCHES = 6
WORLDS_PER_BATCH = 400

# Agent names: atoms and strings, including a string that spells an atom and one that needs escapes.
AGENTS = ("ag", "bot_2", quote("ag"), quote('say "hi" \\ twice'), quote("gpt-4o\nnew line"))
FORMS = ("choice", "options(b,a,c)", "verify(left)", "7", "yes_no(2,1)")


@lru_cache(maxsize=1)
def ruleset() -> RuleSet:
    return load_ruleset()


class World:
    """One random world, written as fact lines; `w` keeps its ids apart from every other world."""

    def __init__(self, rng: random.Random, w: int, faults: bool = True) -> None:
        # faults=False leaves out the faults that make an MR read one thing twice (an id reused for
        # another content, a second answer to one question, a second box of one object in one
        # frame): the check stops at those, and the MRs' results are only defined without them.
        # The same random draws are made either way.
        self.rng, self.w, self.faults = rng, w, faults
        self.lines: list[str] = []
        vocab = vocabulary()
        self.t = f"w{w}" if rng.random() < 0.8 else str(900_000 + w)
        self.states = list(range(rng.randint(2, 4)))
        pool = [f"o{w}_{c}" for c in "abcd"] + [str(1_000 * w + i) for i in range(2)]
        self.objects = rng.sample(pool, rng.randint(2, 4))
        self.kinds = list(vocab.query_kinds.values())
        self.queries: list[tuple[str, str, str]] = []  # (id, content, answer type)

    def qid(self, i: int) -> str:
        return f"q{self.w}_{i}" if self.rng.random() < 0.7 else str(10_000_000 + 10_000 * self.w + i)

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
        if rng.random() < 0.85:
            self.lines.append(f"trajectory({t},{rng.choice(['household', 'drone', 'tabletop'])}).")
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
        rng = self.rng
        for agent in rng.sample(AGENTS, rng.randint(1, 3)):
            for q, _, ty in self.queries:
                if rng.random() < 0.15:
                    continue
                self.lines.append(f"answer({agent},{q},{self.value(ty)}).")
                second = f"answer({agent},{q},{self.value(ty)})." if rng.random() < 0.02 else ""
                if second and self.faults:  # a second, different answer
                    self.lines.append(second)
            if rng.random() < 0.03:
                self.lines.append(f"answer({agent},q{self.w}_nowhere,n).")

    def value(self, ty: str) -> str:
        rng, vocab = self.rng, vocabulary()
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


def random_settings(rng: random.Random) -> list[str]:
    return [
        f"eps={rng.choice(['0.1', '0.001', '0.5', '1', '0'])}",
        f"delta={rng.choice(['0.05', '0.001', '0.25', '1', '0'])}",
        f"same_tol_steps={rng.randint(0, 1)}",
        f"same_tol_mm={rng.choice([0, 1, 10])}",
        f"tri_tol_steps={rng.randint(0, 2)}",
        f"tri_tol_mm={rng.choice([0, 1, 15])}",
    ]


def run_both(lines: list[str], params: dict[str, int]) -> tuple[EngineOutput, EngineOutput]:
    return differential.run_both(ruleset(), "".join(f"{x}\n" for x in lines), params)


def differences(a: EngineOutput, b: EngineOutput, only: tuple[str, ...] | None = None) -> list[str]:
    """The differing lines (of the predicates `only`, when given), each marked with the engine that
    alone derived it."""
    out = []
    for d in differential.differences(a, b, only):
        out += [f"only clingo: {x}" for x in d.only_first] + [f"only prolog: {x}" for x in d.only_second]
    return out


def shrink(items: list[list[str]], fails: Callable[[list[list[str]]], bool]) -> list[list[str]]:
    """Greedy minimisation: drop chunks of items (halves, quarters, ... single items) while the
    failure persists."""
    chunk = max(1, len(items) // 2)
    while True:
        i, changed = 0, False
        while i < len(items):
            trial = items[:i] + items[i + chunk :]
            if trial and fails(trial):
                items, changed = trial, True
            else:
                i += chunk
        if chunk == 1 and not changed:
            return items
        chunk = max(1, chunk // 2)


def reproducer(
    worlds: list[list[str]], params: dict[str, int], settings: list[str], only: tuple[str, ...] | None = None
) -> str:
    def fails(ws: list[list[str]]) -> bool:
        return bool(differences(*run_both([x for w in ws for x in w], params), only))

    ws = shrink(worlds, fails)
    facts = shrink([[x] for w in ws for x in w], fails)
    lines = [x[0] for x in facts]
    diff = differences(*run_both(lines, params), only)
    return (
        "minimal reproducer (metalogic check DIR --engine both "
        + " ".join(f"-c {s}" for s in settings)
        + "):\n"
        + "\n".join(lines)
        + "\n\ndifferences:\n"
        + "\n".join(diff)
    )


def make_batch(seed: int, faults: bool = True) -> tuple[list[list[str]], list[str]]:
    rng = random.Random(seed)
    worlds = [World(rng, w, faults).build() for w in range(WORLDS_PER_BATCH)]
    return worlds, random_settings(rng)


@cache
def run_batch(
    batch: int, faults: bool = False
) -> tuple[EngineOutput, EngineOutput, list[list[str]], dict[str, int], list[str]]:
    worlds, settings = make_batch(SEED + batch, faults)
    params = resolve_params(ruleset(), settings)
    clingo, prolog = run_both([x for w in worlds for x in w], params)
    return clingo, prolog, worlds, params, settings


@pytest.mark.parametrize("batch", range(BATCHES))
def test_engines_agree_on_random_worlds(batch: int) -> None:
    clingo, prolog, worlds, params, settings = run_batch(batch)
    # The batch must exercise the rules: many cases, verdicts both ways, input errors (answers that
    # do not fit, empty boxes, answers to no question).
    assert len(clingo.lines["testcase"]) > 2 * WORLDS_PER_BATCH
    assert len(clingo.lines["violation"]) > WORLDS_PER_BATCH
    assert clingo.lines["input_error"]
    diff = differences(clingo, prolog)
    if diff:
        pytest.fail(
            f"the engines disagree ({len(diff)} lines, first: {diff[0]})\n"
            + reproducer(worlds, params, settings)
        )


@pytest.mark.parametrize("batch", range(BATCHES))
def test_engines_agree_on_the_faults_of_random_worlds(batch: int) -> None:
    """With every fault in (a second answer, a second box, a reused query id), both engines find
    the same faults: the check stops at them, before any result of the MRs."""
    clingo, prolog, worlds, params, settings = run_batch(batch, faults=True)
    kinds = {line.split("(", 2)[1] for line in clingo.lines["input_error"]}
    assert {"two_answers", "two_boxes", "query_reused"} <= kinds
    diff = differences(clingo, prolog, INPUT_CHECKS)
    if diff:
        pytest.fail(
            f"the engines find other faults ({len(diff)} lines, first: {diff[0]})\n"
            + reproducer(worlds, params, settings, INPUT_CHECKS)
        )


def test_batches_cover_every_mr_and_capability_both_ways() -> None:
    """Across the batches, every (MR, capability) pair has test cases and violations."""
    served = {(m.id, sc) for m in ruleset().mrs for sc in m.serves}
    cases, violated = set(), set()
    for batch in range(BATCHES):
        clingo = run_batch(batch)[0]
        cases |= {tuple(split_args(x)[1:]) for x in clingo.lines["testcase"]}
        violated |= {tuple(split_args(x)[2:4]) for x in clingo.lines["violation"]}
    assert served <= cases
    assert served <= violated


def test_random_worlds_are_valid_facts(tmp_path: pytest.TempPathFactory) -> None:
    """The generator writes only facts the reader accepts, so the batches are real inputs."""
    from pathlib import Path

    from metalogic.engine.facts import read_facts

    worlds, _ = make_batch(SEED)
    folder = Path(str(tmp_path))
    (folder / "worlds.lp").write_text("".join(f"{x}\n" for w in worlds for x in w), encoding="utf-8")
    facts = read_facts(folder)
    assert len(facts) == sum(len(w) for w in worlds)


def test_the_shrinker_finds_a_minimal_failing_set() -> None:
    items = [[str(i)] for i in range(40)]
    found = shrink(items, lambda ws: {"7", "23"} <= {x for w in ws for x in w})
    assert found == [["7"], ["23"]]


def test_repeated_facts_change_nothing(tmp_path: Path) -> None:
    """Facts are a set: the shipped examples with every fact stated twice get the results of the
    examples as they are, from `check --engine both` (the engines agree, and no duplicate-box or
    duplicate-pitch input error arises)."""
    examples = sorted((ROOT / "examples" / "facts").glob("*.lp"))
    lines = [x for f in examples for x in f.read_text(encoding="utf-8").splitlines()]
    results = []
    for name, facts in (("once", lines), ("twice", lines + lines[::-1])):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "facts.lp").write_text("".join(f"{x}\n" for x in facts), encoding="utf-8")
        out = tmp_path / f"{name}-out"
        code, _out, err = run_cli(
            "check", str(folder), "--engine", "both", "--out", str(out), "--format", "csv"
        )
        assert code == 0, err
        results.append((out / "violations.csv").read_text())
    assert results[0] == results[1] and results[0].count("\n") > 20


def test_both_engines_report_a_fault_before_comparing_the_mrs(tmp_path: Path) -> None:
    """Two depth answers to one question: each engine's MR11 may read either depth (here clingo
    flags the move and SWI-Prolog does not), but the check stops at the fault, on both engines."""
    facts = [
        "query(q2,depth(t9,1,o1)).",
        "query(q3,depth(t9,2,o1)).",
        "query(q4,move_dist(t9,1,2)).",
        'answer("say \\"hi\\"",q2,6).',
        'answer("say \\"hi\\"",q2,4000).',
        'answer("say \\"hi\\"",q3,11).',
        'answer("say \\"hi\\"",q4,11).',
        "trajectory(t9,household).",
        "step_mm(t9,250).",
        "camera(t9,50000,50000,19999,240).",
        "camera_pitch(t9,1,60).",
        "camera_pitch(t9,2,15).",
        "detection(t9,1,o1,obj,751,1,2,3,62).",
        "detection(t9,2,o1,obj,94,355,249,357,309).",
    ]
    (tmp_path / "facts.lp").write_text("\n".join(facts) + "\n", encoding="utf-8")
    code, out, err = run_cli("check", str(tmp_path), "--engine", "both", "-c", "eps=1")
    assert code == 2 and out == ""
    assert (
        err.splitlines()[0]
        == f'error: {tmp_path / "facts.lp"}:4:1: agent "say \\"hi\\"" answers query q2 twice (4000 and 6)'
    )
    assert "disagree" not in err
