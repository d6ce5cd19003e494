"""Write logic/core/compat.facts: the egocentric relations and map directions a truthful agent can
give together for one pair of objects (MR12's table), found by model finding over the worlds of
logic/audit/compat.lp with the truth semantics of logic/truth/ (about 4 minutes and 3 GB).

Run: python scripts/gen_compat.py            (rewrite the table)
     python scripts/gen_compat.py --check    (exit 1 when the table differs from a fresh derivation)
"""

from __future__ import annotations

import sys
from pathlib import Path

from metalogic.engine.session.api import Session

ROOT = Path(__file__).resolve().parent.parent
CORE, TRUTH, AUDIT = ROOT / "logic" / "core", ROOT / "logic" / "truth", ROOT / "logic" / "audit"
FILES = [TRUTH / "truth.lp", AUDIT / "compat.lp"]  # after the tables


def derive() -> list[tuple[str, str]]:
    session = Session("clingo").load(*FILES).add("#show compat/2.")
    return sorted({(str(s.arguments[0]), str(s.arguments[1])) for s in session.symbols()})


def main() -> None:
    pairs = derive()
    if sys.argv[1:] == ["--check"]:
        written = (CORE / "compat.facts").read_text(encoding="utf-8").splitlines()
        stored = sorted(
            tuple(line[len("ego_map(") : -2].split(", ")) for line in written if line.startswith("ego_map(")
        )
        if stored != [tuple(p) for p in pairs]:
            print(
                "compat.facts differs from the derivation: run python scripts/gen_compat.py", file=sys.stderr
            )
            sys.exit(1)
        print(f"compat.facts holds the {len(pairs)} derived pairs", file=sys.stderr)
        return
    lines = [
        "% ego_map(EgoName, MapName): a truthful agent can answer an object pair with this obj_dir name and",
        "% this map_dir name in one frame. Derived by model finding (logic/audit/compat.lp over the truth",
        "% semantics, closed under mirroring and swapping the objects) by scripts/gen_compat.py;",
        "% do not edit.",
        "% `python scripts/gen_compat.py --check` compares it with a fresh derivation.",
        *(f"ego_map({e}, {m})." for e, m in pairs),
    ]
    (CORE / "compat.facts").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(pairs)} pairs to {CORE / 'compat.facts'}", file=sys.stderr)


if __name__ == "__main__":
    main()
