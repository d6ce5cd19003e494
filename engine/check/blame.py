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
result lines. Each line is read once: the rows keep their fields and, for clingo, their symbols.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import clingo

from metalogic.engine.session.api import LOCK, OPTIMUM, PrologEngine, Session
from metalogic.logic import BLAME_DIR

PARAMS = (
    "blame_prior_permille",
    "blame_prior_weight",
    "blame_held_weight",
    "blame_power_prior_permille",
    "blame_power_prior_weight",
    "blame_rounds",
    "blame_exact_max",
)


@dataclass(frozen=True)
class Row:
    """One input line and the fields blame moves it by: the agent, the answer (query) and, for a
    conflict_set/4 line, its set (the case and kind as printed); for an answer_held/4 line, the
    answer's capability; for clingo, the line's symbol (handed to every program as data)."""

    line: str
    agent: str
    query: str
    key: str
    sym: clingo.Symbol | None = None


def run_blame(
    engine: str,
    lines: dict[str, set[str]],
    params: Mapping[str, int],
    symbols: Mapping[str, Mapping[str, clingo.Symbol]] | None = None,
) -> None:
    """Add the blamed/3, blame_count/5 and blame_rate/3 lines of one engine's check output to it.
    `symbols`: clingo's symbols of the input lines, where the check kept them (line -> symbol).

    A group of linked answers is diagnosed from the weights of its own answers only, which change
    only with the shares of their capabilities: a round diagnoses again only the groups with an
    answer of a capability whose share the last round changed, and the others keep their blame
    (the same result as diagnosing every group in every round)."""
    data = _Data(engine, lines, symbols or {})
    param_lines = [f"param({k},{params[k]})" for k in PARAMS]
    rates = {(row.agent, row.query): params["blame_prior_permille"] for row in data.tested}
    blamed: dict[tuple[str, str], str] = {}  # (agent, answer) -> its blamed/3 line
    counts: dict[str, set[str]] = {}
    agents = sorted({ag for ag, _ in rates} | set(data.conflicts))
    changed = set(rates) | set(data.capability.values())
    data.add_evidence(param_lines)
    for _ in range(max(1, params["blame_rounds"])):
        chosen = {
            (ag, q)
            for ag, qs in data.groups
            if any(data.capability[ag, q] in changed for q in qs)
            for q in qs
        }
        shared = [
            *param_lines,
            *(f"rate({ag},{sc},{p})" for (ag, sc), p in sorted(rates.items()) if ag in agents),
        ]
        for key in chosen:
            blamed.pop(key, None)
        for line in blame_round(data, chosen, shared, params["blame_exact_max"]):
            ag, q, _ = _fields(line, 3)
            blamed[ag, q] = line
        new_counts, new_rates = estimate(
            data, agents, [*param_lines, *(line for (ag, _), line in blamed.items() if ag in agents)]
        )
        counts.update(_by_agent(agents, new_counts, 5))
        changed = {(ag, sc) for (ag, sc), p in new_rates.items() if rates.get((ag, sc)) != p}
        rates.update(new_rates)
        agents = sorted({ag for ag, _ in changed})
        if not changed:
            break
    lines["blamed"] = set(blamed.values())
    lines["blame_count"] = set().union(*counts.values())
    lines["blame_rate"] = {f"blame_rate({ag},{sc},{p})" for (ag, sc), p in rates.items()}
    final_rates = [f"rate({ag},{sc},{p})" for (ag, sc), p in sorted(rates.items())]
    lines["blame_residual"] = residual(data, [*final_rates, *blamed.values()])


class _Data:
    """The check output's blame input, read once: conflict_set/4 and answer_held/4 rows by agent,
    tested_answers/3 rows (agent, capability in `query`), the answer_mr/5 lines (and for clingo
    their symbols), and each suspect answer's evidence/4 row by agent once add_evidence has run."""

    def __init__(
        self, engine: str, lines: dict[str, set[str]], symbols: Mapping[str, Mapping[str, clingo.Symbol]]
    ) -> None:
        self.engine = engine
        self.conflicts: dict[str, list[Row]] = {}
        self.held: dict[str, list[Row]] = {}
        self.capability: dict[tuple[str, str], tuple[str, str]] = {}  # (agent, answer) -> (agent, SC)
        self.evidence: dict[str, list[Row]] = {}
        self._symbols = symbols
        for line in sorted(lines["conflict_set"]):
            row = _conflict_row(line, self._symbol("conflict_set", line))
            self.conflicts.setdefault(row.agent, []).append(row)
        for line in sorted(lines["answer_held"]):
            row = _held_row(line, 4, self._symbol("answer_held", line))
            self.held.setdefault(row.agent, []).append(row)
            self.capability[row.agent, row.query] = (row.agent, row.key)
        self.by_mr = sorted(lines["answer_mr"])
        self.by_mr_symbols = (
            [self._symbol("answer_mr", line) for line in self.by_mr] if engine == "clingo" else []
        )
        self.tested = [
            _held_row(line, 3, self._symbol("tested_answers", line))
            for line in sorted(lines["tested_answers"])
        ]
        # answers in conflict sets that no case checking their value tests: blame may retract them,
        # but the blamed shares count tested answers only (rates.lp, residual.lp)
        self.untested = [
            _held_row(line, 2, self._symbol("untested_suspect", line))
            for line in sorted(lines.get("untested_suspect", ()))
        ]
        self.groups = _row_groups([r for rows in self.conflicts.values() for r in rows])  # before reduce

    def _symbol(self, name: str, line: str) -> clingo.Symbol | None:
        """For clingo, the check's own symbol of a line, else the line read by clingo's parser."""
        if self.engine != "clingo":
            return None
        found = self._symbols.get(name, {}).get(line)
        return found if found is not None else clingo.parse_term(line)

    def add_evidence(self, param_lines: list[str]) -> None:
        """Each suspect answer's evidence/4 row: what the cases it keeps say for it, weighed by each
        MR's power over the agent's answers that are wrong beyond doubt (power.lp, evidence.lp).
        It does not depend on the blame, so it is worked out once, before the rounds."""
        conflicts = [r for rows in self.conflicts.values() for r in rows]
        held = [r for rows in self.held.values() for r in rows]
        if self.engine == "clingo":
            session = Session("clingo", tables=False).load(BLAME_DIR / "power.lp", BLAME_DIR / "evidence.lp")
            _add_rows(session, self, conflicts, "answer_held", held)
            session.add_rows("answer_mr", 5, self.by_mr_symbols)
            for sym in session.add_lines(param_lines).symbols():
                args = sym.arguments  # the line is never needed: clingo is handed the symbol
                row = Row("", str(args[0]), str(args[1]), "", sym)
                self.evidence.setdefault(row.agent, []).append(row)
            return
        given = [*(r.line for r in conflicts), *(r.line for r in held), *self.by_mr, *param_lines]
        for line in sorted(_prolog("ml_blame:ml_blame_evidence", given)):
            row = _held_row(line)
            self.evidence.setdefault(row.agent, []).append(row)


def blame_round(data: _Data, chosen: set[tuple[str, str]], shared: list[str], exact_max: int) -> set[str]:
    """blamed/3 lines of the `chosen` answers (whole groups) for one round of shares (rate/3 lines
    in `shared`).

    Groups of at most exact_max answers are diagnosed whole: what reduce.lp would take out of them
    changes no optimal diagnosis, so the blame is the same. Larger groups are reduced first (the
    answers no optimal diagnosis retracts, the sets every diagnosis meets), which splits those that
    hub answers with much evidence for them join, or that answers wrong beyond doubt hold together."""
    members = [r for rows in data.conflicts.values() for r in rows if (r.agent, r.query) in chosen]
    held = [r for rows in data.evidence.values() for r in rows if (r.agent, r.query) in chosen]  # costs
    large = {(ag, q) for ag, qs in data.groups if len(qs) > exact_max for q in qs if (ag, q) in chosen}
    to_reduce = [r for r in members if (r.agent, r.query) in large]
    out, met = reduce_sets(data, to_reduce, [r for r in held if (r.agent, r.query) in large], shared)
    kept = [r for r in members if (r.agent, r.query) not in out and (r.agent, r.key) not in met]
    small = [(ag, qs) for ag, qs in data.groups if len(qs) <= exact_max and (ag, qs[0]) in chosen]
    groups = sorted([*small, *_row_groups([r for r in kept if (r.agent, r.query) in large])])
    if data.engine == "clingo":
        return diagnose_in_batches(data, groups, kept, held, exact_max, shared)
    big, parts = _groups(groups, exact_max)
    given = [*(r.line for r in kept), *(r.line for r in held), *big, *shared]
    return diagnose(data.engine, given, parts)


def reduce_sets(
    data: _Data, members: list[Row], held: list[Row], shared: list[str]
) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """What reduce.lp takes out of large groups: the (agent, answer) pairs no optimal diagnosis
    retracts, and the (agent, set key) pairs of the sets every diagnosis meets. One pass finds them
    all: taking an answer out of its sets only raises what the others of those sets cost, so no
    answer the pass kept becomes one of them. `held`: the answers' evidence/4 rows."""
    if data.engine == "clingo":
        session = Session("clingo", tables=False).load(BLAME_DIR / "reduce.lp")
        _add_rows(session, data, members, "evidence", held).add_lines(shared)
        found = {str(s) for s in session.symbols()}
    else:
        found = _prolog(
            "ml_blame:ml_blame_reduce", [*(r.line for r in members), *(r.line for r in held), *shared]
        )
    dominated = {(f[0], f[1]) for f in (_fields(line, 2) for line in found if line.startswith("dominated("))}
    met = set()
    for line in found:
        if line.startswith("met("):
            ag, case, kind = (str(a) for a in clingo.parse_term(line).arguments)
            met.add((ag, f"{case},{kind}"))
    return dominated, met


def _add_rows(
    session: Session, data: _Data, conflicts: Iterable[Row], name: str, rows: Iterable[Row]
) -> Session:
    """The conflict_set/4 rows and the answers' `name`/4 rows (answer_held or evidence) to a session."""
    session.add_rows("conflict_set", 4, [r.sym for r in conflicts if r.sym is not None])
    return session.add_rows(name, 4, [r.sym for r in rows if r.sym is not None])


def _groups(groups: list[tuple[str, list[str]]], limit: int) -> tuple[list[str], list[str]]:
    """big/2 lines for the answers of groups above `limit`, part/3 lines for the others."""
    big = [f"big({ag},{q})" for ag, qs in groups for q in qs if len(qs) > limit]
    parts = [f"part({ag},{i},{q})" for i, (ag, qs) in enumerate(groups) if len(qs) <= limit for q in qs]
    return big, parts


def answer_groups(conflicts: Iterable[str]) -> list[tuple[str, list[str]]]:
    """Each agent's suspect answers in groups linked by shared conflict sets (agent, answers), in a
    fixed order."""
    return _row_groups([_conflict_row(line) for line in conflicts])


def _row_groups(rows: list[Row]) -> list[tuple[str, list[str]]]:
    sets: dict[tuple[str, str], list[str]] = {}
    for r in rows:
        sets.setdefault((r.agent, r.key), []).append(r.query)
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def root(x: tuple[str, str]) -> tuple[str, str]:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for (ag, _), qs in sets.items():
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


BATCH_ANSWERS = 500  # answers per clingo diagnosis: groups are independent, so batches give the
# same consequences; one program for all makes clingo enumerate a model per blamed answer, each as
# large as the whole program (quadratic: 190 s a round at 100k answers)


def diagnose_in_batches(
    data: _Data,
    groups: list[tuple[str, list[str]]],
    kept: list[Row],
    held: list[Row],
    exact_max: int,
    shared: list[str],
) -> set[str]:
    """diagnose() on clingo: the groups too large to optimise (over exact_max answers) in one
    program without a search (big_only.lp), the others whole groups at a time (about BATCH_ANSWERS
    answers a batch: diagnose.lp). `kept`: the conflict set rows; `held`: the evidence/4 rows of
    the answers, for their weights."""
    batch_of: dict[tuple[str, str], int] = {}
    size, batch = 0, 0
    for ag, qs in groups:
        if len(qs) > exact_max:  # left to big_only.lp
            continue
        if size >= BATCH_ANSWERS:
            batch, size = batch + 1, 0
        batch_of.update(((ag, q), batch) for q in qs)
        size += len(qs)
    rows: dict[int, tuple[list[Row], list[Row]]] = {b: ([], []) for b in set(batch_of.values())}
    big_rows: list[Row] = []
    for r in kept:
        found = batch_of.get((r.agent, r.query))
        if found is not None:
            rows[found][0].append(r)
        else:
            big_rows.append(r)
    for r in held:
        found = batch_of.get((r.agent, r.query))
        if found is not None:
            rows[found][1].append(r)
    out: set[str] = set()
    if big_rows:  # every answer of these rows is big: big_only.lp says so instead of big/2 lines
        session = Session("clingo", tables=False).load(BLAME_DIR / "big_only.lp")
        out |= {
            "blamed" + str(sym)[len("big_blamed") :]
            for sym in _add_rows(session, data, big_rows, "evidence", []).symbols()
        }

    # The rates' part of the weights, worked out once for every batch (rate_cost.lp)
    costs = Session("clingo", tables=False).load(BLAME_DIR / "rate_cost.lp").add_lines(shared)
    cost_rows = costs.show(("rate_cost", 3)).symbols()
    for conflicts, batch_held in rows.values():
        session = Session("clingo", tables=False, options=OPTIMUM).load(BLAME_DIR / "diagnose.lp")
        _add_rows(session, data, conflicts, "evidence", batch_held)
        out |= _clingo_blamed(session.add_rows("rate_cost", 3, cost_rows))
    return out


def diagnose(engine: str, given: list[str], parts: list[str]) -> set[str]:
    """blamed(Ag, Q, certain | possible) lines from one round of diagnosis."""
    if engine == "clingo":
        session = Session("clingo", tables=False, options=OPTIMUM)
        return _clingo_blamed(
            session.load(BLAME_DIR / "diagnose.lp", BLAME_DIR / "rate_cost.lp").add_lines(given)
        )
    out: set[str] = set()
    for line in _prolog("ml_blame:ml_blame_diagnose", [*given, *parts]):
        ag, q, kind = (str(a) for a in clingo.parse_term(line).arguments)
        out.add(f"blamed({ag},{q},{kind})")
    return out


def _clingo_blamed(session: Session) -> set[str]:
    """blamed/3 lines from the brave consequences of diagnose.lp: blamed in some optimal diagnosis
    and kept in none is certain, blamed in some and kept in some possible. (The lines are cut from
    the printed atoms: reading each symbol's arguments through clingo's API costs twice as much.)"""
    session.show(("blame", 2), ("kept", 2), ("big_blamed", 3))
    printed = [str(s) for s in session.consequences("brave")]
    kept = {line[4:] for line in printed if line.startswith("kept(")}  # "(Ag,Q)"
    out: set[str] = set()
    for line in printed:
        if line.startswith("big_blamed("):
            out.add(line[4:])
        elif line.startswith("blame("):
            kind = "possible" if line[5:] in kept else "certain"
            out.add(f"blamed{line[5:-1]},{kind})")
    return out


def estimate(data: _Data, agents: list[str], given: list[str]) -> tuple[set[str], dict[tuple[str, str], int]]:
    """blame_count/5 lines and each (agent, capability)'s share of wrong answers in thousandths,
    for the agents' tested answers and the blamed/3 lines in `given` (with the answer_held/4 rows
    of those answers, which say their capability)."""
    wanted = set(agents)
    tested = [r for r in data.tested if r.agent in wanted]
    untested = [r for r in data.untested if r.agent in wanted]
    blamed = {(f[0], f[1]) for f in (_fields(line, 3) for line in given if line.startswith("blamed("))}
    held = [r for ag in agents for r in data.held.get(ag, []) if (r.agent, r.query) in blamed]
    if data.engine == "clingo":
        session = Session("clingo", tables=False).load(BLAME_DIR / "rates.lp")
        session.add_rows("tested_answers", 3, [r.sym for r in tested if r.sym is not None])
        session.add_rows("untested_suspect", 2, [r.sym for r in untested if r.sym is not None])
        blamed_lines = [line for line in given if line.startswith("blamed(")]
        session.add_rows("blamed", 3, [clingo.parse_term(line) for line in blamed_lines])
        _add_rows(session, data, [], "answer_held", held).add_lines(
            [line for line in given if not line.startswith("blamed(")]
        )
        found = {str(s) for s in session.symbols()}
    else:
        found = _prolog(
            "ml_blame:ml_blame_estimate",
            [*(r.line for r in tested), *(r.line for r in untested), *(r.line for r in held), *given],
        )
    counts = {line for line in found if line.startswith("blame_count(")}
    rates = {}
    for line in found - counts:
        ag, sc, p = _fields(line, 3)
        rates[(ag, sc)] = int(p)
    return counts, rates


def residual(data: _Data, given: list[str]) -> set[str]:
    """blame_residual/3 lines: per agent and capability, the wrong answers blame leaves unnamed
    (residual.lp), from the last round's rate/3 lines and the blamed/3 lines in `given`."""
    conflicts = [r for rows in data.conflicts.values() for r in rows]
    held = [r for rows in data.held.values() for r in rows]
    evidence = [
        r for rows in data.evidence.values() for r in rows if r.sym is None or r.sym.name == "evidence"
    ]
    if data.engine == "clingo":
        session = Session("clingo", tables=False).load(BLAME_DIR / "residual.lp")
        _add_rows(session, data, conflicts, "answer_held", held)
        session.add_rows("evidence", 4, [r.sym for r in evidence if r.sym is not None])
        session.add_rows("untested_suspect", 2, [r.sym for r in data.untested if r.sym is not None])
        session.add_rows(
            "blamed", 3, [clingo.parse_term(line) for line in given if line.startswith("blamed(")]
        )
        return {
            str(s) for s in session.add_lines([line for line in given if line.startswith("rate(")]).symbols()
        }
    lines = [
        *(r.line for r in conflicts),
        *(r.line for r in held),
        *(r.line for r in evidence),
        *(r.line for r in data.untested),
        *given,
    ]
    return _prolog("ml_blame:ml_blame_residual", lines)


def _by_agent(agents: list[str], lines: set[str], arity: int) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {ag: set() for ag in agents}
    for line in lines:
        out[_fields(line, arity)[0]].add(line)
    return out


def _prolog(goal: str, given: list[str]) -> set[str]:
    with LOCK:
        engine = PrologEngine()
        engine.load_resident(BLAME_DIR / "blame.pl")
        return engine.run_lines(goal, given)


# ---- fields of a line -----------------------------------------------------------------------------
# Lines are as clingo prints them. Most arguments are plain names, numbers or strings without commas
# or escapes, split off at a comma; any other line is read by clingo's term parser.

_PLAIN = re.compile(r"[a-z_][A-Za-z0-9_']*|-?[0-9]+|\"[^\"\\,]*\"")
# A set's kind: a name, or a name around one plain name or number (an MR's view(O) or zero(D)).
_KIND = re.compile(r"[a-z_][A-Za-z0-9_']*(\((?:[a-z_][A-Za-z0-9_']*|-?[0-9]+)\))?")


def _fields(line: str, arity: int) -> list[str]:
    """The printed arguments of a result line name(A1, ..., An)."""
    _, _, body = line.partition("(")
    parts = body[:-1].split(",")
    if len(parts) == arity and all(_PLAIN.fullmatch(p) for p in parts):
        return parts
    return [str(a) for a in clingo.parse_term(line).arguments]


def _conflict_row(line: str, sym: clingo.Symbol | None = None) -> Row:
    """conflict_set(Agent, Case, Kind, Query) -> Row (the set's key: "Case,Kind" as printed): the
    case may be any term, so the agent is split off at the first comma and the kind and query at
    the last two."""
    ag, _, rest = line[13:-1].partition(",")
    head, _, q = rest.rpartition(",")
    kind = head.rpartition(",")[2]
    plain = _PLAIN.fullmatch(ag) and _KIND.fullmatch(kind) and _PLAIN.fullmatch(q)
    if plain and line.startswith("conflict_set("):
        return Row(line, ag, q, head, sym)
    ag, case, kind, q = (str(a) for a in clingo.parse_term(line).arguments)
    return Row(line, ag, q, f"{case},{kind}", sym)


def _held_row(line: str, arity: int = 4, sym: clingo.Symbol | None = None) -> Row:
    """answer_held(Agent, Query, SC, N) or evidence(Agent, Query, SC, E) (or tested_answers(Agent,
    SC, N), arity 3, or untested_suspect(Agent, Query), arity 2) -> Row of its first two arguments
    (and the capability SC as its key)."""
    f = _fields(line, arity)
    return Row(line, f[0], f[1], f[2] if arity == 4 else "", sym)
