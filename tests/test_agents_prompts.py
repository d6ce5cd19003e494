"""Prompts: what a model is shown (images with boxes drawn, or boxes as text), the options of each
surface form, the reply format of each strategy, and the cache key's dependence on image content."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import pytest

from helpers import run_cli
from helpers_agents import write_run
from metalogic.agents.base import Question
from metalogic.agents.model import GenParams, ModelAgent
from metalogic.agents.prompts import PromptBuilder, PromptOptions
from metalogic.agents.rundir import load_run


def question(run_dir: Path, key: str) -> Question:
    return next(q for q in load_run(run_dir).questions if q.key == key)


def build(run_dir: Path, key: str, **opts: object):
    return PromptBuilder(load_run(run_dir), PromptOptions(**opts)).build(question(run_dir, key))


def test_text_view_lists_boxes_options_and_format(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    p = build(run, "q1", view="text")
    assert p.images == ()
    assert "In the view (step 0): the mug at [220, 120, 250, 150]; the duck at [70, 110, 100, 130]." in p.text
    assert "Each image is 320 x 240 pixels." in p.text
    assert "Where is the mug relative to the duck in this view?" in p.text
    assert "Options: farther, right, nearer, left, " in p.text  # choice: the vocabulary order
    assert p.text.endswith('Reply with this JSON object and nothing else: {"answer": "<direction>"}')
    assert p.schema["properties"]["answer"]["enum"][0] == "farther"
    reversed_ = build(run, "q2", view="text")
    assert reversed_.schema["properties"]["answer"]["enum"] == p.schema["properties"]["answer"]["enum"][::-1]


def test_movement_shows_both_steps_and_asks_translation_and_turn(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    p = build(run, "q4", view="text")
    assert "In view 1 (step 0): the ball at [140, 90, 180, 130]; the duck at" in p.text
    assert "In view 2 (step 1): the ball at [138, 88, 182, 132]" in p.text
    assert "Between view 1 (step 0) and view 2 (step 1) you may have moved and turned." in p.text
    assert "Turn options: none, left, around, right." in p.text
    assert set(p.schema["required"]) == {"translation", "turn"}


def test_magnitude_forms_ask_in_their_units(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    free = build(run, "q5", view="text")  # size, free: metres
    assert "Answer with a number of metres (decimals allowed)." in free.text
    assert "The camera's focal length is 277 pixels." in free.text
    reworded = build(run, "q6", view="text")  # depth, reworded: a second wording, centimetres
    assert "Along the camera's line of sight, how deep in the scene is the ball?" in reworded.text
    assert "Answer with a whole number of centimetres." in reworded.text
    assert reworded.schema["properties"]["answer"] == {"type": "integer", "minimum": 0}


def test_strategies_shape_the_reply(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    cot = build(run, "q3", view="text", strategy="cot")
    assert "Think it through first" in cot.text and list(cot.schema["properties"]) == ["reasoning", "answer"]
    cogmap = build(run, "q3", view="text", strategy="cogmap")
    assert "a grid of 5 rows and 5 columns" in cogmap.text and list(cogmap.schema["properties"]) == [
        "map",
        "answer",
    ]
    seen: list[str] = []

    def notes(q: Question, task: str) -> str:
        seen.append(task)
        return "- On a map whose north is your heading, right of you is east."

    mem = build(run, "q3", view="text", strategy="memory", context=notes)
    assert mem.text.startswith(
        "Notes from similar tasks you solved before (use them only where they fit):\n"
        "- On a map whose north is your heading, right of you is east.\n\n"
    )
    assert "in which direction does the ball lie as seen from the duck?" in seen[0]


def test_image_view_draws_the_boxes(tmp_path: Path) -> None:
    from PIL import Image

    run = write_run(tmp_path / "run", frames=True)
    p = build(run, "q1", view="image", boxes="drawn")
    msg = p.messages()[0]["content"]
    assert [part["type"] for part in msg] == ["text", "image_url", "text"]
    assert "Boxes on the image: the mug (red), the duck (blue)." in p.text
    url = msg[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    img = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")
    assert img.size == (320, 240)
    assert img.getpixel((235, 150)) == (230, 25, 75)  # the mug's box, bottom edge, in red
    assert img.getpixel((85, 130)) == (0, 130, 200)  # the duck's box, bottom edge, in blue
    assert img.getpixel((160, 200)) == (0, 120, 200)  # untouched frame colour elsewhere
    moves = build(run, "q4", view="image")
    assert len(moves.images) == 2 and moves.images[0].caption == "Image 1 (step 0):"


def test_cache_key_follows_image_content(tmp_path: Path) -> None:
    from PIL import Image

    from metalogic.agents.backend_openai import OpenAIBackend

    run = write_run(tmp_path / "run", frames=True)
    run_dir = load_run(run)
    agent = ModelAgent(
        "m",
        OpenAIBackend("m", "http://127.0.0.1:9/v1"),
        PromptBuilder(run_dir, PromptOptions(view="image")),
        GenParams(),
    )
    q = question(run, "q1")
    k1 = agent.key(agent.builder.build(q), True)
    assert agent.key(agent.builder.build(q), True) == k1  # same content, same key
    assert agent.key(agent.builder.build(q), False) != k1  # unconstrained decoding is another reply
    Image.new("RGB", (320, 240), (1, 2, 3)).save(run / "frames" / "hall_0.png")
    assert agent.key(agent.builder.build(q), True) != k1


def test_missing_frame_is_a_clear_error(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")  # no frame files written
    code, _out, err = run_cli(
        "ask",
        str(run),
        "--agent",
        "openai:gpt-4o",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--no-cache",
        "--no-progress",
    )
    assert code == 2
    frame = (run / "frames" / "hall_0.png").resolve()
    assert err == (
        f"error: {_shown(run / 'scene.lp')}: frame image not found: {frame}\n"
        "  expected: the frame files named by frame/3, relative to the run's scene_root (run.json)\n"
        "  fix: check scene_root in run.json, or ask without images: --view text\n"
    )
    assert not (run / "answers").exists()  # nothing was asked, nothing written


def _shown(p: Path) -> str:
    from metalogic.engine.facts import display_path

    return display_path(p)


def test_bad_form_is_reported_before_anything_is_asked(tmp_path: Path) -> None:
    run = write_run(
        tmp_path / "run", queries="query(q1, obj_dir(hall, 0, mug, duck)).\nform(q1, sideways).\n"
    )
    code, _out, err = run_cli("ask", str(run), "--agent", "random")
    assert code == 2
    assert "unknown surface form 'sideways' for query q1" in err
    assert err.splitlines()[0].endswith("queries.lp:2:1: unknown surface form 'sideways' for query q1")


def test_memory_needs_a_bank(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    code, _out, err = run_cli("ask", str(run), "--agent", "openai:m", "--prompting", "memory")
    assert code == 2
    assert err == (
        "error: --prompting memory needs --memory-bank PATH\n"
        "  fix: point --memory-bank at a memory bank built with 'metalogic memory'\n"
    )


@pytest.mark.parametrize("strategy", ["direct", "cot", "cogmap"])
def test_every_kind_renders_in_every_strategy(tmp_path: Path, strategy: str) -> None:
    kinds = [
        "move_dir(hall, 0, 1)",
        "move_dist(hall, 0, 1)",
        "obj_dir(hall, 0, mug, duck)",
        "obj_dist(hall, 0, mug, duck)",
        "size(hall, 0, mug)",
        "depth(hall, 0, mug)",
        "map_dir(hall, 0, mug, duck)",
        "map_dist(hall, 0, mug, duck)",
        "ego_dist(hall, 0, mug)",
    ]
    forms = ["choice", "free", "reworded"]
    lines = [
        f"query(k{i}_{j}, {c}).\nform(k{i}_{j}, {f}).\n"
        for i, c in enumerate(kinds)
        for j, f in enumerate(forms)
    ]
    run = write_run(tmp_path / "run", queries="".join(lines))
    builder = PromptBuilder(load_run(run), PromptOptions(strategy=strategy, view="text"))
    for q in load_run(run).questions:
        p = builder.build(q)
        assert not re.search(r"\{[a-z0-9_]+\}", p.text), p.text  # every placeholder was filled
        json.dumps(p.schema)
