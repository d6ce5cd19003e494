"""The stats view of a bank: counts, visits, TRS spread, per task kind, build passes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from metalogic.memory.bank_rows import MILLION, Rows

if TYPE_CHECKING:
    from metalogic.memory.bank import Bank


def summary(bank: Bank) -> dict[str, Any]:
    """Counts of cards and visits, the spread of the TRS, per task kind, and build passes."""
    from metalogic.memory.bank import DB_NAME

    with bank.lock:
        q = bank.conn.execute
        total, active = q("SELECT COUNT(*), COUNT(*) FILTER (WHERE retired IS NULL) FROM cards").fetchone()
        visits = q("SELECT COUNT(*) FROM visits").fetchone()[0]
        kinds = q(
            "SELECT kind, COUNT(*), SUM(n), AVG(v), MIN(v), MAX(v) FROM cards WHERE retired IS NULL "
            "GROUP BY kind ORDER BY kind"
        ).fetchall()
        passes = q("SELECT pass, COUNT(*) FROM progress GROUP BY pass ORDER BY pass").fetchall()
        visited = q("SELECT COUNT(*) FROM cards WHERE retired IS NULL AND n > 0").fetchone()[0]
        trs = [r[0] for r in q("SELECT v FROM cards WHERE retired IS NULL ORDER BY v").fetchall()]
    db = bank.path / DB_NAME
    trs = [Rows(db, "an active card").whole("v", v, 0, MILLION) for v in trs]
    passes = [(Rows(db, "the progress table").whole("pass", p), n) for p, n in passes]
    buckets = [0] * 10
    for v in trs:
        buckets[min(9, v // 100_000)] += 1
    return {
        "bank": str(bank.path),
        "embedder": bank.embedder,
        "dim": bank.dim,
        "cards": total,
        "active": active,
        "retired": total - active,
        "visits": visits,
        "visited_cards": visited,
        "trs_median": trs[len(trs) // 2] if trs else None,
        "trs_histogram": {f"{i / 10:.1f}-{(i + 1) / 10:.1f}": b for i, b in enumerate(buckets)},
        "kinds": [
            {
                "kind": k,
                "cards": n,
                "visits": s if isinstance(s, int) else 0,
                "trs_mean": round(a) if isinstance(a, int | float) else None,
                "trs_min": lo,
                "trs_max": hi,
            }
            for k, n, s, a, lo, hi in kinds
        ],
        "passes": dict(passes),
        "sources": len(bank.sources()),
        "meta": {k: v for k, v in sorted(bank.meta.items()) if k not in ("embedder", "dim")},
    }
