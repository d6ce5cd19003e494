"""Shared test helpers. Tests run the real clingo and the real SWI-Prolog (through pyswip)."""

from __future__ import annotations

import contextlib
import io
import random
from functools import lru_cache
from pathlib import Path

from metalogic.engine.audit.random_facts import random_worlds
from metalogic.engine.rules.loader import RuleSet, load_ruleset

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


# ---- random worlds for the engine-agreement and shard tests (engine/audit/random_facts.py) ------

WORLDS_PER_BATCH = 400


@lru_cache(maxsize=1)
def ruleset() -> RuleSet:
    return load_ruleset()


def random_settings(rng: random.Random) -> list[str]:
    return [
        f"eps={rng.choice(['0.1', '0.001', '0.5', '1', '0'])}",
        f"delta={rng.choice(['0.05', '0.001', '0.25', '1', '0'])}",
        f"same_tol_steps={rng.randint(0, 1)}",
        f"same_tol_mm={rng.choice([0, 1, 10])}",
        f"tri_tol_steps={rng.randint(0, 2)}",
        f"tri_tol_mm={rng.choice([0, 1, 15])}",
    ]


def make_batch(seed: int, faults: bool = True) -> tuple[list[list[str]], list[str]]:
    rng = random.Random(seed)
    worlds = random_worlds(rng, WORLDS_PER_BATCH, faults)
    return worlds, random_settings(rng)
