"""Paths and names in data files: frames must stay inside their folders (also after following
symbolic links), and agent names that share a file name are refused before anything is read,
resumed or discarded."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from helpers import run_cli
from helpers_agents import read_answers, write_run
from helpers_hostile import Script, chat, hostile_server
from metalogic.engine.facts import display_path

ONE = "query(q1, obj_dir(hall, 0, mug, duck)).\nform(q1, choice).\n"
IMAGE_ASK = ["--agent", "openai:m", "--view", "image", "--boxes", "listed", "--max-side", "0", "--no-cache"]


def with_frame(run: Path, path: str) -> None:
    scene = (run / "scene.lp").read_text()
    (run / "scene.lp").write_text(scene.replace('"frames/hall_0.png"', json.dumps(path)))


def ask_images(run: Path, script: Script) -> tuple[int, str, str]:
    with hostile_server(script) as url:
        return run_cli("ask", str(run), *IMAGE_ASK, "--base-url", url, "--no-progress")


@pytest.mark.parametrize("how", ["absolute", "dotdot", "symlink"])
def test_a_frame_outside_the_run_is_never_sent(tmp_path: Path, how: str) -> None:
    run = write_run(tmp_path / "run", queries=ONE, frames=True)
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"the user's private file, not a frame")
    if how == "symlink":  # the fact is harmless, the file is a link out of the folder
        (run / "frames" / "hall_0.png").unlink()
        (run / "frames" / "hall_0.png").symlink_to(secret)
        rel = "frames/hall_0.png"
    else:
        rel = str(secret) if how == "absolute" else "../secret.png"
        with_frame(run, rel)
    code, out, err = ask_images(run, script := Script())
    assert (code, out) == (2, "")
    assert err == (
        f"error: {display_path(run / 'scene.lp')}:8:1: the frame of trajectory hall, state 0 ({rel!r}) lies "
        f"outside the run's folders: it is {secret}\n"
        f"  expected: frame files inside the scene root {run.resolve()} or inside a trajectory folder, also "
        "after following symbolic links\n"
        "  fix: correct the frame/3 fact, or copy the frame into its trajectory folder\n"
    )
    assert script.requests == []  # nothing was sent


def test_frames_in_a_trajectory_folder_beside_the_facts_are_sent(tmp_path: Path) -> None:
    """`metalogic extract` names frames in the trajectory folders next to the facts folder."""
    run = write_run(tmp_path / "run", queries=ONE, frames=True)
    traj = tmp_path / "trajectories" / "hall"
    (traj / "frames").mkdir(parents=True)
    (traj / "trajectory.json").write_text("{}")
    Image.new("RGB", (32, 24), (9, 8, 7)).save(traj / "frames" / "000000.png")
    with_frame(run, "../trajectories/hall/frames/000000.png")
    code, _out, err = ask_images(run, script := Script(default=chat('{"answer": "nearer_left"}')))
    assert code == 0, err
    sent = script.requests[0]["messages"][0]["content"][1]["image_url"]["url"]
    assert base64.b64decode(sent.split(",", 1)[1]) == (traj / "frames" / "000000.png").read_bytes()
    assert read_answers(run / "answers" / "openai_m.lp") == {"q1": "nearer_left"}


@pytest.mark.parametrize("how", ["absolute", "symlink"])
def test_extract_refuses_frames_outside_the_trajectory_folder(tmp_path: Path, how: str) -> None:
    src = tmp_path / "shots"
    src.mkdir()
    for i in range(2):
        Image.new("RGB", (64, 48), (40 * i, 80, 120)).save(src / f"f{i}.png")
    assert run_cli("import", "frames", str(src), "--out", str(tmp_path / "traj"), "--id", "walk")[0] == 0
    folder = tmp_path / "traj" / "walk"
    outside = src / "f1.png"
    states = [json.loads(x) for x in (folder / "states.jsonl").read_text().splitlines()]
    if how == "absolute":
        states[1]["frame"] = str(outside)
        (folder / "states.jsonl").write_text("".join(json.dumps(s) + "\n" for s in states))
    else:
        (folder / states[1]["frame"]).unlink()
        (folder / states[1]["frame"]).symlink_to(outside)
    code, _out, err = run_cli(
        "extract", str(tmp_path / "traj"), "--detector", "gt", "--out", str(tmp_path / "f")
    )
    assert code == 2
    assert err == (
        f"error: {display_path(folder / 'states.jsonl')}:2: frame file '{states[1]['frame']}' lies outside "
        f"the trajectory folder (it is {outside})\n"
        "  expected: every state's frame inside the trajectory folder, also after following symbolic links\n"
        "  fix: copy the frame into the trajectory's frames/ folder and name it relative to the folder\n"
    )
    assert not (tmp_path / "f" / "walk.lp").exists()


def test_agent_names_sharing_a_file_name_are_refused(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    assert run_cli("ask", str(run), "--agent", "random", "--name", "x y")[0] == 0
    before = {p.name: p.read_bytes() for p in (run / "answers").iterdir()}
    journal = display_path(run / "answers" / "x_y.jsonl")
    for extra in ([], ["--restart"]):
        code, out, err = run_cli("ask", str(run), "--agent", "random", "--name", "x_y", "--seed", "3", *extra)
        assert (code, out) == (2, "")
        assert err == (
            f"error: the agent names 'x_y' and 'x y' share the file name 'x_y': {journal} holds the "
            "answers of 'x y'\n"
            "  expected: agent names that stay apart as file names\n"
            "  fix: give this run another --name (e.g. 'x_y-2'); the answers of 'x y' are left as they are\n"
        )
    assert {p.name: p.read_bytes() for p in (run / "answers").iterdir()} == before  # nothing discarded
    code, _out, err = run_cli("ask", str(run), "--agent", "random", "--name", "x y")  # the owner resumes
    assert code == 0, err


@pytest.mark.parametrize(
    ("name", "what"),
    [("a\x1bb", "holds the control character '\\x1b'"), ("n" * 201, "is 201 characters long")],
)
def test_agent_names_the_facts_file_cannot_hold_are_refused(tmp_path: Path, name: str, what: str) -> None:
    run = write_run(tmp_path / "run")
    code, out, err = run_cli("ask", str(run), "--agent", "random", "--name", name)
    assert (code, out) == (2, "")
    assert err == (
        f"error: the agent name {name[:60]!r} {what}\n"
        "  expected: a name of 1 to 200 printable characters\n"
        "  fix: choose another name with --name\n"
    )
    assert not (run / "answers").exists() or not any((run / "answers").iterdir())


def test_journal_lines_edited_into_something_else_are_asked_again(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    assert run_cli("ask", str(run), "--agent", "oracle")[0] == 0
    path = run / "answers" / "oracle.jsonl"
    head, *recs = (json.loads(x) for x in path.read_text().splitlines())
    before = read_answers(run / "answers" / "oracle.lp")
    recs[0]["value"] = "left). shell('touch marker'). %"  # would go into the facts file as it is
    recs[1]["qid"] = ["q2"]  # not a query id at all
    recs[2]["prompt_tokens"] = "many"  # the manifest adds these up
    path.write_text("".join(json.dumps(r) + "\n" for r in [head, *recs]))
    code, out, err = run_cli("ask", str(run), "--agent", "oracle")
    assert code == 0, err
    assert "oracle: 3 to ask of 6 questions (3 answered before)" in out
    assert read_answers(run / "answers" / "oracle.lp") == before  # asked again: the same answers
    assert run_cli("check", str(run))[0] == 0


def test_the_report_does_not_show_a_frame_outside_the_run(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", frames=True)
    secret = tmp_path / "holiday.png"  # a real image, just not one of the run's frames
    Image.new("RGB", (320, 240), (250, 1, 2)).save(secret)
    with_frame(run, str(secret))
    assert run_cli("ask", str(run), "--agent", "random", "--seed", "3")[0] == 0
    code, out, err = run_cli("report", str(run), "--out", str(tmp_path / "report"))
    assert code == 0, err
    assert "note: 1 of 1 frames could not be shown" in out
    html = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert f"frame file lies outside the run's folders, not shown: {secret}" in html
    assert "data:image/jpeg;base64" not in html  # no thumbnail of it was embedded


def test_a_frame_name_the_file_system_cannot_take_is_one_clear_error(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", queries=ONE, frames=True)
    with_frame(run, "frames/" + "a" * 5000 + ".png")
    code, out, err = ask_images(run, script := Script())
    assert (code, out) == (2, "")
    assert err.startswith(
        f"error: {display_path(run / 'scene.lp')}: frame image not found: {run.resolve()}/frames/aaa"
    )
    assert "... (File name too long)\n  expected: the frame files named by frame/3" in err
    assert script.requests == []


def bomb_png() -> bytes:
    """A small PNG file that claims 60000 x 60000 pixels (3.6 gigapixels when decoded)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 60_000, 60_000, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0" * 99))
        + chunk(b"IEND", b"")
    )


def test_a_frame_that_is_a_decompression_bomb_is_one_clear_error(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", queries=ONE, frames=True)
    (run / "frames" / "hall_0.png").write_bytes(bomb_png())
    with hostile_server(script := Script()) as url:
        code, _out, err = run_cli(
            "ask",
            str(run),
            "--agent",
            "openai:m",
            "--view",
            "image",
            "--no-cache",
            "--base-url",
            url,
            "--no-progress",
        )
    assert code == 2
    assert err.startswith(
        f"error: cannot read frame image {(run / 'frames' / 'hall_0.png').resolve()}: Image size"
    )
    assert "could be decompression bomb" in err and script.requests == []
    # the report does not show it either, and says so
    run = write_run(tmp_path / "all", frames=True)  # every question: one violation, at state 0
    (run / "frames" / "hall_0.png").write_bytes(bomb_png())
    assert run_cli("ask", str(run), "--agent", "random", "--seed", "3")[0] == 0
    code, out, err = run_cli("report", str(run), "--out", str(tmp_path / "report"))
    assert code == 0, err
    assert "note: 1 of 1 frames could not be shown" in out


@pytest.mark.parametrize(
    ("blob", "what"),
    [
        (b"\xff\xfe{}", "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"),
        (b"[" * 100_000, "it nests arrays or objects too deep"),
    ],
)
def test_a_run_json_that_is_not_json_is_one_clear_error(tmp_path: Path, blob: bytes, what: str) -> None:
    run = write_run(tmp_path / "run")
    (run / "run.json").write_bytes(blob)
    code, _out, err = run_cli("ask", str(run), "--agent", "oracle", "--no-progress")
    assert code == 2
    assert err == (
        f"error: {run / 'run.json'}: cannot read {run / 'run.json'}: {what}\n"
        "  expected: the JSON file written by 'metalogic generate'\n"
        "  fix: re-run 'metalogic generate' to rewrite it\n"
    )


def test_a_scene_root_at_the_top_of_the_file_system_opens_nothing(tmp_path: Path) -> None:
    """run.json is data: scene_root = "/" once made every file on the machine 'inside the scene root'."""
    run = write_run(tmp_path / "run", queries=ONE, frames=True)
    (run / "run.json").write_text(json.dumps({"scene_root": "/", "seed": 0}))
    photo = tmp_path / "private" / "photo.png"
    photo.parent.mkdir()
    Image.new("RGB", (32, 24), (1, 2, 3)).save(photo)
    with_frame(run, str(photo))
    code, out, err = ask_images(run, script := Script())
    assert (code, out) == (2, "")
    assert err == (
        f"error: {display_path(run / 'scene.lp')}:8:1: the frame of trajectory hall, state 0 "
        f"({str(photo)!r}) lies outside the run's folders: it is {photo}\n"
        "  expected: frame files inside a trajectory folder, also after following symbolic links (the scene "
        "root / that run.json names is the file system's root or holds the home folder, so it opens "
        "nothing)\n"
        "  fix: correct the frame/3 fact, or copy the frame into its trajectory folder\n"
    )
    assert script.requests == []


def _a_trajectory(tmp_path: Path) -> Path:
    src = tmp_path / "shots"
    src.mkdir()
    for i in range(2):
        Image.new("RGB", (64, 48), (40 * i, 80, 120)).save(src / f"f{i}.png")
    assert run_cli("import", "frames", str(src), "--out", str(tmp_path / "traj"), "--id", "walk")[0] == 0
    return tmp_path / "traj" / "walk"


@pytest.mark.parametrize(
    ("file", "damage", "what"),
    [
        (
            "states.jsonl",
            lambda t: "[" * 100_000 + "\n",
            "states.jsonl:1:1: malformed line: arrays or objects nested too deep",
        ),
        (
            "states.jsonl",
            lambda t: t.replace(
                '"action":null}',
                '"action":null,"pose":{"x_mm":' + "9" * 400 + ',"y_mm":0,"z_mm":0,"yaw_deg":0}}',
                1,
            ),
            "states.jsonl:1: malformed state: x_mm 999999999999999999999999999999... is out of range",
        ),
        ("trajectory.json", lambda t: "[" * 100_000, "trajectory.json:1: not valid JSON (nested too deep)"),
        (
            "trajectory.json",
            lambda t: '{"id": ' + "9" * 5000 + "}",
            "trajectory.json:1: not valid JSON (Exceeds the limit (4300 digits) for integer string "
            "conversion)",
        ),
    ],
    ids=["nested-state", "huge-number", "nested-meta", "huge-meta"],
)
def test_a_damaged_trajectory_is_one_clear_error_before_extract_writes(
    tmp_path: Path, file: str, damage: Any, what: str
) -> None:
    folder = _a_trajectory(tmp_path)
    path = folder / file
    before = path.read_text()
    path.write_text(damage(before))
    assert path.read_text() != before
    code, _out, err = run_cli(
        "extract", str(tmp_path / "traj"), "--detector", "gt", "--out", str(tmp_path / "f")
    )
    assert code == 2 and "Traceback" not in err
    assert err.startswith(f"error: {display_path(folder / what.split(':')[0])}:{what.split(':', 1)[1]}\n"), (
        err
    )
    assert not (tmp_path / "f" / "walk.lp").exists()


def test_a_facts_file_linking_outside_its_folder_is_refused_unread(tmp_path: Path) -> None:
    """A facts file that is a link to a file elsewhere (a system file, say) is one error, and no line
    of the target is read or shown."""
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:secret line\n")
    facts = tmp_path / "facts"
    facts.mkdir()
    (facts / "ok.lp").write_text("state(t, 0).\n")
    (facts / "evil.lp").symlink_to(secret)
    code, out, err = run_cli("check", str(facts))
    assert code == 2, out
    assert err == (
        f"error: facts file '{facts / 'evil.lp'}' is a link to '{secret}', outside the facts folder\n"
        "  expected: facts files that lie inside the folder being read, also after following links\n"
        "  fix: copy the file into the folder instead of linking to it, or name that file itself\n"
    )
    assert "secret line" not in out + err
    inner = facts / "inner.lp"
    inner.symlink_to(facts / "ok.lp")  # a link that stays inside the folder is fine
    (facts / "evil.lp").unlink()
    code, _, err = run_cli("check", str(facts))
    assert "outside the facts folder" not in err


@pytest.mark.parametrize("max_side", ["0", "64"])
def test_a_frame_that_is_not_an_image_is_one_error_naming_the_file(tmp_path: Path, max_side: str) -> None:
    """PIL names the buffer it read from ('<_io.BytesIO object at 0x...>'); the error names the file.
    Also for a frame sent as it is (no boxes drawn, not scaled), which was sent unread."""
    run = write_run(tmp_path / "run", queries=ONE, frames=True)
    frame = run / "frames" / "hall_0.png"
    frame.write_bytes(b"this is not a png at all\n")
    with hostile_server(script := Script()) as url:
        code, _out, err = run_cli(
            "ask", str(run), "--agent", "openai:m", "--view", "image", "--boxes", "listed",
            "--max-side", max_side, "--no-cache", "--base-url", url, "--no-progress",
        )  # fmt: skip
    assert code == 2
    assert err == (
        f"error: cannot read frame image {frame.resolve()}: it is not an image file (it starts with "
        "b'this is not a pn')\n"
        "  expected: a PNG or JPEG file\n"
        "  fix: re-extract the trajectory, or ask with --view text\n"
    )
    assert "BytesIO" not in err and script.requests == []
