"""Blame: which of an agent's answers the violated test cases blame, decided by the rules.

The check's engine derives, for each violated case, the sets of answers that cannot all be right
(logic/core/conflicts.lp); a diagnosis retracts answers until every set is met, and the optimal
diagnoses retract the answers with the least evidence of being right (logic/blame/). The answers
every optimal diagnosis retracts are blamed for certain, those some retracts possibly. Blame and
each capability's share of wrong answers are estimated in turn (the share weighs the evidence of
the next round) until the shares settle, at most blame_rounds rounds.

This module only moves lines: it splits the answers into groups linked by conflict sets (groups
larger than blame_exact_max are not optimised, see diagnose.lp), hands both engines the same input
lines (clingo in batches of whole groups) and turns their answers into blamed/3 and blame_count/5
result lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import clingo

from metalogic.engine.session import LOCK, OPTIMUM, PrologEngine, Session
from metalogic.logic import BLAME_DIR

PARAMS = (
    "blame_prior_permille",
    "blame_prior_weight",
    "blame_held_weight",
    "blame_rounds",
    "blame_exact_max",
)


def run_blame(engine: str, lines: dict[str, set[str]], params: Mapping[str, int]) -> None:
    """Add the blamed/3, blame_count/5 and blame_rate/3 lines of one engine's check output to it."""
    conflicts, held, tested = lines["conflict_set"], lines["answer_held"], lines["tested_answers"]
    param_lines = [f"param({k},{params[k]})" for k in PARAMS]
    members = [(line, *_agent_query(line)) for line in sorted(conflicts)]
    rates = {_agent_sc(t): params["blame_prior_permille"] for t in tested}
    blamed: set[str] = set()
    counts: set[str] = set()
    for _ in range(max(1, params["blame_rounds"])):
        rate_lines = [f"rate({ag},{sc},{p})" for (ag, sc), p in sorted(rates.items())]
        kept = reduce_sets(engine, members, [*held, *param_lines, *rate_lines])
        groups = answer_groups(line for line, _, _ in kept)
        big, parts = _groups(groups, params["blame_exact_max"])
        if engine == "clingo":
            blamed = diagnose_in_batches(groups, kept, [*held, *big], [*param_lines, *rate_lines])
        else:
            blamed = diagnose(
                engine, [*(line for line, _, _ in kept), *held, *param_lines, *big, *rate_lines], parts
            )
        counts, new_rates = estimate(engine, [*tested, *held, *param_lines, *blamed])
        if new_rates == rates:
            break
        rates = new_rates
    lines["blamed"] = blamed
    lines["blame_count"] = counts
    lines["blame_rate"] = {f"blame_rate({ag},{sc},{p})" for (ag, sc), p in rates.items()}


REDUCE_PASSES = 5  # each pass takes out the answers no optimal diagnosis retracts (reduce.lp)


def reduce_sets(
    engine: str, members: list[tuple[str, str, str]], given: list[str]
) -> list[tuple[str, str, str]]:
    """The conflict set rows (line, agent, query) without the answers no optimal diagnosis retracts,
    taken out pass by pass until none is left (each pass keeps the optimal diagnoses)."""
    for _ in range(REDUCE_PASSES):
        found = _solve(engine, "reduce", [*(line for line, _, _ in members), *given])
        if not found:
            break
        out = {_agent_query(line) for line in found}
        members = [m for m in members if (m[1], m[2]) not in out]
    return members


def _groups(groups: list[tuple[str, list[str]]], limit: int) -> tuple[list[str], list[str]]:
    """big/2 lines for the answers of groups above `limit`, part/3 lines for the others."""
    big = [f"big({ag},{q})" for ag, qs in groups for q in qs if len(qs) > limit]
    parts = [f"part({ag},{i},{q})" for i, (ag, qs) in enumerate(groups) if len(qs) <= limit for q in qs]
    return big, parts


def answer_groups(conflicts: Iterable[str]) -> list[tuple[str, list[str]]]:
    """Each agent's suspect answers in groups linked by shared conflict sets (agent, answers), in a
    fixed order."""
    sets: dict[tuple[str, str, str], list[str]] = {}
    for line in conflicts:
        ag, case, kind, q = (str(a) for a in clingo.parse_term(line).arguments)
        sets.setdefault((ag, case, kind), []).append(q)
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def root(x: tuple[str, str]) -> tuple[str, str]:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for (ag, _, _), qs in sets.items():
        for q in qs:
            parent.setdefault((ag, q), (ag, q))
        first = root((ag, qs[0]))
        for q in qs[1:]:
            other = root((ag, q))
            if other != first:
                parent[other] = first
    members: dict[tuple[str, str], list[str]] = {}
    for x in parent:
        members.setdefault(root(x), []).append(x[1])
    return sorted((ag, sorted(qs)) for (ag, _), qs in members.items())


BATCH_ANSWERS = 200  # answers per clingo diagnosis: groups are independent, so batches give the
# same consequences; one program for all makes clingo enumerate a model per blamed answer, each as
# large as the whole program (quadratic: 190 s a round at 100k answers)


def diagnose_in_batches(
    groups: list[tuple[str, list[str]]],
    kept: list[tuple[str, str, str]],
    per_answer: list[str],
    shared: list[str],
) -> set[str]:
    """diagnose() on clingo, whole groups at a time (about BATCH_ANSWERS answers a batch): the
    conflict set rows `kept`, and the `per_answer` lines (answer_held/4, big/2) of each batch's answers."""
    batch_of: dict[tuple[str, str], int] = {}
    size, batch = 0, 0
    for ag, qs in groups:
        if size >= BATCH_ANSWERS:
            batch, size = batch + 1, 0
        batch_of.update(((ag, q), batch) for q in qs)
        size += len(qs)
    lines: dict[int, list[str]] = {}
    for line, ag, q in kept:
        lines.setdefault(batch_of[(ag, q)], []).append(line)
    for line in per_answer:
        found = batch_of.get(_agent_sc(line))  # (agent, query): the first two arguments
        if found is not None:
            lines.setdefault(found, []).append(line)
    out: set[str] = set()
    for batch_lines in lines.values():
        out |= diagnose("clingo", [*batch_lines, *shared], [])
    return out


def diagnose(engine: str, given: list[str], parts: list[str]) -> set[str]:
    """blamed(Ag, Q, certain | possible) lines from one round of diagnosis."""
    out: set[str] = set()
    if engine == "clingo":
        session = (
            Session("clingo", tables=False, options=OPTIMUM).load(BLAME_DIR / "diagnose.lp").add_lines(given)
        )
        session.show(("blame", 2), ("big_blamed", 3))
        certain = {str(s) for s in session.consequences("cautious")}
        possible = {str(s) for s in session.consequences("brave")}
        for line in sorted(possible):
            sym = clingo.parse_term(line)
            ag, q = (str(a) for a in sym.arguments[:2])
            if sym.name == "big_blamed":
                out.add(f"blamed({ag},{q},{sym.arguments[2]})")
            else:
                out.add(f"blamed({ag},{q},{'certain' if line in certain else 'possible'})")
        return out
    for line in _prolog("ml_blame:ml_blame_diagnose", [*given, *parts]):
        sym = clingo.parse_term(line)
        ag, q, kind = (str(a) for a in sym.arguments)
        out.add(f"blamed({ag},{q},{kind})")
    return out


def estimate(engine: str, given: list[str]) -> tuple[set[str], dict[tuple[str, str], int]]:
    """blame_count/5 lines and each (agent, capability)'s share of wrong answers in thousandths."""
    found = _solve(engine, "rates", given)
    counts = {line for line in found if line.startswith("blame_count(")}
    rates = {}
    for line in found - counts:
        sym = clingo.parse_term(line)
        rates[(str(sym.arguments[0]), str(sym.arguments[1]))] = sym.arguments[2].number
    return counts, rates


_PROLOG_GOALS = {"rates": "ml_blame:ml_blame_estimate", "reduce": "ml_blame:ml_blame_reduce"}


def _solve(engine: str, program: str, given: list[str]) -> set[str]:
    """The lines of a stratified blame program (rates.lp or reduce.lp, or its Prolog twin)."""
    if engine == "clingo":
        session = Session("clingo", tables=False).load(BLAME_DIR / f"{program}.lp").add_lines(given)
        return {str(s) for s in session.symbols()}
    return _prolog(_PROLOG_GOALS[program], given)


def _prolog(goal: str, given: list[str]) -> set[str]:
    with LOCK:
        engine = PrologEngine()
        engine.load_resident(BLAME_DIR / "blame.pl")
        return engine.run_lines(goal, given)


def _agent_query(line: str) -> tuple[str, str]:
    args = clingo.parse_term(line).arguments
    return str(args[0]), str(args[-1])


def _agent_sc(line: str) -> tuple[str, str]:
    sym = clingo.parse_term(line)
    return str(sym.arguments[0]), str(sym.arguments[1])
