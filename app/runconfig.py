"""`metalogic run` configuration: a TOML file, validated completely before any stage runs.

Every problem names the file, the line of the offending key (found in the text, since TOML
parsers do not keep positions), what was expected and how to fix it.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from metalogic.agents import PROMPTINGS, VIEW_CHOICES
from metalogic.agents.kinds import agents_help, reference_kinds
from metalogic.app.configreader import Reader, line_of, shown, strings, table, valid
from metalogic.app.runpaths import detector_problem, out_folder
from metalogic.engine.errors import MetalogicError, did_you_mean
from metalogic.engine.facts import display_path
from metalogic.engine.schema import SIMULATED
from metalogic.engine.session import ENGINE_CHOICES

IMPORTS = ("frames", "video", "eb-nav")


@dataclass(frozen=True)
class World:
    name: str
    scenario: str = ""  # simulate one of SIMULATED ...
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
# The world's numbers: (least, greatest). A simulated step renders a frame, so the bounds keep a
# typo (steps = 100000000000) from running for days.
WORLD_NUMBERS = {"episodes": (1, 1000), "steps": (1, 10_000), "seed": (0, 2**63 - 1)}
SAFE_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}")
CHECK_KEYS = {"engine", "const", "rules", "mrs"}
REPORT_KEYS = {"enabled"}


def load_config(path: str | Path, out_anywhere: bool = False) -> RunConfig:
    """The run configuration at `path`, every setting checked; `out_anywhere` lets `out` be a
    system folder or the metalogic checkout (refused otherwise: a run writes folders into `out`)."""
    p = Path(path)
    if not p.is_file():
        raise MetalogicError.single(
            f"run configuration '{path}' does not exist",
            expected="a TOML file",
            fix="see docs/run.md for an example, or run 'metalogic demo'",
        )
    try:
        text = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MetalogicError.single(
            f"not UTF-8 text: byte {exc.object[exc.start]:#04x} at offset {exc.start}",
            where=display_path(p),
            expected="a TOML file in UTF-8",
            fix="save the file as UTF-8",
        ) from None
    except OSError as exc:
        raise MetalogicError.single(
            f"cannot read the run configuration: {exc.strerror}",
            where=display_path(p),
            expected="a readable TOML file",
        ) from None
    text = text.removeprefix("\ufeff")  # a byte order mark, as some editors write one
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MetalogicError.single(
            f"not valid TOML: {exc}",
            where=display_path(p),
            expected="a TOML file (key = value, [table], [[array of tables]])",
        ) from None
    r = Reader(p, text)
    r.keys(data, SECTIONS, "top level")
    out = r.typed(data, "out", str, "a folder path (string)") or p.with_suffix("").name
    if "\0" in out:
        r.fail("out", "'out' holds a NUL character", "a folder path")
        out = p.with_suffix("").name
    worlds = tuple(_worlds(r, data.get("world", []), p.resolve().parent))
    r.scope = None
    extract = table(r, data, "extract", EXTRACT_KEYS)
    generate = table(r, data, "generate", GENERATE_KEYS)
    agents = tuple(_agents(r, data.get("agent", [])))
    r.scope = None
    check = table(r, data, "check", CHECK_KEYS)
    report = table(r, data, "report", REPORT_KEYS)
    _check_extract(r, extract, p.resolve().parent)
    _check_generate(r, generate)
    _check_check(r, check)
    r.typed(report, "enabled", bool, "true or false")
    if check.get("engine", "both") not in ENGINE_CHOICES:
        r.fail(
            "engine",
            f"unknown engine '{check['engine']}'",
            "clingo, prolog or both",
            did_you_mean(str(check["engine"]), ENGINE_CHOICES),
        )
    if not worlds and not data.get("world"):
        r.fail(
            "world",
            "no [[world]] to simulate or import",
            "at least one [[world]] table",
            'add [[world]] with scenario = "household" (or import = "frames" and path = ...)',
        )
    if not agents and not data.get("agent"):
        r.fail(
            "agent",
            "no [[agent]] to ask",
            "at least one [[agent]] table",
            'add [[agent]] with spec = "oracle"',
        )
    names = [a.name for a in agents]
    _file_name_clashes(r, names)
    for n in {n for n in names if names.count(n) > 1}:
        r.fail(
            "agent",
            f"two agents are both named '{n}'",
            "one entry per agent and prompting",
            "give one of them a different name = ...",
        )
    out_path, problem = out_folder(p.resolve().parent, out, out_anywhere)
    if problem is not None:
        r.fail("out", *problem)
    if r.problems:
        raise MetalogicError(sorted(r.problems, key=line_of))  # in the order of the file
    assert out_path is not None
    return RunConfig(p, out_path, worlds, extract, generate, agents, check, bool(report.get("enabled", True)))


def _check_extract(r: Reader, extract: dict[str, Any], base: Path) -> None:
    det = r.typed(
        extract, "detector", str, 'a detector name ("gt", "default") or the path of a .pt weights file'
    )
    problem = detector_problem(det, base) if det is not None else None
    if problem is not None:
        r.fail("detector", *problem)
    conf = r.typed(extract, "conf", (int, float), "a detector confidence such as 0.6")
    if conf is not None and not 0 < conf <= 1:
        r.fail("conf", f"conf = {conf!r} is outside 0..1", "a detector confidence such as 0.6")
    imgsz = r.typed(extract, "imgsz", int, "a whole number of pixels, such as 640")
    if imgsz is not None and not 32 <= imgsz <= 8192:
        r.fail("imgsz", f"imgsz = {imgsz} is outside 32..8192", "a whole number of pixels, such as 640")


def _check_generate(r: Reader, generate: dict[str, Any]) -> None:
    from metalogic.engine.generate.combos import check_strategy
    from metalogic.engine.generate.run import parse_limit, parse_scs

    scs = generate.get("sc")
    if isinstance(scs, str):
        r.fail(
            "sc",
            f"[generate] sc = {shown(scs)} is one string, not a list of capabilities",
            'a list of capabilities, e.g. sc = ["sc1a", "sc2"]',
            f"write sc = [{shown(scs)}]".replace("'", '"'),
        )
    elif strings(r, generate, "sc", 'a list of capabilities, e.g. sc = ["sc1a", "sc2"]') is not None:
        valid(r, "sc", parse_scs, scs)
    seed = r.typed(generate, "seed", int, "a whole number, at least 0")
    if seed is not None and not 0 <= seed < 2**63:
        r.fail("seed", f"seed = {seed} is outside 0..2**63-1", "a whole number, at least 0")
    limit = r.typed(generate, "max_per_trajectory", (int, str), 'a whole number of combinations, or "all"')
    if limit is not None:
        valid(r, "max_per_trajectory", parse_limit, limit)
    strategy = r.typed(generate, "strategy", str, '"share" or "spread"')
    if strategy is not None:
        valid(r, "strategy", check_strategy, strategy)


def _check_check(r: Reader, check: dict[str, Any]) -> None:
    const = r.typed(check, "const", dict, "a table of parameter = value, e.g. const = { eps = 0.1 }")
    for name, value in (const or {}).items():
        if not isinstance(value, int | float) or isinstance(value, bool):
            r.fail(
                name,
                f"const {name} = {shown(value)} is not a number",
                "a number, e.g. const = { eps = 0.1 }",
            )
    rules = r.typed(check, "rules", list, 'a list of rule folders, e.g. rules = ["my_rules"]')
    if rules is not None and not all(isinstance(x, str) and x and "\0" not in x for x in rules):
        r.fail("rules", f"rules = {shown(rules)} is not a list of folder names", 'e.g. rules = ["my_rules"]')
    strings(r, check, "mrs", 'MR sets or ids, e.g. mrs = "paper" or mrs = ["mr1", "mr7"]')
    engine = check.get("engine")
    if engine is not None and not isinstance(engine, str):
        r.fail("engine", f"'engine' is {type(engine).__name__} {shown(engine)}", "clingo, prolog or both")
        check.pop("engine")


def _file_name_clashes(r: Reader, names: list[str]) -> None:
    """Two different agent names whose answers would go to one file (or one stage record)."""
    from metalogic.agents.store import slug

    def stage(n: str) -> str:  # the run's stage name for an agent (pipeline.Runner._slug)
        return "".join(c if c.isalnum() or c in "-_." else "_" for c in n)

    told: set[tuple[str, str]] = set()
    for key in (slug, stage):
        first: dict[str, str] = {}
        for n in dict.fromkeys(names):
            other = first.setdefault(key(n), n)
            if other != n and (other, n) not in told:
                told.add((other, n))
                r.fail(
                    "agent",
                    f"the agents '{other}' and '{n}' would share the answers file or stage record '{key(n)}'",
                    "agent names that differ in more than punctuation and spaces",
                    "give one of them a different name = ...",
                )


def _worlds(r: Reader, items: Any, base: Path) -> list[World]:
    if not isinstance(items, list):
        r.fail("world", "'world' must be an array of tables", "[[world]] entries")
        return []
    out, seen = [], set()
    for i, w in enumerate(items, start=1):
        r.scope = ("world", i)
        if not isinstance(w, dict):
            r.fail("world", f"world {i} is {type(w).__name__} {shown(w)}, not a table", "[[world]] tables")
            continue
        r.keys(w, WORLD_KEYS, "world")
        texts = {
            k: r.typed(w, k, str, f'{k} = "..." (a string)')
            for k in ("name", "scenario", "import", "path", "size")
        }
        if any(texts[k] is None and k in w for k in texts):
            continue
        scenario, source = w.get("scenario", ""), w.get("import", "")
        name = w.get("name") or scenario or f"import{i}"
        if not SAFE_NAME.fullmatch(name):
            r.fail(
                "name",
                f"world name {shown(name)} cannot name a stage",
                "letters, digits, '_', '-' and '.', not starting with '.', at most 64 characters",
                "give the world a plain name = ...",
            )
            continue
        if "size" in w:
            from metalogic.extract.simulate import parse_size

            valid(r, "size", parse_size, w["size"])
        if bool(scenario) == bool(source):
            r.fail(
                "world",
                f"world {i} needs exactly one of scenario = ... or import = ...",
                f"scenario one of {', '.join(SIMULATED)}, "
                f"or import one of {', '.join(IMPORTS)} with path = ...",
            )
            continue
        if scenario and scenario not in SIMULATED:
            r.fail(
                "scenario",
                f"unknown scenario '{scenario}'",
                "one of " + ", ".join(SIMULATED),
                did_you_mean(scenario, SIMULATED),
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
        elif source and not _exists(base, w["path"]):
            r.fail(
                "path",
                f"world '{name}': import source {shown(w['path'])} does not exist",
                "an existing file or folder, relative to the configuration",
                "fix path = ... in the [[world]] table",
            )
        for k, (lo, hi) in WORLD_NUMBERS.items():
            v = r.typed(w, k, int, "a whole number")
            if v is not None and not lo <= v <= hi:
                r.fail(k, f"{k} = {v} is outside {lo}..{hi}", f"a whole number from {lo} to {hi}")
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


def _exists(base: Path, path: str) -> bool:
    try:
        return "\0" not in path and (base / path).exists()
    except (OSError, ValueError):
        return False


def _agents(r: Reader, items: Any) -> list[AgentEntry]:
    if not isinstance(items, list):
        r.fail("agent", "'agent' must be an array of tables", "[[agent]] entries")
        return []
    out = []
    for i, a in enumerate(items, start=1):
        r.scope = ("agent", i)
        if not isinstance(a, dict):
            r.fail("agent", f"agent {i} is {type(a).__name__} {shown(a)}, not a table", "[[agent]] tables")
            continue
        before = len(r.problems)
        r.keys(a, AGENT_KEYS, "agent")
        spec = r.typed(a, "spec", str, 'an agent spec such as "oracle", "noisy:0.2" or "openai:gpt-4o"')
        if spec is None and "spec" in a:
            continue  # reported: not a string
        if not spec:
            r.fail(
                "agent",
                f"agent {i} has no spec",
                "spec = KIND[:ARG], one of " + agents_help(),
            )
            continue
        from metalogic.agents.registry import parse_spec

        agent_kind = ""
        try:
            agent_kind = parse_spec(spec)[0]
        except MetalogicError as err:
            r.fail("spec", err.problems[0].what, err.problems[0].expected, err.problems[0].fix)
        prompting = a.get("prompting", "direct")
        if not isinstance(prompting, str):
            r.fail(
                "prompting",
                f"'prompting' is {type(prompting).__name__} {shown(prompting)}",
                "one of " + ", ".join(PROMPTINGS),
            )
            continue
        if prompting not in PROMPTINGS:
            r.fail(
                "prompting",
                f"unknown prompting '{prompting}'",
                "one of " + ", ".join(PROMPTINGS),
                did_you_mean(str(prompting), PROMPTINGS),
            )
        elif prompting == "memory":  # its bank is named by 'metalogic ask --memory-bank', not here
            r.fail(
                "prompting",
                "prompting = 'memory' needs a memory bank, which a run configuration does not name",
                "direct, cot or cogmap in a run configuration",
                "ask with the memory by hand: metalogic ask OUT/questions --agent SPEC --prompting memory "
                "--memory-bank BANK",
            )
        elif agent_kind in reference_kinds() and prompting != "direct":
            r.fail(
                "prompting",
                f"prompting = {shown(prompting)} does not apply to the reference agent '{agent_kind}'",
                "no prompting = ... for " + ", ".join(reference_kinds()),
                "remove prompting = ... from this [[agent]]",
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
        if isinstance(a.get("name"), str):
            from metalogic.agents.store import check_agent_name

            valid(r, "name", check_agent_name, a["name"])
        view = r.typed(a, "view", str, "auto, image or text")
        if view is not None and view not in VIEW_CHOICES:
            r.fail("view", f"unknown view '{view}'", "auto, image or text", did_you_mean(view, VIEW_CHOICES))
        elif view == "image" and agent_kind == "llamacpp":
            r.fail("view", "the llamacpp backend takes text only", 'view = "text" (or no view)')
        options = r.typed(a, "options", dict, "a table of server options, e.g. options = { top_k = 20 }")
        for k, v in (options or {}).items():
            if not isinstance(v, str | int | float | bool):
                r.fail(k, f"option {k} = {shown(v)} is not a plain value", "a string, number or true/false")
        structured = r.typed(a, "structured", (bool, str), '"auto", "on" or "off" (or true / false)')
        settings = {k: v for k, v in a.items() if k not in ("spec", "prompting", "limit")}
        if isinstance(structured, bool):  # true / false mean on / off, as --structured takes them
            settings["structured"] = "on" if structured else "off"
        elif structured is not None and structured not in ("auto", "on", "off"):
            r.fail("structured", f"unknown structured '{structured}'", '"auto", "on" or "off"')
        if len(r.problems) == before:  # an entry with a wrong setting (name = 5) goes no further
            out.append(AgentEntry(spec, prompting, settings, limit))
    return out
