"""Blame (engine/check/blame.py, logic/core/conflicts.lp, logic/blame/): which answers the violated cases
blame, the two engines' diagnoses against each other and against an exhaustive search, and the
scores made from it."""

from __future__ import annotations

import itertools
import math
import random
import re
from pathlib import Path

import pytest

from helpers import EXAMPLES, run_cli
from metalogic.engine.check.blame import (
    PARAMS,
    _Data,
    _held_row,
    answer_groups,
    diagnose,
    residual,
    run_blame,
)
from metalogic.engine.check.run import run_check
from metalogic.engine.check.tables import blame_score, scores_frame
from metalogic.engine.rules.loader import load_ruleset
from metalogic.logic import BLAME_DIR

DEFAULTS = {name: p.default for name, p in load_ruleset().params.items() if name in PARAMS}


def test_the_neglog_table_is_minus_ln_in_hundredths_of_a_nat() -> None:
    rows = re.findall(r"^neglog\((\d+),(\d+)\)\.$", (BLAME_DIR / "neglog.facts").read_text(), re.M)
    assert [int(p) for p, _ in rows] == list(range(1, 1000))
    for p, value in rows:
        assert int(value) == round(100 * math.log(1000 / int(p))), p


def test_the_logistic_table_is_the_share_wrong_at_each_log_odds() -> None:
    rows = re.findall(r"^logistic\((-?\d+),(\d+)\)\.$", (BLAME_DIR / "logistic.facts").read_text(), re.M)
    assert [int(w) for w, _ in rows] == list(range(-760, 761))
    for w, value in rows:
        assert abs(int(value) - 1000 / (1 + math.exp(int(w) / 100))) <= 0.5, w
    # beyond the table the share rounds to 0 and 1000 (residual.lp's two ends)
    assert round(1000 / (1 + math.exp(7.61))) == 0 and round(1000 / (1 + math.exp(-7.61))) == 1000


def _weight(held: int, rate: int) -> int:
    """weights.lp for a test's expectation: ln((1000 - P) / P) plus the held evidence, at least 1."""
    nl = {p: round(100 * math.log(1000 / p)) for p in range(1, 1000)}
    return max(1, nl[rate] - nl[1000 - rate] + DEFAULTS["blame_held_weight"] * held)


def _by_mr(held_lines: set[str]) -> set[str]:
    """answer_mr/5 rows for answer_held/4 rows: all the kept cases of one MR, which broke once."""
    out = set()
    for line in held_lines:
        ag, q, _, h = line[len("answer_held(") : -1].split(",")
        out.add(f"answer_mr({ag},{q},mr16,{h},1)")
    return out


def _inputs(sets: list[set[str]], held: dict[str, int], rate: int = 100) -> tuple[list[str], list[str]]:
    """diagnose()'s input: each answer keeps `held` cases that weigh blame_held_weight each."""
    given = [f"conflict_set(a,c{i},all,{q})" for i, s in enumerate(sets) for q in sorted(s)]
    given += [f"evidence(a,{q},sc3b,{DEFAULTS['blame_held_weight'] * h})" for q, h in held.items()]
    given += [f"param({k},{v})" for k, v in DEFAULTS.items()] + [f"rate(a,sc3b,{rate})"]
    groups = answer_groups([g for g in given if g.startswith("conflict_set")])
    parts = [f"part({ag},{i},{q})" for i, (ag, qs) in enumerate(groups) for q in qs]
    return given, parts


def _exhaustive(sets: list[set[str]], weights: dict[str, int]) -> tuple[set[str], set[str]]:
    """Certain and possible answers over all cheapest hitting sets, by trying every subset."""
    answers = sorted(weights)
    best, optima = math.inf, []
    for n in range(len(answers) + 1):
        for chosen in itertools.combinations(answers, n):
            if all(s & set(chosen) for s in sets):
                cost = sum(weights[q] for q in chosen)
                if cost < best:
                    best, optima = cost, [set(chosen)]
                elif cost == best:
                    optima.append(set(chosen))
    return set.intersection(*optima), set.union(*optima)


def _kinds(lines: set[str]) -> tuple[set[str], set[str]]:
    found = [re.fullmatch(r"blamed\(a,(\w+),(certain|possible)\)", line) for line in lines]
    assert all(found), lines
    certain = {m.group(1) for m in found if m and m.group(2) == "certain"}
    return certain, {m.group(1) for m in found if m}


def test_a_right_hub_answer_is_not_blamed_for_the_wrong_answers_around_it() -> None:
    """One depth d sits in three violated cases with three relations r1..r3, each wrong; d keeps
    seven other cases, the relations none. The cheapest diagnosis retracts the three relations
    (3 x 220) rather than the depth (220 + 7 x 69): only with the held evidence is that so."""
    sets = [{"d", "r1"}, {"d", "r2"}, {"d", "r3"}]
    held = {"d": 7, "r1": 0, "r2": 0, "r3": 0}
    given, parts = _inputs(sets, held)
    for engine in ("clingo", "prolog"):
        assert _kinds(diagnose(engine, given, parts)) == ({"r1", "r2", "r3"}, {"r1", "r2", "r3"}), engine
    held["d"] = 1  # with little evidence for it, the depth alone explains all three cases
    given, parts = _inputs(sets, held)
    for engine in ("clingo", "prolog"):
        assert _kinds(diagnose(engine, given, parts)) == ({"d"}, {"d"}), engine


def test_ties_are_possible_blame() -> None:
    given, parts = _inputs([{"x", "y"}], {"x": 0, "y": 0})
    for engine in ("clingo", "prolog"):
        assert _kinds(diagnose(engine, given, parts)) == (set(), {"x", "y"}), engine


@pytest.mark.parametrize("seed", range(12))
def test_both_engines_find_the_exhaustive_optimum_on_random_groups(seed: int) -> None:
    rng = random.Random(seed)
    answers = [f"q{i}" for i in range(rng.randint(3, 11))]
    sets = [set(rng.sample(answers, rng.randint(1, 3))) for _ in range(rng.randint(2, 9))]
    used = sorted(set().union(*sets))
    held = {q: rng.choice([0, 0, 1, 2, 5]) for q in used}
    rate = rng.choice([30, 100, 400, 700])
    given, parts = _inputs(sets, held, rate)
    want = _exhaustive(sets, {q: _weight(h, rate) for q, h in held.items()})
    for engine in ("clingo", "prolog"):
        assert _kinds(diagnose(engine, given, parts)) == want, engine


def test_a_group_too_large_to_optimise_blames_possibly_and_alone_breakers_for_certain() -> None:
    # A chain q0-...-q8 whose q3 breaks a case alone: every diagnosis retracts q3, so the two sets
    # beside it are met and the chain falls apart. q0-q2 is small enough to optimise (q1 meets both
    # of its sets); q4-q8 is not, and each of its answers is blamed possibly.
    chain = [{f"q{i}", f"q{i + 1}"} for i in range(8)] + [{"q3"}]
    lines = {
        "conflict_set": {f"conflict_set(a,c{i},all,{q})" for i, s in enumerate(chain) for q in s},
        "answer_held": {f"answer_held(a,q{i},sc3b,0)" for i in range(9)},
        "answer_mr": set(),
        "tested_answers": {"tested_answers(a,sc3b,20)"},
    }
    results = {}
    for engine in ("clingo", "prolog"):
        out = {k: set(v) for k, v in lines.items()} | {"answer_mr": _by_mr(lines["answer_held"])}
        run_blame(engine, out, {**DEFAULTS, "blame_exact_max": 4})
        results[engine] = out
        certain, possible = _kinds(out["blamed"])
        assert certain == {"q1", "q3"} and possible == {"q1", "q3"} | {f"q{i}" for i in range(4, 9)}, engine
        assert out["blame_count"] == {"blame_count(a,sc3b,20,2,5)"}, engine
    assert results["clingo"] == results["prolog"]


def test_the_answers_blame_leaves_unnamed_count_at_their_odds() -> None:
    """A pair broke and blame named x (its share of wrong answers is 40%); y, kept, is still wrong
    with odds e^-W: W = ln(600 / 400) + one kept case's evidence 69 = 41 + 69 = 110 hundredths of a
    nat, 1000 / (1 + e^1.1) = 250 thousandths. z broke a case alone and is blamed; w sits only in a
    set that z meets, so no case tells anything of it (untested) and it is not counted; v keeps
    three cases: W = 41 + 207 = 248, 77 thousandths. 250 + 77 rounds to no whole answer; with four
    more pairs like x-y (5 x 250 + 77 = 1327) it rounds to one."""

    def lines(pairs: int) -> list[str]:
        out = ["conflict_set(a,c0,all,z)", "conflict_set(a,c1,all,z)", "conflict_set(a,c1,all,w)"]
        out += ["conflict_set(a,c2,all,v)", "conflict_set(a,c2,all,z)"]
        out += ["answer_held(a,z,sc2a,0)", "answer_held(a,w,sc2a,0)", "answer_held(a,v,sc2a,3)"]
        out += ["evidence(a,z,sc2a,0)", "evidence(a,w,sc2a,0)", "evidence(a,v,sc2a,207)"]
        out += ["rate(a,sc2a,400)", "blamed(a,z,certain)"]
        for i in range(pairs):
            out += [
                f"conflict_set(a,p{i},all,x{i})",
                f"conflict_set(a,p{i},all,y{i})",
                f"blamed(a,x{i},certain)",
            ]
            out += [f"answer_held(a,x{i},sc2a,0)", f"answer_held(a,y{i},sc2a,1)"]
            out += [f"evidence(a,x{i},sc2a,0)", f"evidence(a,y{i},sc2a,69)"]
        return out

    for pairs, want in ((1, 0), (5, 1)):
        given = lines(pairs)
        found = {}
        for engine in ("clingo", "prolog"):
            data = _residual_data(engine, given)
            found[engine] = residual(data, [g for g in given if g.startswith(("rate(", "blamed("))])
        assert found["clingo"] == found["prolog"] == {f"blame_residual(a,sc2a,{want})"}, pairs


def _residual_data(engine: str, given: list[str]) -> _Data:
    """blame.py's input data for residual(): the check's lines, with the evidence rows given."""
    lines = {k: {g for g in given if g.startswith(k + "(")} for k in ("conflict_set", "answer_held")}
    data = _Data(engine, {**lines, "answer_mr": set(), "tested_answers": set()}, {})
    for g in given:
        if g.startswith("evidence("):
            row = _held_row(g, 4, data._symbol("evidence", g))
            data.evidence.setdefault(row.agent, []).append(row)
    return data


def test_the_engines_agree_on_blame_in_a_check_of_the_examples() -> None:
    res = run_check(str(EXAMPLES), engine="both")  # a disagreement would be an error
    assert res.rows.blamed, "the examples' shaky agent has blamed answers"
    assert all(agent == "shaky" for agent, _ in res.rows.blamed)  # the steady agent is all right
    for (agent, q), cases in res.rows.blamed_by.items():
        assert cases and (agent, q) in res.rows.blamed


def test_the_headline_is_the_share_of_tested_answers_not_blamed() -> None:
    res = run_check(str(EXAMPLES))
    for row in scores_frame(res).iter_rows(named=True):
        tested, certain, possible = res.rows.blame[(row["agent"], row["sc"])]
        unnamed = res.rows.residual.get((row["agent"], row["sc"]), 0)
        assert row["headline"] == "blame"
        assert (row["answers"], row["blamed_certain"], row["blamed_possible"]) == (tested, certain, possible)
        assert row["unnamed"] == unnamed
        assert row["score"] == pytest.approx(1 - (certain + possible / 2 + unnamed) / tested)
        assert row["ci_low"] <= row["score"] <= row["ci_high"]
        assert row["consistency"] == pytest.approx(1 - row["violations"] / row["cases"])


def test_mrs_paper_keeps_the_published_single_share() -> None:
    res = run_check(str(EXAMPLES), mrs="paper")
    for row in scores_frame(res).iter_rows(named=True):
        if row["cases"]:
            assert row["headline"] == "paper"
            assert row["score"] == pytest.approx(1 - row["violations"] / row["cases"])


def test_blame_score_interval_spans_the_possible_blame() -> None:
    assert blame_score(0, 0, 0) is None
    got = blame_score(10, 2, 4)
    assert got is not None
    score, low, high = got
    assert score == pytest.approx(0.6)
    assert low < 0.4 < 0.8 < high  # 4 right at worst, 8 at best, widened by the sampling error


def test_check_out_writes_the_blamed_answers_with_their_cases(tmp_path: Path) -> None:
    import polars as pl

    code, _, err = run_cli("check", str(EXAMPLES), "--out", str(tmp_path / "out"))
    assert code == 0, err
    blamed = pl.read_csv(tmp_path / "out" / "blamed.csv")
    answers = pl.read_csv(tmp_path / "out" / "answers.csv")
    assert blamed.height and set(blamed["blame"]) <= {"certain", "possible"}
    assert all(blamed["cases"].str.len_chars() > 0)
    marked = answers.filter(pl.col("blame").is_not_null())
    assert sorted(zip(marked["agent"], marked["query"], strict=True)) == sorted(
        zip(blamed["agent"], blamed["query"], strict=True)
    )


def test_clingo_diagnoses_in_batches_of_whole_groups_as_prolog_does_group_by_group(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Forty random groups, clingo's batches cut at every 3 answers: a batch that split a group or
    lost an answer's evidence would blame otherwise than Prolog's exact search per group."""
    rng = random.Random(5)
    sets: list[set[str]] = []
    held: dict[str, int] = {}
    for g in range(40):
        answers = [f"g{g}q{i}" for i in range(rng.randint(2, 6))]
        sets += [set(rng.sample(answers, rng.randint(1, 2))) for _ in range(rng.randint(1, 5))]
        held |= {q: rng.choice([0, 0, 1, 2, 5]) for q in answers}
    lines = {
        "conflict_set": {f"conflict_set(a,c{i},all,{q})" for i, s in enumerate(sets) for q in s},
        "answer_held": {f"answer_held(a,{q},sc3b,{h})" for q, h in held.items()},
        "answer_mr": set(),
        "tested_answers": {f"tested_answers(a,sc3b,{len(held)})"},
    }
    monkeypatch.setattr("metalogic.engine.check.blame.BATCH_ANSWERS", 3)
    results = {}
    for engine in ("clingo", "prolog"):
        out = {k: set(v) for k, v in lines.items()} | {"answer_mr": _by_mr(lines["answer_held"])}
        run_blame(engine, out, DEFAULTS)
        results[engine] = out
    assert results["clingo"]["blamed"] and results["clingo"] == results["prolog"]


def test_reducing_large_groups_keeps_the_blame_of_diagnosing_everything_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Groups linked through hub answers, reduced before they are diagnosed (blame_exact_max 4),
    blame as the same groups diagnosed whole with no reduction: reduce.lp takes out only answers
    that no optimal diagnosis retracts."""
    rng = random.Random(11)
    sets: list[set[str]] = []
    held: dict[str, int] = {}
    for g in range(12):
        hub, answers = f"h{g}", [f"g{g}q{i}" for i in range(rng.randint(4, 7))]
        sets += [{hub, q} for q in answers] + [set(rng.sample(answers, 2)) for _ in range(2)]
        held |= {hub: 40} | {q: rng.choice([0, 0, 1, 2]) for q in answers}
    lines = {
        "conflict_set": {f"conflict_set(a,c{i},all,{q})" for i, s in enumerate(sets) for q in s},
        "answer_held": {f"answer_held(a,{q},sc3b,{h})" for q, h in held.items()},
        "answer_mr": set(),
        "tested_answers": {f"tested_answers(a,sc3b,{len(held)})"},
    }
    lines["answer_mr"] = _by_mr(lines["answer_held"])
    reduced = {k: set(v) for k, v in lines.items()}
    run_blame("clingo", reduced, DEFAULTS | {"blame_exact_max": 4})
    monkeypatch.setattr("metalogic.engine.check.blame.reduce_sets", lambda *_: (set(), set()))
    whole = {k: set(v) for k, v in lines.items()}
    run_blame("clingo", whole, DEFAULTS | {"blame_exact_max": 100})
    assert reduced["blamed"] and reduced["blamed"] == whole["blamed"]
    assert not any(line.startswith("blamed(a,h") for line in whole["blamed"])


def test_sets_an_answer_wrong_beyond_doubt_meets_leave_large_groups_and_blame_stays_exact() -> None:
    """Depth answers each wrong beyond doubt (alone in a set) and each read with several relations
    that are right: one large group of 4 x 6 relations and their depths. Every diagnosis retracts
    the depths, which meets every set they share with a relation, so the relations are in no optimal
    diagnosis. Before, the group was too large to optimise and every relation was blamed possibly;
    now it blames as the whole group optimised does, on both engines."""
    sets: list[set[str]] = []
    held = {}
    for d in range(4):
        sets.append({f"d{d}"})
        for r in range(6):
            sets.append({f"d{d}", f"r{d}{r}"})
            sets.append({f"r{d}{r}", f"d{(d + 1) % 4}"})
            held[f"r{d}{r}"] = 0
        held[f"d{d}"] = 3
    lines = {
        "conflict_set": {f"conflict_set(a,c{i},all,{q})" for i, s in enumerate(sets) for q in s},
        "answer_held": {
            f"answer_held(a,{q},{'sc3b' if q[0] == 'd' else 'sc2a'},{h})" for q, h in held.items()
        },
        "answer_mr": set(),
        "tested_answers": {"tested_answers(a,sc3b,4)", "tested_answers(a,sc2a,24)"},
    }
    results = {}
    for engine, exact_max in (("clingo", 8), ("prolog", 8), ("clingo", 100)):
        out = {k: set(v) for k, v in lines.items()} | {"answer_mr": _by_mr(lines["answer_held"])}
        run_blame(engine, out, {**DEFAULTS, "blame_exact_max": exact_max})
        results[engine, exact_max] = out["blamed"]
    assert results["clingo", 8] == results["prolog", 8] == results["clingo", 100]
    depths = {"d0", "d1", "d2", "d3"}
    assert _kinds(results["clingo", 8]) == (depths, depths)  # certain, and blamed at all


def test_large_groups_apart_from_the_batches_blame_as_prolog_does_in_one_program() -> None:
    """clingo blames groups too large to optimise in a program of their own (big_only.lp) and gives
    the batches the rates' costs worked out once (rate_cost.lp); Prolog runs one program for all."""
    chain = [{f"b{i}", f"b{i + 1}"} for i in range(6)] + [{"b2"}]  # one group of 7 answers
    pairs = [{f"s{i}a", f"s{i}b"} for i in range(5)] + [{f"s{i}a"} for i in range(0, 5, 2)]
    sets = chain + pairs
    answers = sorted(set().union(*sets))
    lines = {
        "conflict_set": {f"conflict_set(a,c{i},all,{q})" for i, s in enumerate(sets) for q in s},
        "answer_held": {
            f"answer_held(a,{q},{'sc3b' if q[0] == 'b' else 'sc2a'},{len(q) % 3})" for q in answers
        },
        "answer_mr": set(),
        "tested_answers": {"tested_answers(a,sc3b,30)", "tested_answers(a,sc2a,40)"},
    }
    results = {}
    for engine in ("clingo", "prolog"):
        out = {k: set(v) for k, v in lines.items()} | {"answer_mr": _by_mr(lines["answer_held"])}
        run_blame(engine, out, {**DEFAULTS, "blame_exact_max": 4})
        results[engine] = out
    certain, possible = _kinds(results["clingo"]["blamed"])
    assert "b2" in certain and {f"b{i}" for i in range(7)} <= possible  # the large group, no search
    assert {"s0a", "s2a", "s4a"} <= certain  # alone in a set: in every diagnosis
    assert results["clingo"] == results["prolog"]


def test_kept_cases_of_an_mr_blind_to_the_agents_sure_errors_weigh_little() -> None:
    """Depths d1-d3 are wrong beyond doubt (each alone in a set); every mr16 case reading them held
    and every mr17 case broke, so mr16 is blind to this agent's depth errors. Then depth d4, kept by
    six mr16 cases, is less likely right than size s4, kept by two mr5 cases, and takes the blame of
    their pair; with the power left at its prior (a prior too heavy to move) the size takes it."""
    sets = [{"d1"}, {"d2"}, {"d3"}, {"d4", "s4"}]
    held = {
        "d1": ("sc3b", "mr16", 5, 0),
        "d2": ("sc3b", "mr16", 5, 0),
        "d3": ("sc3b", "mr16", 5, 0),
        "d4": ("sc3b", "mr16", 6, 1),
        "s4": ("sc3a", "mr5", 2, 1),
    }
    lines = {
        "conflict_set": {f"conflict_set(a,c{i},all,{q})" for i, s in enumerate(sets) for q in s},
        "answer_held": {f"answer_held(a,{q},{sc},{h})" for q, (sc, _, h, _) in held.items()},
        "answer_mr": {f"answer_mr(a,{q},{mr},{h},{v})" for q, (_, mr, h, v) in held.items()}
        | {f"answer_mr(a,d{i},mr17,0,1)" for i in (1, 2, 3)},
        "tested_answers": {"tested_answers(a,sc3b,10)", "tested_answers(a,sc3a,10)"},
    }
    blamed = {}
    for engine in ("clingo", "prolog"):
        for prior in (DEFAULTS["blame_power_prior_weight"], 10**6):
            out = {k: set(v) for k, v in lines.items()}
            run_blame(engine, out, DEFAULTS | {"blame_power_prior_weight": prior})
            blamed[engine, prior] = _kinds(out["blamed"])[0]
    estimated, prior_only = blamed["clingo", DEFAULTS["blame_power_prior_weight"]], blamed["clingo", 10**6]
    assert estimated == {"d1", "d2", "d3", "d4"} and prior_only == {"d1", "d2", "d3", "s4"}
    assert blamed["prolog", DEFAULTS["blame_power_prior_weight"]] == estimated
    assert blamed["prolog", 10**6] == prior_only
