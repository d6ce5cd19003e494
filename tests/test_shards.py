"""Sharded checking (engine/shards/run.py) gives exactly the lines of one unsharded run."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from helpers import EXAMPLES, make_batch, ruleset, run_cli
from metalogic.engine.check.run import resolve_params
from metalogic.engine.facts import display_path, read_facts
from metalogic.engine.results import split_args
from metalogic.engine.rules.loader import load_ruleset
from metalogic.engine.session.runs import RESULTS, run_engine
from metalogic.engine.shards.plan import plan_shards, split_by_trajectory
from metalogic.engine.shards.run import cross_trajectory_cases, run_sharded


def facts_of(lines: list[str]) -> list[str]:
    return [x.strip().removesuffix(".") for x in lines]


def assert_same(facts: list[str], engine: str, params: dict[str, int], workers: int) -> None:
    whole = run_engine(engine, ruleset(), "".join(f"{f}.\n" for f in facts), params)
    parts = run_sharded(engine, [], facts, params, workers)
    for kind in RESULTS:
        assert parts.lines[kind] == whole.lines[kind], (
            kind,
            sorted(parts.lines[kind] ^ whole.lines[kind])[:5],
        )


def test_random_worlds_sharded_equal_unsharded() -> None:
    worlds, settings = make_batch(77)
    facts = facts_of([x for w in worlds for x in w])
    # a query id reused in two trajectories must keep them in one shard (the input check sees both)
    facts += ["query(shared_q,move_dir(tx1,0,1))", "query(shared_q,move_dir(tx2,0,1))"]
    facts += ["answer(ag,shared_q,forward)", "answer(ag,nowhere_q,forward)"]  # the second: orphan
    # an agent that answered in one world only: the other shards never hear of it, yet an
    # unsharded run writes its zero rows for every MR, trajectory and object
    world = next(w for w in worlds if sum(x.startswith("answer(") for x in w) > 10)
    solo = [split_args(f) for f in facts_of(world) if f.startswith("answer(")]
    facts += [f"answer(solo,{q},{v})" for _, q, v in solo]
    shards = split_by_trajectory(facts, 3)
    assert len(shards) == 3 and sum(map(len, shards)) == len(facts)
    assert max(map(len, shards)) < 0.5 * len(facts)  # balanced by size
    assert any(
        "shared_q,move_dir(tx1" in " ".join(s) and "shared_q,move_dir(tx2" in " ".join(s) for s in shards
    )
    assert_same(facts, "clingo", resolve_params(ruleset(), settings), workers=3)


def test_every_shard_checked_by_its_own_fresh_worker_equal_unsharded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every shard gets a fresh worker process (clingo never frees a symbol): many small shards,
    two at a time, give the lines of one run, in either engine."""
    from metalogic.engine.shards import run as shards

    worlds, settings = make_batch(78)
    facts = facts_of([x for w in worlds for x in w])
    monkeypatch.setattr(shards, "SHARD_FACTS", len(facts) // 8)
    n_shards = shards.shard_count(len(facts), 2)
    assert n_shards >= 6
    pids: list[int | None] = []
    real_start = shards.start_worker

    def start(*args: Any) -> Any:  # the real worker, its process id noted
        proc, receive = real_start(*args)
        pids.append(proc.pid)
        return proc, receive

    monkeypatch.setattr(shards, "start_worker", start)
    for engine in ("clingo", "prolog"):
        pids.clear()
        assert_same(facts, engine, resolve_params(ruleset(), settings), workers=2)
        assert len(pids) == n_shards and len(set(pids)) == n_shards and os.getpid() not in pids


def test_split_keeps_each_trajectory_whole_however_its_facts_are_written() -> None:
    """The shards' owners as a person reads them: spacing, string agents, numeric ids written two
    ways, a query id shared by two trajectories, facts about queries, and orphans."""
    facts = [
        "trajectory(ta,kitchen)",
        "trajectory( tb , hall )",
        "trajectory(7,porch)",
        "step_mm(007,250)",  # trajectory 7, written another way
        "query(qa,move_dir(ta,0,1))",
        "query( qb , obj_dir( tb , 0 , mug , duck ) )",
        "query(q7,size(7,0,mug))",
        "query(qs,move_dir(tc,0,1))",
        "query(qs,move_dir(td,0,1))",  # one id in two trajectories: tc and td stay together
        'answer("gpt-4o",qa,move(forward,none))',
        "answer( ag , qb , left )",
        "answer(ag,q7,120)",
        "form(qb,qa)",  # a form goes where its query goes
        'raw_reply(ag,qs,"forward")',
        "answer(ag,nowhere,left)",  # an answer to no query: the first shard reports it
        "query(qx,done)",  # a query with no trajectory: likewise
    ]
    shards = split_by_trajectory(facts, 8)
    where = {f: i for i, shard in enumerate(shards) for f in shard}
    assert sorted(where) == sorted(facts)
    same = [
        ["trajectory(ta,kitchen)", "query(qa,move_dir(ta,0,1))", 'answer("gpt-4o",qa,move(forward,none))'],
        [
            "trajectory( tb , hall )",
            "query( qb , obj_dir( tb , 0 , mug , duck ) )",
            "answer( ag , qb , left )",
        ],
        ["form(qb,qa)", "trajectory( tb , hall )"],
        ["trajectory(7,porch)", "step_mm(007,250)", "query(q7,size(7,0,mug))", "answer(ag,q7,120)"],
        ["query(qs,move_dir(tc,0,1))", "query(qs,move_dir(td,0,1))", 'raw_reply(ag,qs,"forward")'],
        ["answer(ag,nowhere,left)", "query(qx,done)"],
    ]
    for group in same:
        assert len({where[f] for f in group}) == 1, group
    assert len({where[g[0]] for g in same[:5] if g[0] != "form(qb,qa)"}) == 4  # four groups, four shards
    assert where["answer(ag,nowhere,left)"] == 0
    assert shards[where["trajectory(ta,kitchen)"]].index("trajectory(ta,kitchen)") == 0  # input order kept


@pytest.mark.parametrize("engine", ["clingo", "prolog"])
def test_examples_sharded_equal_unsharded(engine: str) -> None:
    facts = read_facts(EXAMPLES).facts
    assert len(split_by_trajectory(facts, 4)) > 1
    assert_same(facts, engine, resolve_params(ruleset(), []), workers=2)


def test_check_workers_prints_the_same_table() -> None:
    code1, one, err1 = run_cli("check", str(EXAMPLES), "--engine", "both")
    code2, two, err2 = run_cli("check", str(EXAMPLES), "--engine", "both", "--workers", "2")
    assert code1 == code2 == 0, err1 + err2
    assert one == two and "violations" in one


def test_an_integer_id_written_two_ways_stays_in_one_shard() -> None:
    """`-0` and `0` are one trajectory (and one query) to the engines, so one shard holds them: split
    apart, the MR2 case between q1 and q2 was lost under --workers 2."""
    facts = [
        "query(q1, obj_dir(0, 0, a, b)).",
        "query(q2, obj_dir(-0, 0, b, a)).",
        "query(0, obj_dir(w, 0, a, b)).",
        "answer(ag, q1, left).",
        "answer(ag, q2, left).",
        "answer(ag, -0, left).",
    ]
    shards = split_by_trajectory(facts, 2)
    assert len(shards) == 2
    assert sorted(map(sorted, shards)) == sorted(
        [sorted(facts[:2] + facts[3:5]), sorted([facts[2], facts[5]])]
    )


def declaration(mr: str, name: str, law: str) -> str:
    """A user MR's declarations (its .decl file), serving SC2-a."""
    return f'mr({mr}).\nmr_name({mr}, "{name}").\nmr_law({mr}, "{law}").\nmr_serves({mr}, sc2a).\n'


ACROSS_DECL = declaration(
    "across", "same scene", "two trajectories of one scene see the same relation at the same state"
)
ACROSS_LP = """\
#include "across.decl".
testcase(across(Q1, Q2), across, sc2a) :- pair_query(Q1, obj_dir, T1, S, A, B),
    pair_query(Q2, obj_dir, T2, S, A, B), T1 < T2.
case_query(across(Q1, Q2), (Q1; Q2)) :- testcase(across(Q1, Q2), across, _).
violates(Ag, across(Q1, Q2), differs) :- testcase(across(Q1, Q2), across, _),
    dir_answer(Ag, Q1, N1), dir_answer(Ag, Q2, N2), N1 != N2.
"""
ACROSS_PL = """\
:- include('across.decl').
testcase(across(Q1, Q2), across, sc2a) :- pair_query(Q1, obj_dir, T1, S, A, B),
    pair_query(Q2, obj_dir, T2, S, A, B), T1 @< T2.
case_query(across(Q1, Q2), Q) :- testcase(across(Q1, Q2), across, _), member(Q, [Q1, Q2]).
violates(Ag, across(Q1, Q2), differs) :- testcase(across(Q1, Q2), across, _),
    dir_answer(Ag, Q1, N1), dir_answer(Ag, Q2, N2), N1 \\== N2.
"""


def across_rules(tmp_path: Path) -> Path:
    folder = tmp_path / "across_rules"
    folder.mkdir()
    for suffix, text in ((".decl", ACROSS_DECL), (".lp", ACROSS_LP), (".pl", ACROSS_PL)):
        (folder / f"across{suffix}").write_text(text)
    return folder


def test_the_probe_finds_a_case_across_trajectories_and_none_in_the_shipped_mrs(tmp_path: Path) -> None:
    assert cross_trajectory_cases(load_ruleset()) == {}
    found = cross_trajectory_cases(load_ruleset([across_rules(tmp_path)]))
    assert set(found) == {"across"}
    case, t1, t2 = found["across"]
    assert case.startswith("across(") and t1 != t2 and t1.removesuffix("a") == t2.removesuffix("b")


def test_sharding_refuses_an_mr_whose_cases_join_two_trajectories(tmp_path: Path) -> None:
    folder = across_rules(tmp_path)
    facts = str(EXAMPLES)
    code, out, err = run_cli("check", facts, "--rules", str(folder), "--workers", "2")
    assert code == 2 and out == ""  # a MetalogicError: exit code 2, nothing on stdout
    assert err.startswith(f"error: {display_path(folder / 'across.lp')}: MR across makes test cases from ")
    assert "--workers checks each trajectory apart, so such cases would be lost\n" in err
    assert err.endswith(
        "  expected: with --workers, MRs whose test cases read queries of one trajectory\n"
        "  fix: check without --workers (one process sees every trajectory)\n"
    )
    code, out, err = run_cli("check", facts, "--rules", str(folder))  # one process: checked as usual
    assert code == 0, err
    assert "across" in out


# The same law as ACROSS, but only the Prolog twin joins the two trajectories (the .lp keeps to one).
ACROSS_LP_ONE = ACROSS_LP.replace("T1 < T2", "T1 = T2, Q1 < Q2")
# A violation that reads another trajectory's answer without naming its query: its cases lie in one
# trajectory (case_query/2 says so), but what breaks them does not.
PEEK_LP = """\
#include "across.decl".
testcase(peek(Q), across, sc2a) :- pair_query(Q, obj_dir, T, S, A, B).
case_query(peek(Q), Q) :- testcase(peek(Q), across, _).
violates(Ag, peek(Q1), differs) :- testcase(peek(Q1), across, _), pair_query(Q1, obj_dir, T1, S, A, B),
    pair_query(Q2, obj_dir, T2, S, A, B), T1 != T2, dir_answer(Ag, Q1, N1), dir_answer(Ag, Q2, N2), N1 != N2.
"""


def test_the_trajectory_probe_runs_on_the_engine_that_checks(tmp_path: Path) -> None:
    """Only the Prolog twin makes cases across trajectories: `--engine prolog --workers` is refused
    (the error names the .pl and the line that changes), clingo with --workers checks as usual."""
    from metalogic.engine.shards.run import trajectory_dependence

    folder = across_rules(tmp_path)
    (folder / "across.lp").write_text(ACROSS_LP_ONE)
    rules = load_ruleset([folder])
    assert cross_trajectory_cases(rules) == {} and trajectory_dependence(rules, engine="clingo") == {}
    found = trajectory_dependence(rules, engine="prolog")
    assert list(found) == ["across"] and found["across"].startswith("the line testcase(across(probe")
    assert found["across"].endswith(",across,sc2a) comes only when they are checked together")
    facts = str(EXAMPLES)
    code, out, err = run_cli("check", facts, "--rules", str(folder), "--engine", "prolog", "--workers", "2")
    assert code == 2 and out == ""
    assert err.startswith(
        f"error: {display_path(folder / 'across.pl')}: MR across makes test cases from queries of two "
        "trajectories (on a probe world: on SWI-Prolog, the line testcase(across(probe"
    )
    code, out, err = run_cli("check", facts, "--rules", str(folder), "--workers", "2")
    assert code == 0, err


def test_the_trajectory_probe_sees_a_violation_that_reads_another_trajectory(tmp_path: Path) -> None:
    """An MR whose cases name queries of one trajectory but whose violations read another's answers
    passes the probe of what the cases read (one_trajectory.lp), and not the probe of what the
    engine derives: sharded, its violations would depend on which trajectories share a shard."""
    from metalogic.engine.shards.run import trajectory_dependence

    folder = across_rules(tmp_path)
    (folder / "across.lp").write_text(PEEK_LP)
    rules = load_ruleset([folder])
    assert cross_trajectory_cases(rules) == {}
    found = trajectory_dependence(rules, engine="clingo")
    assert list(found) == ["across"]
    line = re.fullmatch(
        r"the line (violation\(.+\)) comes only when they are checked together", found["across"]
    )
    assert line and re.fullmatch(
        r'violation\(("ag"|ag|bot_2|".*"),peek\(probe\d+[ab]q\d+\),across,sc2a,differs\)', line[1]
    )
    code, out, err = run_cli("check", str(EXAMPLES), "--rules", str(folder), "--workers", "2")
    assert code == 2 and out == ""
    assert err.startswith(
        f"error: {display_path(folder / 'across.lp')}: MR across makes test cases from queries of two "
        f"trajectories (on a probe world: on clingo, the line {line[1]} comes only when they are checked "
        "together"
    )


def test_a_workers_error_reaches_the_caller_whole() -> None:
    """An error raised inside a worker process is raised again by the caller, with its message."""
    from metalogic.engine.shards import run as shards

    with pytest.raises(ValueError, match="no-such-engine"):
        shards._check_in_worker(0, "no-such-engine", [], "all", ["agent_of(a)"], {}, False)
    err = shards._sendable(shards.MetalogicError.single("bad shard", expected="x", fix="y"))
    assert isinstance(err, shards.MetalogicError) and "bad shard" in err.render()


def test_a_failed_shard_stops_the_shards_not_yet_started(monkeypatch: pytest.MonkeyPatch) -> None:
    from metalogic.engine.shards import run as shards

    started: list[int | None] = []
    real_start = shards.start_worker

    def start(*args: Any) -> Any:
        proc, receive = real_start(*args)
        started.append(proc.pid)
        return proc, receive

    monkeypatch.setattr(shards, "start_worker", start)
    parts = [["agent_of(a)"] for _ in range(6)]
    with pytest.raises(ValueError, match="no-such-engine"):
        shards._check_shards("no-such-engine", [], "all", parts, {}, 1, False)
    assert len(started) == 1  # one worker at a time: the five shards after the failed one never start


class _NoPickle(Exception):
    def __init__(self, a: int, b: int) -> None:
        super().__init__(a)
        self.b = b


def test_an_error_that_does_not_pickle_comes_back_as_text() -> None:
    from metalogic.engine.shards import run as shards

    try:
        raise _NoPickle(1, 2)
    except _NoPickle as exc:
        err = shards._sendable(exc)
    assert isinstance(err, RuntimeError) and "_NoPickle: 1" in str(err) and "Traceback" in str(err)


def test_files_read_in_parallel_give_the_facts_and_problems_of_one_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`check --workers` reads the files in worker processes: the same facts in the same order, and
    the same first problems over all files (located by the paths the user gave), then a count."""
    from metalogic.engine.errors import MetalogicError
    from metalogic.engine.shards.run import read_facts_in_parallel

    monkeypatch.chdir(tmp_path)
    good = tmp_path / "good"
    for name in ("a", "b/c", "d"):
        (good / f"{name}.lp").parent.mkdir(parents=True, exist_ok=True)
        lines = (f"trajectory({name[-1]}{i},household).\n" for i in range(50))
        (good / f"{name}.lp").write_text("".join(lines))
    one, many = read_facts(good), read_facts_in_parallel(good, 2)
    assert many.facts == one.facts and many.counts == one.counts and many.files == one.files
    assert many.facts[0] == "trajectory(a0,household)" and many.facts[-1] == "trajectory(d49,household)"

    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "a.lp").write_text("trajectory(t1,household).\n" + "banana(1).\n" * 7)
    (bad / "b.lp").write_text("step(t1, 0, 0, 0, 0).\n" * 3 + "trajectory(t2 household).\n" * 6)
    errors = []
    for read in (read_facts, lambda f: read_facts_in_parallel(f, 2)):
        with pytest.raises(MetalogicError) as e:
            read(bad)
        errors.append(e.value)
    assert errors[0].render() == errors[1].render()
    shown = errors[1].render()  # 7 + 3 + 6 problems: all of a.lp, the first 3 of b.lp
    assert errors[1].more == 6 and "bad/a.lp:2:1" in shown and "bad/b.lp:3:1" in shown


def test_a_worker_killed_without_a_result_gives_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that dies before it sends anything (killed by the system, say for memory): the run
    stops with an error that names the shard and how the process ended, instead of waiting forever."""
    import signal

    from metalogic.engine.errors import MetalogicError
    from metalogic.engine.shards import run as shards

    real_start = shards.start_worker
    killed: list[int] = []

    def start_and_kill(*args: Any) -> Any:
        proc, receive = real_start(*args)
        os.kill(proc.pid, signal.SIGKILL)  # a real worker process, dead before its first result
        killed.append(proc.pid)
        return proc, receive

    monkeypatch.setattr(shards, "start_worker", start_and_kill)
    facts = read_facts(EXAMPLES).facts
    monkeypatch.setattr(shards, "SHARD_FACTS", len(facts) // 6)
    assert shards.shard_count(len(facts), 2) >= 6
    with pytest.raises(MetalogicError) as err:
        shards.run_sharded("clingo", [], facts, {}, 2)
    # at most the two that start at once (the second may not start: the first's failure can come
    # first), and never the four or more shards after them, which the failure drops
    assert 1 <= len(killed) <= 2
    assert err.value.render() == (
        "the worker process checking shard 1 ended without a result (killed by SIGKILL)\n"
        "  expected: every worker to send back its shard's result lines\n"
        "  fix: if it ran out of memory, check with fewer --workers (or without --workers)"
    )


def test_a_trajectory_bigger_than_a_shard_is_split_by_agent_equal_unsharded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A trajectory too big for one shard is checked in parts, each with its scene and queries and
    some agents' answers: the lines are those of one run (its cases counted once, not per part)."""
    from metalogic.engine.shards import run as shards

    worlds, settings = make_batch(80)
    facts = facts_of([x for w in worlds[:8] for x in w])
    answers = [split_args(f) for f in facts if f.startswith("answer(")]
    facts += [f"answer(crowd{k},{q},{v})" for k in range(8) for _, q, v in answers]  # many agents
    parts, groups = plan_shards(facts, 80)  # shards far smaller than a trajectory
    assert sum(groups.count(g) > 1 for g in set(groups)) >= 4  # split: several parts per group
    for g in set(groups):
        mine = [set(p) for p, pg in zip(parts, groups, strict=True) if pg == g]
        shared = [{f for f in p if not f.startswith(("answer(", "raw_reply("))} for p in mine]
        assert all(s == shared[0] for s in shared)  # every part: the same scene and queries
        agents = [{split_args(f)[0] for f in p if f.startswith("answer(")} for p in mine]
        assert sum(map(len, agents)) == len(set().union(*agents))  # an agent in one part only
    assert sorted(f for p in parts for f in p if f.startswith("answer(")) == sorted(
        f for f in facts if f.startswith("answer(")
    )
    monkeypatch.setattr(shards, "shard_count", lambda n, workers: 80)
    assert_same(facts, "clingo", resolve_params(ruleset(), settings), workers=2)
    assert_same(facts, "prolog", resolve_params(ruleset(), settings), workers=2)


CROWD_DECL = declaration("crowd", "agree with the crowd", "a direction answer matches another agent's")
CROWD_LP = """\
#include "crowd.decl".
testcase(crowd(Q), crowd, sc2a) :- pair_query(Q, obj_dir, _, _, _, _).
case_query(crowd(Q), Q) :- testcase(crowd(Q), crowd, _).
agreed(Ag, Q) :- dir_answer(Ag, Q, N), dir_answer(Ag2, Q, N), Ag != Ag2.
violates(Ag, crowd(Q), alone) :- testcase(crowd(Q), crowd, _), dir_answer(Ag, Q, _), not agreed(Ag, Q).
"""
CROWD_PL = """\
:- include('crowd.decl').
testcase(crowd(Q), crowd, sc2a) :- pair_query(Q, obj_dir, _, _, _, _).
case_query(crowd(Q), Q) :- testcase(crowd(Q), crowd, _).
agreed(Ag, Q) :- dir_answer(Ag, Q, N), dir_answer(Ag2, Q, N), Ag \\== Ag2.
violates(Ag, crowd(Q), alone) :- testcase(crowd(Q), crowd, _), dir_answer(Ag, Q, _), \\+ agreed(Ag, Q).
"""


def crowd_rules(tmp_path: Path, lp: str = CROWD_LP) -> Path:
    """A folder with the crowd MR (its clingo file `lp`)."""
    folder = tmp_path / "crowd_rules"
    folder.mkdir()
    (folder / "crowd.decl").write_text(CROWD_DECL)
    (folder / "crowd.lp").write_text(lp)
    (folder / "crowd.pl").write_text(CROWD_PL)
    return folder


def crowd_facts() -> list[str]:
    """Four trajectories, answered by their agents and by four crowd agents with the same answers."""
    worlds, _ = make_batch(81)
    facts = facts_of([x for w in worlds[:4] for x in w])
    answers = [split_args(f) for f in facts if f.startswith("answer(")]
    return facts + [f"answer(crowd{k},{q},{v})" for k in range(4) for _, q, v in answers]


def assert_sharded_as_one(
    engine: str, folder: Path, facts: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The crowd MR's verdicts with --workers are those of one run (split by agent, an agent alone
    in its part would disagree with nobody), and one run has crowd violations to lose."""
    from metalogic.engine.shards import run as shards

    one = run_engine(engine, load_ruleset([folder]), "".join(f"{f}.\n" for f in facts), {})
    assert any(x.startswith("violation(crowd") and ",crowd," in x for x in one.lines["violation"])
    monkeypatch.setattr(shards, "shard_count", lambda n, workers: 40)
    parts = shards.run_sharded(engine, [str(folder)], facts, {}, 2)
    for kind in RESULTS:
        assert parts.lines[kind] == one.lines[kind], kind


def test_rules_that_compare_agents_keep_a_big_trajectory_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user's MR that reads other agents' answers would change if agents were checked apart: the
    probe finds it, and a trajectory bigger than a shard is then not split by agent."""
    from metalogic.engine.shards import run as shards

    assert shards.agent_dependence(load_ruleset()) is None  # the shipped MRs: agents apart
    folder = crowd_rules(tmp_path)
    rules = load_ruleset([folder])
    found = shards.agent_dependence(rules)
    assert found is not None and found.startswith("violation rows of agent ")
    assert not shards.agents_apart(rules)
    facts = crowd_facts()
    whole, _ = plan_shards(facts, 40, by_agent=False)
    assert len(whole) <= 5  # four trajectories (and the facts of none) stay whole
    assert_sharded_as_one("clingo", folder, facts, monkeypatch)


# A pair whose engines disagree: the clingo file never looks at another agent, the Prolog twin does.
ALONE_LP = """\
#include "crowd.decl".
testcase(crowd(Q), crowd, sc2a) :- pair_query(Q, obj_dir, _, _, _, _).
case_query(crowd(Q), Q) :- testcase(crowd(Q), crowd, _).
violates(Ag, crowd(Q), alone) :- testcase(crowd(Q), crowd, _), dir_answer(Ag, Q, N), N = none.
"""


def test_the_agent_probe_runs_on_the_engine_that_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether a big trajectory may be split by agent is decided on the engine that checks it: here
    only the Prolog twin compares agents, so `--engine prolog --workers` keeps the trajectory whole
    and gives one Prolog run's verdicts (a probe on clingo alone would have split it)."""
    from metalogic.engine.shards import run as shards

    folder = crowd_rules(tmp_path, ALONE_LP)
    rules = load_ruleset([folder])
    assert shards.agent_dependence(rules, engine="clingo") is None
    found = shards.agent_dependence(rules, engine="prolog")
    assert found is not None and found.startswith("violation rows of agent ")
    assert shards.agents_apart(rules) and not shards.agents_apart(rules, engine="prolog")
    assert_sharded_as_one("prolog", folder, crowd_facts(), monkeypatch)
