"""`metalogic audit`, part (b): tightness. Every entry of every composition table is realised by
some bounded world, and no world realises an entry the tables leave out (logic/audit/tight.lp).
"""

from __future__ import annotations

import time
from pathlib import Path

import clingo

from metalogic.engine.audit.verdicts import Verdict
from metalogic.engine.audit.worlds import ENTRY, ground_audit
from metalogic.logic import CORE_DIR

TIGHT_SHOWS = "".join(
    f"#show {n}/{a}.\n"
    for n, a in (
        ("realised", 5),
        ("realised_sign", 5),
        ("realised_move", 3),
        ("not_realised", 5),
        ("not_allowed", 5),
        ("not_realised_sign", 5),
        ("not_allowed_sign", 5),
        ("not_realised_move", 3),
        ("not_allowed_move", 3),
        ("compose_in", 5),
        ("sign_add", 4),
        ("move_compose", 3),
    )
)


def tightness(reach: int = 3, algebra: Path = CORE_DIR / "algebra.lp") -> list[Verdict]:
    """Compare the composition tables of `algebra` with what bounded worlds realise."""
    t0 = time.perf_counter()
    files = [ENTRY["tightness"], algebra]
    syms = ground_audit(files, TIGHT_SHOWS, {"reach": reach}).symbols()
    secs = time.perf_counter() - t0
    by: dict[str, list[clingo.Symbol]] = {}
    for s in syms:
        by.setdefault(s.name, []).append(s)
    bound = f"offsets up to {reach} cells (moves: 2 steps, 2 levels)"
    out = []
    comp_star = [
        s for s in by.get("compose_in", []) if str(s.arguments[0]) == "star" and str(s.arguments[1]) == "map"
    ]
    out.append(
        _table_verdict(
            "map/star", len(comp_star), by.get("not_realised", []), by.get("not_allowed", []), bound, secs
        )
    )
    for cal, axes in (("band", ("lateral", "depth", "vertical")), ("exact", ("lateral",))):
        table = [s for s in by.get("sign_add", []) if str(s.arguments[0]) == cal]
        for axis in axes:
            miss = [
                s
                for s in by.get("not_realised_sign", [])
                if str(s.arguments[0]) == cal and str(s.arguments[1]) == axis
            ]
            extra = [
                s
                for s in by.get("not_allowed_sign", [])
                if str(s.arguments[0]) == cal and str(s.arguments[1]) == axis
            ]
            subject = f"{'ego' if cal == 'band' else 'move'}/{cal} signs ({axis})"
            out.append(_table_verdict(subject, len(table), miss, extra, bound, secs))
    out.append(
        _table_verdict(
            "move/exact with turns",
            len(by.get("move_compose", [])),
            by.get("not_realised_move", []),
            by.get("not_allowed_move", []),
            bound,
            secs,
        )
    )
    return out


def _table_verdict(
    subject: str,
    total: int,
    missing: list[clingo.Symbol],
    extra: list[clingo.Symbol],
    bound: str,
    secs: float,
) -> Verdict:
    """One table of `total` entries: `missing` no world realises, `extra` the table leaves out."""
    if extra:
        return Verdict(
            "tightness",
            subject,
            "unsound table",
            f"a world realises {len(extra)} entr(ies) the table leaves out, e.g. {extra[0]}",
            bound,
            secs,
        )
    if missing:
        return Verdict(
            "tightness",
            subject,
            "not tight",
            f"{len(missing)} of {total} entries realised by no world, e.g. {missing[0]}",
            bound,
            secs,
        )
    return Verdict("tightness", subject, "tight", f"all {total} entries realised by some world", bound, secs)
