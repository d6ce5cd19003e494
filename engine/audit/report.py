"""The audit report: a terminal table, Markdown, JSON, and the counter-examples and witnesses as
facts files (each one a folder that `metalogic check` reads)."""

from __future__ import annotations

import json
from pathlib import Path

from metalogic.engine.audit.verdicts import AuditReport, Verdict
from metalogic.engine.check.tables import write_file

MARK = {True: "ok", False: "FAIL"}


def render_terminal(rep: AuditReport) -> str:
    rows = [("check", "subject", "verdict", "time", "detail")]
    for v in rep.verdicts:
        rows.append((v.check, v.subject, v.status, f"{v.seconds:.1f}s", v.detail))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = []
    for i, r in enumerate(rows):
        lines.append("  ".join(c.ljust(w) for c, w in zip(r[:4], widths, strict=True)) + "  " + r[4])
        if i == 0:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 6)
    bad = [v for v in rep.verdicts if not v.ok]
    lines.append("")
    lines.append(
        f"{len(rep.verdicts) - len(bad)} of {len(rep.verdicts)} checks passed in {rep.seconds:.1f}s"
        + (
            ""
            if not bad
            else f"; {len(bad)} need attention: " + ", ".join(f"{v.check} {v.subject}" for v in bad)
        )
    )
    return "\n".join(lines)


def render_markdown(rep: AuditReport) -> str:
    out = [
        "# metalogic audit",
        "",
        f"{sum(v.ok for v in rep.verdicts)} of {len(rep.verdicts)} checks passed in {rep.seconds:.1f} s.",
        "",
        "| check | subject | verdict | bound | time | detail |",
        "|---|---|---|---|---|---|",
    ]
    for v in rep.verdicts:
        out.append(f"| {v.check} | {v.subject} | {v.status} | {v.bound} | {v.seconds:.1f} s | {v.detail} |")
    for v in rep.verdicts:
        if v.facts:
            out += ["", f"## {v.check}: {v.subject} ({v.status})", "", "```prolog", v.facts.rstrip(), "```"]
    return "\n".join(out) + "\n"


def _slug(v: Verdict) -> str:
    return f"{v.check}-{v.subject}".replace(" ", "-").replace("/", "-")


def write_report(rep: AuditReport, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    data = {
        "ok": rep.ok,
        "seconds": rep.seconds,
        "verdicts": [
            {
                "check": v.check,
                "subject": v.subject,
                "status": v.status,
                "ok": v.ok,
                "detail": v.detail,
                "bound": v.bound,
                "seconds": round(v.seconds, 3),
                "facts": v.facts,
            }
            for v in rep.verdicts
        ],
    }
    for name, text in (("audit.json", json.dumps(data, indent=1) + "\n"), ("audit.md", render_markdown(rep))):
        path = out_dir / name
        write_file(path, lambda p, t=text: p.write_text(t, encoding="utf-8"))
        written.append(path)
    for v in rep.verdicts:
        if v.facts:
            folder = out_dir / _slug(v)
            folder.mkdir(exist_ok=True)
            path = folder / "facts.lp"
            write_file(path, lambda p, t=v.facts: p.write_text(t, encoding="utf-8"))
            written.append(path)
    return written
