"""The facts schema as a person reads it: `metalogic schema` prints it, docs/facts.md embeds its
Markdown (engine/schema.py holds the schema itself)."""

from __future__ import annotations

from metalogic.engine.schema import PREDICATES, QUERY_KINDS

DOC_GROUPS = {  # the schema's groups as `metalogic schema` and docs/facts.md title them
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
    """The schema as text or as Markdown (docs/facts.md embeds the latter)."""
    out: list[str] = []
    for group, title in DOC_GROUPS.items():
        preds = [p for p in PREDICATES if p.group == group]
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
    kinds = ", ".join(f"`{k}({', '.join(_arg_names(k, len(v)))})`" for k, v in QUERY_KINDS.items())
    if fmt == "markdown":
        out += ["Query contents: " + kinds + ".", ""]
    else:
        out.append("Query contents: " + kinds.replace("`", ""))
    return "\n".join(out).rstrip() + "\n"
