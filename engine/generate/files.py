"""The run folder `metalogic generate` writes: its --out checked, the scene (scene.lp), the queries
(queries.lp: each distinct query under one stable id, which every test case that needs it shares),
and every file (run.json too) written atomically.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path

from metalogic.engine import schema
from metalogic.engine.errors import MetalogicError
from metalogic.engine.facts import FactSet, display_path
from metalogic.engine.generate.combos import Query
from metalogic.engine.terms import Fun, parse_term, text
from metalogic.engine.whole_files import write_all_whole

# ---- query ids -------------------------------------------------------------------------------


def query_id(content: str, form: str) -> str:
    """A stable, readable id: 'q' and the first hex digits of a hash of content and form."""
    return "q" + hashlib.sha256(f"{content} {form}".encode()).hexdigest()[:10]


def _order_key(content: str) -> tuple[object, ...]:
    term = parse_term(content)
    assert isinstance(term, Fun)
    kinds = list(schema.QUERY_KINDS)
    args = tuple((0, a, "") if isinstance(a, int) else (1, 0, text(a)) for a in term.args)
    return (args[0], kinds.index(term.name), args[1:])


def assign_ids(queries: Iterable[Query]) -> list[tuple[str, str, str]]:
    """(id, content, form) for each distinct query, in a fixed order: trajectory, kind, states,
    objects, form."""
    rows = sorted(set(queries), key=lambda q: (_order_key(q[0]), q[1]))
    ids = [query_id(c, f) for c, f in rows]
    if len(set(ids)) != len(ids):  # 40-bit hashes: practically never; refuse rather than merge
        raise MetalogicError.single(
            "two generated queries got the same id", fix="report this; a longer id is needed"
        )
    return [(q, c, f) for q, (c, f) in zip(ids, rows, strict=True)]


# ---- writing ---------------------------------------------------------------------------------


def render_queries(rows: Sequence[tuple[str, str, str]]) -> str:
    lines = [
        "% Queries written by metalogic generate: query(Id, Content) and form(Id, Form).\n",
        "% One id per distinct content and surface form; every test case that needs it shares it.\n",
    ]
    for q, content, form in rows:
        lines.append(f"query({q}, {content}).\nform({q}, {form}).\n")
    return "".join(lines)


def render_scene(facts: FactSet) -> str:
    head = (
        f"% Scene facts read by metalogic generate from {len(facts.files)} file(s); frame paths are\n"
        "% relative to scene_root in run.json.\n"
    )
    return head + facts.program()


def check_out_dir(facts_dir: Path, out: Path) -> None:
    src, dst = facts_dir.resolve(), out.resolve()
    if dst == src or src in dst.parents:
        raise MetalogicError.single(
            f"--out '{out}' lies inside the facts folder '{facts_dir}'",
            expected="a run folder outside the scene facts (the next read of the facts would pick up "
            "the queries)",
            fix="choose another folder, e.g. --out runs/first",
        )
    ours = {out / "scene.lp", out / "queries.lp"}
    other = sorted(p for p in out.rglob("*.lp") if p not in ours) if out.is_dir() else []
    if other:
        raise MetalogicError.single(
            f"'{out}' already holds answers or other facts; new query ids would leave them without "
            "their queries",
            where=display_path(other[0]),
            expected="a new run folder, or one holding only scene.lp, queries.lp and run.json",
            fix="choose another --out folder, or move the other facts away first",
        )


def write_atomically(files: dict[Path, str]) -> None:
    """Write every file of the run folder so that they appear together (engine/whole_files.py); a failure
    is one clear error, with nothing written."""
    try:
        write_all_whole(files)
    except OSError as exc:
        raise MetalogicError.single(
            f"cannot write the run folder: {exc.strerror}",
            where=str(exc.filename or ""),
            fix="check the --out path and its permissions",
        ) from None
