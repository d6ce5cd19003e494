"""The keys of the stages of `metalogic run`: hashes of what each stage's output depends on.

A stage whose recorded key matches and whose outputs exist is skipped (app/pipeline.py), so a key
covers everything that changes what the stage writes: its configuration, the keys of the stages it
reads, and the content of its inputs (imported sources, rule files, detector weights, the code).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from metalogic import __version__


def stage_key(parts: dict[str, Any]) -> str:
    """A stage's key: a hash of its own configuration and of the keys of the stages it reads (and of
    the metalogic version, so that an upgrade runs every stage again)."""
    blob = json.dumps({"metalogic": __version__, **parts}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def tree_hash(path: Path) -> str:
    """Content hash of a file or folder (for imported sources)."""
    h = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for f in files:
        h.update(str(f.relative_to(path.parent if path.is_file() else path)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def rules_hash(extra: list[str], base: Path) -> str:
    """Content hash of the shipped rule files and of any --rules folders: a changed rule re-runs the
    stages that use the rules."""
    from metalogic.logic import CORE_DIR

    h = hashlib.sha256()
    for root in [CORE_DIR.parent, *((base / d).resolve() for d in extra)]:
        if root.exists():
            for f in sorted(p for p in root.rglob("*") if p.suffix in (".lp", ".pl", ".facts", ".decl")):
                h.update(str(f.relative_to(root)).encode())
                h.update(f.read_bytes())
    return h.hexdigest()[:16]


def code_hash(package: str) -> str:
    """Content hash of a package's Python sources: an upgrade that changes what a stage writes (new
    scene facts, say) re-runs that stage instead of keeping its old output as up to date."""
    import importlib

    root = Path(str(importlib.import_module(package).__file__)).parent
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def detector_hash(detector: str | None, base: Path) -> str:
    """Content hash of the detector weights the extract stage will use ('gt' has none)."""
    if detector == "gt":
        return "gt"
    from metalogic.extract.tracking import DEFAULT_DETECTOR, DETECTORS

    name = DEFAULT_DETECTOR if detector in (None, "default") else detector
    path = DETECTORS.get(name) or (base / name).resolve()
    return tree_hash(path) if path.is_file() else f"missing:{path}"
