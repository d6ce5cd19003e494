"""The report's charts come from one description each (app/charts.py): what the description says is
what the page draws (real headless Chromium) and what the PNG draws (real matplotlib), and a chart
added as one builder and one CHARTS row reaches both, as docs/architecture.md shows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers_report import Chromium, chromium, make_run

from helpers import run_cli
from metalogic.app import charts
from metalogic.app.report import build_report
from metalogic.app.report_html import render_html, render_plots

__all__ = ["chromium"]  # the fixture, used by name

DOT = "\u00b7"  # an empty cell


def grid_texts(panel: dict[str, Any]) -> list[str]:
    return [c["text"] if c else DOT for row in panel["cells"] for c in row]


def described(tmp_path: Path) -> dict[str, dict[str, Any]]:
    data = build_report(str(make_run(tmp_path)), mrs="paper").data
    return {c["name"]: c for c in data["charts"]}


def test_each_chart_is_described_once_from_the_check_output(tmp_path: Path) -> None:
    got = described(tmp_path)
    assert list(got) == ["scores_heatmap", "radar", "mr_share", "accuracy"]
    (heat,) = got["scores_heatmap"]["views"][""]
    # 3 agents x 6 capabilities with test cases (tests/data/report: shaky+cot breaks 7 of 10 cases)
    assert heat["rows"] == ["mirror", "shaky+cot", "steady"]
    assert grid_texts(heat) == ["1.00"] * 6 + ["0.33", "0.00", "0.33", "1.00", "0.00", "0.00"] + ["1.00"] * 6
    assert heat["cells"][1][1]["fill"] == charts.score_fill(0.0) == "#d73027"  # red for 0
    assert [p["title"] for p in got["radar"]["views"][""]] == ["mirror", "shaky+cot", "steady"]
    # the MR-share chart has a view over all agents and one per agent; mirror breaks nothing
    share = got["mr_share"]["views"]
    assert list(share) == ["", "mirror", "shaky+cot", "steady"] and got["mr_share"]["picker"] == "Agent"
    assert set(grid_texts(share["mirror"][0])) <= {"0", DOT}
    assert grid_texts(share[""][0]) == grid_texts(share["shaky+cot"][0])  # its violations are all of them
    (acc,) = got["accuracy"]["views"][""]
    assert [(p["label"], round(p["x"], 6), p["y"]) for p in acc["points"]] == [
        ("mirror", 1.0, 0.4),
        ("shaky+cot", 0.3, 0.75),
        ("steady", 1.0, 1.0),
    ]


def test_the_png_draws_the_description_and_nothing_else(tmp_path: Path) -> None:
    got = described(tmp_path)
    (heat,) = got["scores_heatmap"]["views"][""]
    heat["cells"][0][0]["text"] = "X9"  # an edit to the description shows in the figure
    fig = charts.figure(got["scores_heatmap"])
    assert [t.get_text() for t in fig.axes[0].texts] == grid_texts(heat)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == [c["label"] for c in heat["cols"]]
    fig = charts.figure(got["radar"])
    panels = got["radar"]["views"][""]
    assert [ax.get_title() for ax in fig.axes] == [p["title"] for p in panels]
    # the drawn line closes the polygon: one vertex per point, plus the first again
    assert [len(ax.lines[0].get_xdata()) for ax in fig.axes] == [len(p["points"]) + 1 for p in panels]
    fig = charts.figure(got["accuracy"])
    assert [t.get_text() for t in fig.axes[0].texts] == ["mirror", "shaky+cot", "steady"]
    (share,) = got["mr_share"]["views"][""]
    assert [t.get_text() for t in charts.figure(got["mr_share"]).axes[0].texts] == grid_texts(share)


DRAWN = """JSON.stringify([...document.querySelectorAll("div.chart")].map(div => ({
  name: div.dataset.chart,
  cells: [...div.querySelectorAll("svg.grid g.cell > text")].map(t => t.textContent),
  radars: [...div.querySelectorAll("svg.radar")].map(s =>
    [s.dataset.title, s.querySelector("polygon.score-area").points.numberOfItems]),
  points: [...div.querySelectorAll("circle.point")].length,
})))"""


def drawn(browser: Chromium) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in json.loads(browser.js(DRAWN))}


def test_the_page_draws_each_description_and_its_picked_views(tmp_path: Path, chromium: Chromium) -> None:
    run = make_run(tmp_path)
    code, _, err = run_cli("report", str(run), "--no-plots", "--mrs", "paper")
    assert code == 0, err
    chromium.load(run / "report" / "report.html")
    carried = chromium.js("JSON.parse(document.getElementById('report-data').textContent).charts")
    embedded = {c["name"]: c for c in carried}
    assert embedded == described(tmp_path / "again")  # what the page carries is the Python description
    page = drawn(chromium)
    assert list(page) == list(embedded)
    for name in ("scores_heatmap", "mr_share"):
        assert page[name]["cells"] == grid_texts(embedded[name]["views"][""][0]), name
    assert page["radar"]["radars"] == [[p["title"], len(p["points"])] for p in embedded["radar"]["views"][""]]
    assert page["accuracy"]["points"] == len(embedded["accuracy"]["views"][""][0]["points"])
    # the MR-share chart's picker shows one agent's view
    pick = "document.querySelector('#mr-share select.chart-pick')"
    assert chromium.js(f"[...{pick}.options].map(o => o.value)") == ["", "mirror", "shaky+cot", "steady"]
    chromium.js(f"(() => {{ const s = {pick}; s.value = 'mirror'; s.dispatchEvent(new Event('change')) }})()")
    assert drawn(chromium)["mr_share"]["cells"] == grid_texts(embedded["mr_share"]["views"]["mirror"][0])
    assert chromium.problems() == []


def blamed_per_capability(data: dict[str, Any]) -> charts.Views:
    """The worked example of docs/architecture.md: blamed answers per agent and capability."""
    agents, scs = data["meta"]["agents"], data["meta"]["sc_order"]
    count = {
        (a, sc): sum((r["agent"], r["sc"]) == (a, sc) for r in data["blamed"]) for a in agents for sc in scs
    }
    most = max(count.values(), default=0) or 1
    grid = {
        "kind": "grid",
        "id": "blamed-grid-svg",
        "title": "Blamed answers",
        "rows": agents,
        "cols": [{"label": sc.upper(), "sub": ""} for sc in scs],
        "cells": [
            [
                {
                    "fill": charts.share_fill(count[a, sc] / most),
                    "ink": charts.ink(charts.share_fill(count[a, sc] / most)),
                    "text": str(count[a, sc]),
                    "tip": f"{a}: {count[a, sc]} blamed answers in {sc}",
                }
                for sc in scs
            ]
            for a in agents
        ],
        "empty": "",
    }
    return {"": [grid]}


def test_a_chart_added_in_one_place_reaches_the_page_and_the_png(
    tmp_path: Path, chromium: Chromium, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra = charts.Chart(
        "blamed_grid", "blamed-grid", blamed_per_capability, title="Blamed answers per capability"
    )
    monkeypatch.setattr(charts, "CHARTS", (*charts.CHARTS, extra))
    data = build_report(str(make_run(tmp_path))).data  # every MR: blame decides the headline
    assert [c["name"] for c in data["charts"]][-1] == "blamed_grid"
    (grid,) = data["charts"][-1]["views"][""]
    assert sum(int(t) for t in grid_texts(grid)) == len(data["blamed"]) > 0
    assert "blamed_grid" in render_plots(data)
    page = tmp_path / "page.html"
    page.write_text(render_html(data), encoding="utf-8")
    chromium.load(page)
    heading = chromium.js("document.querySelector('#sec-blamed-grid h2').textContent")
    assert heading == "Blamed answers per capability"
    assert chromium.js("document.querySelector('nav a[href=\"#sec-blamed-grid\"]') !== null")
    assert drawn(chromium)["blamed_grid"]["cells"] == grid_texts(grid)
    assert chromium.problems() == []
