"""The layout of the sources: only engine/session/ drives the engines directly, the layers
(engine, extract, agents, memory, app) import each other in one direction, and engine/ stays a small
kernel with subpackages, free of the command line.

Every other module loads rule files, adds facts and reads results through engine.session.api.Session,
so the logger, the error messages and the one embedded SWI-Prolog (and its lock) live in one place.
engine imports no layer above it, the layers form no cycle, and the click options they share are
declared once (app/options.py).
"""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import click
import pytest

from helpers import ROOT

# Modules that may still create a clingo Control or import pyswip, each for a stated reason.
ALLOWED = {
    "engine/session/api.py": "the one place that drives clingo",
    "engine/session/prolog.py": "the one place that holds the embedded SWI-Prolog",
    "tests/test_rule_shapes.py": "asks the grounder which result atoms it could not decide (is_fact)",
}
CONTROL = re.compile(r"\bclingo\.Control\(|(?<![\w.])Control\(")
PYSWIP = re.compile(r"^\s*(from|import)\s+pyswip\b", re.M)


def sources() -> list[Path]:
    skip = {".venv", "build", ".git"}
    return sorted(p for p in ROOT.rglob("*.py") if not skip & set(p.relative_to(ROOT).parts))


def offenders(pattern: re.Pattern[str]) -> list[str]:
    found = []
    for path in sources():
        rel = path.relative_to(ROOT).as_posix()
        if rel not in ALLOWED and rel != "tests/test_layout.py" and pattern.search(path.read_text("utf-8")):
            found.append(rel)
    return found


def test_the_sources_are_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in sources()}
    assert {"engine/session/api.py", "engine/vocab.py", "memory/logic.py", "tests/test_layout.py"} <= names


def test_only_the_session_creates_a_clingo_control() -> None:
    assert offenders(CONTROL) == []


def test_only_the_session_imports_pyswip() -> None:
    assert offenders(PYSWIP) == []


def test_the_patterns_catch_what_they_are_for() -> None:
    assert CONTROL.search('ctl = clingo.Control(["--warn=none"])')
    assert CONTROL.search("from clingo import Control\nctl = Control([])")
    assert not CONTROL.search("ctl: clingo.Control | None = None")
    assert PYSWIP.search("    from pyswip.easy import Functor\n")
    assert not PYSWIP.search("# the pyswip engine\n")


def test_every_allowed_module_still_needs_its_exception() -> None:
    """An exception that is no longer used is dropped, so that it cannot hide a new offender."""
    for rel in ALLOWED:
        text = (ROOT / rel).read_text("utf-8")
        assert CONTROL.search(text) or PYSWIP.search(text), rel


# The layers: each subpackage folder and the metalogic.<name> it is installed as. engine (with the
# rule files of logic) is the bottom: extract and agents build on it, memory on agents, and app (the
# command line, run/demo, report, compare) on them all.
LAYERS = ("engine", "logic", "extract", "agents", "memory", "app")
ABOVE_ENGINE = {"extract", "agents", "memory", "app"}
MODULE_STRING = re.compile(r"metalogic\.(\w+)(\.\w+)*(:\w+)?")


def _is_import_module(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
        isinstance(func, ast.Name) and func.id == "import_module"
    )


def imported_layers(source: str) -> set[str]:
    """The metalogic.<layer> names a module imports, at any level: import and from-import statements
    (inside functions too), string literals given to importlib.import_module, and module-path strings
    such as the 'metalogic.x.y:attr' entries of a lazy command or agent registry."""
    found: set[str] = set()

    def add(dotted: str) -> None:
        parts = dotted.split(".")
        if parts[0] == "metalogic" and len(parts) > 1 and parts[1] in LAYERS:
            found.add(parts[1])

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            add(node.module)
            if node.module == "metalogic":  # from metalogic import agents
                for alias in node.names:
                    add(f"metalogic.{alias.name}")
        elif isinstance(node, ast.Call) and _is_import_module(node.func) and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                add(arg.value)
            elif isinstance(arg, ast.JoinedStr) and arg.values:  # f"metalogic.{name}": its fixed start
                head = arg.values[0]
                if isinstance(head, ast.Constant) and isinstance(head.value, str):
                    add(head.value)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and MODULE_STRING.fullmatch(node.value)
        ):
            add(node.value.split(":")[0])
    return found


def layer_imports() -> dict[str, dict[str, set[str]]]:
    """layer -> the other layers it imports -> the files (relative paths) that import them."""
    graph: dict[str, dict[str, set[str]]] = {layer: {} for layer in LAYERS}
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            for used in imported_layers(path.read_text("utf-8")) - {layer}:
                graph[layer].setdefault(used, set()).add(path.relative_to(ROOT).as_posix())
    return graph


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the directed graph, as the path [a, b, ..., a], or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_every_layer_folder_is_found() -> None:
    for layer in LAYERS:
        assert (ROOT / layer / "__init__.py").is_file(), layer
    assert "engine" in layer_imports()["app"]  # the scan reads real imports


def test_engine_imports_no_layer_above_it() -> None:
    graph = layer_imports()
    wrong = {used: sorted(files) for used, files in graph["engine"].items() if used in ABOVE_ENGINE}
    assert wrong == {}, f"engine imports layers above it: {wrong}"


def test_the_layers_import_each_other_without_a_cycle() -> None:
    graph = layer_imports()
    cycle = find_cycle({layer: set(used) for layer, used in graph.items()})
    if cycle:
        steps = [f"{a} -> {b} ({', '.join(sorted(graph[a][b]))})" for a, b in itertools.pairwise(cycle)]
        pytest.fail("the layers import each other in a cycle:\n  " + "\n  ".join(steps))


def test_the_layers_stack_as_documented() -> None:
    """The one direction of the pairs that once were (or could be) a cycle."""
    graph = layer_imports()
    assert "memory" not in graph["agents"]
    assert "agents" in graph["memory"]
    assert all("app" not in graph[layer] for layer in LAYERS if layer != "app")


def test_the_import_scan_sees_every_kind_of_import() -> None:
    src = '''
import metalogic.extract.world as w
from metalogic import agents
def late():
    from metalogic.memory.retrieve import context_for
    importlib.import_module("metalogic.app.cli")
COMMANDS = {"x": "metalogic.logic.core:thing"}
"""A docstring naming metalogic.engine.session.api in passing is no import."""
'''
    assert imported_layers(src) == {"extract", "agents", "memory", "app", "logic"}
    assert imported_layers('import_module(f"metalogic.memory.{name}")') == {"memory"}
    assert imported_layers("from .facts import read_facts\nimport metalogical") == set()


def test_the_cycle_search_finds_a_cycle_and_only_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"memory": {"agents"}, "agents": {"memory", "engine"}}) == [
        "agents",
        "memory",
        "agents",
    ]
    assert find_cycle({"app": {"memory", "agents"}, "memory": {"agents"}, "agents": {"engine"}}) is None


# Shared click options: declared once, in the options module of the lowest layer that uses them.
OPTION_MODULES = {"app/options.py"}
SHARED_OPTIONS = {
    "--engine",
    "--rules",
    "--mrs",
    "-c",
    "--const",
    "--agent",
    "--base-url",
    "-o",
    "--option",
    "--concurrency",
    "--max-tokens",
    "--view",
    "--no-cache",
}
OLD_ENGINE_NAMES = {"--logic", "--check-engine"}


def option_declarations(source: str) -> list[set[str]]:
    """The literal names of each click.option(...) call in a module."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "option"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "click"
        ):
            out.append(
                {a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
            )
    return out


def test_shared_options_are_declared_only_in_the_options_modules() -> None:
    wrong = []
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for names in option_declarations(path.read_text("utf-8")):
                if rel not in OPTION_MODULES and names & SHARED_OPTIONS:
                    wrong.append(f"{rel}: {sorted(names)}")
                if names & OLD_ENGINE_NAMES:
                    wrong.append(f"{rel}: old engine option name {sorted(names & OLD_ENGINE_NAMES)}")
    assert wrong == []
    assert option_declarations('click.option("-c", "--const", "settings")') == [{"-c", "--const", "settings"}]


def all_commands() -> dict[str, click.Command]:
    """Every command of the `metalogic` CLI, lazy ones and groups' subcommands included."""
    from metalogic.app.cli import cli

    found: dict[str, click.Command] = {}

    def walk(cmd: click.Command, name: str) -> None:
        found[name] = cmd
        if isinstance(cmd, click.Group):
            ctx = click.Context(cmd)
            for sub in cmd.list_commands(ctx):
                child = cmd.get_command(ctx, sub)
                assert child is not None, f"{name} {sub}"
                walk(child, f"{name} {sub}")

    walk(cli, "metalogic")
    return found


def test_the_engine_choice_has_one_name_in_every_command() -> None:
    commands = all_commands()
    assert {"metalogic check", "metalogic ask", "metalogic memory build", "metalogic report"} <= set(commands)
    engine_opts = {}
    for name, cmd in commands.items():
        for param in cmd.params:
            if isinstance(param, click.Option):
                assert not set(param.opts) & OLD_ENGINE_NAMES, f"{name}: {param.opts}"
                if param.name == "engine" or "--engine" in param.opts:
                    engine_opts[name] = (param.name, tuple(param.opts))
    assert set(engine_opts.values()) == {("engine", ("--engine",))}
    assert {
        "metalogic check",
        "metalogic algebra",
        "metalogic report",
        "metalogic compare",
        "metalogic memory build",
        "metalogic memory query",
    } <= set(engine_opts)


# ---- the house: engine/ is a kernel plus subpackages, every module fits on a few screens ----------

ENGINE_TOP_LEVEL_MAX = 20  # modules and subpackages at engine/'s top level
MODULE_LINES_MAX = 500


def test_engine_is_a_small_kernel_with_subpackages() -> None:
    top = sorted(
        p.name for p in (ROOT / "engine").iterdir() if p.suffix == ".py" or (p / "__init__.py").is_file()
    )
    assert len(top) <= ENGINE_TOP_LEVEL_MAX, top
    assert {"session", "rules", "check", "generate", "audit", "shards", "facts.py", "schema.py"} <= set(top)
    strays = [p.relative_to(ROOT).as_posix() for p in (ROOT / "engine").rglob("*") if p.is_dir()]
    assert [d for d in strays if "__pycache__" not in d and not (ROOT / d / "__init__.py").is_file()] == []


def test_the_command_line_lives_in_app_and_the_engine_prints_nothing() -> None:
    """click is imported in app/ only (one module per command group there); engine/ is a library that
    returns what it has to say (errors, warnings) and never prints."""
    wrong = []
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                if layer != "app" and any(n == "click" or n.startswith("click.") for n in names):
                    wrong.append(f"{rel}: imports click")
                if (
                    layer == "engine"
                    and isinstance(node, ast.Call)
                    and getattr(node.func, "id", "") == "print"
                ):
                    wrong.append(f"{rel}:{node.lineno}: print()")
    assert wrong == []


def test_every_module_fits_the_size_limit() -> None:
    too_long = {
        p.relative_to(ROOT).as_posix(): n
        for p in sources()
        if p.relative_to(ROOT).parts[0] not in {"tests"}
        and (n := len(p.read_text("utf-8").splitlines())) > MODULE_LINES_MAX
    }
    assert too_long == {}


# ---- the contract stated once: a copy of one of these lists elsewhere fails -----------------------

# what the list holds -> (its members, members it may have besides, the one module that states it)
STATED_ONCE = {
    "the engines": ({"clingo", "prolog"}, {"both"}, "engine/session/__init__.py"),
    "the simulated worlds": ({"household", "tabletop", "drone"}, {"video"}, "engine/schema.py"),
    "the prompting strategies": ({"direct", "cot", "cogmap"}, {"memory"}, "agents/__init__.py"),
    "the views": ({"image", "text"}, {"auto"}, "agents/__init__.py"),
    # the capabilities live in logic/core/tables.facts; Python reads them through engine/vocab.py
    "the capabilities": ({"sc1a", "sc1b", "sc2a", "sc2b", "sc3a", "sc3b", "sc4a", "sc4b"}, set(), "(none)"),
}


def string_lists(source: str) -> list[tuple[int, set[str]]]:
    """(line, members) of every tuple, list or set literal made of two or more strings."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Tuple | ast.List | ast.Set)
            and len(node.elts) >= 2
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
        ):
            out.append((node.lineno, {str(e.value) for e in node.elts if isinstance(e, ast.Constant)}))
    return out


def test_each_list_of_the_contract_is_stated_once() -> None:
    copies = []
    for path in sources():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("tests/"):
            continue
        for line, members in string_lists(path.read_text("utf-8")):
            for what, (wanted, besides, home) in STATED_ONCE.items():
                if wanted <= members <= wanted | besides and rel != home:
                    copies.append(f"{rel}:{line}: {what} ({home} states them)")
    assert copies == []
    found = string_lists('X = ("clingo", "prolog", "both")\nY = [1, "a"]')
    assert found == [(1, {"clingo", "prolog", "both"})]


def test_the_simulated_worlds_are_the_scenarios_laid_out() -> None:
    from metalogic.engine.schema import SCENARIOS, SIMULATED
    from metalogic.extract.scenarios import SCENARIO_TYPES

    assert tuple(SCENARIO_TYPES) == SIMULATED and set(SIMULATED) < set(SCENARIOS)


def test_the_parameter_rule_is_stated_once_in_the_rules() -> None:
    """logic/core/param_rule.lp (and its list-taking twin for the memory modules) holds the rule that
    applies -c overrides; every other rule file includes it instead of writing it again."""
    from metalogic.logic import LOGIC_DIR

    rule = re.compile(r"^param\((Facts, )?P, V\) :-", re.M)
    stated = sorted(
        p.relative_to(LOGIC_DIR).as_posix()
        for p in LOGIC_DIR.rglob("*")
        if p.suffix in (".lp", ".pl") and rule.search(p.read_text())
    )
    assert stated == ["core/param_rule.lp", "core/param_rule.pl", "memory/param_rule.pl"]


def test_one_random_facts_generator_and_no_test_imports_another() -> None:
    """Random worlds come from engine/audit/random_facts.py alone (the audit, the shard probes and
    the tests use it); shared test code lives in the helpers modules, never in a test module."""
    wrong = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("test_"):
                wrong.append(f"{path.name} imports {node.module}")
            if isinstance(node, ast.ClassDef) and node.name == "World":
                wrong.append(f"{path.name} defines a random world generator")
    assert wrong == []
