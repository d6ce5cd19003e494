"""The one table of agent kinds (agents/kinds.py): every kind's factory lives beside what it builds,
help and errors read the table, and another package adds a kind through an entry point."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from helpers_agents import write_run
from metalogic.agents import kinds
from metalogic.agents.kinds import KINDS, Kind, agents_help, reference_kinds, register
from metalogic.agents.reference import OracleAgent
from metalogic.agents.registry import AgentSettings, build_agent, parse_spec
from metalogic.agents.rundir import load_run
from metalogic.engine.errors import MetalogicError


def test_every_kind_names_a_factory_beside_what_it_builds() -> None:
    for name, kind in KINDS.items():
        module, func = kind.factory.split(":")
        assert module != "metalogic.agents.registry", name  # not a pointer back at the table
        assert callable(getattr(importlib.import_module(module), func)), name
    assert reference_kinds() == ("oracle", "noisy", "random", "biased")


def test_help_and_errors_list_every_kind() -> None:
    text = agents_help()
    assert all(k.help in text for k in KINDS.values())
    with pytest.raises(MetalogicError) as err:
        parse_spec("orcale")
    problem = err.value.problems[0]
    assert problem.what == "unknown agent 'orcale'"
    assert problem.expected == "one of: " + ", ".join(k.usage for k in KINDS.values())
    assert problem.fix == "Did you mean oracle?"


def test_register_refuses_a_bad_name_a_taken_name_and_a_malformed_kind() -> None:
    good = KINDS["oracle"]
    with pytest.raises(MetalogicError, match="agent kind name 'My-Model' is not a lower-case word"):
        register("My-Model", good)
    with pytest.raises(MetalogicError, match="agent kind 'noisy' is registered twice"):
        register("noisy", good)
    with pytest.raises(MetalogicError, match="agent kind 'x' is malformed: arg 'maybe'"):
        register("x", Kind("m:f", "maybe", "x", "x"))
    assert "x" not in KINDS


def _installed_package(root: Path, module: str, target: str, module_text: str) -> None:
    """A package as pip installs one: a module and a .dist-info folder that declares the entry point."""
    dist = root / f"{module}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[metalogic.agents]\n{target}\n")
    (root / f"{module}.py").write_text(module_text)


def test_an_installed_package_adds_a_kind_through_an_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _installed_package(
        tmp_path,
        "echo_agents",
        "echo = echo_agents:KIND",
        "from metalogic.agents.kinds import Kind\n"
        "KIND = Kind('metalogic.agents.reference:make_oracle', 'none', 'echo', 'echo (the truth, again)',"
        " reference=True)\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(kinds, "_loaded", False)
    try:
        assert parse_spec("echo") == ("echo", None)
        assert "echo (the truth, again)" in agents_help() and "echo" in reference_kinds()
        run = load_run(write_run(tmp_path / "run"))
        agent, view = build_agent("echo", run, AgentSettings())
        assert isinstance(agent, OracleAgent) and view == ""
    finally:
        KINDS.pop("echo", None)


def test_an_entry_point_that_is_not_a_kind_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _installed_package(tmp_path, "odd_agents", "odd = odd_agents:THING", "THING = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(kinds, "_loaded", False)
    with pytest.raises(MetalogicError) as err:
        parse_spec("oracle")
    assert err.value.problems[0].what == "entry point 'odd' of group metalogic.agents is int, not a Kind"
    assert "odd" not in KINDS
