"""What each part of `metalogic audit` finds about one subject, and how the findings of several
families of worlds about the same subject combine into one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class Verdict:
    check: str  # soundness | completeness | tightness | non-redundancy | engines
    subject: str  # "mr1 sc2a", "map/star", "mr4"
    # sound | unsound | untested | tight | not tight | unsound table | witness | redundant | agree | disagree
    status: str
    detail: str
    bound: str = ""
    seconds: float = 0.0
    facts: str = ""  # counter-example or witness, as facts

    @property
    def ok(self) -> bool:
        return self.status in ("sound", "tight", "witness", "agree", "caught", "blind spot")


@dataclass
class AuditReport:
    verdicts: list[Verdict] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return all(v.ok for v in self.verdicts)


def merge_soundness(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """An MR and capability audited by several families: unsound if any family finds a flagged
    truthful world, sound if some family tests it and none flags it, untested only if none tests it."""
    out: list[Verdict] = []
    by_subject: dict[str, list[Verdict]] = {}
    for v in verdicts:
        if v.check != "soundness":
            out.append(v)
        else:
            by_subject.setdefault(v.subject, []).append(v)
    for subject, vs in by_subject.items():
        bad = [v for v in vs if v.status == "unsound"]
        good = [v for v in vs if v.status == "sound"]
        if bad:
            out += bad
        elif good:
            out.append(
                Verdict(
                    "soundness",
                    subject,
                    "sound",
                    "; ".join(v.detail for v in good),
                    "; ".join(v.bound for v in good),
                    sum(v.seconds for v in good),
                )
            )
        else:
            out.append(vs[0])
    return out


def merge_completeness(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """A distortion is a blind spot of a capability when no family catches it there."""
    out = [v for v in verdicts if v.check != "completeness"]
    by: dict[str, list[Verdict]] = {}
    for v in verdicts:
        if v.check == "completeness":
            by.setdefault(v.subject, []).append(v)
    for vs in by.values():
        caught = [v for v in vs if v.status == "caught"]
        out.append(caught[0] if caught else vs[0])
    return out
