"""The two verifiers that turn an answer into a reward for the memory cards that guided it.

- truth: the truthful answer from ground-truth facts (metalogic.engine.truth, declared in logic)
  compared with the agent's answer by logic/memory/reward.
- mr (label-free): `metalogic check` on the agent's answers of one batch, held in memory; the
  share of the test cases involving an answer that hold (engine's query_score), turned into a
  reward by the same rule file. No label is needed: the rule engine is the judge.

`auto` uses the truth where the scene has it and the MR verdict otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from metalogic.engine.errors import MetalogicError, did_you_mean
from metalogic.engine.terms import Fun, Term, text
from metalogic.engine.vocab import vocabulary
from metalogic.memory.logic import DEFAULT_ENGINE, Evidence, rewards
from metalogic.memory.reflect import Outcome

VERIFIERS = ("auto", "truth", "mr")


def check_verifier(name: str) -> str:
    if name not in VERIFIERS:
        raise MetalogicError.single(
            f"unknown verifier '{name}'",
            expected=" or ".join(VERIFIERS),
            fix=did_you_mean(name, VERIFIERS) or "use auto",
        )
    return name


@dataclass(frozen=True)
class Given:
    """One answered question of a batch."""

    qid: Term
    content: Fun
    value: Term  # the answer value (may be the atom invalid)

    @property
    def key(self) -> str:
        return text(self.qid)

    @property
    def answer_type(self) -> str:
        return vocabulary().query_kinds[self.content.name].answer_type


def truth_table(program: str) -> dict[str, str]:
    """Query id -> true answer (canonical text), for every query whose ground truth is known."""
    from metalogic.engine.truth import true_answers

    return true_answers(program)


def mr_cases(
    scene_program: str,
    agent: str,
    answers: Sequence[Given],
    *,
    check_engine: str = "clingo",
    queries_program: str = "",
) -> dict[str, tuple[int, int]]:
    """Query id -> (test cases involving the agent's answer, violated), from the rule engine."""
    from metalogic.agents.store import agent_term
    from metalogic.engine.check.run import run_check
    from metalogic.engine.facts import facts_from_text

    who = text(agent_term(agent))
    answers_text = "".join(f"answer({who},{g.key},{text(g.value)}).\n" for g in answers)
    # Checked line by line as files would be, and handed to the check in memory: no folder is written.
    facts = facts_from_text(
        {"scene.lp": scene_program, "queries.lp": queries_program, "answers.lp": answers_text},
        root="<memory batch>",
    )
    res = run_check(facts, engine=check_engine)
    return {q: nv for (ag, q), nv in res.rows.by_query.items() if ag == agent}


def outcomes(
    answers: Sequence[Given],
    *,
    verifier: str,
    truth: Mapping[str, str],
    cases: Mapping[str, tuple[int, int]],
    logic: str = DEFAULT_ENGINE,
    truth_tol: int | None = None,
) -> dict[str, Outcome]:
    """Query id -> the verifier's outcome, for every answer it can judge."""
    check_verifier(verifier)
    ev = []
    for g in answers:
        t = truth.get(g.key) if verifier in ("auto", "truth") else None
        c = cases.get(g.key) if verifier in ("auto", "mr") else None
        if t is None and c is None:
            continue
        ev.append(Evidence(g.key, g.answer_type, text(g.value), t, c))
    params = {"truth_tol": truth_tol} if truth_tol is not None else None
    got = rewards(ev, logic, params)
    out: dict[str, Outcome] = {}
    for e in ev:
        if (e.query, "truth") in got:
            out[e.query] = Outcome("truth", got[(e.query, "truth")])
        elif verifier != "truth" and (e.query, "mr") in got:
            out[e.query] = Outcome("mr", got[(e.query, "mr")], e.cases)
    return out
