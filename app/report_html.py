"""The report's renderings: a self-contained HTML page, PNG plots and the terminal summary.

The page (app/report_assets/: page.html, report.css, report.js) embeds the report data as JSON
and draws every chart as inline SVG with a small script; frames are JPEG data URLs. Nothing is
fetched when the page is viewed, so it works offline and can be mailed as one file. Each chart is
described once (app/charts.py); the PNGs (matplotlib) draw the same descriptions for papers and
slides.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any

from metalogic.app import charts
from metalogic.engine.errors import MetalogicError
from metalogic.engine.paths import frame_place
from metalogic.engine.results import label

if TYPE_CHECKING:
    from metalogic.app.report import Report, TableIndex

INVALID_BUCKET = "invalid"  # violations caused by an unusable answer, kept apart from the MRs
ASSETS = "report_assets"  # page.html (the skeleton), report.css, report.js: package data
THUMB_WIDTH = 320  # pixels; frames are shrunk to this width before they are embedded


def asset(name: str) -> str:
    """One of the page's source files, shipped with the package."""
    try:
        return (resources.files("metalogic.app") / ASSETS / name).read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError, NotADirectoryError):
        raise MetalogicError.single(
            f"the report template {ASSETS}/{name} is missing from this installation of metalogic",
            expected="app/report_assets/ installed as package data",
            fix="reinstall metalogic (pip install .)",
        ) from None


def embed_json(data: Any) -> str:
    """JSON that cannot end the script element it sits in (no '<', '>' or '&' left raw)."""
    raw = json.dumps(data, ensure_ascii=False, allow_nan=False, default=_jsonable)
    return raw.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _jsonable(x: Any) -> Any:
    if isinstance(x, float) and math.isnan(x):
        return None
    raise TypeError(f"not JSON: {type(x).__name__}")


def _clean(x: Any) -> Any:
    """NaN (no cases) becomes null, so JSON stays valid."""
    if isinstance(x, float):
        return None if math.isnan(x) else x
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    return x


def render_html(data: dict[str, Any]) -> str:
    return Template(asset("page.html")).substitute(
        title=html.escape(data["meta"]["title"]),
        css=asset("report.css"),
        data=embed_json(_clean(data)),
        script=asset("report.js"),
    )


def thumbnail(path: Path, width: int) -> tuple[str, tuple[int, int]]:
    """A frame as a JPEG data URL at most `width` pixels wide, and its own size."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as src:
            natural = src.size
            rgb = src.convert("RGB")
        if rgb.width > width:
            height = max(1, round(rgb.height * width / rgb.width))
            rgb = rgb.resize((width, height), Image.Resampling.LANCZOS)
        buf = io.BytesIO()
        rgb.save(buf, "JPEG", quality=80)
    except (UnidentifiedImageError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        raise OSError(str(exc)) from None  # every way Pillow refuses a file: the frame is not shown
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii"), natural


def frame_images(
    wanted: set[tuple[str, int]], idx: TableIndex, root: Path, width: int = THUMB_WIDTH
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Each wanted frame as a small JPEG data URL with its boxes; frames that cannot be shown get
    a note (the page then draws the boxes on a blank frame)."""
    images: dict[str, dict[str, Any]] = {}
    missing: list[str] = []
    for traj, state in sorted(wanted):
        entry: dict[str, Any] = {"boxes": idx.boxes.get((traj, state), []), "src": None, "note": ""}
        size = idx.image_size.get(traj)
        rel = idx.frames.get((traj, state))
        if rel is None and not entry["boxes"]:
            continue  # nothing to draw
        if rel is None:
            entry["note"] = f"no frame/3 fact for trajectory {label(traj)}, state {state}"
            missing.append(entry["note"])
        else:
            path = root / rel
            try:
                if frame_place(path, root) is None:  # a frame/3 fact may not show any file on the machine
                    entry["note"] = f"frame file lies outside the run's folders, not shown: {path}"
                else:
                    entry["src"], natural = thumbnail(path, width)
                    size = size or natural
            except OSError:
                entry["note"] = f"frame file not found or unreadable: {path}"
            except ImportError:
                entry["note"] = "frames need Pillow: pip install 'metalogic[report]'"
            if entry["note"]:
                missing.append(str(path))
        if size is None:  # no image and no image_size: make the boxes fit
            boxes = entry["boxes"] or [{"box": [0, 0, 640, 480]}]
            size = (max(b["box"][2] for b in boxes) + 1, max(b["box"][3] for b in boxes) + 1)
        entry["w"], entry["h"] = size
        images[f"{traj}#{state}"] = entry
    return images, missing


# --- The terminal summary ---


def _table(header: Sequence[str], body: Sequence[Sequence[str]], right: set[int]) -> str:
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(header)]

    def fmt(cells: Sequence[str]) -> str:
        pairs = enumerate(zip(cells, widths, strict=True))
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in pairs)

    return "\n".join([fmt(header), fmt(["-" * w for w in widths]), *(fmt(b).rstrip() for b in body)])


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def render_terminal(rep: Report) -> str:
    """The summary for people who stay in the shell."""
    from metalogic.engine.check.tables import render_scores

    d, meta = rep.data, rep.data["meta"]
    parts = [
        f"{meta['run']} (engine {meta['engine']}): {len(meta['agents'])} agents, "
        f"{meta['testcases']} test cases, {meta['violations']} violations",
        "",
        render_scores(rep.res.tables["scores"]),
        "",
        "Error rates",
        _table(
            ("agent", "cases", "viol.", "error rate", "errors/trajectory", "errors/object"),
            [
                (
                    r["agent"],
                    str(r["cases"]),
                    str(r["violations"]),
                    _pct(r["error_rate"]),
                    _num(r["errors_per_trajectory"]),
                    _num(r["errors_per_object"]),
                )
                for r in d["error_rates"]
            ],
            {1, 2, 3, 4, 5},
        ),
    ]
    share = _share_table(d)
    if share:
        parts += ["", "Share of each capability's violations found by each MR (all agents)", share]
    if d["accuracy"]:
        parts += [
            "",
            f"Accuracy beside consistency (ground truth for {meta['truth_queries']} of "
            f"{meta['queries']} questions)",
            _table(
                ("agent", "answers", "accuracy", "consistency", "wrong", "flagged", "consistent but wrong"),
                [
                    (
                        r["agent"],
                        str(r["with_truth"]),
                        _pct(r["accuracy"]),
                        _pct(r["consistency"]),
                        str(r["wrong"]),
                        str(r["flagged"]),
                        f"{r['consistent_but_wrong']} ({_pct(r['consistent_but_wrong_share'])})",
                    )
                    for r in d["accuracy"]
                    if r["sc"] == "all"
                ],
                {1, 2, 3, 4, 5, 6},
            ),
        ]
    if meta["notes"]:
        parts += ["", *(f"note: {n}" for n in meta["notes"])]
    return "\n".join(parts)


def _share_table(d: dict[str, Any]) -> str:
    per: dict[str, Counter[str]] = defaultdict(Counter)
    for r in d["mr_errors"]:
        per[r["sc"]][r["mr"]] += r["violations"]
    if not per:
        return ""
    cols = [m["id"] for m in d["meta"]["mrs"]] + [INVALID_BUCKET]
    cols = [c for c in cols if any(c in per[sc] for sc in per)]
    body = []
    for sc in [s for s in d["meta"]["sc_order"] if s in per]:
        total = sum(per[sc].values())
        body.append([sc, str(total), *(_pct(per[sc][c] / total) if per[sc][c] else "-" for c in cols)])
    return _table(["SC", "viol.", *cols], body, set(range(1, len(cols) + 2)))


def render_plots(data: dict[str, Any]) -> dict[str, bytes]:
    """name -> PNG bytes of each chart the page shows, drawn from the same descriptions."""
    return {chart["name"]: charts.png(chart) for chart in data["charts"]}
