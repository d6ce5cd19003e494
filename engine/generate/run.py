"""`metalogic generate`: scene facts in, queries and test cases out (sliding windows over each trajectory).

Which combinations of states and objects make a test case, and which queries (content + surface
form) each combination asks, is declared in logic/generate/*.lp. This module only

1. reads and checks the scene facts,
2. asks clingo for the candidate combinations of the chosen capabilities (engine/generate/combos.py),
3. samples up to N of them per trajectory (seeded; the same seed gives the same bytes),
4. gives every distinct query one stable id, so one answer serves every case that needs it
   (engine/generate/files.py),
5. runs the MR rules over the chosen queries to count the test cases they really form, and
6. writes RUN_DIR/scene.lp, RUN_DIR/queries.lp and RUN_DIR/run.json atomically.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from metalogic import __version__
from metalogic.engine import schema
from metalogic.engine.errors import MetalogicError, Problem, did_you_mean
from metalogic.engine.facts import FactSet, display_path, read_facts
from metalogic.engine.generate.combos import (
    GEN_DIR,
    STRATEGIES,
    check_strategy,
    enumerate_combos,
    sample,
    shown_symbols,
)
from metalogic.engine.generate.files import (
    assign_ids,
    check_out_dir,
    render_queries,
    render_scene,
    write_atomically,
)
from metalogic.engine.input_errors import input_errors
from metalogic.engine.rules.declarations import Param
from metalogic.engine.rules.loader import load_ruleset
from metalogic.engine.rules.params import resolve_settings
from metalogic.engine.session.api import Session
from metalogic.engine.session.runs import EngineOutput
from metalogic.engine.terms import parse_term
from metalogic.engine.vocab import vocabulary

TALLY = GEN_DIR / "tally.lp"
SCENE_GROUPS = ("scene", "truth")
# What a capability needs from the scene before it gets any combination (for the notes).
MOVES_NEED = (
    "two states whose frames show one persistent object whole, seen by a camera that moves with the agent "
    "and whose pitch is known; where no two frames share one, two states in a relational frame "
    "(relational_every above 0)"
)
NEEDS = {
    "sc1a": MOVES_NEED,
    "sc1b": MOVES_NEED,
    "sc2a": "two persistent objects clearly apart left/right in one frame",
    "sc2b": "two persistent objects clearly apart left/right in one frame",
    "sc3a": "a persistent object seen whole in a frame whose camera pitch is known",
    "sc3b": "a persistent object seen whole in a frame whose camera pitch is known",
    "sc4a": "two persistent objects clearly apart left/right in a frame whose camera pitch is known",
    "sc4b": "a persistent object seen whole in a frame whose camera pitch is known",
}
MOVEMENT_SCS = ("sc1a", "sc1b")


@dataclass
class GenerateResult:
    run_dir: Path
    scs: list[str]
    seed: int
    limit: int | None
    strategy: str
    queries: list[tuple[str, str, str]]  # (id, content, form)
    cases: dict[tuple[str, str], int]  # (sc, mr) -> test cases
    sc_stats: dict[str, tuple[int, int]]  # sc -> (test cases, distinct queries they use)
    total_cases: int
    trajectories: dict[str, tuple[int, int]]  # traj -> (candidates, sampled)
    mrs: list[str]
    notes: list[str] = field(default_factory=list)

    @property
    def queries_per_case(self) -> float:
        return round(len(self.queries) / self.total_cases, 3) if self.total_cases else 0.0


# ---- options ---------------------------------------------------------------------------------


def parse_scs(items: Iterable[str]) -> list[str]:
    """--sc values (repeatable, comma-separated; sc1 means sc1a and sc1b) in capability order."""
    known = list(vocabulary().capabilities)
    wanted: set[str] = set()
    for item in items:
        for word in filter(None, (w.strip().lower() for w in item.split(","))):
            halves = [sc for sc in known if sc[:-1] == word]
            if word in known or halves:
                wanted.update(halves or [word])
                continue
            hint = did_you_mean(word, known) or did_you_mean(word, sorted({sc[:-1] for sc in known}))
            raise MetalogicError.single(
                f"unknown capability '{word}' in --sc",
                expected="one or more of " + ", ".join(known) + " (sc1 .. sc4 stand for both halves)",
                fix=hint or "e.g. --sc sc1a,sc2a",
            )
    return [sc for sc in known if sc in wanted] if wanted else known


def parse_limit(value: str | int | None) -> int | None:
    """--max-per-trajectory: a positive whole number, or 'all' (None: every combination)."""
    if value is None:
        return None
    raw = str(value).strip().lower()
    if raw == "all":
        return None
    if raw.isdigit() and int(raw) >= 1:
        return int(raw)
    raise MetalogicError.single(
        f"bad --max-per-trajectory '{value}'",
        expected="a whole number of combinations per trajectory, at least 1, or 'all'",
        fix="e.g. --max-per-trajectory 50",
    )


def gen_param_defaults() -> dict[str, tuple[int, str]]:
    """The generation parameters declared in logic/generate/params.lp: name -> (default, doc)."""
    out = {}
    for sym in Session("clingo", tables=False).load(GEN_DIR / "params.lp").atoms():
        if sym.match("gen_param_default", 3):
            name, default, doc = sym.arguments
            out[name.name] = (default.number, doc.string)
    return dict(sorted(out.items()))


def resolve_gen_params(settings: Sequence[str]) -> dict[str, int]:
    """-c name=value overrides of the generation parameters (whole numbers)."""
    params = {name: Param(name, default, doc) for name, (default, doc) in gen_param_defaults().items()}
    return resolve_settings(
        settings,
        params,
        kind="generation parameter",
        example="min_conf=500",
        listing="see docs/generate.md for the parameters",
    )


# ---- reading the scene -----------------------------------------------------------------------


def read_scene(facts_dir: str | Path, scs: Sequence[str]) -> FactSet:
    """Read the scene facts, refusing queries or answers and a scene the chosen SCs cannot use."""
    root = Path(facts_dir)
    if not root.is_dir():
        what = "is a file" if root.exists() else "does not exist"
        raise MetalogicError.single(
            f"facts folder '{facts_dir}' {what}",
            expected="a folder of scene facts (*.lp), as metalogic extract writes",
            fix="check the path, e.g. metalogic generate facts/ --out runs/first",
        )
    facts = read_facts(root)
    shown = display_path(root)
    groups = {p.name: p.group for p in schema.PREDICATES}
    foreign = next((f for f in facts.facts if groups.get(f[: f.find("(")]) not in SCENE_GROUPS), None)
    if foreign is not None:
        keys = sorted(k for k in facts.counts if groups.get(k.split("/")[0]) not in SCENE_GROUPS)
        loc = facts.locate(parse_term(foreign))
        raise MetalogicError(
            [
                Problem(
                    f"the facts folder holds {', '.join(keys)} facts; generate reads scene facts only",
                    where=loc[0] if loc else shown,
                    source_line=loc[1] if loc else "",
                    column=int(loc[0].rsplit(":", 1)[1]) if loc else 0,
                    expected="scene and truth facts (trajectory, state, detection, ...), "
                    "as metalogic extract writes them",
                    fix="point at the scene facts folder, not at a run folder",
                )
            ]
        )
    if not facts.counts.get("state/2"):
        raise MetalogicError.single(
            "no state/2 facts: there are no frames to ask about",
            where=shown,
            expected="scene facts with state(T, S) for every frame of each trajectory",
            fix="point at the folder metalogic extract wrote, or add the state facts",
        )
    object_scs = [sc for sc in scs if sc not in MOVEMENT_SCS]
    if object_scs and not facts.counts.get("persistent/2"):
        raise MetalogicError.single(
            f"no persistent/2 facts, but {', '.join(object_scs)} {'asks' if len(object_scs) == 1 else 'ask'} "
            "about objects",
            where=shown,
            expected="persistent(T, O) facts for the objects tracked over each trajectory",
            fix="write the scene facts with metalogic extract (it marks persistent tracks), "
            "or choose movement only: --sc sc1a,sc1b",
        )
    return facts


# ---- counting (the MR rules decide) -----------------------------------------------------------


@dataclass
class Tally:
    cases: dict[tuple[str, str], int]
    sc_stats: dict[str, tuple[int, int]]
    total_cases: int
    unused: list[str]
    mrs: list[str]


def tally(facts: FactSet, queries_program: str) -> Tally:
    """Run the core and MR rules over scene + queries: the test cases they form, per SC and MR."""
    rules = load_ruleset()
    syms = shown_symbols(
        [*rules.lp_files, TALLY],
        facts.program() + queries_program,
        ["input_error/1", "gen_cases/3", "gen_sc/3", "gen_total/2", "gen_unused/1"],
    )
    out = EngineOutput("clingo")
    t = Tally({}, {}, 0, [], [m.id for m in rules.mrs])
    for s in syms:
        a = s.arguments
        if s.name == "input_error":
            out.lines["input_error"].add(str(s))
        elif s.name == "gen_cases":
            t.cases[(a[0].name, a[1].name)] = a[2].number
        elif s.name == "gen_sc":
            t.sc_stats[a[0].name] = (a[1].number, a[2].number)
        elif s.name == "gen_total" and a[0].name == "cases":
            t.total_cases = a[1].number
        elif s.name == "gen_unused":
            t.unused.append(str(a[0]))
    if out.lines["input_error"]:
        raise input_errors(out, facts)
    t.unused.sort()
    return t


# ---- the manifest (run.json) -----------------------------------------------------------------


def run_manifest(res: GenerateResult, facts_dir: Path, params: dict[str, int]) -> dict[str, object]:
    """What run.json records: the settings, the scene it was read from and the counts."""
    by_sc: dict[str, dict[str, int]] = {}
    for (sc, mr), n in sorted(res.cases.items()):
        by_sc.setdefault(sc, {})[mr] = n
    defaults = gen_param_defaults()
    return {
        "metalogic": __version__,
        "scene_root": str(facts_dir.resolve()),
        "seed": res.seed,
        "sc": res.scs,
        "max_per_trajectory": res.limit if res.limit is not None else "all",
        "strategy": res.strategy,
        "params": {k: params.get(k, d) for k, (d, _) in defaults.items()},
        "files": {"scene": "scene.lp", "queries": "queries.lp"},
        "trajectories": {
            t: {"candidates": c, "sampled": s} for t, (c, s) in sorted(res.trajectories.items())
        },
        "queries": len(res.queries),
        "testcases": res.total_cases,
        "queries_per_testcase": res.queries_per_case,
        "testcases_by_sc_mr": by_sc,
        "by_sc": {sc: {"testcases": n, "queries_used": m} for sc, (n, m) in sorted(res.sc_stats.items())},
    }


# ---- the whole command -----------------------------------------------------------------------


# The defaults of `metalogic generate` and of [generate] in a run configuration, stated once.
DEFAULT_MAX_PER_TRAJECTORY = 100  # combinations sampled per trajectory
DEFAULT_SEED = 0
DEFAULT_STRATEGY = STRATEGIES[0]  # share: prefer combinations that reuse chosen queries


def generate(
    facts_dir: str | Path,
    out: str | Path,
    *,
    scs: Sequence[str] = (),
    max_per_trajectory: str | int | None = DEFAULT_MAX_PER_TRAJECTORY,
    seed: int = DEFAULT_SEED,
    strategy: str = DEFAULT_STRATEGY,
    settings: Sequence[str] = (),
) -> GenerateResult:
    """Generate queries and test cases for the scene facts under `facts_dir` into `out`."""
    chosen = parse_scs(scs)
    limit = parse_limit(max_per_trajectory)
    params = resolve_gen_params(settings)
    check_strategy(strategy)
    facts_path, out_path = Path(facts_dir), Path(out)
    facts = read_scene(facts_path, chosen)
    check_out_dir(facts_path, out_path)
    combos = enumerate_combos(facts, chosen, params)
    if not combos:
        raise MetalogicError.single(
            f"no test case can be built from '{facts_dir}' for {', '.join(chosen)}",
            expected="; ".join(f"{sc}: {NEEDS[sc]}" for sc in chosen),
            fix="check the scene facts (metalogic schema lists them), or lower -c min_conf / -c min_obj_px",
        )
    picked = sample(combos, limit, seed, strategy)
    rows = assign_ids(q for c in picked for q in c.queries)
    queries_text = render_queries(rows)
    t = tally(facts, queries_text)
    dropped = len(t.unused)
    if dropped:
        # An MR's own condition (MR5's pixel guard, say, which depends on the check's parameters) can
        # rule out a case the combination was built for: a query no case uses is not asked.
        unused = set(t.unused)
        rows = [r for r in rows if r[0] not in unused]
        queries_text = render_queries(rows)
        t = tally(facts, queries_text)
    found, taken = Counter(c.traj for c in combos), Counter(c.traj for c in picked)
    counts = {traj: (found[traj], taken[traj]) for traj in sorted(found)}
    res = GenerateResult(
        out_path, chosen, seed, limit, strategy, rows, t.cases, t.sc_stats, t.total_cases, counts, t.mrs
    )
    res.notes = [f"{sc}: no test case (needs {NEEDS[sc]})" for sc in chosen if sc not in t.sc_stats]
    if dropped:
        res.notes.append(
            f"{dropped} questions left out: no test case used them (an MR's own condition ruled it out)"
        )
    manifest = json.dumps(run_manifest(res, facts_path, params), indent=2, sort_keys=True) + "\n"
    write_atomically(
        {
            out_path / "scene.lp": render_scene(facts),
            out_path / "queries.lp": queries_text,
            out_path / "run.json": manifest,
        }
    )
    return res
