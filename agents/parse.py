"""Reading a model's reply into an answer value of the question's vocabulary.

Order of trust: a JSON object in the reply (the format every prompt asks for), then the text after
a final "answer:" marker, then the whole reply read as words. A reply that names two different
values, or none, is unusable and becomes `invalid` (the caller keeps the raw text).

Replies are untrusted input, so reading one is bounded: only the last MAX_REPLY_CHARS characters
are read (every format puts the answer last), every pattern runs in linear time (possessive
quantifiers, and no pattern restarts inside a run it already scanned), JSON nested deeper than
MAX_JSON_DEPTH is not decoded, and the whole reading stops at PARSE_DEADLINE_S (the reply is then
unusable).
"""

from __future__ import annotations

import json
import math
import re
import time
from typing import Any

from metalogic.agents.values import MAX_MAGNITUDE, AnswerSpace, move
from metalogic.engine.terms import Atom, Term

# Words that name one component of a direction. Every vocabulary name is built from the words on
# the right (depth word, lateral word, vertical word, joined by "_"), see logic/core/tables.facts.
EGO_WORDS = {
    # plain "near", "close" and "far" are left out: they usually mean distance between the objects
    "nearer": "nearer",
    "closer": "nearer",
    "front": "nearer",
    "farther": "farther",
    "further": "farther",
    "behind": "farther",
    "left": "left",
    "right": "right",
    "above": "above",
    "over": "above",
    "higher": "above",
    "below": "below",
    "under": "below",
    "beneath": "below",
    "lower": "below",
    "underneath": "below",
}
MOVE_WORDS = {
    "forward": "forward",
    "forwards": "forward",
    "ahead": "forward",
    "straight": "forward",
    "backward": "backward",
    "backwards": "backward",
    "back": "backward",
    "left": "left",
    "right": "right",
    "up": "up",
    "upward": "up",
    "upwards": "up",
    "ascend": "up",
    "ascended": "up",
    "rose": "up",
    "down": "down",
    "downward": "down",
    "downwards": "down",
    "descend": "down",
    "descended": "down",
}
MAP_WORDS = {
    "north": "n",
    "northeast": "ne",
    "east": "e",
    "southeast": "se",
    "south": "s",
    "southwest": "sw",
    "west": "w",
    "northwest": "nw",
    "up": "n",
    "upright": "ne",
    "right": "e",
    "downright": "se",
    "down": "s",
    "downleft": "sw",
    "left": "w",
    "upleft": "nw",
}
SAME_WORDS = (
    "same",
    "eq",
    "equal",
    "none",
    "identical",
    "nowhere",
    "no movement",
    "not move",
    "did not move",
    "stayed",
    "stay",
    "same place",
    "same position",
    "same spot",
    "coincide",
)
MAX_REPLY_CHARS = 20_000  # a longer reply is read from its end, where every format puts the answer
MAX_JSON_DEPTH = 16  # deeper JSON is not decoded (json.loads and the field reader recurse)
PARSE_DEADLINE_S = 1.0  # the whole reading of one reply; a reply that needs longer is unusable
# "turned (to the | by | about | 90 [degrees])* left". Each repeated part starts with whitespace and
# ends without it, and the quantifiers are possessive, so there is one way to match: linear time
# (the earlier pattern could split a run of spaces many ways and backtracked exponentially).
TURN_RX = re.compile(
    r"\b(?:turn(?:ed|s|ing)?|rotat(?:e|ed|es|ing)|spun|spin)\b"
    r"(?:\s++(?:to\s++the|by|about|\d++(?:\s*+(?:deg(?:rees)?|°))?))*+\s++(left|right|around|back)\b"
)
NO_TURN_RX = re.compile(r"\b(?:no\s+turn|not\s+turn|didn't\s+turn|without\s+turning|no\s+rotation)\b")
AROUND_RX = re.compile(r"\b(?:u-turn|turn(?:ed)?\s+around|180\s*(?:deg(?:rees)?|°))")
MARKER_RX = re.compile(r"(?:final\s+answer|answer)\s*[:=]\s*", re.IGNORECASE)
# A number never starts inside a run of digits, points and commas (so a long run is scanned once,
# not once per digit), and its digits are taken possessively: linear time.
NUMBER_RX = re.compile(
    r"(?<![\d.,])(-?\d++(?:[.,]\d++)*+)\s*(millimet(?:er|re)s?|mm|centimet(?:er|re)s?|cm|kilomet(?:er|re)s?|km|"
    r"met(?:er|re)s?|m|inch(?:es)?|in|feet|foot|ft|steps?)?\b",
    re.IGNORECASE,
)
UNIT_MM = {"mm": 1.0, "cm": 10.0, "m": 1000.0, "km": 1e6, "in": 25.4, "ft": 304.8}
WORD_NUMBERS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}
ECHO_WORDS = 5  # this many words in a row, found in the prompt too, are an echo of the prompt
ANSWER_KEYS = ("answer", "value", "direction", "distance", "result", "final_answer", "final")


class _OutOfTime(Exception):
    """The reading of one reply passed its deadline."""


class _Deadline:
    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def check(self) -> None:
        if time.monotonic() > self.end:
            raise _OutOfTime


def parse_reply(
    reply: str, space: AnswerSpace, prompt: str = "", deadline_s: float = PARSE_DEADLINE_S
) -> Term | None:
    """The answer value a reply gives, or None when the reply is unusable. Words the reply copies
    from the `prompt` (runs of ECHO_WORDS or more) are not read as an answer. Reading stops after
    `deadline_s` seconds (the reply is then unusable)."""
    deadline = _Deadline(deadline_s)
    try:
        return _parse(reply[-MAX_REPLY_CHARS:], space, prompt, deadline)
    except _OutOfTime:
        return None


def _parse(reply: str, space: AnswerSpace, prompt: str, deadline: _Deadline) -> Term | None:
    obj = last_json_object(reply, deadline)
    if obj is not None and _has_answer(obj):
        return _from_json(obj, space)  # the reply kept to the asked format: its answer field decides
    deadline.check()
    reply = strip_echo(reply, prompt) if prompt else reply
    deadline.check()
    markers = list(MARKER_RX.finditer(reply))
    if markers:
        tail = reply[markers[-1].end() :].strip().splitlines()
        if tail:
            value = read_value(tail[0], space)
            if value is not None:
                return value
    deadline.check()
    return read_value(reply, space)


def strip_echo(reply: str, prompt: str) -> str:
    """The reply without the stretches it repeats from the prompt (small models often echo it:
    "The views below come from your own camera" must not read as `below`)."""
    words = list(re.finditer(r"[A-Za-z0-9_']+", reply))
    if len(words) < ECHO_WORDS:
        return reply
    said = [w.group().lower() for w in words]
    asked = re.findall(r"[a-z0-9_']+", prompt.lower())
    grams = {tuple(asked[i : i + ECHO_WORDS]) for i in range(len(asked) - ECHO_WORDS + 1)}
    echoed = [False] * len(words)
    for i in range(len(said) - ECHO_WORDS + 1):
        if tuple(said[i : i + ECHO_WORDS]) in grams:
            echoed[i : i + ECHO_WORDS] = [True] * ECHO_WORDS
    if not any(echoed):
        return reply
    keep, last = [], 0
    for w, gone in zip(words, echoed, strict=True):
        if gone:
            keep.append(reply[last : w.start()])
            last = w.end()
    keep.append(reply[last:])
    return "".join(keep)


def _has_answer(obj: dict[str, Any]) -> bool:
    keys = {str(k).lower() for k in obj}
    return bool(keys & {*ANSWER_KEYS, "translation", "turn"})


def _from_json(obj: dict[str, Any], space: AnswerSpace) -> Term | None:
    low = {str(k).lower(): v for k, v in obj.items()}
    if space.is_move and ("translation" in low or "turn" in low):
        return _move_from_fields(low.get("translation"), low.get("turn"), space)
    for key in ANSWER_KEYS:
        if key in low:
            v = low[key]
            if isinstance(v, dict):
                return _from_json(v, space)
            if isinstance(v, bool):
                return None
            if isinstance(v, int | float):
                return _magnitude(float(v), space.unit, space) if space.is_magnitude else None
            if isinstance(v, str):
                return read_value(v, space)
            return None
    return None


def _move_from_fields(translation: Any, turn: Any, space: AnswerSpace) -> Term | None:
    t = _norm(str(translation)) if translation not in (None, "") else "none"
    r = _norm(str(turn)) if turn not in (None, "") else "none"
    t = "none" if t in ("no", "stay", "stayed", "nothing") else t
    if t not in space.names:
        if not any(w in MOVE_WORDS for w in re.findall(r"[a-z]+", str(translation).lower())):
            return None  # no direction word at all (e.g. "sideways"): not a translation we know
        words = _components(
            str(translation), MOVE_WORDS, ("backward", "forward"), ("left", "right"), ("up", "down")
        )
        if words is None:
            return None
        t = words
    r = {"no": "none", "back": "around", "u_turn": "around", "180": "around"}.get(r, r)
    if r not in space.turns:
        return None
    value = move(t, r)
    return value if space.contains(value) else None


def read_value(s: str, space: AnswerSpace) -> Term | None:
    """Read a value from words ("nearer and to the left", "north-east", "1.5 m", "move(forward, none)")."""
    if space.is_magnitude:
        return _magnitude_from_text(s, space)
    exact = _norm(s)
    if space.is_move:
        m = re.fullmatch(r"move_?\(?(\w+?)_?,_?(\w+?)\)?", exact)
        if m:
            return _move_from_fields(m.group(1), m.group(2), space)
        return _move_from_text(s, space)
    if exact in space.names:
        return Atom(exact)
    if space.type == "map":
        return _map_from_text(s, space)
    name = _components(s, EGO_WORDS, ("farther", "nearer"), ("left", "right"), ("above", "below"))
    if name == "none" and "same" in space.names and _says_same(s):
        name = "same"
    return Atom(name) if name in space.names else None


def _move_from_text(s: str, space: AnswerSpace) -> Term | None:
    low = s.lower()
    turns = {m.group(1) for m in TURN_RX.finditer(low)}
    if AROUND_RX.search(low):
        turns.add("around")
    turns = {"around" if t == "back" else t for t in turns}
    if len(turns) > 1:
        return None
    turn = turns.pop() if turns else "none"
    rest = AROUND_RX.sub(" ", TURN_RX.sub(" ", NO_TURN_RX.sub(" ", low)))
    t = _components(rest, MOVE_WORDS, ("forward", "backward"), ("left", "right"), ("up", "down"))
    if t is None:
        return None
    if t == "none" and turn == "none" and not _says_same(low):
        return None
    value = move(t, turn)
    return value if space.contains(value) else None


def _map_from_text(s: str, space: AnswerSpace) -> Term | None:
    squashed = re.sub(r"[\s_\-]+", "", s.lower())
    if squashed in MAP_WORDS and MAP_WORDS[squashed] in space.names:
        return Atom(MAP_WORDS[squashed])
    found = {
        MAP_WORDS[w]
        for w in re.findall(
            r"[a-z]+", re.sub(r"(north|south|up|down)[\s_\-]+(east|west|left|right)", r"\1\2", s.lower())
        )
        if w in MAP_WORDS
    }
    if len(found) == 1:
        name = found.pop()
        return Atom(name) if name in space.names else None
    if not found and _says_same(s) and "eq" in space.names:
        return Atom("eq")
    return None


def _components(s: str, words: dict[str, str], *axes: tuple[str, str]) -> str | None:
    """Join the words found for each axis ('nearer', 'left' -> 'nearer_left'); 'none' when no axis
    word appears, None when one axis gets both of its words."""
    found = {words[w] for w in re.findall(r"[a-z]+", s.lower()) if w in words}
    parts = []
    for a, b in axes:
        if a in found and b in found:
            return None
        if a in found or b in found:
            parts.append(a if a in found else b)
    return "_".join(parts) if parts else "none"


def _says_same(s: str) -> bool:
    low = s.lower()
    return any(re.search(rf"\b{re.escape(w)}\b", low) for w in SAME_WORDS)


def _magnitude_from_text(s: str, space: AnswerSpace) -> Term | None:
    values: set[int] = set()
    for m in NUMBER_RX.finditer(s):
        num = _to_float(m.group(1))
        if num is None:
            continue
        v = _magnitude(num, (m.group(2) or space.unit).lower(), space)
        if v is None:
            return None
        values.add(v)
    if not values:
        words = [WORD_NUMBERS[w] for w in re.findall(r"[a-z]+", s.lower()) if w in WORD_NUMBERS]
        if len(set(words)) == 1:
            return _magnitude(float(words[0]), space.unit, space)
        return None
    close = max(values) - min(values) <= max(1, max(values) // 100)  # "1.5 m (150 cm)" is one value
    return max(values) if close else None


def _to_float(s: str) -> float | None:
    if re.fullmatch(r"-?\d{1,3}(,\d{3})+(\.\d+)?", s):
        s = s.replace(",", "")
    s = s.replace(",", ".")
    try:
        return float(s)
    except ValueError:
        return None


def _magnitude(num: float, unit: str, space: AnswerSpace) -> Term | None:
    if not math.isfinite(num) or num < 0:
        return None
    unit = _unit(unit)
    if space.type == "steps":
        if unit == "steps":
            v = round(num)
        elif space.step_mm:
            v = round(num * UNIT_MM[unit] / space.step_mm)
        else:
            return None
    else:
        if unit == "steps":
            if not space.step_mm:
                return None
            v = round(num * space.step_mm)
        else:
            v = round(num * UNIT_MM[unit])
    return v if 0 <= v <= MAX_MAGNITUDE else None


def _unit(u: str) -> str:
    u = u.lower()
    if u.startswith("step"):
        return "steps"
    if u.startswith("milli") or u == "mm":
        return "mm"
    if u.startswith("centi") or u == "cm":
        return "cm"
    if u.startswith("kilo") or u == "km":
        return "km"
    if u.startswith("inch") or u == "in":
        return "in"
    if u in ("feet", "foot", "ft"):
        return "ft"
    return "m"


def _norm(s: str) -> str:
    return re.sub(r"[\s\-]+", "_", s.strip().strip("\"'`.").lower())


def last_json_object(reply: str, deadline: _Deadline | None = None) -> dict[str, Any] | None:
    """The last JSON object in a reply (inside a code fence or not), tolerating single quotes and
    trailing commas; None when there is none. Objects nested deeper than MAX_JSON_DEPTH are skipped."""
    found: dict[str, Any] | None = None
    for chunk in _brace_chunks(reply):
        if deadline is not None:
            deadline.check()
        obj = _loads(chunk)
        if isinstance(obj, dict):
            found = obj
    return found


def _loads(chunk: str) -> Any:
    # ValueError covers malformed JSON and integers too long for int() (over 4300 digits)
    for attempt in (chunk, re.sub(r",\s*([}\]])", r"\1", chunk)):
        try:
            return json.loads(attempt)
        except ValueError:
            pass
    relaxed = re.sub(r"'([^'\"]*)'", r'"\1"', re.sub(r",\s*([}\]])", r"\1", chunk))
    try:
        return json.loads(relaxed)
    except ValueError:
        return None


def _brace_chunks(s: str) -> list[str]:
    """Balanced {...} substrings (outermost only), skipping braces inside double-quoted strings and
    chunks whose braces and brackets nest deeper than MAX_JSON_DEPTH."""
    chunks, depth, start, in_str, esc = [], 0, -1, False, False
    brackets = deepest = 0
    for i, ch in enumerate(s):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"' and depth > 0:
            in_str, esc = True, False
        elif ch == "{":
            if depth == 0:
                start, brackets, deepest = i, 0, 0
            depth += 1
            deepest = max(deepest, depth + brackets)
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0 and deepest <= MAX_JSON_DEPTH:
                chunks.append(s[start : i + 1])
        elif ch == "[" and depth > 0:
            brackets += 1
            deepest = max(deepest, depth + brackets)
        elif ch == "]" and brackets > 0:
            brackets -= 1
    return chunks
