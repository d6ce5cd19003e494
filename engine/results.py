"""Engine output as rows: split the canonical result lines into their arguments.

Result lines are ground terms printed the clingo way. Splitting them at top-level commas (outside
strings and brackets) is all that is needed to make tables; no term is re-evaluated here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from metalogic.engine.session.runs import EngineOutput

if TYPE_CHECKING:
    import polars as pl

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


# Many lines at once: one regular expression per predicate takes a line apart where its arguments
# nest at most _DEPTH deep (a check's result lines nest 2 deep), run over all the lines of a
# predicate by polars; a line it does not match is split by split_args. Where it matches, each
# group is one argument exactly as split_args cuts it: a group is a string, or a name with
# bracketed arguments of the same form, so it holds no comma outside brackets and strings.
_BULK = 20_000  # fewer lines are split one by one (no polars import, no frame for a few lines)
_DEPTH = 3  # 4 takes three times as long: the pattern grows with each level
_STRING = r'"(?:[^"\\]|\\.)*"'
_NAME = r'[^,()"]*'


def _arg_pattern(depth: int) -> str:
    if depth == 0:
        return f"(?:{_STRING}|{_NAME})"
    inner = _arg_pattern(depth - 1)
    return f"(?:{_STRING}|{_NAME}(?:\\({inner}(?:,{inner})*\\))?)"


def split_many(
    lines: Collection[str], name: str, arity: int, ordered: bool = False, release: bool = False
) -> list[tuple[str, ...]]:
    """split_args of each of the lines `name(...)` of one predicate; with `ordered`, in the order
    of the lines (sorted as Python sorts str: by code point, as UTF-8 bytes sort). With `release`,
    `lines` (a set the caller gives away) is emptied once polars holds its text."""
    if len(lines) < _BULK:
        return [tuple(split_args(line)) for line in (sorted(lines) if ordered else lines)]
    text = _series(lines, ordered, release)
    parts = _parts(text, name, arity)
    rows: list[tuple[str, ...]] = list(zip(*(parts[c].to_list() for c in parts.columns), strict=True))
    for i in [i for i, row in enumerate(rows) if row[0] is None]:  # not matched: nested deeper
        rows[i] = tuple(split_args(text[i]))
    return rows


def _series(lines: Collection[str], ordered: bool, release: bool = False) -> pl.Series:
    import polars as pl

    series = pl.Series(list(lines), dtype=pl.String)
    if release and isinstance(lines, set):
        lines.clear()
    return series.sort() if ordered else series


def _parts(text: pl.Series, name: str, arity: int) -> pl.DataFrame:
    """The arguments of the lines as columns a0, a1, ... (null where the pattern does not match),
    in the order of the lines."""
    arg = _arg_pattern(_DEPTH)
    groups = ",".join(f"(?<a{i}>{arg})" for i in range(arity))
    return text.str.extract_groups(f"^{re.escape(name)}\\({groups}\\)$").struct.unnest()


class _Shared(dict[str, str]):
    """One str object for each distinct text: a big check's rows repeat the same texts (an
    explanation cites each answer and query in five cases on average, every violation names its
    MR and capability), and a million copies of them were a third of `check --out`'s memory."""

    def __missing__(self, s: str) -> str:
        self[s] = s
        return s


_CHUNK = 500_000  # explanation lines split at a time, so that polars holds one slice's pieces


def _explanations(
    lines: Collection[str], lab: Callable[[str], str], one: _Shared | None = None, release: bool = False
) -> dict[tuple[str, str], list[str]]:
    """(agent, case) -> the facts of its lines `explain(Ag,C,Fact)`, in the order of the lines."""
    one = _Shared() if one is None else one
    out: dict[tuple[str, str], list[str]] = {}
    merged = set()  # keys whose facts came in more than one run: sorted again at the end

    def add(ag: str, c: str, facts: list[str]) -> None:
        key = (lab(ag), one[c])
        facts = [one[f] for f in facts]
        if key in out:  # two texts with one label (an atom and a string), or a line split apart
            out[key].extend(facts)
            merged.add(key)
        else:
            out[key] = facts

    if len(lines) < _BULK:
        for ag, c, fact in split_many(lines, "explain", 3):
            add(ag, c, [fact])
    else:
        text = _series(lines, ordered=True, release=release)
        for start in range(0, len(text), _CHUNK):  # a run cut by a slice's end is merged as above
            chunk = text.slice(start, _CHUNK)
            parts = _parts(chunk, "explain", 3)
            found = parts.filter(parts["a0"].is_not_null())
            for ag, c, facts in found.group_by(["a0", "a1"], maintain_order=True).agg("a2").iter_rows():
                add(ag, c, facts)
            for line in chunk.filter(parts["a0"].is_null()).to_list():  # nested deeper
                ag, c, fact = split_args(line)
                add(ag, c, [fact])
    for key in merged:
        out[key].sort(key=_as_in_line)
    return out


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
    # Blame (engine/check/blame.py): (agent, sc) -> (tested answers, blamed for certain, blamed possibly)
    blame: dict[tuple[str, str], tuple[int, int, int]] = field(default_factory=dict)
    blame_rate: dict[tuple[str, str], int] = field(
        default_factory=dict
    )  # (agent, sc) -> wrong share, permille
    # (agent, sc) -> the wrong answers blame leaves unnamed, in thousandths of an answer (residual.lp)
    residual: dict[tuple[str, str], int] = field(default_factory=dict)
    blamed: dict[tuple[str, str], str] = field(default_factory=dict)  # (agent, query) -> certain | possible
    blamed_by: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (agent, query) -> cases

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
            blame={k: v for k, v in self.blame.items() if k[0] in keep},
            blame_rate={k: v for k, v in self.blame_rate.items() if k[0] in keep},
            residual={k: v for k, v in self.residual.items() if k[0] in keep},
            blamed={k: v for k, v in self.blamed.items() if k[0] in keep},
            blamed_by={k: v for k, v in self.blamed_by.items() if k[0] in keep},
        )

    @property
    def violation_count(self) -> int:
        """Violation rows of the agents kept (as many as `violations` holds when it was asked for)."""
        return sum(self.violation_counts.values())


class _Labels(dict[str, str]):
    """label() of each distinct text, worked out once (agents and places repeat on many lines)."""

    def __missing__(self, arg: str) -> str:
        got = self[arg] = label(arg)
        return got


def parse_output(out: EngineOutput, consume: bool = False) -> Rows:
    """The rows of an engine's result lines. consume=True empties `out` while reading it (each
    predicate's lines are dropped once they are rows), so that a big `check --out` never holds all
    its lines and all its rows at once."""
    lines = out.lines if consume else {k: set(v) for k, v in out.lines.items()}
    lab = _Labels().__getitem__

    def take_lines(kind: str) -> set[str]:
        taken, lines[kind] = lines.get(kind, set()), set()
        return taken

    def take(kind: str, arity: int, ordered: bool = False) -> list[tuple[str, ...]]:
        return split_many(take_lines(kind), kind, arity, ordered, release=True)

    one = _Shared()  # cases, MRs, capabilities and reasons: one object per text
    rows = Rows()
    rows.testcases = [(one[c], one[mr], one[sc]) for c, mr, sc in take("testcase", 3, ordered=True)]
    rows.violations = [
        (lab(ag), one[c], one[mr], one[sc], one[r]) for ag, c, mr, sc, r in take("violation", 5, ordered=True)
    ]
    rows.scores = sorted((lab(ag), sc, int(n), int(v)) for ag, sc, n, v in take("score", 4))
    rows.scores_mr = sorted((lab(ag), sc, mr, int(n), int(v)) for ag, sc, mr, n, v in take("score_mr", 5))
    rows.scores_set = sorted((lab(ag), sc, k, int(n), int(v)) for ag, sc, k, n, v in take("score_set", 5))
    rows.pooled = {(lab(ag), sc): (int(n), int(v)) for ag, sc, n, v in take("score_pooled", 4)}
    rows.score_from = {(lab(ag), sc): kind for ag, sc, kind in take("score_from", 3)}
    rows.invalid = {(lab(ag), sc): int(n) for ag, sc, n in take("invalid_cases", 3)}
    rows.by_trajectory = sorted((lab(ag), lab(t), int(n), int(v)) for ag, t, n, v in take("score_traj", 4))
    rows.by_object = sorted(
        (lab(ag), lab(t), lab(o), int(n), int(v)) for ag, t, o, n, v in take("score_object", 5)
    )
    rows.by_query = {(lab(ag), q): (int(n), int(v)) for ag, q, n, v in take("query_score", 4)}
    for (n,) in take("case_count", 1):
        rows.case_count = int(n)
    rows.violation_counts = {lab(ag): int(n) for ag, n in take("violation_count", 2)}
    rows.explain = _explanations(take_lines("explain"), lab, one, release=True)
    rows.blame = {(lab(ag), sc): (int(n), int(c), int(p)) for ag, sc, n, c, p in take("blame_count", 5)}
    rows.blame_rate = {(lab(ag), sc): int(p) for ag, sc, p in take("blame_rate", 3)}
    rows.residual = {(lab(ag), sc): int(r) for ag, sc, r in take("blame_residual", 3)}
    rows.blamed = {(lab(ag), q): kind for ag, q, kind in take("blamed", 3)}
    by: dict[tuple[str, str], set[str]] = {}
    for ag, case, _, q in take("conflict_set", 4):
        key = (lab(ag), q)
        if key in rows.blamed:
            by.setdefault(key, set()).add(one[case])
    rows.blamed_by = {k: sorted(v) for k, v in by.items()}
    take_lines("answer_held")
    take_lines("answer_mr")
    take_lines("tested_answers")
    take_lines("untested_suspect")
    return rows


def _as_in_line(fact: str) -> str:
    return fact + ")"
