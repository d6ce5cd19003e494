"""Reference agents: `oracle` (the truth), `noisy:<p>` (the truth, corrupted at rate p), `random`,
and `biased:<kind>` (the truth, distorted in one consistent way).

The oracle answers from ground-truth facts through the truth semantics declared in logic
(`metalogic.engine.truth.true_answers`, shared with the audit); nothing here decides what is true.
Noise and randomness are drawn per question from generators seeded by (seed, query id), so answers
do not depend on batch order or on resuming, and noisy agents are coupled across p: the questions
corrupted at rate p are a subset of those corrupted at any higher rate, each with the same wrong
value. Scores can then only fall as p rises, up to the chance that two wrong answers agree.

Biased agents are wrong on purpose and always in the same way (mirrored, stale, scaled, ...), so
they show whether the MRs catch a systematic error; the direction transforms are rules of
logic/truth/biased.lp (`metalogic.engine.truth.biased_answers`), and this module only does the
bookkeeping around them: constants, scaling, shuffling, and falling back to the truth.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import TYPE_CHECKING

from metalogic.agents.base import Agent, AgentInfo, Answer, OnAnswer, Question
from metalogic.agents.values import MAX_MAGNITUDE, AnswerSpace
from metalogic.engine.errors import MetalogicError, did_you_mean
from metalogic.engine.terms import Term, parse_term, text

if TYPE_CHECKING:
    from metalogic.agents.registry import AgentSettings
    from metalogic.agents.rundir import RunDir

TruthFn = Callable[[str], dict[str, str]]  # program text -> {query id text: true value text}
BiasFn = Callable[[str, str], dict[str, str]]  # program text, bias/1 term -> {query id: value text}
SpaceFn = Callable[[Question], AnswerSpace]
RANDOM_RANGE = {"steps": (0, 20), "mm": (0, 20_000)}  # the random agent's magnitudes (up to 20 steps, 20 m)


def logic_truth() -> TruthFn:
    try:
        from metalogic.engine.truth import true_answers
    except ImportError:
        raise _no_truth() from None
    return true_answers


def logic_bias() -> BiasFn:
    try:
        from metalogic.engine.truth import biased_answers
    except ImportError:
        raise _no_truth() from None
    return biased_answers


def _no_truth() -> MetalogicError:
    return MetalogicError.single(
        "the reference agents need the truth semantics (metalogic.engine.truth), which this "
        "installation lacks",
        fix="update metalogic; meanwhile use a model agent",
    )


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


# --- biased:<kind>[:<arg>] ---------------------------------------------------------------------

# kind -> how it takes an argument ("none", "optional", "required") and its usage
BIAS_KINDS: dict[str, tuple[str, str]] = {
    "constant": ("optional", "biased:constant[:MM]"),
    "mirror": ("none", "biased:mirror"),
    "nearfar": ("none", "biased:nearfar"),
    "updown": ("none", "biased:updown"),
    "turnmap": ("optional", "biased:turnmap[:Q]"),
    "scale": ("required", "biased:scale:K"),
    "stale": ("none", "biased:stale"),
    "shuffle": ("none", "biased:shuffle"),
}
FIXED_LENGTH_KINDS = ("size", "depth")  # constant answers these with MM; every other length with 0


@dataclass(frozen=True)
class Bias:
    """One consistent distortion of the truth (see docs/agents.md, 'Biased agents')."""

    kind: str
    mm: int = 1000  # constant: the size and depth it always answers
    quarters: int = 1  # turnmap: quarter turns counter-clockwise, as rotate/4 turns names
    factor: Decimal = Decimal(1)  # scale: what every length is multiplied by

    @property
    def rule(self) -> str | None:
        """The bias/1 term of logic/truth/biased.lp, or None where Python alone distorts."""
        if self.kind in ("scale", "shuffle"):
            return None
        return f"turnmap({self.quarters % 4})" if self.kind == "turnmap" else self.kind

    def settings(self) -> dict[str, object]:
        """What the run manifest records about the distortion."""
        out: dict[str, object] = {"bias": self.kind}
        if self.kind == "constant":
            out["mm"] = self.mm
        elif self.kind == "turnmap":
            out["quarters"] = self.quarters
        elif self.kind == "scale":
            out["factor"] = str(self.factor)
        return out


def parse_bias(arg: str | None) -> Bias:
    """`KIND[:ARG]` of a biased:KIND[:ARG] spec; one clear error for an unknown kind or a bad ARG."""
    kind, sep, value = (arg or "").partition(":")
    usages = ", ".join(u for _, u in BIAS_KINDS.values())
    if kind not in BIAS_KINDS:
        hint = did_you_mean(kind, list(BIAS_KINDS))
        raise MetalogicError.single(
            f"unknown bias '{kind}' in 'biased:{arg or ''}'",
            expected="one of: " + usages,
            fix=(hint[0].upper() + hint[1:]) if hint else "see docs/agents.md, 'Biased agents'",
        )
    takes, usage = BIAS_KINDS[kind]
    if takes == "none" and sep:
        raise MetalogicError.single(
            f"biased:{kind} takes no argument, got 'biased:{arg}'", expected=usage, fix=f"use {usage}"
        )
    if takes == "required" and not value:
        raise _bad_arg(kind, value)
    if kind == "constant" and value:
        return Bias(kind, mm=_int_arg(kind, value, 0, MAX_MAGNITUDE))
    if kind == "turnmap" and value:
        return Bias(kind, quarters=_int_arg(kind, value, -1_000, 1_000))
    if kind == "scale":
        return Bias(kind, factor=_factor(value))
    return Bias(kind)


_ARG_HELP = {  # kind -> (placeholder, what it stands for, an example)
    "constant": ("MM", "the size and depth to answer in whole mm (0 to 1000000)", "biased:constant:500"),
    "turnmap": ("Q", "a whole number of quarter turns, counter-clockwise", "biased:turnmap:2"),
    "scale": ("K", "a positive decimal factor for every length", "biased:scale:2 or biased:scale:0.5"),
}


def _bad_arg(kind: str, value: str) -> MetalogicError:
    placeholder, what, example = _ARG_HELP[kind]
    got = f"got '{value}'" if value else "got none"
    return MetalogicError.single(
        f"biased:{kind} needs {what}, {got}",
        expected=f"biased:{kind}:{placeholder} with {placeholder} {what}",
        fix=f"write it as {example}",
    )


def _int_arg(kind: str, value: str, lo: int, hi: int) -> int:
    try:
        n = int(value)
    except ValueError:
        raise _bad_arg(kind, value) from None
    if not lo <= n <= hi:
        raise _bad_arg(kind, value)
    return n


def _factor(value: str) -> Decimal:
    try:
        k = Decimal(value)
    except InvalidOperation:
        raise _bad_arg("scale", value) from None
    if not k.is_finite() or k <= 0:
        raise _bad_arg("scale", value)
    return k


class BiasedAgent(OracleAgent):
    """The oracle's answers, each distorted in the one way `bias` names. A distortion that gives no
    value, or a value outside the question's answer space, leaves the truth (and says so in the note)."""

    def __init__(
        self,
        bias: Bias,
        program: str,
        space: SpaceFn,
        seed: int = 0,
        truth: TruthFn | None = None,
        name: str = "",
        questions: Sequence[Question] = (),
        rules: BiasFn | None = None,
    ) -> None:
        super().__init__(program, space, truth, name or f"biased:{bias.kind}", questions)
        self.bias, self.seed = bias, seed
        self._rules_fn = rules
        self._ruled: dict[str, str] | None = None
        self._sources: dict[str, str] | None = None

    def answer_one(self, q: Question) -> Answer:
        base = super().answer_one(q)
        if base.value is None:
            return base
        truth, kind, space = base.value, self.bias.kind, self.space(q)
        v = self.distort(q, truth, space)
        if v is None:
            return Answer(q, truth, note=f"{kind}: no distorted value for this question; truth kept")
        if not space.contains(v):
            return Answer(q, truth, note=f"{kind}: {text(v)} is outside the answer space; truth kept")
        note = f"biased {kind}; truth {text(truth)}"
        if space.options and v not in space.options:
            note += "; not among the offered options"
        return Answer(q, v, note=note)

    def distort(self, q: Question, truth: Term, space: AnswerSpace) -> Term | None:
        b = self.bias
        if b.kind == "scale":
            return scaled(truth, b.factor) if space.is_magnitude and isinstance(truth, int) else truth
        if b.kind == "constant" and space.is_magnitude:
            return b.mm if q.kind in FIXED_LENGTH_KINDS else 0
        if b.kind == "shuffle":
            src = self.sources().get(q.key)
            got = self.truth().get(src) if src is not None else None
        else:
            got = self.ruled().get(q.key)
        return parse_term(got) if got is not None else None

    def ruled(self) -> dict[str, str]:
        """The distorted answers biased.lp derives (shared across surface forms, as the truth is)."""
        if self._ruled is None:
            rule = self.bias.rule
            self._ruled = dict((self._rules_fn or logic_bias())(self.program, rule)) if rule else {}
            _share_by_content(self._ruled, self._questions)
        return self._ruled

    def sources(self) -> dict[str, str]:
        """shuffle: question key -> the key of the question whose true answer it is given. Within
        each group (one trajectory, one query kind, one set of offered values) a seeded derangement,
        drawn over the run's whole question list, so it does not depend on batch order or resuming."""
        if self._sources is None:
            truth = self.truth()
            groups: dict[str, set[str]] = {}
            for q in self._questions:
                if q.key in truth:
                    groups.setdefault(shuffle_group(q, self.space(q)), set()).add(q.key)
            self._sources = {}
            for group, members in sorted(groups.items()):
                keys = sorted(members)
                order = derangement(len(keys), random.Random(f"shuffle:{self.seed}:{group}"))
                self._sources.update(zip(keys, (keys[i] for i in order), strict=True))
        return self._sources

    def info(self) -> AgentInfo:
        return AgentInfo(
            "reference",
            self.name,
            {
                **self.bias.settings(),
                "seed": self.seed,
                "truth": "metalogic.engine.truth.true_answers",
                "rules": "logic/truth/biased.lp" if self.bias.rule else "",
            },
        )


def scaled(value: int, factor: Decimal) -> int:
    """A length times `factor`, rounded half up, capped at the schema's largest integer."""
    return min(MAX_MAGNITUDE, int((Decimal(value) * factor).to_integral_value(ROUND_HALF_UP)))


def shuffle_group(q: Question, space: AnswerSpace) -> str:
    """Questions whose answers may trade places: same trajectory, kind and offered values."""
    offered = ",".join(sorted(text(v) for v in space.offered()))
    return f"{text(q.traj)}|{q.kind}|{space.type}|{offered}"


def derangement(n: int, rng: random.Random) -> list[int]:
    """A random permutation with no fixed point (Sattolo's algorithm: one cycle through all n);
    for n = 1 the identity, as one question has no other to take an answer from."""
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = rng.randrange(i)
        order[i], order[j] = order[j], order[i]
    return order


# ---- the factories agents/kinds.py names: (arg, run, settings, name) -> (agent, view '') ----------


def make_oracle(arg: str | None, run: RunDir, s: AgentSettings, name: str) -> tuple[Agent, str]:
    from metalogic.agents.registry import space_fn

    return OracleAgent(run.program(), space_fn(run, s), name=name, questions=run.questions), ""


def make_noisy(arg: str | None, run: RunDir, s: AgentSettings, name: str) -> tuple[Agent, str]:
    from metalogic.agents.registry import space_fn

    agent = NoisyAgent(
        parse_noise(arg), run.program(), space_fn(run, s), s.seed, name=name, questions=run.questions
    )
    return agent, ""


def make_random(arg: str | None, run: RunDir, s: AgentSettings, name: str) -> tuple[Agent, str]:
    from metalogic.agents.registry import space_fn

    return RandomAgent(space_fn(run, s), seed=s.seed, name=name), ""


def make_biased(arg: str | None, run: RunDir, s: AgentSettings, name: str) -> tuple[Agent, str]:
    from metalogic.agents.registry import space_fn

    agent = BiasedAgent(
        parse_bias(arg), run.program(), space_fn(run, s), s.seed, name=name, questions=run.questions
    )
    return agent, ""
