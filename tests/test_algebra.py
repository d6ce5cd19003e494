"""Property tests of the direction algebra, read from the engines (never typed in Python).

Each calculus is checked against its own truth semantics on random integer points:
- exact: a component is the sign of the exact difference;
- band: a component is 0 within |d| <= w for a band width w, else the sign;
- star: the 45-degree sector of the bearing, clockwise from north, decided with integer arithmetic.
The tables come from `metalogic.engine.algebra.tables(engine)`; the point arithmetic here is the
truth the rules must respect, not a second copy of the algebra. Names and vectors come from the
shared vocabulary tables (`metalogic.engine.vocab.vocabulary()`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metalogic.engine import algebra
from metalogic.engine.results import split_args
from metalogic.engine.vocab import vocabulary

ENGINES = ("clingo", "prolog")
PROPS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

Vec = tuple[int, int, int]  # (lateral, depth, vertical): right/east, forward/north, up


@dataclass(frozen=True)
class Algebra:
    """The tables of one engine, as Python lookups."""

    compose_in: dict[tuple[str, str, str, str], frozenset[str]]  # (calculus, vocab, n1, n2) -> results
    inverse: dict[tuple[str, str], set[str]]  # (vocab, name) -> inverses (exactly one expected)
    rotate: dict[tuple[str, int, str], set[str]]  # (vocab, quarter turns, name) -> rotated names
    move_compose: dict[tuple[str, str], frozenset[str]]  # (move, move) -> possible single moves
    move_inverse: dict[str, set[str]]
    raw: dict[str, set[str]]


@lru_cache(maxsize=2)
def engine_algebra(engine: str) -> Algebra:
    raw = algebra.tables(engine)
    comp: dict[tuple[str, str, str, str], set[str]] = {}
    for line in raw["compose_in"]:
        cal, voc, a, b, c = split_args(line)
        comp.setdefault((cal, voc, a, b), set()).add(c)
    inv: dict[tuple[str, str], set[str]] = {}
    for line in raw["inverse"]:
        voc, a, b = split_args(line)
        inv.setdefault((voc, a), set()).add(b)
    rot: dict[tuple[str, int, str], set[str]] = {}
    for line in raw["rotate"]:
        voc, r, a, b = split_args(line)
        rot.setdefault((voc, int(r), a), set()).add(b)
    mcomp: dict[tuple[str, str], set[str]] = {}
    for line in raw["move_compose"]:
        m1, m2, m = split_args(line)
        mcomp.setdefault((m1, m2), set()).add(m)
    minv: dict[str, set[str]] = {}
    for line in raw["move_inverse"]:
        m, n = split_args(line)
        minv.setdefault(m, set()).add(n)
    return Algebra(
        {k: frozenset(v) for k, v in comp.items()},
        inv,
        rot,
        {k: frozenset(v) for k, v in mcomp.items()},
        minv,
        raw,
    )


@pytest.fixture(scope="module", params=ENGINES)
def alg(request: pytest.FixtureRequest) -> Algebra:
    return engine_algebra(request.param)


# ---------------------------------------------------------------------------------------------
# Truth semantics of a relation between two points, per calculus.


def sign(d: int) -> int:
    return (d > 0) - (d < 0)


def band_sign(d: int, w: int) -> int:
    return 0 if abs(d) <= w else sign(d)


def star_snap(a: int, b: int) -> int:
    """The sign of component `a` of a planar vector (a, b) after snapping the vector to the middle
    of its 45-degree sector: 0 when the bearing is within 22.5 degrees of the other axis, i.e.
    |a| < tan(22.5) |b| = (sqrt 2 - 1) |b|, which is (|a| + |b|)^2 < 2 b^2 in integers. Integer
    points never lie on a sector edge (tan 22.5 is irrational), so the half-open edges of the
    sectors [45k - 22.5, 45k + 22.5) need no special case."""
    if a == 0:
        return 0
    return 0 if (abs(a) + abs(b)) ** 2 < 2 * b * b else sign(a)


def truth_vector(calculus: str, d: Vec, w: int = 0) -> Vec:
    """The sign triple that a truthful answer names for offset d under a calculus."""
    x, y, z = d
    if calculus == "exact":
        return (sign(x), sign(y), sign(z))
    if calculus == "band":
        return (band_sign(x, w), band_sign(y, w), band_sign(z, w))
    assert calculus == "star" and z == 0
    return (star_snap(x, y), star_snap(y, x), 0)


@cache
def names_by_vector(vocab: str) -> dict[Vec, str]:
    v = vocabulary()
    return {v.vectors[(vocab, n)]: n for n in v.names[vocab]}


def name_of(vocab: str, calculus: str, d: Vec, w: int = 0) -> str:
    return names_by_vector(vocab)[truth_vector(calculus, d, w)]


def sub(a: Vec, b: Vec) -> Vec:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def rot(v: Vec, quarter_turns: int) -> Vec:
    """Turn a vector counter-clockwise seen from above (east -> north) by quarter turns."""
    x, y, z = v
    for _ in range(quarter_turns % 4):
        x, y = -y, x
    return (x, y, z)


# Every (calculus, vocabulary) pair the engines compose. Star is the cone calculus of the map.
SIGN_VOCABS = ("move", "ego", "map")
COMBOS = [(c, v) for c in ("exact", "band") for v in SIGN_VOCABS] + [("star", "map")]

small = st.integers(-6, 6)
coord = st.one_of(small, st.integers(-1_000_000, 1_000_000))


def points(vocab: str) -> st.SearchStrategy[Vec]:
    z = st.just(0) if vocab == "map" else coord
    return st.tuples(coord, coord, z)


def band_widths() -> st.SearchStrategy[int]:
    return st.one_of(st.integers(0, 4), st.integers(0, 1000))


def test_every_combination_has_a_full_table(alg: Algebra) -> None:
    for cal, voc in COMBOS:
        names = vocabulary().names[voc]
        for a in names:
            for b in names:
                assert alg.compose_in.get((cal, voc, a, b)), f"{cal}/{voc}: no composition for {a}, {b}"


@pytest.mark.parametrize(("calculus", "vocab"), COMBOS)
@PROPS
@given(data=st.data())
def test_composition_contains_the_true_relation(
    alg: Algebra, calculus: str, vocab: str, data: st.DataObject
) -> None:
    a, b, c = (data.draw(points(vocab), label=p) for p in "ABC")
    w = data.draw(band_widths(), label="band") if calculus == "band" else 0
    r_ab = name_of(vocab, calculus, sub(a, b), w)
    r_bc = name_of(vocab, calculus, sub(b, c), w)
    r_ac = name_of(vocab, calculus, sub(a, c), w)
    allowed = alg.compose_in[(calculus, vocab, r_ab, r_bc)]
    assert r_ac in allowed, f"A-B {r_ab}, B-C {r_bc}: true A-C {r_ac} not in {sorted(allowed)}"


@pytest.mark.parametrize(("calculus", "vocab"), COMBOS)
@PROPS
@given(data=st.data())
def test_inverse_matches_negation(alg: Algebra, calculus: str, vocab: str, data: st.DataObject) -> None:
    d = data.draw(points(vocab))
    w = data.draw(band_widths()) if calculus == "band" else 0
    neg = (-d[0], -d[1], -d[2])
    assert alg.inverse[(vocab, name_of(vocab, calculus, d, w))] == {name_of(vocab, calculus, neg, w)}


@pytest.mark.parametrize("vocab", SIGN_VOCABS)
def test_inverse_is_an_involution(alg: Algebra, vocab: str) -> None:
    for n in vocabulary().names[vocab]:
        (m,) = alg.inverse[(vocab, n)]
        assert alg.inverse[(vocab, m)] == {n}


@pytest.mark.parametrize(("calculus", "vocab"), COMBOS)
@PROPS
@given(data=st.data())
def test_rotation_matches_rotating_vectors(
    alg: Algebra, calculus: str, vocab: str, data: st.DataObject
) -> None:
    d = data.draw(points(vocab))
    r = data.draw(st.integers(0, 3))
    w = data.draw(band_widths()) if calculus == "band" else 0
    assert alg.rotate[(vocab, r, name_of(vocab, calculus, d, w))] == {name_of(vocab, calculus, rot(d, r), w)}


@pytest.mark.parametrize("vocab", SIGN_VOCABS)
def test_four_quarter_turns_are_the_identity(alg: Algebra, vocab: str) -> None:
    def once(n: str) -> str:
        (m,) = alg.rotate[(vocab, 1, n)]
        return m

    for n in vocabulary().names[vocab]:
        seen = [n]
        for _ in range(4):
            seen.append(once(seen[-1]))
        assert seen[4] == n
        # R quarter turns at once equal R single quarter turns.
        for r in range(4):
            assert alg.rotate[(vocab, r, n)] == {seen[r]}


# ---------------------------------------------------------------------------------------------
# Moves: a translation in the agent's frame at the start, then a quarter turn. An agent pose is
# (position, heading in quarter turns counter-clockwise); its frame is the world turned by it.


@dataclass(frozen=True)
class Pose:
    p: Vec
    h: int


def act(pose: Pose, translation: Vec, turn: int) -> Pose:
    dx = rot(translation, pose.h)
    return Pose((pose.p[0] + dx[0], pose.p[1] + dx[1], pose.p[2] + dx[2]), (pose.h + turn) % 4)


@lru_cache(maxsize=1)
def turn_names() -> dict[int, str]:
    return {q: n for n, q in vocabulary().turns.items()}


def move_name(start: Pose, end: Pose) -> str:
    """The true move from `start` to `end`: displacement seen in the start frame, net turn."""
    local = rot(sub(end.p, start.p), -start.h % 4)
    return f"move({name_of('move', 'exact', local)},{turn_names()[(end.h - start.h) % 4]})"


steps = st.tuples(st.integers(-2, 2), st.integers(-2, 2), st.integers(-1, 1))
actions = st.lists(st.tuples(steps, st.integers(0, 3)), min_size=1, max_size=3)
poses = st.builds(Pose, st.tuples(small, small, small), st.integers(0, 3))


def run(pose: Pose, acts: list[tuple[Vec, int]]) -> Pose:
    for t, q in acts:
        pose = act(pose, t, q)
    return pose


@PROPS
@given(p1=poses, leg1=actions, leg2=actions)
def test_move_composition_contains_the_true_move(
    alg: Algebra, p1: Pose, leg1: list[tuple[Vec, int]], leg2: list[tuple[Vec, int]]
) -> None:
    p2 = run(p1, leg1)
    p3 = run(p2, leg2)
    m12, m23, m13 = move_name(p1, p2), move_name(p2, p3), move_name(p1, p3)
    allowed = alg.move_compose[(m12, m23)]
    assert m13 in allowed, f"{m12} then {m23}: true {m13} not in {sorted(allowed)}"


@PROPS
@given(p1=poses, leg=actions)
def test_move_inverse_undoes_random_moves(alg: Algebra, p1: Pose, leg: list[tuple[Vec, int]]) -> None:
    p2 = run(p1, leg)
    there, back = move_name(p1, p2), move_name(p2, p1)
    assert alg.move_inverse[there] == {back}
    # Going there and back again can be standing still.
    assert "move(none,none)" in alg.move_compose[(there, back)]


def test_move_inverse_is_an_involution(alg: Algebra) -> None:
    moves = {f"move({t},{r})" for t in vocabulary().names["move"] for r in vocabulary().turns}
    assert set(alg.move_inverse) == moves
    for m in moves:
        (n,) = alg.move_inverse[m]
        assert alg.move_inverse[n] == {m}


# ---------------------------------------------------------------------------------------------
# Worked examples (east then north is northeast, ...) and engine agreement.


def test_worked_examples(alg: Algebra) -> None:
    exact = alg.compose_in
    assert exact[("exact", "map", "e", "n")] == {"ne"}
    assert exact[("exact", "map", "ne", "n")] == {"ne"}
    # The cone calculus is weaker: east then north may end anywhere from east to north.
    assert exact[("star", "map", "e", "n")] == {"e", "ne", "n"}
    assert exact[("star", "map", "ne", "n")] == {"ne", "n"}
    assert alg.move_compose[("move(forward,none)", "move(right,none)")] == {"move(forward_right,none)"}
    # Turning left first makes the second "forward" point left in the starting frame.
    assert alg.move_compose[("move(none,left)", "move(forward,none)")] == {"move(left,left)"}
    # Under the band, a clear offset plus an in-band one may fall back into the band, and two
    # in-band components can end on either side.
    assert exact[("band", "map", "e", "n")] == {"eq", "n", "e", "ne"}
    assert exact[("band", "map", "e", "e")] == {"ne", "e", "se"}
    assert exact[("exact", "map", "e", "e")] == {"e"}


def test_vocabularies_declare_their_calculus() -> None:
    """The MRs compose each vocabulary under its declared calculus (compose/4)."""
    raw = engine_algebra("clingo").raw
    declared = vocabulary().calculus
    for line in raw["compose"]:
        voc, a, b, c = split_args(line)
        assert c in engine_algebra("clingo").compose_in[(declared[voc], voc, a, b)]
    assert len(raw["compose"]) == sum(
        len(v) for (cal, voc, _, _), v in engine_algebra("clingo").compose_in.items() if declared[voc] == cal
    )


@pytest.mark.parametrize("table", sorted(algebra.TABLES))
def test_every_table_is_identical_on_both_engines(table: str) -> None:
    a, b = engine_algebra("clingo").raw[table], engine_algebra("prolog").raw[table]
    assert a, f"{table} is empty"
    only_c, only_p = sorted(a - b)[:5], sorted(b - a)[:5]
    assert a == b, f"{table}: only clingo {only_c}, only prolog {only_p}"


def _universal_is_every_relation(alg: Algebra) -> Callable[[str, str, str], bool]:
    declared = vocabulary().calculus

    def check(voc: str, a: str, b: str) -> bool:
        return len(alg.compose_in[(declared[voc], voc, a, b)]) == len(vocabulary().names[voc])

    return check


def test_universal_marks_exactly_the_compositions_that_allow_everything(alg: Algebra) -> None:
    full = _universal_is_every_relation(alg)
    marked = {tuple(split_args(line)) for line in alg.raw["universal"]}
    for voc in SIGN_VOCABS:
        names = vocabulary().names[voc]
        for a in names:
            for b in names:
                assert ((voc, a, b) in marked) == full(voc, a, b), (voc, a, b)
