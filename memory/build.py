"""The construction phase: the agent answers the environment split with its memory, the answers are
verified, the cards that guided them learn from the reward, and new cards are written.

One batch is one trajectory (the MR verifier needs all of a trajectory's answers to judge any of
them). For each batch:
  1. retrieve cards for every question with the bank as it stands (two-stage retrieval);
  2. the agent answers with those cards in its prompt (the `memory` prompting strategy);
  3. the verifier turns each answer into a reward (logic/memory/reward);
  4. every card shown for a rewarded answer gets a visit; logic/memory/trs gives its new n, c, v;
  5. on the first pass, a reflection on each judged answer becomes a new card, unless it leaks the
     answer;
  6. all of it is committed in one transaction, together with "batch done" (so a build stopped at
     any point resumes after the last committed batch and loses no written card).
Later passes (--passes N) only update statistics: no card is written.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from metalogic.engine.errors import MetalogicError, did_you_mean
from metalogic.engine.results import split_args
from metalogic.engine.terms import text
from metalogic.memory.bank import Bank, NewCard, Visit
from metalogic.memory.logic import initial_trs, trs_update
from metalogic.memory.reflect import (
    REFLECTION_SCHEMA,
    REFLECTORS,
    Outcome,
    Reflection,
    echoes_prompt,
    leaks,
    parse_reflection,
    reflection_prompt,
    template_reflection,
)
from metalogic.memory.retrieve import Hit, Settings, render_context, retrieve_vector, task_shape
from metalogic.memory.verify import Given, check_verifier, mr_cases, outcomes, truth_table

if TYPE_CHECKING:
    from metalogic.agents.base import Agent, Answer, Question
    from metalogic.agents.rundir import RunDir


@dataclass(frozen=True)
class BuildOptions:
    settings: Settings = field(default_factory=Settings)
    verifier: str = "auto"
    passes: int = 1
    reflector: str = "auto"  # auto: the model for model agents, the template for reference agents
    check_engine: str = "clingo"
    truth_tol: int | None = None  # thousandths; None: the rule file's default
    limit: int | None = None  # at most this many trajectories per pass


@dataclass
class BatchReport:
    pass_no: int
    batch: str
    questions: int
    answered: int = 0
    judged: int = 0
    reward_sum: int = 0  # thousandths
    visits: int = 0
    written: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    @property
    def mean_reward(self) -> float | None:
        return self.reward_sum / self.judged / 1000 if self.judged else None


@dataclass
class BuildReport:
    agent: str
    batches: list[BatchReport] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (pass, batch) done before

    def totals(self, pass_no: int | None = None) -> dict[str, Any]:
        bs = [b for b in self.batches if pass_no is None or b.pass_no == pass_no]
        judged = sum(b.judged for b in bs)
        rejected: Counter[str] = Counter()
        for b in bs:
            rejected.update(b.rejected)
        return {
            "batches": len(bs),
            "questions": sum(b.questions for b in bs),
            "answered": sum(b.answered for b in bs),
            "judged": judged,
            "mean_reward": round(sum(b.reward_sum for b in bs) / judged / 1000, 3) if judged else None,
            "visits": sum(b.visits for b in bs),
            "written": sum(b.written for b in bs),
            "rejected": dict(rejected),
            "seconds": round(sum(b.seconds for b in bs), 1),
        }


# ---- the task text a card is about ----------------------------------------------------------------


def task_texts(run: RunDir, view: str, questions: Sequence[Question]) -> dict[str, str]:
    """What each task is, as the memory sees it: the task the agents' prompt builder renders for the
    `memory` strategy (what a context provider receives), cut to its question and options by
    `task_shape` (box coordinates would swamp the embedding). The same text deployment embeds."""
    from metalogic.agents.prompts import PromptBuilder, PromptOptions

    captured: dict[str, str] = {}

    def capture(q: Question, task: str) -> str:
        captured[q.key] = task
        return ""

    builder = PromptBuilder(run, PromptOptions(strategy="memory", view=view or "text", context=capture))
    for q in questions:
        builder.build(q)
    return {key: task_shape(task) for key, task in captured.items()}


# ---- one batch ------------------------------------------------------------------------------------

Reflector = Callable[[list[tuple["Question", str, "Answer", Outcome, str | None]]], list[Reflection | None]]


@dataclass
class Builder:
    """Runs the construction phase of one agent over one run folder into one bank."""

    run: RunDir
    agent: Agent
    bank: Bank
    options: BuildOptions
    reflector: Reflector
    view: str  # the view the agent is asked in (image or text; '' for reference agents)
    contexts: dict[str, str] = field(
        default_factory=dict
    )  # question key -> memory context (the provider reads it)
    on_batch: Callable[[BatchReport], None] | None = None
    _truth: dict[str, str] | None = None

    @property
    def run_key(self) -> str:
        return str(self.run.root.resolve())

    def context(self, q: Question, task: str) -> str:
        """The context provider given to the agent's prompts: this batch's retrieved cards."""
        return self.contexts.get(q.key, "")

    def truth(self) -> dict[str, str]:
        if self._truth is None:
            self._truth = (
                truth_table(self.run.program()) if self.options.verifier in ("auto", "truth") else {}
            )
        return self._truth

    def batches(self) -> list[tuple[str, list[Question]]]:
        by_traj: dict[str, list[Question]] = {}
        for q in self.run.questions:
            by_traj.setdefault(text(q.traj), []).append(q)
        return sorted(by_traj.items())

    def run_all(self) -> BuildReport:
        opt = self.options
        report = BuildReport(self.agent.name)
        if opt.verifier == "truth" and not self.truth():
            raise MetalogicError.single(
                "the truth verifier has no ground truth for any question of this run",
                expected="gt_pose/gt_object/gt_box facts in the run's scene.lp",
                fix="use --verifier mr (label-free) or auto",
            )
        batches = self.batches()[: opt.limit]
        v0 = initial_trs(opt.settings.engine)
        for pass_no in range(1, opt.passes + 1):
            done = self.bank.done_batches(pass_no, self.run_key)
            for name, questions in batches:
                if name in done:
                    report.skipped.append((pass_no, name))
                    continue
                rep = self.one_batch(pass_no, name, questions, v0)
                report.batches.append(rep)
                if self.on_batch:
                    self.on_batch(rep)
        if not self.bank.readonly:
            self.bank.save_index()
        return report

    def one_batch(self, pass_no: int, name: str, questions: list[Question], v0: int) -> BatchReport:
        t0 = time.monotonic()
        rep = BatchReport(pass_no, name, len(questions))
        shapes = task_texts(self.run, self.view, questions)
        vecs = _embed(self.bank, [shapes[q.key] for q in questions])
        shown: dict[str, list[Hit]] = {}
        for q, vec in zip(questions, vecs, strict=True):
            shown[q.key] = retrieve_vector(self.bank, vec, self.options.settings)
        self.contexts = {k: render_context(h) for k, h in shown.items()}
        answers = [a for a in self.agent.answer(questions) if a.value is not None]
        rep.answered = len(answers)
        given = [Given(a.question.qid, a.question.content, a.value) for a in answers if a.value is not None]
        judged = self.judge(name, given)
        visits = self.visits(pass_no, name, judged, shown)
        cards: list[NewCard] = []
        if pass_no == 1:
            cards = self.new_cards(name, answers, judged, shapes, rep)
        rep.judged = len(judged)
        rep.reward_sum = sum(o.reward for o in judged.values())
        rep.visits = len(visits)
        index_of = {q.key: i for i, q in enumerate(questions)}
        with self.bank.transaction() as conn:
            ids = [
                self.bank.insert_card(conn, card, vecs[index_of[card.provenance["query"]]], v0)
                for card in cards
            ]
            self.bank.record_visits(conn, visits)
            self.bank.mark_done(conn, pass_no, self.run_key, name)
            self.bank.add_sources(conn, str(self.run.scene_root), [name])
        self.bank.index_cards(ids)
        rep.written = len(ids)
        rep.seconds = time.monotonic() - t0
        return rep

    def judge(self, batch: str, given: Sequence[Given]) -> dict[str, Outcome]:
        opt = self.options
        cases: dict[str, tuple[int, int]] = {}
        if opt.verifier in ("auto", "mr") and given:
            scene, queries = self.batch_programs(batch)
            cases = mr_cases(
                scene, self.agent.name, given, check_engine=opt.check_engine, queries_program=queries
            )
        return outcomes(
            given,
            verifier=opt.verifier,
            truth=self.truth(),
            cases=cases,
            logic=opt.settings.engine,
            truth_tol=opt.truth_tol,
        )

    def batch_programs(self, batch: str) -> tuple[str, str]:
        """The scene and query facts of one trajectory (facts of other trajectories left out)."""

        def first(f: str) -> str:
            return split_args(f)[0] if "(" in f else ""

        scene = "".join(f"{f}.\n" for f in self.run.scene.facts if first(f) == batch)
        keep, lines = set(), []
        for f in self.run.queries.facts:
            if f.startswith("query(") and first(split_args(f)[1]) == batch:
                keep.add(first(f))
                lines.append(f)
        lines += [f for f in self.run.queries.facts if f.startswith("form(") and first(f) in keep]
        return scene, "".join(f"{f}.\n" for f in lines)

    def visits(
        self, pass_no: int, batch: str, judged: dict[str, Outcome], shown: dict[str, list[Hit]]
    ) -> list[Visit]:
        seen = [(h.card.id, key) for key, hits in shown.items() if key in judged for h in hits]
        if not seen:
            return []
        keys = {key: n for n, key in enumerate(sorted({k for _, k in seen}))}
        before = self.bank.stats_of(sorted({c for c, _ in seen}))
        # One rule call per visit, in a fixed order, so that the history holds the statistics after
        # each visit; the final statistics do not depend on that order (the TRS is order-invariant).
        out: list[Visit] = []
        running = dict(before)
        for cid, key in sorted(seen, key=lambda cv: (keys[cv[1]], cv[0])):
            o = judged[key]
            st = trs_update({cid: running[cid]}, [(cid, keys[key], o.reward)], self.options.settings.engine)[
                cid
            ]
            running[cid] = (st.n, st.c)
            out.append(Visit(cid, pass_no, f"{batch}/{key}", o.verifier, o.reward, st))
        return out

    def new_cards(
        self,
        batch: str,
        answers: Sequence[Answer],
        judged: dict[str, Outcome],
        shapes: dict[str, str],
        rep: BatchReport,
    ) -> list[NewCard]:
        from metalogic.engine.vocab import vocabulary

        todo = [
            (a.question, shapes[a.question.key], a, judged[a.question.key], self.truth().get(a.question.key))
            for a in answers
            if a.question.key in judged
        ]
        reflections = self.reflector(todo) if todo else []
        magnitudes = vocabulary().magnitudes
        out: list[NewCard] = []
        for (q, shape, a, outcome, truth), refl in zip(todo, reflections, strict=True):
            if refl is None:
                rep.rejected["unreadable"] += 1
                continue
            if echoes_prompt(refl):
                rep.rejected["echo"] += 1
                continue
            ty = vocabulary().query_kinds[q.kind].answer_type
            said = [(ty, text(a.value))] + ([(ty, truth)] if truth is not None else [])
            why = leaks(refl.summary + "\n" + refl.lesson, said, magnitudes)
            if why:
                rep.rejected["leak"] += 1
                continue
            prov = {
                "run": str(self.run.root),
                "scene_root": str(self.run.scene_root),
                "trajectory": batch,
                "query": q.key,
                "agent": self.agent.name,
                "verifier": outcome.verifier,
                "source_reward": outcome.reward,
                "pass": 1,
            }
            out.append(NewCard(q.kind, shape, refl.summary, refl.lesson, prov))
        return out


def _embed(bank: Bank, texts: list[str]) -> Any:
    from metalogic.memory.embed import get_embedder

    return get_embedder(bank.embedder).encode(texts)


# ---- reflectors -----------------------------------------------------------------------------------


def template_reflector(laws_for: Callable[[str], list[str]]) -> Reflector:
    def reflect(items: list[tuple[Question, str, Answer, Outcome, str | None]]) -> list[Reflection | None]:
        return [template_reflection(q.kind, o, laws_for(q.kind)) for q, _, _, o, _ in items]

    return reflect


def laws_by_kind() -> Callable[[str], list[str]]:
    """The laws of the MRs that test a query kind's capability (for template lessons)."""
    from metalogic.engine.rules.loader import load_ruleset
    from metalogic.engine.vocab import vocabulary

    mrs = load_ruleset().mrs
    kinds = vocabulary().query_kinds

    def laws(kind: str) -> list[str]:
        sc = kinds[kind].sc if kind in kinds else ""
        return [m.law for m in mrs if sc in m.serves][:2]

    return laws


def model_reflector(agent: Any, max_tokens: int = 200) -> Reflector:
    """Reflection by the agent's own model (its backend, cache and retries)."""
    from dataclasses import replace

    from metalogic.agents.model import ChatRequest, clean_text
    from metalogic.agents.prompts import Prompt

    params = replace(agent.params, max_tokens=max_tokens)

    async def one(q: Question, shape: str, a: Answer, o: Outcome, truth: str | None) -> Reflection | None:
        prompt = Prompt(
            reflection_prompt(shape, q.kind, a.raw or text(a.value), o, truth),
            (),
            REFLECTION_SCHEMA,
            agent.builder.space(q),
        )
        structured = bool(agent.structured and agent.backend.supports_schema)
        key = "reflect:" + agent.key(prompt, structured)
        hit = agent.cache.get(key) if agent.cache else None
        if hit is not None:
            return parse_reflection(hit.text)
        try:
            done, _ = await agent._with_retries(ChatRequest(prompt, params, structured))
        except Exception as exc:  # one failed reflection costs one card, not the build
            if isinstance(exc, MetalogicError):
                raise
            return None
        reply = clean_text(done.text)
        reflection = parse_reflection(reply)  # read before it is cached
        if agent.cache and reply.strip():
            agent.cache.put(key, agent.backend.model, reply, done.prompt_tokens, done.completion_tokens, None)
        return reflection

    def reflect(items: list[tuple[Question, str, Answer, Outcome, str | None]]) -> list[Reflection | None]:
        async def all_of() -> list[Reflection | None]:
            sem = asyncio.Semaphore(agent.concurrency)

            async def guarded(item: tuple[Question, str, Answer, Outcome, str | None]) -> Reflection | None:
                async with sem:
                    return await one(*item)

            try:
                return list(await asyncio.gather(*(guarded(i) for i in items)))
            finally:
                await agent.aclose()

        return asyncio.run(all_of())

    return reflect


def choose_reflector(name: str, agent: Any) -> Reflector:
    if name not in (*REFLECTORS, "auto"):
        raise MetalogicError.single(
            f"unknown reflector '{name}'",
            expected="auto, model or template",
            fix=did_you_mean(name, [*REFLECTORS, "auto"]) or "use auto",
        )
    has_model = hasattr(agent, "backend")
    if name == "model" and not has_model:
        raise MetalogicError.single(
            f"the agent {agent.name} has no language model to reflect with",
            fix="use --reflector template (or auto) for reference agents",
        )
    if name == "model" or (name == "auto" and has_model):
        return model_reflector(agent)
    return template_reflector(laws_by_kind())


def check_options(opt: BuildOptions) -> BuildOptions:
    opt.settings.checked()
    check_verifier(opt.verifier)
    if opt.passes < 1:
        raise MetalogicError.single(
            f"bad value '{opt.passes}' for --passes",
            expected="1 or more",
            fix="--passes 1 writes cards; more passes only update statistics",
        )
    return opt


def truth_tol_milli(v: float | None) -> int | None:
    """--truth-tol as thousandths (None: the rule file's default), refused outside 0..1."""
    if v is None:
        return None
    if not 0 <= v <= 1:
        raise MetalogicError.single(
            f"bad value '{v}' for --truth-tol",
            expected="a decimal from 0 to 1",
            fix="e.g. --truth-tol 0.1 (within 10%)",
        )
    return round(v * 1000)
