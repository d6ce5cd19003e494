"""Reference agents: `oracle` (the truth), `noisy:<p>` (the truth, corrupted at rate p), `random`.

The oracle answers from ground-truth facts through the truth semantics declared in logic
(`metalogic.engine.truth.true_answers`, shared with the audit); nothing here decides what is true.
Noise and randomness are drawn per question from generators seeded by (seed, query id), so answers
do not depend on batch order or on resuming, and noisy agents are coupled across p: the questions
corrupted at rate p are a subset of those corrupted at any higher rate, each with the same wrong
value. Scores can then only fall as p rises, up to the chance that two wrong answers agree.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from metalogic.agents.base import Agent, AgentInfo, Answer, OnAnswer, Question
from metalogic.agents.values import AnswerSpace
from metalogic.engine.errors import MetalogicError
from metalogic.engine.terms import Term, parse_term, text

TruthFn = Callable[[str], dict[str, str]]  # program text -> {query id text: true value text}
SpaceFn = Callable[[Question], AnswerSpace]
RANDOM_RANGE = {"steps": (0, 20), "mm": (0, 20_000)}  # the random agent's magnitudes (up to 20 steps, 20 m)


def logic_truth() -> TruthFn:
    try:
        from metalogic.engine.truth import true_answers
    except ImportError:
        raise MetalogicError.single(
            "the oracle needs the truth semantics (metalogic.engine.truth), which this installation lacks",
            fix="update metalogic; meanwhile use a model agent",
        ) from None
    return true_answers


class OracleAgent(Agent):
    """Answers every question its truth function knows; `noisy` corrupts those answers."""

    def __init__(
        self,
        program: str,
        space: SpaceFn,
        truth: TruthFn | None = None,
        name: str = "oracle",
        questions: Sequence[Question] = (),
    ) -> None:
        self.name, self.program, self.space = name, program, space
        self._truth_fn = truth
        self._table: dict[str, str] | None = None
        self._questions = list(questions)

    def truth(self) -> dict[str, str]:
        if self._table is None:
            fn = self._truth_fn or logic_truth()
            self._table = dict(fn(self.program))
            _share_by_content(self._table, self._questions)
            if not self._table:
                raise MetalogicError.single(
                    f"{self.name} has no true answer for any question",
                    expected="ground-truth facts (gt_pose/4+, gt_object/6, gt_box/7) in the run's scene.lp",
                    fix="ask a model agent, or generate the run from simulator trajectories that carry "
                    "ground truth",
                )
        return self._table

    def true_value(self, q: Question) -> Term | None:
        got = self.truth().get(q.key)
        return parse_term(got) if got is not None else None

    async def stream(self, batch: Sequence[Question], on_answer: OnAnswer) -> None:
        for q in batch:
            on_answer(self.answer_one(q))

    def answer_one(self, q: Question) -> Answer:
        v = self.true_value(q)
        if v is None:
            return Answer(q, None, note="no ground truth for this question")  # skipped, not failed
        return Answer(q, v, note="truth")

    def info(self) -> AgentInfo:
        return AgentInfo("reference", self.name, {"truth": "metalogic.engine.truth.true_answers"})


def _share_by_content(table: dict[str, str], questions: Sequence[Question]) -> None:
    """The truth depends on a question's content, not on its surface form: a question the truth
    table lacks takes the true value of another form of the same content."""
    by_content: dict[str, str] = {}
    for q in questions:
        if q.key in table:
            by_content.setdefault(text(q.content), table[q.key])
    for q in questions:
        if q.key not in table and text(q.content) in by_content:
            table[q.key] = by_content[text(q.content)]


class NoisyAgent(OracleAgent):
    def __init__(
        self,
        p: float,
        program: str,
        space: SpaceFn,
        seed: int = 0,
        truth: TruthFn | None = None,
        name: str = "",
        questions: Sequence[Question] = (),
    ) -> None:
        super().__init__(program, space, truth, name or f"noisy:{p:g}", questions)
        self.p, self.seed = p, seed

    def answer_one(self, q: Question) -> Answer:
        base = super().answer_one(q)
        if base.value is None:
            return base
        if random.Random(f"noisy:{self.seed}:{q.key}").random() >= self.p:
            return base
        wrong = different_value(self.space(q), base.value, random.Random(f"noisy-value:{self.seed}:{q.key}"))
        return Answer(q, wrong, note=f"corrupted; truth {text(base.value)}") if wrong is not None else base

    def info(self) -> AgentInfo:
        return AgentInfo(
            "reference",
            self.name,
            {"p": self.p, "seed": self.seed, "truth": "metalogic.engine.truth.true_answers"},
        )


class RandomAgent(Agent):
    def __init__(self, space: SpaceFn, seed: int = 0, name: str = "random") -> None:
        self.name, self.space, self.seed = name, space, seed

    async def stream(self, batch: Sequence[Question], on_answer: OnAnswer) -> None:
        for q in batch:
            rng = random.Random(f"random:{self.seed}:{q.key}")
            on_answer(Answer(q, random_value(self.space(q), rng), note="random"))

    def info(self) -> AgentInfo:
        return AgentInfo("reference", self.name, {"seed": self.seed, "magnitude_ranges": RANDOM_RANGE})


def random_value(space: AnswerSpace, rng: random.Random) -> Term:
    """A uniformly random value among the offered options (or the whole vocabulary)."""
    offered = space.offered()
    if offered:
        return rng.choice(offered)
    lo, hi = RANDOM_RANGE[space.type]
    return rng.randint(lo, hi)


def different_value(space: AnswerSpace, truth: Term, rng: random.Random) -> Term | None:
    """A valid value of the same vocabulary that differs from `truth` (None if there is none)."""
    offered = [v for v in space.offered() if v != truth]
    if offered:
        return rng.choice(offered)
    if not space.is_magnitude:
        return None
    assert isinstance(truth, int)
    if space.type == "steps" or truth < 10:
        step = rng.choice([-3, -2, -1, 1, 2, 3])
        return truth + step if truth + step >= 0 else truth + abs(step)
    # a length scaled by a factor between 1/4 and 4, at least 1.5 away from 1 either way
    factor = math.exp(rng.choice([-1, 1]) * rng.uniform(math.log(1.5), math.log(4)))
    return min(1_000_000, max(0, round(truth * factor)))


def parse_noise(arg: str | None) -> float:
    try:
        p = float(arg or "")
    except ValueError:
        p = -1.0
    if not 0.0 <= p <= 1.0:
        raise MetalogicError.single(
            f"noisy needs a corruption rate between 0 and 1, got '{arg or ''}'",
            expected="noisy:P with 0 <= P <= 1, e.g. noisy:0.2",
        )
    return p
