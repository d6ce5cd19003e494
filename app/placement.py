"""The report's picture of a joint-realisability violation (MR18): for each axis on which the
agent's object relations of one frame close a cycle that no placement fits, where the truthful
answers to the same questions place those objects, with the agent's relations drawn over them.

The cycle comes from the rules (`explain(..., axis_relation(X, Q, U, V, K))`, mr18_joint.lp); the
sign of each answer on each axis from the direction algebra's `dir_name/5` table. Python only
solves the truthful relations as difference constraints (Bellman-Ford, networkx) to find one
placement they allow, which is all a picture needs; whether answers fit a placement is decided by
the rules alone.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from metalogic.engine.check.writer import canon
from metalogic.engine.results import label, split_args
from metalogic.engine.terms import Fun, text

AXES = ("side", "depth", "height")
# What "beyond" means on each axis, as the picture's arrows read (the positive direction).
BEYOND = {"side": "right of", "depth": "farther than", "height": "above"}
BAND = 1  # the truthful placement's units: beyond is at least 2 * BAND apart, level at most BAND


@cache
def ego_signs() -> dict[str, tuple[int, int, int]]:
    """obj_dir answer name -> its sign on each axis (side, depth, height), from the rules' table."""
    from metalogic.engine.algebra import tables

    out = {}
    for line in tables("clingo")["dir_name"]:
        vocab, name, *signs = split_args(line)
        if vocab == "ego":
            out[name] = (int(signs[0]), int(signs[1]), int(signs[2]))
    return out


def relations(facts: list[str]) -> dict[str, list[tuple[str, str, str, str]]]:
    """axis -> the cycle's relations (query, U, V, beyond | level) in the explanation's facts."""
    out: dict[str, list[tuple[str, str, str, str]]] = {}
    for f in facts:
        if not f.startswith("axis_relation("):
            continue
        args = [canon(a) for a in split_args(f)]
        # (a rule set of one's own may explain with a fact of that name in another shape: not drawn)
        if len(args) == 5 and args[0] in AXES and args[4] in ("beyond", "level"):
            axis, q, u, v, kind = args
            out.setdefault(axis, []).append((q, u, v, kind))
    return out


def true_sign(query: Fun | None, truth: str | None, axis: str, u: str, v: str) -> int | None:
    """The truthful answer's sign for "u beyond v" on the axis (None where it is not known)."""
    signs = ego_signs().get(truth or "")
    if query is None or signs is None or len(query.args) != 4:
        return None
    a, b = (text(x) for x in query.args[2:])
    s = signs[AXES.index(axis)]
    return s if (a, b) == (u, v) else -s if (a, b) == (v, u) else None


def solve(objects: list[str], truthful: list[tuple[str, str, int]]) -> dict[str, int] | None:
    """One placement of the objects on a line that satisfies the truthful relations (u, v, sign:
    u - v >= 2 BAND for +1, <= -2 BAND for -1, within BAND for 0), shifted to start at 0; None if
    none does (truthful answers always fit one, but the truth may be incomplete or stale)."""
    import networkx as nx

    g = nx.DiGraph()
    src = ("source",)
    g.add_node(src)
    for o in objects:
        g.add_edge(src, o, weight=0)
    for u, v, sign in truthful:  # each constraint x_j <= x_i + w is an edge i -> j of weight w
        if sign == 0:
            g.add_edge(u, v, weight=BAND)
            g.add_edge(v, u, weight=BAND)
        else:
            hi, lo = (u, v) if sign > 0 else (v, u)
            g.add_edge(hi, lo, weight=-2 * BAND)
    try:
        dist = nx.single_source_bellman_ford_path_length(g, src)
    except nx.NetworkXUnbounded:
        return None
    low = min(dist[o] for o in objects)
    return {o: int(dist[o] - low) for o in objects}


def placement_views(
    facts: list[str], queries: dict[str, Fun], truth: dict[str, str], answer_of: Callable[[str], str]
) -> list[dict[str, Any]]:
    """One view per axis the explanation names: the objects at their truthful places (or in the
    order they appear, where the truth is missing) and the agent's relations, each marked with
    whether the truth says otherwise."""
    views = []
    for axis, rels in relations(facts).items():
        objects: list[str] = []
        for _, u, v, _ in rels:
            objects += [o for o in (u, v) if o not in objects]
        signs = {q: true_sign(queries.get(q), truth.get(q), axis, u, v) for q, u, v, _ in rels}
        known = [(u, v, sign) for q, u, v, _ in rels if (sign := signs[q]) is not None]
        places = solve(objects, known) if len(known) == len(rels) else None
        views.append(
            {
                "axis": axis,
                "beyond": BEYOND[axis],
                "truth": places is not None,
                "objects": [
                    {"o": label(o), "x": places[o] if places else 2 * i * BAND} for i, o in enumerate(objects)
                ],
                "relations": [
                    {
                        "q": label(q),
                        "u": label(u),
                        "v": label(v),
                        "kind": kind,
                        "answer": answer_of(q),
                        "truth": truth.get(q),
                        "true_sign": signs[q],  # the truth's: +1 u beyond v, -1 v beyond u, 0 level
                        "against": None if signs[q] is None else signs[q] != (1 if kind == "beyond" else 0),
                    }
                    for q, u, v, kind in rels
                ],
            }
        )
    return views
