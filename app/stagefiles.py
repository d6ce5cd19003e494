"""Which files of a run's folders each stage of `metalogic run` wrote, and how a stage replaces them.

A stage records the files it wrote (paths relative to its folder) in its stage record. Before any
stage runs, each stage folder is compared with the records: a file that no stage wrote stops the
run, named, before anything is deleted. A stage that runs again writes afresh while its old outputs
wait aside (in OUT/.metalogic/aside/STAGE/); when it succeeds the old outputs go, when it fails (or
is killed: the next run puts them back first) its new outputs go and the old ones come back, so a
failing stage leaves the previous outputs in place.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

OWNED = ".metalogic-owned"  # marks a stage's output folder as the run's own
ASIDE = "aside"  # under the state folder: the old outputs of a stage that is running
MOVED = "moved.json"  # in a stage's aside folder: where each old output came from


def listed(folder: Path, skip: Iterable[str] = ()) -> list[str]:
    """The files under `folder` as sorted relative paths ('a/b.lp'), without the folder's OWNED mark
    and without what lies under a top-level subfolder named in `skip` (another stage's). A link is
    listed as a file (never followed)."""
    skipped = set(skip)
    out = []
    for top, dirs, files in os.walk(folder, followlinks=False):
        rel = Path(top).relative_to(folder)
        if rel == Path("."):
            dirs[:] = [d for d in dirs if d not in skipped]
        links = [d for d in dirs if (Path(top) / d).is_symlink()]
        for name in [*files, *links]:
            path = (rel / name).as_posix()
            if path != OWNED:
                out.append(path)
    return sorted(out)


def recorded(record: dict[str, Any]) -> set[str] | None:
    """The files a stage record lists (None when it lists none: a record of an older metalogic).
    The record is a file anyone can edit: only plain relative paths inside the folder count."""
    files = record.get("files")
    if not isinstance(files, list):
        return None
    return {f for f in files if isinstance(f, str) and _plain(f)}


def _plain(rel: str) -> bool:
    p = PurePosixPath(rel)
    return (
        bool(rel)
        and "\0" not in rel
        and not p.is_absolute()
        and ".." not in p.parts
        and "." not in rel.split("/")
    )


def foreign(folder: Path, records: list[dict[str, Any]], skip: Iterable[str] = ()) -> list[str]:
    """The files in `folder` that none of `records` lists. A record that lists no files (written by
    an older metalogic) vouches for the whole folder, as the folder's mark did then."""
    owned: set[str] = set()
    for rec in records:
        files = recorded(rec)
        if files is None:
            return []
        owned |= files
    return [f for f in listed(folder, skip) if f not in owned]


@contextmanager
def set_aside(state: Path, stage: str, outputs: list[Path], watch: Path | None = None) -> Iterator[None]:
    """Run a stage that writes `outputs` (folders or files) afresh: the old ones are moved aside
    first; on success they are deleted, on any failure the stage's new outputs (and any entry that
    appeared in `watch` meanwhile) are deleted and the old ones put back."""
    aside = state / ASIDE / stage
    if aside.exists():
        shutil.rmtree(aside)
    aside.mkdir(parents=True)
    before = set(os.listdir(watch)) if watch is not None and watch.is_dir() else set()
    moved = [(str(p), str(i)) for i, p in enumerate(outputs) if p.exists() or p.is_symlink()]
    (aside / MOVED).write_text(json.dumps(moved), encoding="utf-8")  # first: a kill can be undone
    for src, name in moved:
        os.replace(src, aside / name)
    try:
        yield
    except BaseException:
        for p in outputs:
            _remove(p)
        if watch is not None and watch.is_dir():
            for name in set(os.listdir(watch)) - before:
                _remove(watch / name)
        for src, name in moved:
            os.replace(aside / name, src)
        shutil.rmtree(aside, ignore_errors=True)
        raise
    shutil.rmtree(aside, ignore_errors=True)


def keep_from_aside(state: Path, stage: str, output: Path, names: list[str]) -> None:
    """Move the subfolders `names` (another stage's, e.g. questions/answers) of an output set aside
    back into the new output, so that they outlive this stage."""
    aside = state / ASIDE / stage
    try:
        moved = json.loads((aside / MOVED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    for src, name in moved:
        if Path(src) == output:
            for sub in names:
                old = aside / name / sub
                if old.exists() and not (output / sub).exists():
                    output.mkdir(parents=True, exist_ok=True)
                    os.replace(old, output / sub)


def restore(state: Path, out: Path) -> list[str]:
    """Put back the old outputs of stages that were killed while they ran; returns those stages.
    Only paths inside `out` are touched (the record of what was moved is a file anyone can edit)."""
    root = state / ASIDE
    if not root.is_dir() or root.is_symlink():
        return []
    done = []
    inside = out.resolve()
    for aside in sorted(root.iterdir()):
        try:
            moved = json.loads((aside / MOVED).read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            moved = []
        for entry in moved if isinstance(moved, list) else []:
            if not (isinstance(entry, list) and len(entry) == 2 and all(isinstance(x, str) for x in entry)):
                continue
            src, name = Path(entry[0]), entry[1]
            if "\0" in entry[0] or not src.parent.resolve().is_relative_to(inside) or not name.isdigit():
                continue
            if (aside / name).exists() or (aside / name).is_symlink():
                _remove(src)
                os.replace(aside / name, src)
        shutil.rmtree(aside, ignore_errors=True)
        done.append(aside.name)
    return done


def _remove(p: Path) -> None:
    if p.is_symlink() or p.is_file():
        p.unlink()
    elif p.is_dir():
        shutil.rmtree(p)
