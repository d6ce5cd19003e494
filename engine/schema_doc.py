"""Render the facts schema (engine/schema.py) as text or Markdown; docs/facts.md embeds the latter."""

from __future__ import annotations

from metalogic.engine import schema

GROUPS = {
    "scene": "Scene facts (from `metalogic extract` or your own tracker)",
    "truth": "Ground truth (optional: simulator or dataset)",
    "queries": "Queries (from `metalogic generate`)",
    "answers": "Answers (from `metalogic ask`, or written by hand)",
}


def _arg_names(kind: str, arity: int) -> list[str]:
    if arity == 4:
        return ["T", "S", "A", "B"]
    return ["T", "S1", "S2"] if kind.startswith("move") else ["T", "S", "O"]


def render(fmt: str = "text") -> str:
    out: list[str] = []
    for group, title in GROUPS.items():
        preds = [p for p in schema.PREDICATES if p.group == group]
        if fmt == "markdown":
            out += [f"### {title}", "", "| predicate | meaning | arguments |", "|---|---|---|"]
            for p in preds:
                args = "<br>".join(f"`{a.name}`: {a.type.label}; {a.doc}" for a in p.args)
                out.append(f"| `{p.signature}` | {p.doc} | {args} |")
            out.append("")
        else:
            out.append(title)
            for p in preds:
                out.append(f"  {p.signature}.  % {p.doc}")
                for a in p.args:
                    out.append(f"      {a.name}: {a.type.label} ({a.doc})")
            out.append("")
    kinds = ", ".join(f"`{k}({', '.join(_arg_names(k, len(v)))})`" for k, v in schema.QUERY_KINDS.items())
    if fmt == "markdown":
        out += ["Query contents: " + kinds + ".", ""]
    else:
        out.append("Query contents: " + kinds.replace("`", ""))
    return "\n".join(out).rstrip() + "\n"
