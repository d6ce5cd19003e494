"""Engine output as rows: split the canonical result lines into their arguments.

Result lines are ground terms printed the clingo way. Splitting them at top-level commas (outside
strings and brackets) is all that is needed to make tables; no term is re-evaluated here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from metalogic.engine.backends import EngineOutput

_SCAN = re.compile(r'"(?:[^"\\]|\\.)*"|[(),]')


def split_args(line: str) -> list[str]:
    """`name(a,b(c,d),"e,f")` -> ['a', 'b(c,d)', '"e,f"']."""
    if '"' not in line:  # no strings: split at every comma, then rejoin the pieces of nested terms
        return _split_plain(line)
    return _split_scan(line)


def _split_scan(line: str) -> list[str]:
    start = line.index("(") + 1
    args, depth, last = [], 0, start
    for m in _SCAN.finditer(line, start):
        tok = m.group()
        if tok == "(":
            depth += 1
        elif tok == ")":
            if depth == 0:
                args.append(line[last : m.start()])
                break
            depth -= 1
        elif tok == "," and depth == 0:
            args.append(line[last : m.start()])
            last = m.end()
    return args


def _split_plain(line: str) -> list[str]:
    inner = line[line.index("(") + 1 : line.rindex(")")]
    pieces = inner.split(",")
    if "(" not in inner:
        return pieces
    args: list[str] = []
    depth = 0
    for piece in pieces:
        if depth:
            args[-1] += "," + piece
        else:
            args.append(piece)
        depth += piece.count("(") - piece.count(")")
    return args


def label(arg: str) -> str:
    """An agent or id as a person reads it: strings without their quotes."""
    if arg.startswith('"'):
        return arg[1:-1].replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
    return arg


def first_arg(term: str) -> str:
    return split_args(term)[0] if "(" in term else term


@dataclass
class Rows:
    testcases: list[tuple[str, str, str]] = field(default_factory=list)  # case, mr, sc
    violations: list[tuple[str, str, str, str, str]] = field(
        default_factory=list
    )  # agent, case, mr, sc, reason
    scores: list[tuple[str, str, int, int]] = field(default_factory=list)  # agent, sc, cases, violations
    scores_mr: list[tuple[str, str, str, int, int]] = field(
        default_factory=list
    )  # agent, sc, mr, cases, viol.
    scores_set: list[tuple[str, str, str, int, int]] = field(
        default_factory=list
    )  # agent, sc, kind of evidence (MR set), cases, viol.
    pooled: dict[tuple[str, str], tuple[int, int]] = field(
        default_factory=dict
    )  # (agent, sc) -> (cases, viol.) over every MR (the paper's single share)
    score_from: dict[tuple[str, str], str] = field(default_factory=dict)  # (agent, sc) -> weakest kind
    invalid: dict[tuple[str, str], int] = field(default_factory=dict)  # (agent, sc) -> cases with invalid
    by_trajectory: list[tuple[str, str, int, int]] = field(default_factory=list)  # agent, traj, cases, viol.
    by_object: list[tuple[str, str, str, int, int]] = field(
        default_factory=list
    )  # agent, traj, obj, cases, viol.
    explain: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (agent, case) -> facts
    by_query: dict[tuple[str, str], tuple[int, int]] = field(
        default_factory=dict
    )  # (agent, query) -> (cases, viol.)
    case_count: int = 0  # test cases (all of them, whichever agents are kept)
    violation_counts: dict[str, int] = field(default_factory=dict)  # agent -> violation rows

    def only_agents(self, keep: set[str]) -> Rows:
        return Rows(
            testcases=self.testcases,
            violations=[r for r in self.violations if r[0] in keep],
            scores=[r for r in self.scores if r[0] in keep],
            scores_mr=[r for r in self.scores_mr if r[0] in keep],
            scores_set=[r for r in self.scores_set if r[0] in keep],
            pooled={k: v for k, v in self.pooled.items() if k[0] in keep},
            score_from={k: v for k, v in self.score_from.items() if k[0] in keep},
            invalid={k: v for k, v in self.invalid.items() if k[0] in keep},
            by_trajectory=[r for r in self.by_trajectory if r[0] in keep],
            by_object=[r for r in self.by_object if r[0] in keep],
            explain={k: v for k, v in self.explain.items() if k[0] in keep},
            by_query={k: v for k, v in self.by_query.items() if k[0] in keep},
            case_count=self.case_count,
            violation_counts={k: v for k, v in self.violation_counts.items() if k in keep},
        )

    @property
    def violation_count(self) -> int:
        """Violation rows of the agents kept (as many as `violations` holds when it was asked for)."""
        return sum(self.violation_counts.values())


def parse_output(out: EngineOutput, consume: bool = False) -> Rows:
    """The rows of an engine's result lines. consume=True empties `out` while reading it (each
    predicate's lines are dropped once they are rows), so that a big `check --out` never holds all
    its lines and all its rows at once."""
    lines = out.lines if consume else {k: set(v) for k, v in out.lines.items()}

    def take(kind: str) -> set[str]:
        taken, lines[kind] = lines.get(kind, set()), set()
        return taken

    rows = Rows()
    for line in sorted(take("testcase")):
        c, mr, sc = split_args(line)
        rows.testcases.append((c, mr, sc))
    for line in sorted(take("violation")):
        ag, c, mr, sc, reason = split_args(line)
        rows.violations.append((label(ag), c, mr, sc, reason))
    for line in take("score"):
        ag, sc, n, v = split_args(line)
        rows.scores.append((label(ag), sc, int(n), int(v)))
    rows.scores.sort()
    for line in take("score_mr"):
        ag, sc, mr, n, v = split_args(line)
        rows.scores_mr.append((label(ag), sc, mr, int(n), int(v)))
    rows.scores_mr.sort()
    for line in take("score_set"):
        ag, sc, kind, n, v = split_args(line)
        rows.scores_set.append((label(ag), sc, kind, int(n), int(v)))
    rows.scores_set.sort()
    for line in take("score_pooled"):
        ag, sc, n, v = split_args(line)
        rows.pooled[(label(ag), sc)] = (int(n), int(v))
    for line in take("score_from"):
        ag, sc, kind = split_args(line)
        rows.score_from[(label(ag), sc)] = kind
    for line in take("invalid_cases"):
        ag, sc, n = split_args(line)
        rows.invalid[(label(ag), sc)] = int(n)
    for line in take("score_traj"):
        ag, t, n, v = split_args(line)
        rows.by_trajectory.append((label(ag), label(t), int(n), int(v)))
    rows.by_trajectory.sort()
    for line in take("score_object"):
        ag, t, o, n, v = split_args(line)
        rows.by_object.append((label(ag), label(t), label(o), int(n), int(v)))
    rows.by_object.sort()
    for line in take("query_score"):
        ag, q, n, v = split_args(line)
        rows.by_query[(label(ag), q)] = (int(n), int(v))
    for line in take("case_count"):
        rows.case_count = int(split_args(line)[0])
    for line in take("violation_count"):
        ag, n = split_args(line)
        rows.violation_counts[label(ag)] = int(n)
    explain = take("explain")
    while explain:  # popped rather than sorted first: a million lines need no second list
        ag, c, fact = split_args(explain.pop())
        rows.explain.setdefault((label(ag), c), []).append(fact)
    for facts in rows.explain.values():
        facts.sort(key=_as_in_line)  # in the order of the lines `explain(Ag,C,Fact)` themselves
    return rows


def _as_in_line(fact: str) -> str:
    return fact + ")"
