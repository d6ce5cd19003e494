"""One error type for everything a user can get wrong, rendered as one clear message.

Every message says what is wrong, where (file:line:column when there is a place), what was
expected and how to fix it. The CLI prints it without a traceback and exits with status 2.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input."""

    what: str
    where: str = ""  # "path:line:col" or a path, empty when the problem has no single place
    source_line: str = ""  # the offending line, shown with a caret under `column`
    column: int = 0  # 1-based; 0 means no caret
    expected: str = ""
    fix: str = ""

    def render(self) -> str:
        head = f"{self.where}: {self.what}" if self.where else self.what
        lines = [head]
        if self.source_line:
            shown = self.source_line.rstrip("\n")
            lines.append(f"    {shown}")
            if self.column > 0:
                pad = "".join("\t" if ch == "\t" else " " for ch in shown[: self.column - 1])
                lines.append(f"    {pad}^")
        if self.expected:
            lines.append(f"  expected: {self.expected}")
        if self.fix:
            lines.append(f"  fix: {self.fix}")
        return "\n".join(lines)


@dataclass
class MetalogicError(Exception):
    """A user-facing error: one or more problems, each rendered on its own."""

    problems: list[Problem] = field(default_factory=list)
    more: int = 0  # problems found but not listed

    @classmethod
    def single(cls, what: str, **kw: str | int) -> MetalogicError:
        return cls([Problem(what, **kw)])  # type: ignore[arg-type]

    def render(self) -> str:
        parts = [p.render() for p in self.problems]
        if self.more:
            parts.append(f"({self.more} more problem{'s' if self.more != 1 else ''} not shown)")
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.render()


def did_you_mean(word: str, choices: list[str] | tuple[str, ...] | set[str]) -> str:
    """A 'did you mean X?' suffix for the closest choice, or '' when nothing is close."""
    import difflib

    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return f"did you mean {close[0]}?" if close else ""


def stored_value(v: object) -> str:
    """A value read from a database or a file, for a message: its kind and the start of it,
    escaped ('the text \'0)], L)...\'', 'the number 7', 'NULL', '12 bytes')."""
    if v is None:
        return "NULL"
    if isinstance(v, bytes):
        return f"{len(v)} bytes"
    kind = {str: "the text", int: "the number", float: "the decimal"}.get(type(v), type(v).__name__)
    shown = repr(v)
    return f"{kind} {shown[:60]}{'...' if len(shown) > 60 else ''}"
