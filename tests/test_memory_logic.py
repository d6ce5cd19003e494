"""The memory's laws as the engines decide them: TRS update, candidate ranking, visit rewards.

Every number here comes from logic/memory/*.lp (clingo) or *.pl (SWI-Prolog). The tests check the
properties the TRS must have (starts at v0, order-invariant, conservative at low counts, converges to
the mean reward), that the two engines give identical lines on random inputs, and the ranking's
meaning against the real-valued formula it encodes.
"""

from __future__ import annotations

import itertools
import random
import statistics

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from metalogic.engine.errors import MetalogicError
from metalogic.memory.logic import (
    Evidence,
    initial_trs,
    rank_candidates,
    rewards,
    run_program,
    trs_update,
)

ENGINES = ("clingo", "prolog")
PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---- TRS ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_new_card_starts_at_v0(engine: str) -> None:
    assert initial_trs(engine) == 500_000
    assert initial_trs(engine, {"trs_v0": 700}) == 700_000


@pytest.mark.parametrize("engine", ENGINES)
def test_known_values(engine: str) -> None:
    # (2 * 0.5 + c) / (2 + n), by hand: 2/3, 1/2, 4/5, 3/13, 1/4
    got = trs_update({1: (1, 1000), 2: (2, 1000), 3: (3, 3000), 4: (11, 2000), 5: (2, 0)}, [], engine)
    assert {i: s.v for i, s in got.items()} == {1: 666_667, 2: 500_000, 3: 800_000, 4: 230_769, 5: 250_000}


@pytest.mark.parametrize("engine", ENGINES)
def test_one_or_two_visits_move_the_score_little(engine: str) -> None:
    # lambda = 2 virtual visits: one visit moves v at most a third of the way to its reward, two at most half
    for r in (0, 1000):
        one = trs_update({1: (0, 0)}, [(1, 1, r)], engine)[1].v
        two = trs_update({1: (0, 0)}, [(1, 1, r), (1, 2, r)], engine)[1].v
        assert abs(one - 500_000) <= abs(r * 1000 - 500_000) / 3 + 1
        assert abs(two - 500_000) <= abs(r * 1000 - 500_000) / 2 + 1
        assert abs(one - 500_000) < abs(two - 500_000)  # but it does move, further with more evidence
    assert trs_update({1: (0, 0)}, [(1, 1, 1000)], engine)[1].v == 666_667
    assert trs_update({1: (0, 0)}, [(1, 1, 0)], engine)[1].v == 333_333


@pytest.mark.parametrize("engine", ENGINES)
def test_converges_to_the_mean_reward(engine: str) -> None:
    rng = random.Random(7)
    for mean in (0.15, 0.5, 0.8):
        rewards_ = [1000 if rng.random() < mean else 0 for _ in range(2000)]
        got = trs_update({1: (0, 0)}, [(1, k, r) for k, r in enumerate(rewards_)], engine)[1]
        assert got.n == 2000 and got.c == sum(rewards_)
        assert abs(got.v / 1e6 - statistics.mean(rewards_) / 1000) < 0.001


@pytest.mark.parametrize("engine", ENGINES)
def test_order_invariant(engine: str) -> None:
    """Folding the same visits one at a time, in every order, ends in the same statistics as taking
    them all at once."""
    visits = [(1, 0, 1000), (1, 1, 0), (1, 2, 250), (1, 3, 1000)]
    at_once = trs_update({1: (0, 0)}, visits, engine)[1]
    for order in itertools.permutations(visits):
        stats = (0, 0)
        for v in order:
            s = trs_update({1: stats}, [v], engine)[1]
            stats = (s.n, s.c)
        assert trs_update({1: stats}, [], engine)[1] == at_once


@given(
    cards=st.dictionaries(
        st.integers(1, 40),
        st.integers(0, 3000).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, 1000 * n))),
        min_size=1,
        max_size=8,
    ),
    data=st.data(),
)
@PROPS
def test_engines_agree_on_trs(cards: dict[int, tuple[int, int]], data: st.DataObject) -> None:
    ids = sorted(cards)
    visits = data.draw(
        st.lists(
            st.tuples(st.sampled_from(ids), st.integers(0, 10_000), st.integers(0, 1000)),
            max_size=20,
            unique_by=lambda v: (v[0], v[1]),
        )
    )
    lam = data.draw(st.integers(1, 9))
    v0 = data.draw(st.integers(0, 1000))
    facts = [f"stats({i},{n},{c})" for i, (n, c) in cards.items()] + [
        f"visit({i},{k},{r})" for i, k, r in visits
    ]
    facts += [f"param_override(trs_lambda,{lam})", f"param_override(trs_v0,{v0})"]
    assert run_program("trs", facts, "clingo") == run_program("trs", facts, "prolog")


def test_large_counts_stay_exact_in_32_bits() -> None:
    # clingo's integers are 32-bit: the rule splits the division, so a million visits are still exact
    got = {e: trs_update({1: (1_000_000, 999_999_000)}, [], e)[1].v for e in ENGINES}
    assert got["clingo"] == got["prolog"] == 999_998  # (1000 + 999999000) / 1000002 thousandths, rounded


@pytest.mark.parametrize("engine", ENGINES)
def test_trs_rejects_bad_input(engine: str) -> None:
    with pytest.raises(MetalogicError) as err:
        trs_update({1: (0, 0)}, [(1, 1, 1001)], engine)
    assert "reward_out_of_range(1,1,1001)" in err.value.render()
    with pytest.raises(MetalogicError) as err:
        trs_update({1: (2, 2001)}, [], engine)
    assert "bad_stats(1,2,2001)" in err.value.render()


# ---- ranking --------------------------------------------------------------------------------------


def milli(x: int) -> float:
    """A value in millionths at the rules' resolution: thousandths, halves away from zero."""
    return (abs(x) + 500) // 1000 * (1 if x >= 0 else -1) / 1000


def float_scores(cands: list[tuple[int, int, int]], eta: float, floor: float) -> dict[int, float]:
    """The law in real numbers (the independent reading the fixed-point rules must agree with), on
    inputs at the resolution the rules declare (thousandths)."""
    pool = [(i, milli(s), milli(v)) for i, s, v in cands if s / 1e6 >= floor]
    sims, trss = [p[1] for p in pool], [p[2] for p in pool]

    def z(x: float, xs: list[float]) -> float:
        sd = statistics.pstdev(xs)
        return (x - statistics.mean(xs)) / sd if sd > 0 else 0.0

    return {i: (1 - eta) * z(s, sims) + eta * z(v, trss) for i, s, v in pool}


@pytest.mark.parametrize("engine", ENGINES)
def test_ranking_keeps_k_best_above_the_floor(engine: str) -> None:
    cands = [
        (1, 900_000, 300_000),
        (2, 880_000, 700_000),
        (3, 850_000, 500_000),
        (4, 100_000, 900_000),
        (5, 600_000, 500_000),
    ]
    ranked = rank_candidates(cands, eta=500, k=3, floor=300, engine=engine)
    assert [(r.card, r.rank) for r in ranked if r.rank] == [(2, 1), (3, 2), (1, 3)]
    assert 4 not in {r.card for r in ranked}  # below the similarity floor: not even a candidate
    expect = float_scores(cands, 0.5, 0.3)
    for r in ranked:
        assert abs(r.score / 1e6 - expect[r.card]) < 0.01


@pytest.mark.parametrize("engine", ENGINES)
def test_eta_decides_between_similar_and_reliable(engine: str) -> None:
    """A (most similar, unreliable) beats B (a little less similar, reliable) exactly while eta is
    below the point where their real-valued scores cross."""
    cands = [(1, 910_000, 250_000), (2, 880_000, 800_000), (3, 700_000, 500_000), (4, 650_000, 550_000)]
    sa, sb = float_scores(cands, 0.0, 0.3), float_scores(cands, 1.0, 0.3)
    d_sim, d_trs = sa[1] - sa[2], sb[2] - sb[1]  # A's lead in z(sim), B's lead in z(TRS)
    crossing = d_sim / (d_sim + d_trs)
    assert 0.05 < crossing < 0.95
    for eta in (0.0, crossing - 0.03, crossing + 0.03, 1.0):
        ranked = rank_candidates(cands, eta=round(eta * 1000), k=1, floor=300, engine=engine)
        top = [r.card for r in ranked if r.rank == 1]
        assert top == ([1] if eta < crossing else [2]), eta


@pytest.mark.parametrize("engine", ENGINES)
def test_ranking_ties_and_flat_pools(engine: str) -> None:
    # all TRS equal: z(TRS) = 0, so similarity decides; equal scores: the more similar, then the lower id
    flat = [(7, 800_000, 500_000), (3, 800_000, 500_000), (5, 810_000, 500_000)]
    ranked = rank_candidates(flat, eta=1000, k=3, floor=0, engine=engine)
    assert [r.card for r in ranked] == [5, 3, 7]
    assert all(r.z_trs == 0 and r.score == 0 for r in ranked)


@given(
    cands=st.lists(
        st.tuples(st.integers(1, 10_000), st.integers(-1_000_000, 1_000_000), st.integers(0, 1_000_000)),
        min_size=1,
        max_size=40,
        unique_by=lambda c: c[0],
    ),
    eta=st.integers(0, 1000),
    k=st.integers(1, 6),
    floor=st.integers(-1000, 1000),
)
@PROPS
def test_engines_agree_on_ranking(cands: list[tuple[int, int, int]], eta: int, k: int, floor: int) -> None:
    facts = [f"cand({i},{s},{v})" for i, s, v in cands]
    facts += [
        f"param_override(rank_eta,{eta})",
        f"param_override(rank_k,{k})",
        f"param_override(rank_floor,{floor})",
    ]
    assert run_program("rank", facts, "clingo") == run_program("rank", facts, "prolog")


@given(
    cands=st.lists(
        st.tuples(st.integers(1, 10_000), st.integers(0, 1_000_000), st.integers(0, 1_000_000)),
        min_size=2,
        max_size=30,
        unique_by=lambda c: c[0],
    ),
    eta=st.integers(0, 1000),
)
@PROPS
def test_ranking_follows_the_real_valued_law(cands: list[tuple[int, int, int]], eta: int) -> None:
    """Whenever two candidates' real-valued scores differ clearly, the rules order them the same way
    (pools whose spread is near the rules' resolution of 0.001 are left out)."""
    spread = [statistics.pstdev(milli(c[j]) for c in cands) for j in (1, 2)]
    assume(min(spread) >= 0.05)
    ranked = rank_candidates(cands, eta=eta, k=len(cands), floor=-1000, engine="prolog")
    expect = float_scores(cands, eta / 1000, -1.0)
    pos = {r.card: r.rank for r in ranked}
    for a, b in itertools.combinations(expect, 2):
        if expect[a] > expect[b] + 0.03:
            assert pos[a] < pos[b]


def test_ranking_is_invariant_to_the_order_of_candidates() -> None:
    rng = random.Random(3)
    cands = [(i, rng.randint(300_000, 1_000_000), rng.randint(0, 1_000_000)) for i in range(1, 25)]
    base = rank_candidates(cands, eta=500, k=5, floor=300, engine="clingo")
    for _ in range(5):
        rng.shuffle(cands)
        assert rank_candidates(cands, eta=500, k=5, floor=300, engine="prolog") == base


def test_ranking_rejects_bad_parameters() -> None:
    with pytest.raises(MetalogicError) as err:
        rank_candidates([(1, 5, 5)], eta=1200, k=3, floor=0, engine="both")
    assert "bad_param(rank_eta,1200)" in err.value.render()


# ---- rewards --------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_rewards(engine: str) -> None:
    ev = [
        Evidence("q1", "ego", "nearer_left", "nearer_left", (3, 1)),
        Evidence("q2", "ego", "left", "nearer_left"),
        Evidence("q3", "mm", "1100", "1000"),  # 10 % off: still right
        Evidence("q4", "mm", "1101", "1000"),
        Evidence("q5", "steps", "invalid", "3", (2, 2)),
        Evidence("q6", "move", "move(forward,none)", "move(forward,none)", (0, 0)),
        Evidence("q7", "map", "ne", None, (6, 1)),
    ]
    got = rewards(ev, engine)
    assert got == {
        ("q1", "truth"): 1000,
        ("q1", "mr"): 667,
        ("q2", "truth"): 0,
        ("q3", "truth"): 1000,
        ("q4", "truth"): 0,
        ("q5", "truth"): 0,
        ("q5", "mr"): 0,
        ("q6", "truth"): 1000,  # no test case: no MR reward, no evidence either way
        ("q7", "mr"): 833,
    }
    assert rewards(ev[3:4], engine, {"truth_tol": 200})[("q4", "truth")] == 1000


def test_ranking_defaults_have_one_source() -> None:
    """rank.decl holds the ranking's defaults: the rules apply them when nothing is passed, on
    both engines alike, and the memory options show the same values."""
    from metalogic.memory.logic import param_defaults
    from metalogic.memory.retrieve import DEFAULT_ETA, DEFAULT_FLOOR, DEFAULT_K

    d = param_defaults("rank")
    assert (
        d["rank_k"],
        d["rank_eta"] / 1000,
        d["rank_floor"] / 1000,
    ) == (DEFAULT_K, DEFAULT_ETA, DEFAULT_FLOOR)
    cands = [(1, 900_000, 100_000), (2, 800_000, 900_000), (3, 400_000, 500_000), (4, 100_000, 500_000)]
    explicit = rank_candidates(cands, eta=d["rank_eta"], k=d["rank_k"], floor=d["rank_floor"], engine="both")
    assert rank_candidates(cands, engine="both") == explicit
    assert rank_candidates(cands, eta=0, engine="both") != explicit
