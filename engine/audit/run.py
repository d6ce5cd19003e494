"""`metalogic audit`: machine-checked soundness, tightness and non-redundancy of the MR set.

Everything is decided by clingo over bounded worlds declared in logic/audit/ (engine/audit/worlds.py):
(a) soundness: every world of a family answered truthfully flags nothing (engine/audit/soundness.py).
(b) tightness: every entry of every composition table is realised by some world, and no world
    realises an entry the tables leave out (engine/audit/tightness.py).
(c) non-redundancy: answers flagged by one MR while every other MR of the same capabilities has
    test cases there and flags nothing (engine/audit/redundancy.py).
(d) engine agreement: clingo and SWI-Prolog on random fact sets (in this module).
(e) completeness: the distortions of the truth no MR catches, the blind spots
    (engine/audit/completeness.py).
Python only builds probe queries for (c), runs the solver, renames ids and writes the report. This
module runs the parts, spread over processes, and merges their verdicts (engine/audit/verdicts.py).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

from metalogic.engine.audit.completeness import COMPLETENESS_FAMILIES, completeness
from metalogic.engine.audit.redundancy import non_redundancy
from metalogic.engine.audit.soundness import soundness
from metalogic.engine.audit.tightness import tightness
from metalogic.engine.audit.verdicts import AuditReport, Verdict, merge_completeness, merge_soundness
from metalogic.engine.audit.worlds import FAMILIES, family_of
from metalogic.engine.rules.loader import RuleSet

# --- (d) engine agreement -------------------------------------------------------------------------


def engine_agreement(rules: RuleSet, samples: int, seed: int = 0) -> Verdict:
    from metalogic.engine.audit.random_facts import random_program
    from metalogic.engine.check.differential import differences, run_both

    t0 = time.perf_counter()
    rng = random.Random(seed)
    batch = 50
    for start in range(0, samples, batch):
        n = min(batch, samples - start)
        program = "".join(random_program(rng, f"r{start + i}") for i in range(n))
        diffs = differences(*run_both(rules, program, {}))
        if diffs:
            first = diffs[0]
            return Verdict(
                "engines",
                "clingo vs prolog",
                "disagree",
                f"random fact sets {start}..{start + n - 1} differ on {first.predicate}: "
                + "; ".join(first.sample()),
                f"{samples} random fact sets",
                time.perf_counter() - t0,
                program,
            )
    return Verdict(
        "engines",
        "clingo vs prolog",
        "agree",
        f"identical test cases, violations, scores and explanations on {samples} random fact sets",
        f"seed {seed}",
        time.perf_counter() - t0,
    )


# --- the whole audit ------------------------------------------------------------------------------


def _task(
    kind: str, arg: str, rules: RuleSet, only: tuple[str, ...], bound: int | None, samples: int
) -> list[Verdict]:
    mrs = [rules.by_id(m) for m in only] if only else rules.mrs
    if kind == "soundness":
        return soundness(rules, FAMILIES[arg], bound, mrs)
    if kind == "tightness":
        return tightness()
    if kind == "non-redundancy":
        return [non_redundancy(rules, rules.by_id(arg))]
    if kind == "completeness":
        return completeness(rules, FAMILIES[arg])
    return [engine_agreement(rules, samples)]


def _tasks(rules: RuleSet, only: Sequence[str], samples: int) -> list[tuple[str, str]]:
    """The parts to run, as (kind, argument). With --mr, only the parts that say something about
    those MRs: the soundness of the families that serve their capabilities, their non-redundancy and
    the engines' agreement. The blind spots and the algebra's tightness are properties of the whole
    rule set and run without it."""
    mrs = [rules.by_id(m) for m in only] if only else rules.mrs
    served = {sc for m in mrs for sc in m.serves}
    tasks = [("soundness", f) for f, fam in FAMILIES.items() if not only or served & set(fam.scs)]
    if not only:
        tasks += [("completeness", f) for f in COMPLETENESS_FAMILIES] + [("tightness", "")]
    tasks += [("non-redundancy", m.id) for m in mrs]
    if samples:
        tasks.append(("engines", ""))
    return tasks


def run_audit(
    rules: RuleSet,
    *,
    only: Sequence[str] = (),
    bound: int | None = None,
    samples: int = 200,
    workers: int = 2,
    progress: Callable[[str], None] | None = None,
) -> AuditReport:
    """Run every part of the audit, spread over `workers` processes (each grounding is independent)."""
    import concurrent.futures as cf
    import multiprocessing

    say = progress or (lambda _msg: None)
    mrs = [rules.by_id(m) for m in only] if only else rules.mrs
    tasks = _tasks(rules, only, samples)
    report = AuditReport()
    t0 = time.perf_counter()
    results: dict[int, list[Verdict]] = {}
    if workers <= 1:
        for i, (kind, arg) in enumerate(tasks):
            say(f"{kind} {arg}".strip())
            results[i] = _task(kind, arg, rules, tuple(only), bound, samples)
    else:
        ctx = multiprocessing.get_context("spawn")
        with cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            futures = {
                pool.submit(_task, kind, arg, rules, tuple(only), bound, samples): i
                for i, (kind, arg) in enumerate(tasks)
            }
            for fut in cf.as_completed(futures):
                i = futures[fut]
                results[i] = fut.result()
                say(f"done: {' '.join(tasks[i]).strip()}")
    collected = [v for i in range(len(tasks)) for v in results[i]]
    report.verdicts += merge_completeness(merge_soundness(collected))
    for m in mrs:
        if not any(family_of(sc) for sc in m.serves):
            report.verdicts.append(
                Verdict("soundness", m.id, "untested", "its capabilities have no audit worlds")
            )
    report.seconds = time.perf_counter() - t0
    return report
