"""Reading replies into answer values: replies in the shapes models really send (JSON in code fences,
chain-of-thought with a final JSON line, prose, units), and replies that must become `invalid`."""

from __future__ import annotations

import pytest

from metalogic.agents.base import Question
from metalogic.agents.parse import last_json_object, parse_reply
from metalogic.agents.values import space_for
from metalogic.engine.errors import MetalogicError
from metalogic.engine.terms import Atom, parse_term, text


def space(content: str, form: str = "choice", step_mm: int | None = 250):
    q = Question(Atom("q1"), parse_term(content), parse_term(form))
    return space_for(q, step_mm)


def parsed(reply: str, content: str, form: str = "choice") -> str | None:
    v = parse_reply(reply, space(content, form))
    return None if v is None else text(v)


OBJ = "obj_dir(t, 0, a, b)"
MAP = "map_dir(t, 0, a, b)"
MOVE = "move_dir(t, 0, 1)"
SIZE = "size(t, 0, a)"
STEPS = "move_dist(t, 0, 2)"

CASES = [
    # the asked format, as is and in a code fence
    ('{"answer": "nearer_left"}', OBJ, "choice", "nearer_left"),
    ('```json\n{\n  "answer": "farther_right_above"\n}\n```', OBJ, "choice", "farther_right_above"),
    # chain of thought, then the JSON object on the last line
    (
        "The mug's box is left of the duck's and lower in the image, and it looks bigger, so it is closer.\n"
        '{"answer": "nearer_left"}',
        OBJ,
        "choice",
        "nearer_left",
    ),
    (
        '{"reasoning": "The ball is ahead of the duck and a bit to the right.", "answer": "ne"}',
        MAP,
        "choice",
        "ne",
    ),
    # spacing and case variants of a name
    ('{"answer": "Nearer Left"}', OBJ, "choice", "nearer_left"),
    ('{"answer": "north-east"}', MAP, "choice", "ne"),
    ('{"answer": "North East"}', MAP, "choice", "ne"),
    # prose without JSON
    ("The mug is in front of the duck and to its right.", OBJ, "free", "nearer_right"),
    ("Answer: farther_left", OBJ, "choice", "farther_left"),
    ("Final answer: southwest", MAP, "choice", "sw"),
    ("They are at the same place.", MAP, "free", "eq"),
    # single quotes and a trailing comma, as small models write them
    ("{'answer': 'below',}", OBJ, "choice", "below"),
    # moves: the two fields, a term, prose
    ('{"translation": "forward", "turn": "none"}', MOVE, "choice", "move(forward,none)"),
    ('{"translation": "forward right", "turn": "left"}', MOVE, "choice", "move(forward_right,left)"),
    ('{"translation": "right and ahead", "turn": "around"}', MOVE, "choice", "move(forward_right,around)"),
    ('{"answer": "move(backward, none)"}', MOVE, "choice", "move(backward,none)"),
    ("I turned 90 degrees to the left and did not change position.", MOVE, "free", "move(none,left)"),
    ("I moved forward, then turned right.", MOVE, "free", "move(forward,right)"),
    ("I stayed in place and did not turn.", MOVE, "free", "move(none,none)"),
    # magnitudes in the asked unit and with units of their own
    ('{"answer": 12}', SIZE, "choice", "120"),  # choice asks for centimetres
    ('{"answer": 0.12}', SIZE, "free", "120"),  # free asks for metres
    ('{"answer": "about 1.5 m"}', SIZE, "free", "1500"),
    ("The mug is roughly 120 mm tall.", SIZE, "free", "120"),
    ("It is about 1.5 m (150 cm) away.", SIZE, "free", "1500"),
    ("1,250 mm", SIZE, "free", "1250"),
    ('{"answer": 2}', STEPS, "free", "2"),
    ("two steps", STEPS, "free", "2"),
    ("I moved about 0.5 metres, so 2 steps.", STEPS, "free", "2"),
    ('{"answer": 1.0}', "size(t, 0, a)", "options(500, 1000, 2000)", "1000"),
]

UNUSABLE = [
    ("", OBJ, "choice"),
    ("I cannot tell from these images.", OBJ, "choice"),
    ('{"answer": "diagonal"}', OBJ, "choice"),
    ("It is to the left, or maybe to the right.", OBJ, "free"),  # two values for one axis
    ('{"answer": -3}', SIZE, "free"),  # negative length
    ('{"answer": true}', SIZE, "free"),
    ("between 1 m and 3 m", SIZE, "free"),  # a range is not one value
    ('{"translation": "sideways", "turn": "none"}', MOVE, "choice"),
    ("I turned left, then turned right.", MOVE, "free"),  # two different turns
    ('{"answer": 5000000}', SIZE, "free"),  # beyond the schema's largest magnitude (5000 km)
]


# Replies the packaged Gemma 3 270M really wrote (through llama.cpp), constrained and not.
GEMMA_ECHO = (
    "You are an embodied agent. The views below come from your own camera as you move through a scene. "
    "Answer the spatial question about them.\n\nObjects are given by their boxes in the camera image:"
)
GEMMA = [
    ('{ "translation": "left", "turn": "right"}', MOVE, "choice", "move(left,right)"),
    ('{ "answer": 120} ', SIZE, "free", "120000"),  # 120 metres, as it said
    ('{ "answer": 140} ', "depth(t, 0, a)", "reworded", "1400"),  # 140 centimetres
]


@pytest.mark.parametrize(("reply", "content", "form", "want"), CASES + GEMMA)
def test_reply_reads_as_value(reply: str, content: str, form: str, want: str) -> None:
    assert parsed(reply, content, form) == want


@pytest.mark.parametrize(("reply", "content", "form"), UNUSABLE)
def test_unusable_reply_is_none(reply: str, content: str, form: str) -> None:
    assert parsed(reply, content, form) is None


def test_an_echo_of_the_prompt_is_not_an_answer() -> None:
    from metalogic.agents.prompts import PREAMBLE

    prompt = PREAMBLE + "\n\nWhere is the mug relative to the duck in this view?"
    # read as words, the echo says "below" ("the views below come from...") ...
    assert text(parse_reply(GEMMA_ECHO, space(OBJ)) or Atom("none")) == "below"
    # ... but those words are the question's, not an answer
    assert parse_reply(GEMMA_ECHO, space(OBJ), prompt) is None
    # an answer after an echo still counts
    assert (
        text(parse_reply(GEMMA_ECHO + " farther right", space(OBJ), prompt) or Atom("none"))
        == "farther_right"
    )


def test_json_object_decides_over_prose() -> None:
    # a reply in the asked format is read from its answer field, whatever the prose around it says
    assert parsed('{"answer": "left", "reasoning": "hard"} but really it is right', OBJ) == "left"
    assert parsed('{"answer": "n"} {"answer": "s"} so, hmm', MAP) == "s"


def test_out_of_range_magnitude_is_none() -> None:
    assert parsed('{"answer": 5000}', SIZE, "free") is None  # 5 km in metres is over 1000000 mm
    assert parsed('{"answer": 999}', SIZE, "free") == "999000"


def test_braces_inside_strings_do_not_confuse_the_json_reader() -> None:
    reply = 'Map: {"map": "..X.. / {a} ", "answer": "w"} done'
    assert last_json_object(reply) == {"map": "..X.. / {a} ", "answer": "w"}
    assert parsed(reply, MAP) == "w"


def test_option_outside_the_vocabulary_is_a_clear_error() -> None:
    q = Question(Atom("q9"), parse_term(OBJ), parse_term("options(left, sideways)"))
    with pytest.raises(MetalogicError) as err:
        space_for(q, 250, "run/queries.lp:4:1")
    assert err.value.render() == (
        "run/queries.lp:4:1: option sideways is not in the ego vocabulary for query q9\n"
        "  expected: form(Q, F) with F one of choice, free, reworded, options(reversed) or "
        "options(V1, V2, ...) with values of the query's vocabulary\n"
        "  fix: fix the form/2 fact (see docs/agents.md, 'Surface forms')"
    )


def test_reversed_options_reverse_the_vocabulary() -> None:
    first, second = space(OBJ, "choice"), space(OBJ, "options(reversed)")
    assert second.names == first.names[::-1] and set(second.names) == set(first.names)
    mv = space(MOVE, "options(reversed)")
    assert mv.turns == space(MOVE).turns[::-1]
