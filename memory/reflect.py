"""Writing a lesson card after a verified rollout, and refusing cards that give an answer away.

Two reflectors write the card's summary and lesson:
- `model`: the agent's own model (or another one) gets a reflection prompt with the task, the
  agent's reply and the verifier's verdict (and the true answer when there is one, for diagnosis
  only) and must reply with JSON {"summary": ..., "lesson": ...}.
- `template`: for agents without language (the reference agents `oracle`, `noisy:p`, `random`):
  the lesson is the task kind's procedure plus the laws its answers must obey; the summary says how
  the answer fared. Deterministic, so builds with reference agents are reproducible.

Whatever writes it, a card is checked before it is stored: one that states the true answer or the
agent's answer is rejected (`leak`), so a card can only ever teach a way of thinking.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from metalogic.engine.terms import Fun, parse_term, text

REFLECTORS = ("model", "template")
MAX_FIELD = 600  # characters kept of a summary or lesson

# How to approach each query kind: the base of the template reflector's lessons.
PROCEDURES = {
    "move_dir": (
        "When judging your own motion between two views, pick objects visible in both, see whether they "
        "grew or shrank (forward or backward) and slid sideways (a sideways step) or all swept across the"
        " image together (a turn), and keep the translation and the turn apart."
    ),
    "move_dist": (
        "When estimating how far you travelled, take the change in size of an object seen in both views "
        "as the cue, convert it to a distance with the known step length, and round only at the end."
    ),
    "obj_dir": (
        "When placing one object relative to another in one view, compare the two boxes part by part: "
        "horizontal centres for left or right, nearness to the camera from the lower box edge and "
        "apparent size, vertical position for above or below, and name only the parts that clearly "
        "differ."
    ),
    "obj_dist": (
        "When estimating the distance between two objects, first estimate each one's depth from its box "
        "height and a typical real size, then combine the depths with their sideways offsets."
    ),
    "size": (
        "When estimating the real height of an object, do not read it from the box alone: combine the box"
        " height with the object's distance, and compare with the typical size of that kind of object."
    ),
    "depth": (
        "When estimating how far an object is from the camera, use its box height against its typical "
        "real height, and make sure that of two objects the one drawn larger relative to its real size is"
        " nearer."
    ),
    "map_dir": (
        "When turning a view into a top-down map, put yourself at the bottom facing up, place each object"
        " by its depth (up the map) and its sideways offset (left or right), then read the compass "
        "direction from the second object to the first."
    ),
    "map_dist": (
        "When measuring a distance on a top-down map, place both objects by depth and sideways offset and"
        " measure the straight line between them, ignoring height."
    ),
    "ego_dist": (
        "When estimating how far an object is from you, estimate its depth from its apparent size and add"
        " its sideways offset; the straight-line distance is never shorter than the depth."
    ),
}
GENERIC_PROCEDURE = (
    "When answering a spatial question, name the objects and frames involved, read each cue "
    "separately, and check the answer against the answers you would give to related questions."
)


@dataclass(frozen=True)
class Outcome:
    """What the verifier found about one answer."""

    verifier: str  # truth | mr
    reward: int  # thousandths
    cases: tuple[int, int] | None = None  # MR verifier: (test cases, violated)


@dataclass(frozen=True)
class Reflection:
    summary: str
    lesson: str


# ---- the reflection prompt ------------------------------------------------------------------------


RULES = (
    "Rules for the note: do not state, hint at or paraphrase the correct answer or the agent's answer; do "
    "not mention numbers, option names or object identities of this scene; describe the kind of question "
    "and the reasoning habit that helped or hurt.\n"
    'Reply with a JSON object with two fields. "summary": one or two sentences saying what kind of '
    'question this was and which reasoning step went well or badly. "lesson": one sentence that names a '
    "situation, the procedure to follow in it, the mistake to avoid and a check to make."
)


def reflection_prompt(task: str, kind: str, reply: str, outcome: Outcome, truth: str | None) -> str:
    """The prompt for the `model` reflector (our own wording)."""
    verdict = _verdict(outcome)
    parts = [
        "You are writing one note for a memory of spatial-reasoning lessons. The note will be shown "
        "later to an agent facing a DIFFERENT scene and a DIFFERENT question of a similar kind. It "
        "must teach how to think about such questions, never what this question's answer was.",
        f"The question (kind: {kind}):\n{task}",
        f"The agent's reply:\n{reply.strip()[:1500] or '(no reply)'}",
        f"How the reply was judged: {verdict}",
    ]
    if truth is not None:
        parts.append(f"For your diagnosis only (never repeat it): the correct answer was {truth}.")
    parts.append(RULES)
    return "\n\n".join(parts)


REFLECTION_SCHEMA = {
    "type": "object",
    "properties": {"summary": {"type": "string"}, "lesson": {"type": "string"}},
    "required": ["summary", "lesson"],
    "additionalProperties": False,
}


def _verdict(o: Outcome) -> str:
    if o.verifier == "truth":
        return "it matched the ground truth." if o.reward >= 1000 else "it did not match the ground truth."
    n, v = o.cases or (0, 0)
    return (
        f"it was checked for consistency with the agent's other answers: {n - v} of {n} checks held."
        if n
        else "no consistency check involved it."
    )


MAX_REFLECTION_CHARS = 20_000


def parse_reflection(reply: str) -> Reflection | None:
    """The summary and lesson from a model's reply: a JSON object anywhere in it, else 'Summary:' and
    'Lesson:' lines; None when neither is there or a field says nothing (fewer than three words)."""
    reply = reply[-MAX_REFLECTION_CHARS:]  # a reply is untrusted: read a bounded part of it
    for m in re.finditer(r"\{[^{}]*\}", reply, re.S):
        try:
            data = json.loads(m.group(), strict=False)  # models put raw newlines in strings
        except (ValueError, RecursionError):  # malformed, a huge integer, or arrays nested deep
            continue
        if isinstance(data, dict):
            s, lesson = data.get("summary"), data.get("lesson") or data.get("transferable_lesson")
            if (
                isinstance(s, str)
                and isinstance(lesson, str)
                and _says_something(s)
                and _says_something(lesson)
            ):
                return Reflection(_clean(s), _clean(lesson))
    s_m = re.search(r"summary\s*[:=-]\s*(.+)", reply, re.I)
    l_m = re.search(r"lesson\s*[:=-]\s*(.+)", reply, re.I)
    if s_m and l_m and _says_something(s_m.group(1)) and _says_something(l_m.group(1)):
        return Reflection(_clean(s_m.group(1)), _clean(l_m.group(1)))
    return None


def echoes_prompt(r: Reflection) -> bool:
    """True when a reply only repeats the instructions (small models copy them) instead of writing
    a note: placeholders such as '<situation>', or a field that is a piece of the rules' text."""
    rules = _words(RULES)
    for field_text in (r.summary, r.lesson):
        if re.search(r"<[a-z][a-z ,:]{2,}>", field_text.lower()) or "..." in field_text:
            return True
        words = _words(field_text)
        if len(words) >= 4 and words in rules:
            return True
    return False


def _words(s: str) -> str:
    return " ".join(re.findall(r"[a-z0-9']+", s.lower()))


def _says_something(s: str) -> bool:
    return len(re.findall(r"[A-Za-z]+", s)) >= 3  # at least a few words, not just punctuation


def _clean(s: str) -> str:
    return " ".join(s.split())[:MAX_FIELD]


# ---- the template reflector -----------------------------------------------------------------------


def template_reflection(kind: str, outcome: Outcome, laws: Sequence[str]) -> Reflection:
    """A card for agents without language: the kind's procedure and the laws its answers obey."""
    what = kind.replace("_", " ")
    if outcome.verifier == "truth":
        how = (
            "the answer matched the ground truth"
            if outcome.reward >= 1000
            else "the answer missed the ground truth"
        )
    else:
        n, v = outcome.cases or (0, 0)
        how = (
            f"{n - v} of {n} consistency checks against related replies held"
            if n
            else "no consistency check applied"
        )
    summary = f"A {what} question; {how}."
    lesson = PROCEDURES.get(kind, GENERIC_PROCEDURE)
    if laws:
        lesson += " Then check the answer against the laws it must obey: " + "; ".join(laws) + "."
    return Reflection(summary, lesson)


# ---- the leak check -------------------------------------------------------------------------------

_STATING = r"(?:answer|answered|correct|truth|true value|result|solution|it is|it was|should be|must be)"


def leaks(card_text: str, answers: Iterable[tuple[str, str]], magnitudes: Sequence[str]) -> str | None:
    """Why `card_text` gives an answer away, or None. `answers`: (answer type, canonical value) pairs
    (the truth and the agent's answer); `magnitudes`: the answer types that are numbers.

    Distinctive forms of an answer (a compound direction name in any spelling, a move term, a number
    of 10 or more in any unit) may not appear at all; common words (a single direction word, a small
    number) may not appear as the thing something 'is', 'was' or 'should be'."""
    low = " ".join(card_text.lower().split())
    for ty, value in answers:
        if value == "invalid":
            continue
        distinctive, common = _forms(ty, value, magnitudes)
        motion = _move_phrase(value)
        if motion and re.search(motion, low):
            return f"it states the answer {value} (the move and the turn together)"
        for form in distinctive:
            if re.search(rf"(?<![\w.]){re.escape(form)}(?![\w]|\.\d)", low):
                return f"it states the answer {value} ('{form}')"
        for form in common:
            if re.search(
                rf"\b{_STATING}\b\W+(?:\w+\W+){{0,3}}{re.escape(form)}(?![\w]|\.\d)", low
            ) or re.search(
                rf"(?<![\w.]){re.escape(form)}(?![\w]|\.\d)\W+(?:\w+\W+){{0,2}}(?:is|was) (?:the )?"
                rf"(?:correct|right|true)",
                low,
            ):
                return f"it states the answer {value} ('{form}')"
    return None


def _forms(ty: str, value: str, magnitudes: Sequence[str]) -> tuple[set[str], set[str]]:
    """(distinctive, common) spellings of an answer value."""
    distinctive: set[str] = set()
    common: set[str] = set()
    if ty in magnitudes:
        n = int(value)
        numbers = {str(n)} if ty == "steps" else {str(n), _num(n / 10), _num(n / 1000)}  # mm, cm, m
        for s in numbers:
            (distinctive if len(s.replace(".", "").lstrip("0")) >= 2 else common).add(s)
        return distinctive, common
    term = parse_term(value)
    if isinstance(term, Fun):  # move(Translation, Turn)
        distinctive.add(value.lower())
        for part in (text(a) for a in term.args):
            if part != "none":
                _name_forms(part, distinctive, common)
        return distinctive, common
    _name_forms(value, distinctive, common)
    for word in _compass(value, ty):
        (distinctive if " " in word or "-" in word or len(word) > 5 else common).add(word)
    return distinctive, common


def _move_phrase(value: str) -> str | None:
    """A pattern for a move told in words ('went forward, then turned left'), when both parts are given."""
    term = parse_term(value) if value.startswith("move(") else None
    if not isinstance(term, Fun) or "none" in (text(term.args[0]), text(term.args[1])):
        return None
    way, turn = text(term.args[0]).replace("_", r"[\s_-]?"), text(term.args[1])
    return rf"\b{way}\b\W+(?:\w+\W+){{0,4}}turn\w*\W+(?:\w+\W+){{0,1}}{turn}\b"


def _name_forms(name: str, distinctive: set[str], common: set[str]) -> None:
    words = name.split("_")
    if len(words) > 1:
        for sep in (" ", "-", "_", ""):
            distinctive.add(sep.join(words))
    else:
        common.add(name)


def _compass(name: str, ty: str) -> list[str]:
    """Map direction names spelled out (ne -> north-east), from the vocabulary's sign vectors."""
    if ty != "map":
        return []
    from metalogic.engine.vocab import vocabulary

    vec = vocabulary().vectors.get(("map", name))
    if vec is None or vec == (0, 0, 0):
        return []
    lat, depth, _ = vec
    ns = {1: "north", -1: "south"}.get(depth, "")
    ew = {1: "east", -1: "west"}.get(lat, "")
    if ns and ew:
        return [f"{ns}-{ew}", f"{ns} {ew}", f"{ns}{ew}"]
    return [ns or ew]


def _num(x: float) -> str:
    return f"{x:.3f}".rstrip("0").rstrip(".")
