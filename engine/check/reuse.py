"""The check output that report and compare read: a check output folder as it is, or a facts folder
checked once into FOLDER/check and checked again when its facts, rules or options changed.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from metalogic.engine.check.layout import MANIFEST, REPORT_TABLES
from metalogic.engine.check.reader import (
    CheckOutput,
    facts_arg,
    load_check_output,
    no_check_output,
    read_manifest,
    stale_reason,
)
from metalogic.engine.check.writer import make_request, norm_mrs, write_check_output
from metalogic.engine.errors import MetalogicError
from metalogic.engine.session import ENGINES

CACHE_DIR = "check"  # where report and compare write the check of a facts folder: FOLDER/check
_FLAGS = {"engine": "--engine", "mrs": "--mrs", "settings": "-c", "rules_dirs": "--rules"}


def _differences(manifest: Mapping[str, Any], given: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """(option, as checked, as given) for every option given that the check did not run with."""
    had = manifest["request"]
    out = []
    for key, want in given.items():
        if want is None:
            continue
        got = had.get(key)
        if key == "engine" and got == "both" and want in ENGINES:
            continue  # a check with both engines holds what each of them gives (they agreed)
        if got != want:
            out.append((key, got, want))
    return out


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(map(str, value)) if value else "(none)"
    return str(value)


def _mismatch(folder: Path, manifest: Mapping[str, Any], key: str, had: Any, want: Any) -> MetalogicError:
    flag = _FLAGS[key]
    return MetalogicError.single(
        f"the check output in {folder} was made with {flag} {_shown(had)}, not {_shown(want)}",
        where=str(folder / MANIFEST),
        expected="the options the check ran with, or none: report and compare read a check output as it is",
        fix=f"leave {flag} out, or check again with it: metalogic check "
        f"{facts_arg(manifest)} ... --out {shlex.quote(str(folder))}",
    )


def _has_facts(path: Path) -> bool:
    from metalogic.engine.facts import list_fact_files

    try:
        list_fact_files(path)
    except MetalogicError:
        return False
    return True


def open_check(
    folder: str,
    *,
    engine: str | None = None,
    rules_dirs: Sequence[str] = (),
    settings: Sequence[str] = (),
    mrs: str | Sequence[str] | None = None,
    wanted: Sequence[str] = REPORT_TABLES,
) -> CheckOutput:
    """The check output that `folder` names, for report and compare:

    - a check output folder (its run.json is a check manifest): read as it is;
    - a folder whose `check/` subfolder is one (the folder `metalogic run` writes, or a facts
      folder checked by an earlier report or compare): read as it is, but when it is the check of
      this very facts folder and the facts, the rules or the options given changed, it is checked
      again and replaced;
    - a facts folder: checked once (clingo unless --engine says otherwise), its output written to
      FOLDER/check, then read.

    Options given (engine, MRs, -c, --rules) must match those of a check output that is read as it
    is; left out, they take the check's own. A facts folder is checked with the options given, the
    defaults of 'metalogic check' for those left out."""
    p = Path(folder)
    if not p.exists():
        raise MetalogicError.single(
            f"run folder '{folder}' does not exist",
            expected="a run folder (or any facts folder) holding answer facts",
            fix="check the path; runs are written by 'metalogic generate' and answered by 'metalogic ask'",
        )
    given: dict[str, Any] = {
        "engine": engine,
        "mrs": None if mrs is None else norm_mrs(mrs),
        "settings": sorted("".join(s.split()) for s in settings) if settings else None,
        "rules_dirs": [str(Path(d).resolve()) for d in rules_dirs] if rules_dirs else None,
    }

    def as_is(out_dir: Path, manifest: Mapping[str, Any]) -> CheckOutput:
        for key, had, want in _differences(manifest, given):
            raise _mismatch(out_dir, manifest, key, had, want)
        return load_check_output(out_dir, wanted)

    here = p / MANIFEST
    if p.is_dir() and here.is_file():
        manifest = read_manifest(here)
        if manifest is not None:
            return as_is(p, manifest)
    base = p if p.is_dir() else p.parent
    cache = base / CACHE_DIR
    cached = read_manifest(cache / MANIFEST) if (cache / MANIFEST).is_file() else None
    if cached is not None:
        own = Path(str(cached.get("facts_root", ""))) == p.resolve()
        if not own and p.is_dir():
            return as_is(cache, cached)
        # the check of this facts folder, made earlier by report or compare: it stands for the
        # check these options (left out: the defaults, as for 'metalogic check') would make
        defaults = {"engine": "clingo", "mrs": "all", "settings": [], "rules_dirs": []}
        wanted_now = {k: defaults[k] if v is None else v for k, v in given.items()}
        if own and not stale_reason(cached) and not _differences(cached, wanted_now):
            return load_check_output(cache, wanted)
    if not _has_facts(p):
        raise no_check_output(p, foreign=here.is_file())
    theirs = cached is None or Path(str(cached.get("facts_root", ""))) != p.resolve()
    if cache.exists() and theirs and (cache.is_symlink() or not cache.is_dir() or any(cache.iterdir())):
        raise MetalogicError.single(
            f"{cache} holds files that are not the check output of {p}; checking {p} would write there",
            where=str(cache),
            expected=f"no {CACHE_DIR}/ folder in {base}, or the one an earlier report or compare wrote",
            fix=f"move {cache} away, or check into a folder of your own and read that: "
            f"metalogic check {p} --out DIR",
        )
    return check_into(
        str(p),
        cache,
        engine=engine or "clingo",
        rules_dirs=rules_dirs,
        settings=settings,
        mrs="all" if mrs is None else mrs,
        wanted=wanted,
    )


def check_into(
    folder: str,
    out_dir: Path,
    *,
    engine: str,
    rules_dirs: Sequence[str],
    settings: Sequence[str],
    mrs: str | Sequence[str],
    wanted: Sequence[str] = REPORT_TABLES,
) -> CheckOutput:
    """Check the facts folder once, write the check output to `out_dir` and read it back."""
    from metalogic.engine.check.run import run_check

    res = run_check(folder, engine=engine, rules_dirs=rules_dirs, settings=settings, mrs=mrs)
    request = make_request(engine, mrs, settings, rules_dirs)
    write_check_output(res, out_dir, ["csv", "json"], request, folder)
    out = load_check_output(out_dir, wanted)
    out.checked_now = True
    return out
