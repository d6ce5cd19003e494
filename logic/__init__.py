"""metalogic.logic: the rule files (clingo .lp, SWI-Prolog .pl, shared .facts) shipped as package data."""

from pathlib import Path

LOGIC_DIR = Path(__file__).resolve().parent
CORE_DIR = LOGIC_DIR / "core"
MRS_DIR = LOGIC_DIR / "mrs"
BLAME_DIR = LOGIC_DIR / "blame"
SHARED_TABLES = CORE_DIR / "tables.facts"  # the vocabulary and direction tables both engines read
