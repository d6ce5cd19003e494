"""`metalogic run` configuration: a TOML file, validated completely before any stage runs.

Every problem names the file, the line of the offending key (found in the text, since TOML
parsers do not keep positions), what was expected and how to fix it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from metalogic.engine.errors import MetalogicError, Problem, did_you_mean
from metalogic.engine.facts import display_path

SCENARIOS = ("household", "tabletop", "drone")
IMPORTS = ("frames", "video", "eb-nav")
PROMPTINGS = ("direct", "cot", "cogmap", "memory")


@dataclass(frozen=True)
class World:
    name: str
    scenario: str = ""  # simulate one of SCENARIOS ...
    episodes: int = 1
    steps: int = 10
    seed: int = 0
    size: str = "320x240"
    source: str = ""  # ... or import IMPORTS from a path
    path: str = ""

    def describe(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in ("", None)}


@dataclass(frozen=True)
class AgentEntry:
    spec: str
    prompting: str = "direct"
    settings: dict[str, Any] = field(default_factory=dict)
    limit: int | None = None  # ask at most this many questions (a budget for slow models)

    @property
    def name(self) -> str:
        return self.settings.get("name") or (
            self.spec if self.prompting == "direct" else f"{self.spec}+{self.prompting}"
        )


@dataclass(frozen=True)
class RunConfig:
    path: Path
    out: Path
    worlds: tuple[World, ...]
    extract: dict[str, Any]
    generate: dict[str, Any]
    agents: tuple[AgentEntry, ...]
    check: dict[str, Any]
    report: bool


SECTIONS = {"out", "world", "extract", "generate", "agent", "check", "report"}
WORLD_KEYS = {"name", "scenario", "episodes", "steps", "seed", "size", "import", "path"}
EXTRACT_KEYS = {"detector", "conf", "imgsz"}
GENERATE_KEYS = {"sc", "max_per_trajectory", "seed", "strategy"}
AGENT_KEYS = {
    "spec",
    "prompting",
    "limit",
    "name",
    "view",
    "temperature",
    "top_p",
    "max_tokens",
    "concurrency",
    "base_url",
    "seed",
    "structured",
    "options",
}
# The agent's numeric settings: (type, least, greatest, what is expected).
AGENT_NUMBERS: dict[str, tuple[type | tuple[type, ...], float, float, str]] = {
    "temperature": ((int, float), 0, 2, "a sampling temperature from 0 to 2, such as 0.0"),
    "top_p": ((int, float), 0, 1, "a probability from 0 to 1, such as 0.9"),
    "max_tokens": (int, 1, 1_000_000, "a whole number of tokens, at least 1"),
    "concurrency": (int, 1, 1024, "a whole number of requests in flight, 1 to 1024"),
    "seed": (int, 0, 2**63 - 1, "a whole number, at least 0"),
}
CHECK_KEYS = {"engine", "const", "rules", "mrs"}
REPORT_KEYS = {"enabled"}


class _Reader:
    def __init__(self, path: Path, text: str) -> None:
        self.path, self.lines, self.problems = path, text.splitlines(), []  # type: ignore[var-annotated]

    def where(self, key: str) -> tuple[str, str, int]:
        """The first line that sets `key` (or opens the table `[key]`)."""
        for i, line in enumerate(self.lines, start=1):
            s = line.strip()
            if s.startswith((f"{key} ", f"{key}=", f"[{key}]", f"[[{key}]]")):
                return f"{display_path(self.path)}:{i}", line, line.find(key) + 1
        return display_path(self.path), "", 0

    def fail(self, key: str, what: str, expected: str, fix: str = "") -> None:
        where, src, col = self.where(key)
        self.problems.append(
            Problem(what, where=where, source_line=src, column=col, expected=expected, fix=fix)
        )

    def keys(self, table: dict[str, Any], allowed: set[str], section: str) -> None:
        for k in table:
            if k not in allowed:
                hint = did_you_mean(k, sorted(allowed))
                self.fail(
                    k,
                    f"unknown key '{k}' in [{section}]",
                    "one of " + ", ".join(sorted(allowed)),
                    hint or f"remove '{k}'",
                )

    def typed(self, table: dict[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
        v = table.get(key)
        if v is not None and (not isinstance(v, kind) or (isinstance(v, bool) and kind is not bool)):
            self.fail(key, f"'{key}' is {type(v).__name__} {v!r}", what)
            return None
        return v


def load_config(path: str | Path) -> RunConfig:
    p = Path(path)
    if not p.is_file():
        raise MetalogicError.single(
            f"run configuration '{path}' does not exist",
            expected="a TOML file",
            fix="see docs/run.md for an example, or run 'metalogic demo'",
        )
    text = p.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MetalogicError.single(
            f"not valid TOML: {exc}",
            where=display_path(p),
            expected="a TOML file (key = value, [table], [[array of tables]])",
        ) from None
    r = _Reader(p, text)
    r.keys(data, SECTIONS, "top level")
    out = r.typed(data, "out", str, "a folder path (string)") or p.with_suffix("").name
    worlds = tuple(_worlds(r, data.get("world", [])))
    extract = _table(r, data, "extract", EXTRACT_KEYS)
    generate = _table(r, data, "generate", GENERATE_KEYS)
    agents = tuple(_agents(r, data.get("agent", [])))
    check = _table(r, data, "check", CHECK_KEYS)
    report = _table(r, data, "report", REPORT_KEYS)
    if extract.get("conf") is not None and not (
        isinstance(extract["conf"], int | float) and 0 < extract["conf"] <= 1
    ):
        r.fail("conf", f"conf = {extract['conf']!r} is outside 0..1", "a detector confidence such as 0.6")
    r.typed(report, "enabled", bool, "true or false")
    r.typed(generate, "seed", int, "a whole number")
    r.typed(generate, "max_per_trajectory", (int, str), 'a whole number of combinations, or "all"')
    r.typed(check, "const", dict, "a table of parameter = value, e.g. const = { eps = 0.1 }")
    r.typed(check, "rules", list, 'a list of rule folders, e.g. rules = ["my_rules"]')
    r.typed(check, "mrs", (str, list), 'MR sets or ids, e.g. mrs = "paper" or mrs = ["mr1", "mr7"]')
    if check.get("engine", "both") not in ("clingo", "prolog", "both"):
        r.fail(
            "engine",
            f"unknown engine '{check['engine']}'",
            "clingo, prolog or both",
            did_you_mean(str(check["engine"]), ["clingo", "prolog", "both"]),
        )
    if not worlds:
        r.fail(
            "world",
            "no [[world]] to simulate or import",
            "at least one [[world]] table",
            'add [[world]] with scenario = "household" (or import = "frames" and path = ...)',
        )
    if not agents:
        r.fail(
            "agent",
            "no [[agent]] to ask",
            "at least one [[agent]] table",
            'add [[agent]] with spec = "oracle"',
        )
    names = [a.name for a in agents]
    for n in {n for n in names if names.count(n) > 1}:
        r.fail(
            "agent",
            f"two agents are both named '{n}'",
            "one entry per agent and prompting",
            "give one of them a different name = ...",
        )
    if r.problems:
        raise MetalogicError(r.problems)
    base = p.resolve().parent
    return RunConfig(
        p, (base / out).resolve(), worlds, extract, generate, agents, check, bool(report.get("enabled", True))
    )


def _table(r: _Reader, data: dict[str, Any], name: str, allowed: set[str]) -> dict[str, Any]:
    t = data.get(name, {})
    if not isinstance(t, dict):
        r.fail(name, f"'{name}' must be a table", f"[{name}] with keys " + ", ".join(sorted(allowed)))
        return {}
    r.keys(t, allowed, name)
    return t


def _worlds(r: _Reader, items: Any) -> list[World]:
    if not isinstance(items, list):
        r.fail("world", "'world' must be an array of tables", "[[world]] entries")
        return []
    out, seen = [], set()
    for i, w in enumerate(items, start=1):
        r.keys(w, WORLD_KEYS, "world")
        scenario, source = w.get("scenario", ""), w.get("import", "")
        name = w.get("name") or scenario or f"import{i}"
        if bool(scenario) == bool(source):
            r.fail(
                "world",
                f"world {i} needs exactly one of scenario = ... or import = ...",
                f"scenario one of {', '.join(SCENARIOS)}, "
                f"or import one of {', '.join(IMPORTS)} with path = ...",
            )
            continue
        if scenario and scenario not in SCENARIOS:
            r.fail(
                "scenario",
                f"unknown scenario '{scenario}'",
                "one of " + ", ".join(SCENARIOS),
                did_you_mean(scenario, SCENARIOS),
            )
        if source and source not in IMPORTS:
            r.fail(
                "import",
                f"unknown import '{source}'",
                "one of " + ", ".join(IMPORTS),
                did_you_mean(source, IMPORTS),
            )
        if source and not w.get("path"):
            r.fail("import", f"world {i} imports {source} but gives no path", 'path = "..."')
        for k in ("episodes", "steps", "seed"):
            v = r.typed(w, k, int, "a whole number")
            if v is not None and v < (0 if k == "seed" else 1):
                r.fail(k, f"{k} = {v} is too small", f"{k} >= {0 if k == 'seed' else 1}")
        if name in seen:
            r.fail(
                "name", f"two worlds are named '{name}'", "a name per world", "add name = ... to one of them"
            )
        seen.add(name)
        out.append(
            World(
                name,
                scenario,
                w.get("episodes", 1),
                w.get("steps", 10),
                w.get("seed", 0),
                w.get("size", "320x240"),
                source,
                w.get("path", ""),
            )
        )
    return out


def _agents(r: _Reader, items: Any) -> list[AgentEntry]:
    if not isinstance(items, list):
        r.fail("agent", "'agent' must be an array of tables", "[[agent]] entries")
        return []
    out = []
    for i, a in enumerate(items, start=1):
        r.keys(a, AGENT_KEYS, "agent")
        spec = r.typed(a, "spec", str, 'an agent spec such as "oracle", "noisy:0.2" or "openai:gpt-4o"')
        if not spec:
            r.fail(
                "agent",
                f"agent {i} has no spec",
                'spec = "oracle" (or noisy:P, random, biased:KIND, openai:MODEL, llamacpp)',
            )
            continue
        from metalogic.agents.registry import parse_spec

        try:
            parse_spec(spec)
        except MetalogicError as err:
            r.fail("spec", err.problems[0].what, err.problems[0].expected, err.problems[0].fix)
        prompting = a.get("prompting", "direct")
        if prompting not in PROMPTINGS:
            r.fail(
                "prompting",
                f"unknown prompting '{prompting}'",
                "one of " + ", ".join(PROMPTINGS),
                did_you_mean(str(prompting), PROMPTINGS),
            )
        limit = r.typed(a, "limit", int, "a whole number of questions")
        if limit is not None and limit < 1:
            r.fail("limit", f"limit = {limit} asks no question", "a whole number of questions, at least 1")
            limit = None
        for key, (kind, lo, hi, what) in AGENT_NUMBERS.items():
            v = r.typed(a, key, kind, what)
            if v is not None and not lo <= v <= hi:
                r.fail(key, f"{key} = {v!r} is outside {lo}..{hi}", what)
        for key, what in (("name", "an agent name (string)"), ("base_url", "a server URL (string)")):
            r.typed(a, key, str, what)
        r.typed(a, "structured", bool, "true or false")
        settings = {k: v for k, v in a.items() if k not in ("spec", "prompting", "limit")}
        out.append(AgentEntry(spec, prompting, settings, limit))
    return out
