"""The paths a run configuration names, checked before any stage runs: the output folder (`out`)
and the detector weights (`[extract] detector`).

Each check returns its problem as (what, expected, fix), which the configuration reader reports at
the key's line, or None when the path is fine.
"""

from __future__ import annotations

import os
from pathlib import Path

from metalogic.app.configreader import shown
from metalogic.engine.errors import did_you_mean

Problem = tuple[str, str, str]  # what, expected, fix

# Folders a run must not fill with its own (trajectories/, facts/, questions/, ...): the system's,
# at any depth, and the file system's root. Temporary folders under them are fine.
SYSTEM_FOLDERS = (
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/proc",
    "/run",
    "/sbin",
    "/sys",
    "/usr",
    "/var",
)
TEMP_FOLDERS = ("/var/tmp", "/run/user")
# The checkout's folders of code, rules, tests and docs: a run never writes into them.
CODE_FOLDERS = ("agents", "app", "engine", "extract", "logic", "memory", "metalogic", "tests", "docs")
# How an Ultralytics weights file (.pt, written by torch.save) starts: a zip archive, or a pickle.
WEIGHTS_MAGIC = (b"PK\x03\x04", b"\x80")


def out_folder(base: Path, out: str, anywhere: bool) -> tuple[Path | None, Problem | None]:
    """`out` resolved against the configuration's folder, if it is a folder a run may fill: not a
    system folder, the home folder itself or the metalogic checkout (unless `anywhere`)."""
    try:
        path = (base / out).resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop (RuntimeError before Python 3.13)
        why = getattr(exc, "strerror", None) or str(exc)
        return None, (
            f"out = {shown(out)} cannot be resolved: {why}",
            "a folder path",
            "point out = ... at a real folder",
        )
    if anywhere:
        return path, None
    text = path.as_posix()
    system = path == Path(path.anchor) or (
        any(text == f or text.startswith(f + "/") for f in SYSTEM_FOLDERS)
        and not any(text == t or text.startswith(t + "/") for t in TEMP_FOLDERS)
    )
    home = Path(os.environ["HOME"]).resolve() if os.environ.get("HOME") else None
    root = checkout()
    why = ""
    if system:
        why = "a system folder"
    elif home is not None and path == home:
        why = "your home folder itself"
    elif root is not None and path == root:
        why = "the metalogic checkout"
    elif root is not None and any(path.is_relative_to(root / d) for d in CODE_FOLDERS):
        why = "inside metalogic's own code"
    if not why:
        return path, None
    return None, (
        f"out = {shown(out)} is {path}, {why}; the run would write its folders (trajectories/, facts/, "
        "questions/, check/, ...) there",
        'out = a folder of its own for the run, e.g. out = "runs/eval1"',
        "set out = ... to another folder (or pass --out-anywhere if you really mean it)",
    )


def checkout() -> Path | None:
    """The metalogic source checkout this code runs from (None when installed as a package)."""
    import metalogic

    root = Path(metalogic.__file__).resolve().parent.parent
    return root if (root / "pyproject.toml").is_file() and (root / "engine").is_dir() else None


def detector_problem(det: str, base: Path) -> Problem | None:
    """`detector` names a shipped detector, or is the path (relative to the configuration) of a
    weights file: checked now, not when the extract stage loads it after the worlds were made."""
    from metalogic.extract.tracking import DETECTORS

    if det in ("gt", "default") or det in DETECTORS:
        return None
    expected = "gt, default, " + ", ".join(DETECTORS) + ", or the path of an Ultralytics weights file (.pt)"
    if not det.strip():
        return (
            "[extract] detector = '' names no detector",
            expected,
            'write detector = "default" or leave it out',
        )
    if "\0" in det:
        return (
            f"[extract] detector {shown(det)} holds a NUL character",
            expected,
            "give the path of a .pt weights file",
        )
    try:
        path = (base / det).resolve()
        is_dir, is_file = path.is_dir(), path.is_file()
        head = b""
        if is_file:
            with path.open("rb") as f:
                head = f.read(4)
    except (OSError, RuntimeError, ValueError) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        return (
            f"[extract] detector {shown(det)} cannot be read: {why}",
            expected,
            "give the path of a .pt weights file",
        )
    if is_dir:
        what = "is a folder, not a weights file"
    elif not is_file:
        hint = did_you_mean(det, [*DETECTORS, "gt", "default"])
        return f"[extract] detector {shown(det)}: not a detector name and no such file", expected, hint
    elif path.suffix != ".pt":
        what = f"is not a weights file (.pt): {path.name}"
    elif not head.startswith(WEIGHTS_MAGIC):
        what = f"is not a weights file: {path.name} does not start as one written by torch.save"
    else:
        return None
    return f"[extract] detector {shown(det)} {what}", expected, "give the path of a .pt weights file"
