"""The report's charts, each described once, as data.

A chart is a JSON-able description: which cells, bars or points it shows, their colours, labels and
tooltips. The page's script (report_assets/report.js) draws a description as inline SVG; `png()`
draws the same description with matplotlib for papers and slides. What a chart shows is therefore
decided here and nowhere else: adding a chart is one builder below and one row in CHARTS, drawn with
one of the kinds both renderers know (grid, radar, scatter).

Layout of a description (`Chart.describe` returns it):
    {"name", "title", "slot", "hint", "picker", "views": {key: [panel, ...]}}
`slot` is the id of the page element the chart goes into (a new id gets a section of its own, titled
`title`, with `hint` under it); `views[""]` is the default view and the one the PNG shows; with a
`picker` (its label), the page offers every other key of `views` in a drop-down list. A panel is
one drawing: {"kind": "grid" | "radar" | "scatter", ...} (see the builders for their fields).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Panel = dict[str, Any]
Views = dict[str, list[Panel]]

EMPTY_FILL = "#f0f2f5"
LINE = "#2563eb"  # the colour of a radar's area and a scatter's points
RED, YELLOW, GREEN = (215, 48, 39), (254, 224, 139), (26, 152, 80)
PALE, BLUE = (247, 251, 255), (33, 102, 172)


def _mix(stops: list[tuple[float, tuple[int, int, int]]], v: float) -> tuple[int, int, int]:
    i = 0
    while i < len(stops) - 2 and v > stops[i + 1][0]:
        i += 1
    (a, ca), (b, cb) = stops[i], stops[i + 1]
    t = max(0.0, min(1.0, (v - a) / (b - a)))
    r, g, bl = (round(x + (y - x) * t) for x, y in zip(ca, cb, strict=True))
    return r, g, bl


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def score_fill(v: float) -> str:
    """Red (0) through yellow (0.5) to green (1)."""
    return _hex(_mix([(0.0, RED), (0.5, YELLOW), (1.0, GREEN)], v))


def share_fill(v: float) -> str:
    """Pale (0) to blue (1)."""
    return _hex(_mix([(0.0, PALE), (1.0, BLUE)], v))


def ink(fill: str) -> str:
    """Dark text on a light fill, white text on a dark one."""
    r, g, b = (int(fill[k : k + 2], 16) for k in (1, 3, 5))
    return "#1f2933" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"


def _cell(fill: str, text: str, tip: str) -> dict[str, str]:
    return {"fill": fill, "ink": ink(fill), "text": text, "tip": tip}


def _columns(data: dict[str, Any], scs: list[str]) -> list[dict[str, str]]:
    caps = data["meta"]["capabilities"]
    return [{"label": sc.upper(), "sub": caps.get(sc, "")} for sc in scs]


# --- the builders: report data -> views -------------------------------------------------------


def score_views(data: dict[str, Any]) -> Views:
    """Agent x capability grid of the headline score."""
    agents, scs = data["meta"]["agents"], data["meta"]["sc_order"]
    caps = data["meta"]["capabilities"]
    by = {(r["agent"], r["sc"]): r for r in data["scores"]}

    def cell(a: str, sc: str) -> dict[str, str] | None:
        r = by.get((a, sc))
        if not r or not r["cases"] or r["score"] is None:
            return None
        blamed = (
            f"{r['blamed']} of {r['answers']} tested answers blamed ({r['blamed_certain']} for certain), "
            if r.get("headline") == "blame"
            else ""
        )
        tip = (
            f"{a}, {sc} ({caps.get(sc, sc)}): score {r['score']:.3f}, 95% interval "
            f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}], {blamed}{r['violations']} of {r['cases']} "
            f"test cases violated, {r['invalid']} with an invalid answer"
        )
        return _cell(score_fill(r["score"]), f"{r['score']:.2f}", tip)

    grid = {
        "kind": "grid",
        "id": "heatmap-svg",
        "title": "Spatial cognition score",
        "rows": agents,
        "cols": _columns(data, scs),
        "cells": [[cell(a, sc) for sc in scs] for a in agents],
        "empty": "no test cases",
    }
    return {"": [grid]}


def radar_views(data: dict[str, Any]) -> Views:
    """One radar per agent: its score on each capability with test cases."""
    scs, caps = data["meta"]["sc_order"], data["meta"]["capabilities"]
    panels = []
    for agent in data["meta"]["agents"]:
        by = {r["sc"]: r for r in data["scores"] if r["agent"] == agent and r["cases"]}
        points = [
            {
                "axis": k,
                "value": by[sc]["score"],
                "tip": f"{sc} ({caps.get(sc, sc)}): {by[sc]['score']:.3f} over {by[sc]['cases']} test cases",
            }
            for k, sc in enumerate(scs)
            if sc in by and by[sc]["score"] is not None
        ]
        panels.append({"kind": "radar", "title": agent, "axes": [sc.upper() for sc in scs], "points": points})
    return {"": panels}


def mr_share_views(data: dict[str, Any]) -> Views:
    """MR x capability grid: the share of a capability's violations each MR finds; per agent too."""
    views = {"": [_mr_share_grid(data, None)]}
    for agent in data["meta"]["agents"]:
        views[agent] = [_mr_share_grid(data, agent)]
    return views


def _mr_share_grid(data: dict[str, Any], agent: str | None) -> Panel:
    mrs = data["meta"]["mrs"]
    counts: dict[str, dict[str, int]] = {}
    for r in data["mr_errors"]:
        if agent is None or r["agent"] == agent:
            per = counts.setdefault(r["sc"], {})
            per[r["mr"]] = per.get(r["mr"], 0) + r["violations"]
    scs = [sc for sc in data["meta"]["sc_order"] if any(sc in m["serves"] for m in mrs) or sc in counts]
    rows = [m["id"] for m in mrs] + ["invalid"]
    serves = {m["id"]: set(m["serves"]) for m in mrs}

    def cell(m: str, sc: str) -> dict[str, str] | None:
        n, total = counts.get(sc, {}).get(m, 0), sum(counts.get(sc, {}).values())
        if not n and m != "invalid" and sc not in serves[m]:
            return None
        v = n / total if total else 0.0
        found_by = "an invalid answer" if m == "invalid" else m
        tip = f"{n} of {total} violations in {sc} found by {found_by}"
        return _cell(share_fill(v), f"{round(100 * v)}% ({n})" if n else "0", tip)

    names = {m["id"]: f"{m['id']} {m['name']}".strip() for m in mrs} | {"invalid": "invalid answer"}
    return {
        "kind": "grid",
        "id": "mr-share-svg",
        "title": "Share of each capability's violations found by each MR" + (f" ({agent})" if agent else ""),
        "rows": [names[m] for m in rows],
        "cols": _columns(data, scs),
        "cells": [[cell(m, sc) for sc in scs] for m in rows],
        "empty": "the MR does not serve this capability",
    }


def accuracy_views(data: dict[str, Any]) -> Views:
    """Each agent's accuracy (ground truth) against its consistency (share of cases kept)."""
    rows = [
        r
        for r in data["accuracy"]
        if r["sc"] == "all" and r["accuracy"] is not None and r["consistency"] is not None
    ]
    points = [
        {
            "x": r["consistency"],
            "y": r["accuracy"],
            "label": r["agent"],
            "tip": f"{r['agent']}: consistency {100 * r['consistency']:.1f}%, "
            f"accuracy {100 * r['accuracy']:.1f}%",
        }
        for r in rows
    ]
    scatter = {
        "kind": "scatter",
        "id": "accuracy-svg",
        "title": "Accuracy beside consistency",
        "x_label": "consistency (MR score)",
        "y_label": "accuracy (ground truth)",
        "points": points,
        "diagonal": True,
    }
    return {"": [scatter]} if points else {}


@dataclass(frozen=True)
class Chart:
    """One chart of the report: where it goes, and how its views are built from the report data."""

    name: str  # also the PNG's file name
    slot: str  # id of the page element it is drawn into
    build: Callable[[dict[str, Any]], Views]
    title: str = ""  # heading of the section made for it when the page has no `slot`
    hint: str = ""
    picker: str = ""  # label of the drop-down list over its views; empty: one view

    def describe(self, data: dict[str, Any]) -> dict[str, Any] | None:
        """The chart's description, or None when the data gives it nothing to show."""
        if not data["meta"]["agents"] or not data["meta"]["sc_order"]:
            return None
        views = self.build(data)
        if not views:
            return None
        return {
            "name": self.name,
            "title": self.title,
            "slot": self.slot,
            "hint": self.hint,
            "picker": self.picker,
            "views": views,
        }


CHARTS = (
    Chart("scores_heatmap", "heatmap", score_views),
    Chart("radar", "radars", radar_views),
    Chart("mr_share", "mr-share", mr_share_views, picker="Agent"),
    Chart("accuracy", "accuracy-chart", accuracy_views),
)


def describe_all(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The descriptions of every chart the data has something for, in page order."""
    return [d for c in CHARTS if (d := c.describe(data)) is not None]


# --- the PNG renderer (matplotlib, Agg backend) -------------------------------------------------


def figure(chart: dict[str, Any]) -> Any:
    """A matplotlib figure of the chart's default view (every panel of it, side by side)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = chart["views"][""]
    cols = min(4, len(panels))
    rows = math.ceil(len(panels) / cols)
    width, height = _panel_size(panels[0])
    fig = plt.figure(figsize=(width * cols, height * rows))
    for n, panel in enumerate(panels):
        polar = panel["kind"] == "radar"
        ax = fig.add_subplot(rows, cols, n + 1, projection="polar" if polar else None)
        DRAW[panel["kind"]](ax, panel)
    fig.tight_layout()
    return fig


def png(chart: dict[str, Any]) -> bytes:
    import matplotlib.pyplot as plt

    fig = figure(chart)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def _panel_size(panel: Panel) -> tuple[float, float]:
    if panel["kind"] == "grid":
        widest = max((len(r) for r in panel["rows"]), default=6)
        return 1.0 + 0.08 * widest + 0.9 * len(panel["cols"]), 0.9 + 0.45 * len(panel["rows"])
    if panel["kind"] == "radar":
        return 3.2, 3.2
    return 4.6, 4.2


def _draw_grid(ax: Any, panel: Panel) -> None:
    from matplotlib.patches import Rectangle

    nrows, ncols = len(panel["rows"]), len(panel["cols"])
    for i, row in enumerate(panel["cells"]):
        for j, c in enumerate(row):
            fill = c["fill"] if c else EMPTY_FILL
            ax.add_patch(Rectangle((j - 0.48, i - 0.46), 0.96, 0.92, facecolor=fill, edgecolor="none"))
            ax.text(
                j,
                i,
                c["text"] if c else "\u00b7",
                ha="center",
                va="center",
                fontsize=9,
                color=c["ink"] if c else "#9aa5b1",
            )
    ax.set_xlim(-0.5, ncols - 0.5)
    ax.set_ylim(nrows - 0.5, -0.5)
    ax.set_xticks(range(ncols), [c["label"] for c in panel["cols"]])
    ax.set_yticks(range(nrows), panel["rows"])
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    ax.set_title(panel["title"])


def _draw_radar(ax: Any, panel: Panel) -> None:
    n = len(panel["axes"])
    angle = [2 * math.pi * k / max(n, 1) for k in range(n)]
    ax.set_theta_offset(math.pi / 2)  # the first axis at the top, then clockwise, as on the page
    ax.set_theta_direction(-1)
    pts = [(angle[p["axis"]], p["value"]) for p in panel["points"]]
    if pts:
        xs, ys = zip(*(pts + pts[:1]), strict=True)
        ax.plot(xs, ys, color=LINE)
        ax.fill(xs, ys, color=LINE, alpha=0.2)
    ax.set_xticks(angle, panel["axes"], fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_yticks([0.25, 0.5, 0.75, 1.0], ["", "0.5", "", "1"], fontsize=7)
    ax.set_title(panel["title"], fontsize=10)


def _draw_scatter(ax: Any, panel: Panel) -> None:
    if panel.get("diagonal"):
        ax.plot([0, 1], [0, 1], ls="--", color="#bbbbbb", lw=1)
    for p in panel["points"]:
        ax.scatter(p["x"], p["y"], color=LINE)
        ax.annotate(p["label"], (p["x"], p["y"]), textcoords="offset points", xytext=(5, 5))
    ax.set_xlim(-0.02, 1.05)
    ax.set_ylim(-0.02, 1.05)
    ax.set_xlabel(panel["x_label"])
    ax.set_ylabel(panel["y_label"])
    ax.set_title(panel["title"])


DRAW: dict[str, Callable[[Any, Panel], None]] = {
    "grid": _draw_grid,
    "radar": _draw_radar,
    "scatter": _draw_scatter,
}
