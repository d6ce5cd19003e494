"""Shared test helpers. Tests run the real clingo and the real SWI-Prolog (through pyswip)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "facts"


def run_cli(*args: str) -> tuple[int, str, str]:
    """Run the `metalogic` CLI in-process: (exit status, stdout, stderr)."""
    from metalogic.app.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()
