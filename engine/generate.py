"""`metalogic generate`: scene facts in, queries and test cases out (sliding windows over each trajectory).

Which combinations of states and objects make a test case, and which queries (content + surface
form) each combination asks, is declared in logic/generate/*.lp. This module only

1. reads and checks the scene facts,
2. asks clingo for the candidate combinations of the chosen capabilities,
3. samples up to N of them per trajectory (seeded; the same seed gives the same bytes),
4. gives every distinct query one stable id, so one answer serves every case that needs it,
5. runs the MR rules over the chosen queries to count the test cases they really form, and
6. writes RUN_DIR/scene.lp, RUN_DIR/queries.lp and RUN_DIR/run.json atomically.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import clingo

from metalogic import __version__
from metalogic.engine import schema
from metalogic.engine.backends import EngineOutput
from metalogic.engine.errors import MetalogicError, Problem, did_you_mean
from metalogic.engine.facts import FactSet, display_path, read_facts
from metalogic.engine.input_errors import input_errors
from metalogic.engine.results import split_args
from metalogic.engine.rules import load_ruleset
from metalogic.engine.session import Session
from metalogic.engine.terms import Fun, parse_term, text
from metalogic.engine.vocab import vocabulary
from metalogic.logic import LOGIC_DIR

GEN_DIR = LOGIC_DIR / "generate"
TALLY = GEN_DIR / "tally.lp"
ENUMERATE = GEN_DIR / "enumerate.lp"  # the files the combinations come from (not the tally)
STRATEGIES = ("share", "spread")
SCENE_GROUPS = ("scene", "truth")
# What a capability needs from the scene before it gets any combination (for the notes).
NEEDS = {
    "sc1a": "two states whose frames show one persistent object whole, seen by a camera that moves with "
    "the agent and whose pitch is known",
    "sc1b": "two states whose frames show one persistent object whole, seen by a camera that moves with "
    "the agent and whose pitch is known",
    "sc2a": "two persistent objects clearly apart left/right in one frame",
    "sc2b": "two persistent objects clearly apart left/right in one frame",
    "sc3a": "a persistent object with a whole, tall enough box in a frame whose camera pitch is known",
    "sc3b": "a persistent object with a whole, tall enough box in a frame whose camera pitch is known",
    "sc4a": "two persistent objects clearly apart left/right in a frame whose camera pitch is known",
    "sc4b": "a persistent object seen whole in a frame whose camera pitch is known",
}
MOVEMENT_SCS = ("sc1a", "sc1b")

Query = tuple[str, str]  # (content, form) as canonical text


@dataclass(frozen=True)
class Combo:
    """One candidate combination: c(T, SC, MR, Key) and the queries it asks."""

    key: str
    traj: str
    sc: str
    mr: str
    shape: str  # the functor of Key: win, pair, tri, view, ego, two, same
    queries: tuple[Query, ...]


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


def check_strategy(strategy: str) -> None:
    if strategy not in STRATEGIES:
        raise MetalogicError.single(
            f"unknown strategy '{strategy}'",
            expected=" or ".join(STRATEGIES),
            fix=did_you_mean(strategy, STRATEGIES),
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
    defaults = gen_param_defaults()
    out: dict[str, int] = {}
    for item in settings:
        name, sep, raw = (s.strip() for s in item.partition("="))
        if not sep or not name or not raw:
            raise MetalogicError.single(
                f"bad setting '{item}'",
                expected="name=value, e.g. -c min_conf=500",
                fix="write the parameter name, '=' and a whole number",
            )
        if name not in defaults:
            raise MetalogicError.single(
                f"unknown generation parameter '{name}'",
                expected="one of " + ", ".join(defaults),
                fix=did_you_mean(name, list(defaults)) or "see docs/generate.md for the parameters",
            )
        if not raw.isdigit() or int(raw) > 1_000_000:
            raise MetalogicError.single(
                f"bad value '{raw}' for parameter {name}",
                expected="a whole number from 0 to 1000000",
                fix=f"{name}: {defaults[name][1]}",
            )
        out[name] = int(raw)
    return out


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


# ---- enumeration (logic) ---------------------------------------------------------------------


def _ground_and_collect(files: Sequence[Path], program: str, shows: Sequence[str]) -> list[clingo.Symbol]:
    session = Session("clingo").load(*files)
    return session.add(program + "".join(f"#show {s}.\n" for s in shows)).symbols()


def by_trajectory(facts: FactSet) -> dict[str, str]:
    """The scene program split by trajectory (the first argument of every scene predicate): the
    combination rules never relate two trajectories, so each is enumerated on its own."""
    parts: dict[str, list[str]] = {}
    for f in facts.facts:
        parts.setdefault(split_args(f)[0].strip(), []).append(f"{f}.\n")
    return {t: "".join(lines) for t, lines in sorted(parts.items())}


def enumerate_combos(facts: FactSet, scs: Sequence[str], params: dict[str, int]) -> list[Combo]:
    """The candidate combinations the rules in logic/generate derive from the scene."""
    extra = "".join(f"want({sc}).\n" for sc in scs)
    extra += "".join(f"gen_param_override({k},{v}).\n" for k, v in sorted(params.items()))
    combos: list[Combo] = []
    for program in by_trajectory(facts).values():
        combos += _combos_of(program + extra)
    return combos


def _combos_of(program: str) -> list[Combo]:
    forms: dict[tuple[str, str], str] = {}
    needs: dict[str, set[tuple[str, str, str]]] = {}
    for sym in _ground_and_collect([ENUMERATE], program, ["need/4", "form_for/3"]):
        atom = str(sym)
        if atom.startswith("form_for("):
            kind, role, form = split_args(atom)
            forms[(kind, role)] = form
        else:
            key, kind, content, role = _split_need(atom)
            needs.setdefault(key, set()).add((kind, content, role))
    combos = []
    for key in sorted(needs):
        t, sc, mr, shape = key[2:-1].split(",", 3)  # c(T,SC,MR,Key): T, SC and MR have no commas
        queries = tuple(sorted({(x, forms[(k, r)]) for k, x, r in needs[key]}))
        combos.append(Combo(key, t, sc, mr, shape.split("(")[0], queries))
    return combos


def _split_need(atom: str) -> tuple[str, str, str, str]:
    """need(Key,Kind,Content,Role) -> its four arguments. A query content has only identifiers and
    integers as arguments, so its '(' is the last one before Role; plain string search is enough
    (and many times faster than converting clingo symbols piece by piece)."""
    head, _, role = atom[5:-1].rpartition(",")
    paren = head.rfind("(")
    comma = head.rfind(",", 0, paren)
    kind_at = head.rfind(",", 0, comma)
    return head[:kind_at], head[kind_at + 1 : comma], head[comma + 1 :], role


# ---- sampling (Python: seeded and reproducible) ----------------------------------------------


def _rank(seed: int, key: str) -> str:
    return hashlib.sha256(f"{seed}\x00{key}".encode()).hexdigest()


def sample(combos: Sequence[Combo], limit: int | None, seed: int, strategy: str = "share") -> list[Combo]:
    """Up to `limit` combinations per trajectory, taken in turn from each (SC, MR, shape) group, each
    group getting a share of the limit in proportion to its candidates (and at least one where there
    is room), so a sample keeps the whole's mix. `share` takes, within a group, a combination that
    needs the fewest queries not chosen yet (ties in seeded order); `spread` takes them in seeded
    order. A combination whose queries are all chosen already is a test case for free and is not counted."""
    check_strategy(strategy)
    if limit is None:
        return list(combos)
    by_traj: dict[str, list[Combo]] = {}
    for c in combos:
        by_traj.setdefault(c.traj, []).append(c)
    picked: list[Combo] = []
    for traj in sorted(by_traj):
        picked += _sample_one(by_traj[traj], limit, seed, share=strategy == "share")
    return picked


def _quotas(sizes: dict[tuple[str, str, str], int], limit: int) -> dict[tuple[str, str, str], int]:
    """Split `limit` picks over the groups in proportion to their candidates (largest remainders
    first, ties by group), so a sample keeps the mix of the whole: the MRs that check answers
    against the frames keep their share next to those that compare answers with each other."""
    total = sum(sizes.values())
    if total <= limit:
        return dict(sizes)
    base = {g: 1 if limit >= len(sizes) else 0 for g in sizes}  # each group served when there is room
    spare = limit - sum(base.values())
    exact = {g: spare * (n - base[g]) / (total - sum(base.values())) for g, n in sizes.items()}
    quota = {g: base[g] + int(x) for g, x in exact.items()}
    rest = sorted(sizes, key=lambda g: (-(exact[g] - int(exact[g])), g))
    for g in rest[: limit - sum(quota.values())]:
        quota[g] += 1
    return quota


def _sample_one(combos: list[Combo], limit: int, seed: int, *, share: bool) -> list[Combo]:
    ranks = [_rank(seed, c.key) for c in combos]
    groups: dict[tuple[str, str, str], list[tuple[int, str, int]]] = {}
    users: dict[Query, list[int]] = {}
    for i, c in enumerate(combos):
        groups.setdefault((c.sc, c.mr, c.shape), []).append((len(c.queries) if share else 0, ranks[i], i))
        for q in c.queries:
            users.setdefault(q, []).append(i)
    quota = _quotas({g: len(h) for g, h in groups.items()}, limit)
    for heap in groups.values():
        heapq.heapify(heap)
    chosen: set[Query] = set()
    done = [False] * len(combos)
    taken = dict.fromkeys(groups, 0)

    def cost(i: int) -> int:
        return sum(q not in chosen for q in combos[i].queries)

    def pop_best(heap: list[tuple[int, str, int]]) -> int | None:
        while heap:
            stored, _, i = heapq.heappop(heap)
            if done[i] or (share and stored != cost(i)):
                continue  # taken, or a stale entry (a cheaper one was pushed when its cost fell)
            done[i] = True
            if cost(i) > 0:
                return i
        return None

    picked: list[Combo] = []
    active = sorted(groups)
    while active and len(picked) < limit:
        # Once every group has had its share, the groups that still have candidates fill the rest.
        full = all(taken[g] >= quota[g] for g in active)
        for g in list(active):
            if len(picked) >= limit:
                break
            best = pop_best(groups[g]) if full or taken[g] < quota[g] else None
            if best is None:
                if full or not groups[g]:
                    active.remove(g)
                continue
            taken[g] += 1
            picked.append(combos[best])
            new = [q for q in combos[best].queries if q not in chosen]
            chosen.update(new)
            if share:
                for q in new:
                    for j in users[q]:
                        if not done[j]:
                            c = combos[j]
                            heapq.heappush(groups[(c.sc, c.mr, c.shape)], (cost(j), ranks[j], j))
    return picked


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
    syms = _ground_and_collect(
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
    """Write every file to a temporary name in its folder first, then move them all into place."""
    temps: list[tuple[str, Path]] = []
    try:
        for path, content in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
            temps.append((tmp, path))
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(content)
        for tmp, path in temps:
            os.replace(tmp, path)
    except OSError as exc:
        for tmp, _ in temps:
            Path(tmp).unlink(missing_ok=True)
        raise MetalogicError.single(
            f"cannot write the run folder: {exc.strerror}",
            where=str(exc.filename or ""),
            fix="check the --out path and its permissions",
        ) from None


def run_manifest(res: GenerateResult, facts_dir: Path, params: dict[str, int]) -> dict[str, object]:
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


def generate(
    facts_dir: str | Path,
    out: str | Path,
    *,
    scs: Sequence[str] = (),
    max_per_trajectory: str | int | None = 100,
    seed: int = 0,
    strategy: str = "share",
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
            fix="check the scene facts (metalogic schema lists them), or lower -c min_conf / -c min_box_px",
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
