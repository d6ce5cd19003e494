"""Writing cards: the leak check that keeps answers out of them, the template reflector, reading a
model's reflection, and the task text the memory embeds (the same at build and at deployment)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from metalogic.engine.vocab import vocabulary
from metalogic.memory.reflect import (
    Outcome,
    Reflection,
    echoes_prompt,
    leaks,
    parse_reflection,
    reflection_prompt,
    template_reflection,
)

MAGNITUDES = vocabulary().magnitudes


@pytest.mark.parametrize(
    ("text", "answer", "why"),
    [
        ("The answer is nearer left here.", ("ego", "nearer_left"), "('nearer left')"),
        (
            "Objects that are nearer-left of the camera look bigger.",
            ("ego", "nearer_left"),
            "('nearer-left')",
        ),
        ("The correct answer was left.", ("ego", "left"), "('left')"),
        ("It should be: north", ("map", "n"), "('north')"),
        ("The mug lies to the north-east of the chair.", ("map", "ne"), "('north-east')"),
        ("It was about 1.25 m away.", ("mm", "1250"), "('1.25')"),
        ("Roughly 125 cm separate them.", ("mm", "1250"), "('125')"),
        ("The answer is 3 steps.", ("steps", "3"), "('3')"),
        (
            "The agent moved forward and then turned left.",
            ("move", "move(forward,left)"),
            "(the move and the turn together)",
        ),
        ("Reply move(forward,none) here.", ("move", "move(forward,none)"), "('move(forward,none)')"),
    ],
)
def test_a_card_stating_the_answer_is_rejected(text: str, answer: tuple[str, str], why: str) -> None:
    assert leaks(text, [answer], MAGNITUDES) == f"it states the answer {answer[1]} {why}"


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Things on the left of the image are left of the camera's axis.", ("ego", "left")),
        ("Read the map with north up.", ("map", "n")),
        ("Distances above 2 m need care.", ("mm", "1250")),
        ("Count 3 steps of motion carefully.", ("steps", "3")),
        ("If the objects grow, you moved forward.", ("move", "move(forward,none)")),
        ("When two objects overlap, compare their lower edges.", ("ego", "nearer_left")),
        ("Anything", ("ego", "invalid")),
    ],
)
def test_a_card_teaching_a_method_passes(text: str, answer: tuple[str, str]) -> None:
    assert leaks(text, [answer], MAGNITUDES) is None


def test_template_cards_never_leak_any_answer() -> None:
    """Every value of every vocabulary, against every kind's template card, true or false."""
    vocab = vocabulary()
    values: dict[str, list[str]] = {t: list(names) for t, names in vocab.names.items() if t != "move"}
    values["move"] = [f"move({n},{r})" for n in vocab.names["move"] for r in vocab.turns]
    values.update({"mm": ["0", "7", "90", "250", "1250", "30000"], "steps": ["0", "1", "2", "5", "12"]})
    for kind, qk in vocab.query_kinds.items():
        for outcome in (
            Outcome("truth", 1000),
            Outcome("truth", 0),
            Outcome("mr", 667, (3, 1)),
            Outcome("mr", 0, (2, 2)),
        ):
            card = template_reflection(kind, outcome, ["Dir(2,1) = Inv(Dir(1,2))", "|d12 - d23| <= d13"])
            assert not echoes_prompt(card)
            for v in values[qk.answer_type]:
                assert leaks(card.summary + "\n" + card.lesson, [(qk.answer_type, v)], MAGNITUDES) is None, (
                    kind,
                    v,
                )


def test_reading_a_models_reflection() -> None:
    reply = 'Sure! {"summary": "A depth question.", "lesson": "When near, use the box."} done'
    assert parse_reflection(reply) is not None
    r = parse_reflection(
        '{"summary": " A  depth\nquestion here. ", "transferable_lesson": "When near, use it."}'
    )
    assert r is not None and (r.summary, r.lesson) == ("A depth question here.", "When near, use it.")
    r = parse_reflection("Summary: an object pair question.\nLesson: compare box centres first.")
    assert r is not None and r.lesson == "compare box centres first."
    assert parse_reflection('{"summary": "", "lesson": "x"}') is None
    assert parse_reflection('{"summary": "The agent was in a room.", "lesson": ","}') is None
    assert parse_reflection("I cannot help with that.") is None


def test_the_task_text_is_the_same_at_build_and_at_deployment(tmp_path: Path) -> None:
    """The card's task (build) and the text context_for embeds from the agent's prompt (deployment)
    are one and the same: the question and its options, without the views."""
    from helpers_memory import make_run
    from metalogic.agents.prompts import PREAMBLE, PromptBuilder, PromptOptions
    from metalogic.agents.rundir import load_run
    from metalogic.memory.build import task_texts
    from metalogic.memory.retrieve import task_shape

    run = load_run(make_run(tmp_path, trajectories=1, per_trajectory=10))
    shapes = task_texts(run, "text", run.questions)
    seen: dict[str, str] = {}

    def capture(q: object, task: str) -> str:
        seen[q.key] = task  # type: ignore[attr-defined]
        return ""

    builder = PromptBuilder(
        run, PromptOptions(strategy="memory", view="text", boxes="listed", context=capture)
    )
    kinds = set()
    for q in run.questions:
        builder.build(q)
        assert seen[q.key].startswith(PREAMBLE) and "] " in seen[q.key]  # the prompt lists box coordinates
        assert task_shape(seen[q.key]) == shapes[q.key]
        assert shapes[q.key].strip() and not re.search(r"\[\d+, \d+, \d+, \d+\]", shapes[q.key])
        kinds.add(q.kind)
    assert len(kinds) >= 3


def test_a_reply_that_only_repeats_the_instructions_is_no_card() -> None:
    prompt = reflection_prompt(
        "How far is the lamp?", "depth", '{"answer": 2.5}', Outcome("truth", 0), "2100"
    )
    assert "2100" in prompt  # the truth is given for diagnosis ...
    copied = prompt.split('"summary": ')[1].split(". ")[0]  # ... and a small model may copy the rules back
    assert echoes_prompt(Reflection(copied, "When depth is asked, compare box heights."))
    assert echoes_prompt(Reflection("A depth question.", "When <situation>, do <procedure>."))
    assert echoes_prompt(Reflection("A depth question.", "When ..., do ..."))
    assert not echoes_prompt(Reflection("A depth question; size was misread.", "Compare box heights first."))
