"""`metalogic check`: facts folder in, violations and Spatial Cognition scores out.

The rules decide everything (test cases, violations, counts); this module reads the facts, runs
one or both engines, insists that both agree when both run, turns input errors derived by the rules
into located messages, and shapes the engine's counts into tables.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field

from metalogic.engine.check.blame import run_blame
from metalogic.engine.check.differential import INPUT_CHECKS
from metalogic.engine.errors import MetalogicError, Problem, did_you_mean
from metalogic.engine.facts import FactSet, display_path, read_facts
from metalogic.engine.input_errors import input_errors
from metalogic.engine.results import Rows, parse_output
from metalogic.engine.rules.declarations import MR, Param
from metalogic.engine.rules.loader import RuleSet, load_ruleset, select_mrs
from metalogic.engine.rules.params import resolve_settings
from metalogic.engine.session import ENGINE_CHOICES, ENGINES
from metalogic.engine.session.api import Session
from metalogic.engine.session.runs import ClingoStream, EngineOutput, prolog_declarations, run_engine
from metalogic.engine.terms import Fun, parse_term, text

# More query ids than this for one content draws a warning: MR3 (non-contradiction) compares every
# pair of queries with the same content, so n copies make n*(n-1)/2 test cases (50 make 1,225; 800
# make 319,600). A question asked in each of its few surface forms stays far below it.
MAX_COPIES = 50
MAX_COPY_WARNINGS = 5


@dataclass
class CheckResult:
    engine: str
    rules: RuleSet
    facts: FactSet
    params: dict[str, int]
    rows: Rows
    agents: list[str] = field(default_factory=list)
    detail: bool = True  # False: only the scores were derived (no explanations, no per-place counts)
    # what the user should hear about the input (the check is right all the same); the caller prints it
    warnings: str = ""


def resolve_params(rules: RuleSet, settings: Sequence[str]) -> dict[str, int]:
    """Turn `-c name=value` settings into integer overrides of the rule set's parameters."""
    return resolve_settings(settings, rules.params)


def verify_prolog_twins(rules: RuleSet) -> None:
    """SWI-Prolog must read from every MR's declaration file what the loader read from it, and a
    user's .pl twin must call only what some rule or fact defines (as the loader requires of the
    .lp twin): checked in the loaded code, not only where a run reaches it."""
    user = [m.pl for m in rules.mrs if not m.shipped]
    if user:
        undefined = Session("prolog").load(*rules.pl_files).undefined_calls(user)
        if undefined:
            raise MetalogicError(undefined)
    declared = prolog_declarations(rules)
    by_file: dict[str, set[str]] = {}
    for line in declared:
        term, _, path = line.partition(" @ ")
        by_file.setdefault(path, set()).add(term)
    problems = []
    for mr in rules.mrs:
        want = _expected_declarations(mr, rules)
        got = by_file.get(str(mr.decl_file), set()) | by_file.get(str(mr.decl_file.resolve()), set())
        if want != got:
            missing, extra = sorted(want - got), sorted(got - want)
            detail = "; ".join(
                filter(
                    None,
                    [
                        f"missing {', '.join(missing)}" if missing else "",
                        f"different {', '.join(extra)}" if extra else "",
                    ],
                )
            )
            problems.append(
                Problem(
                    f"SWI-Prolog reads other declarations of {mr.id}: {detail}",
                    where=display_path(mr.decl_file),
                    expected=f"the facts of {display_path(mr.decl_file)} as the loader reads them, and no "
                    f"declaration elsewhere in {display_path(mr.pl)}",
                    fix="write the declarations as plain facts, one a line (see docs/adding-an-mr.md)",
                )
            )
    if problems:
        raise MetalogicError(problems)


def _expected_declarations(mr: MR, rules: RuleSet) -> set[str]:
    from metalogic.engine.terms import quote

    want = {f"mr({mr.id})", f"mr_name({mr.id},{quote(mr.name)})", f"mr_law({mr.id},{quote(mr.law)})"}
    want |= {f"mr_serves({mr.id},{sc})" for sc in mr.serves}
    want |= {f"mr_set({mr.id},{st})" for st in mr.sets if st != "user"}
    for p in mr_params(mr, rules):
        want.add(f"param_default({p.name},{p.default},{quote(p.doc)})")
        if p.scale != 1:
            want.add(f"param_scale({p.name},{p.scale})")
    return want


def mr_params(mr: MR, rules: RuleSet) -> list[Param]:
    return [rules.params[n] for n in rules.param_owner if rules.param_owner[n] == mr.id]


def run_check(
    folder: str | FactSet,
    *,
    engine: str = "clingo",
    rules_dirs: Sequence[str] = (),
    settings: Sequence[str] = (),
    agents: Sequence[str] = (),
    workers: int = 1,
    mrs: str | Sequence[str] = "all",
    detail: bool = True,
) -> CheckResult:
    """Check the facts under `folder` (or the facts given, already read: engine.facts.facts_from_text
    holds them in memory). With workers > 1 the facts are split into shards of whole
    trajectories checked by that many processes (engine/shards/run.py); the result is the same.
    detail=False derives only what the score table needs (what `metalogic check` prints without
    --out): no rows of test cases and violations (only their numbers), no explanations and no counts
    per trajectory, object or answer. engine="both" always compares everything: the engines must
    agree on every line, and a disagreement is clearest on the violations themselves."""
    if engine not in ENGINE_CHOICES:
        raise MetalogicError.single(
            f"unknown engine '{engine}'",
            expected=" or ".join(ENGINE_CHOICES),
            fix=did_you_mean(engine, ENGINE_CHOICES),
        )
    rules = select_mrs(load_ruleset(rules_dirs, engine=engine), mrs)
    params = resolve_params(rules, settings)
    engines = list(ENGINES) if engine == "both" else [engine]
    detail = detail or engine == "both"
    with ExitStack() as stack:
        stream: ClingoStream | None = None
        if isinstance(folder, FactSet):
            facts = folder
        elif workers > 1:
            from metalogic.engine.shards.run import read_facts_in_parallel

            facts = read_facts_in_parallel(folder, workers)
        elif engine == "clingo":  # clingo parses each chunk of facts while the next one is read
            stream = stack.enter_context(ClingoStream(rules, detail))
            facts = read_facts(folder, sink=stream.feed)
        else:
            facts = read_facts(folder)
        warning = many_copies(facts) if any(m.id == "mr3" for m in rules.mrs) else ""
        if "prolog" in engines:
            verify_prolog_twins(rules)
        if workers > 1:
            from metalogic.engine.shards.run import run_sharded

            outputs = [run_sharded(e, rules_dirs, facts.facts, params, workers, mrs, detail) for e in engines]
        elif stream is not None:
            outputs = [stream.finish(params)]
        else:
            program = facts.program()
            outputs = [run_engine(e, rules, program, params, detail) for e in engines]
    if len(outputs) == 2:  # faults of the input first: with one, nothing else is reported
        ensure_agreement(outputs[0], outputs[1], only=INPUT_CHECKS)
    out = outputs[0]
    if out.lines["rule_error"]:
        raise rule_errors(out)
    if out.lines["input_error"]:
        raise input_errors(out, facts)
    values = {name: params.get(name, p.default) for name, p in rules.params.items()}
    for each in outputs:  # each engine blames on its own: both must agree on the blame too
        run_blame(each.engine, each.lines, values, each.symbols)
        each.symbols = {}  # read: blame does not need them again
    if len(outputs) == 2:
        ensure_agreement(outputs[0], outputs[1])
    out = outputs.pop(0)
    outputs.clear()  # the other engine's lines, once compared, are not needed
    rows = parse_output(out, consume=True)  # the lines go as their rows come
    known = sorted({r[0] for r in rows.scores})
    for a in agents:
        if a not in known:
            raise MetalogicError.single(
                f"no answers from agent '{a}' in {facts.root if isinstance(folder, FactSet) else folder}",
                expected="one of " + (", ".join(known) or "(no agents)"),
                fix=did_you_mean(a, known) or "check the agent name",
            )
    if agents:
        rows = rows.only_agents(set(agents))
    return CheckResult(
        engine=engine,
        rules=rules,
        facts=facts,
        params=params,
        rows=rows,
        agents=[a for a in known if not agents or a in agents],
        detail=detail,
        warnings=warning,
    )


def rule_errors(out: EngineOutput, shown: int = 5) -> MetalogicError:
    """The rules' own consistency errors (rule_error/1 of logic/core/cases.lp) as one message each."""
    problems = []
    for line in sorted(out.lines["rule_error"])[:shown]:
        term = parse_term(line)
        assert isinstance(term, Fun) and isinstance(term.args[0], Fun)
        case, sc, mr1, mr2 = (text(a) for a in term.args[0].args)
        problems.append(
            Problem(
                f"test case {case} is derived by two MRs, {mr1} and {mr2}, for capability {sc}",
                expected="case ids that belong to one MR (by convention they start with its id)",
                fix="give the cases of one of the two MR files ids of their own",
            )
        )
    return MetalogicError(problems, more=max(0, len(out.lines["rule_error"]) - shown))


def many_copies(facts: FactSet) -> str:
    """A warning, as printed, for query contents asked under more than MAX_COPIES query ids ('' when
    there are none): the check is right, but MR3 makes a test case of every pair of them."""
    ids: dict[str, dict[str, None]] = {}
    for fact in facts.facts:
        if not fact.startswith("query("):
            continue
        # Query facts hold atoms and integers only: without its blanks the text is clingo's own,
        # but for -0 (which is 0). Parsing every query instead would cost seconds on large runs.
        flat = "".join(fact.split())
        if "-0" in flat:
            flat = text(parse_term(flat))
        qid, _, content = flat[len("query(") : -1].partition(",")
        ids.setdefault(content, {})[qid] = None
    crowded = sorted(
        ((len(q), content, list(q)) for content, q in ids.items() if len(q) > MAX_COPIES),
        key=lambda c: (-c[0], c[1]),
    )
    if not crowded:
        return ""
    lines = [
        f"warning: the question {_clip(content)} is asked under {n:,} query ids ({_clip(q[0])}, "
        f"{_clip(q[1])}, ...): MR3 compares every pair of them, {n * (n - 1) // 2:,} test cases"
        for n, content, q in crowded[:MAX_COPY_WARNINGS]
    ]
    if len(crowded) > MAX_COPY_WARNINGS:
        more = len(crowded) - MAX_COPY_WARNINGS
        lines.append(f"warning: and {more:,} more questions asked under more than {MAX_COPIES} query ids")
    lines.append(
        "  fix: ask each question in a few surface forms (form/2) and drop the other copies; the check "
        "is right as it is, only slower"
    )
    return "\n".join(lines)


def _clip(s: str, width: int = 60) -> str:
    return s if len(s) <= width else s[: width - 3] + "..."


def ensure_agreement(
    a: EngineOutput, b: EngineOutput, shown: int = 5, only: Sequence[str] | None = None
) -> None:
    """Refuse a check whose two engines disagree (engine/check/differential.py says where), on every
    result or on those named by `only`."""
    from metalogic.engine.check.differential import differences

    problems = []
    for d in differences(a, b, only):
        lines = [f"  only {a.engine}: {x}" for x in d.only_first[:shown]] + [
            f"  only {b.engine}: {x}" for x in d.only_second[:shown]
        ]
        problems.append(
            Problem(
                f"the engines disagree on {d.predicate} ({len(d.only_first)} only from {a.engine}, "
                f"{len(d.only_second)} only from {b.engine}):\n" + "\n".join(lines),
                expected="identical results from clingo and SWI-Prolog",
                fix="an MR's .lp and .pl halves encode different laws; make them agree",
            )
        )
    if problems:
        raise MetalogicError(problems)


EXPECT_PREFIX = "% expect:"


def expected_violations(facts: FactSet) -> set[str]:
    """The violations the facts files document with `% expect: violation(...)` lines (rule tests
    written as data: the facts, then the verdicts a human checked)."""
    from metalogic.engine.terms import ParseError, parse_term

    out = set()
    for path in facts.files:
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            stripped = line.strip()
            if not stripped.startswith(EXPECT_PREFIX):
                continue
            body = stripped[len(EXPECT_PREFIX) :].strip().rstrip(".")
            try:
                term = parse_term(body)
            except ParseError as pe:
                raise MetalogicError.single(
                    f"unreadable expectation: {pe.what}",
                    where=f"{display_path(path)}:{lineno}",
                    source_line=line,
                    expected="% expect: violation(Agent, Case, MR, SC, Reason)",
                    fix="write the violation as metalogic check prints it",
                ) from None
            if not isinstance(term, Fun) or term.name != "violation" or len(term.args) != 5:
                raise MetalogicError.single(
                    "an expectation must be a violation/5 term",
                    where=f"{display_path(path)}:{lineno}",
                    source_line=line,
                    expected="% expect: violation(Agent, Case, MR, SC, Reason)",
                )
            out.add(text(term))
    return out


def compare_expected(res: CheckResult) -> tuple[set[str], set[str]]:
    """(expected but not reported, reported but not expected)."""
    from metalogic.engine.terms import Atom, Str

    got = set()
    for agent, case, mr, sc, reason in res.rows.violations:
        ag = text(Atom(agent)) if agent.isidentifier() and agent[:1].islower() else text(Str(agent))
        got.add(f"violation({ag},{case},{mr},{sc},{reason})")
    want = expected_violations(res.facts)
    return want - got, got - want


def wilson(held: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion held/n."""
    if n == 0:
        return (math.nan, math.nan)
    p = held / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))
