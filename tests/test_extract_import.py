"""Importers: frames, videos and EmbodiedBench EB-Navigation logs become trajectory folders; bad
inputs give one clear error and leave what was written before untouched."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import cv2
import numpy as np

from helpers import ROOT, run_cli
from metalogic.extract.trajectory import load_trajectory

EB_SAMPLE = ROOT / "tests" / "data" / "extract" / "eb_nav"


def _frame(i: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    img = np.full((size[1], size[0], 3), 40 + 15 * i, np.uint8)
    cv2.putText(img, str(i), (8, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 255), 2)
    return img


def _read(path: Path) -> np.ndarray:
    img = cv2.imread(str(path))
    assert img is not None, path
    return img


def _snapshot(folder: Path) -> dict[str, str]:
    """Every file under a folder with its content hash (hidden entries included)."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _states(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "states.jsonl").read_text().splitlines()]


def _write_video(path: Path, n: int) -> None:
    w = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
    for i in range(n):
        w.write(_frame(i))
    w.release()


def test_frames_folder_imports_in_natural_order_with_every(tmp_path: Path) -> None:
    src = tmp_path / "My Walk"
    src.mkdir()
    for i in (1, 2, 10, 3):  # frame10 sorts after frame3 by number, not by text
        cv2.imwrite(str(src / f"frame{i}.png"), _frame(i))
    (src / "notes.txt").write_text("not a frame")
    code, _out, err = run_cli("import", "frames", str(src), "--out", str(tmp_path / "traj"), "--fov", "60")
    assert code == 0, err
    folder = tmp_path / "traj" / "my_walk"
    t = load_trajectory(folder)
    assert (t.id, t.scenario, t.image_size, t.n_states) == ("my_walk", "video", (64, 48), 4)
    assert t.camera is not None and round(t.camera["fy"], 2) == round(24 / np.tan(np.radians(30)), 2)
    # The frames kept their order: frame 3 is the third state, frame 10 the fourth.
    third = _read(folder / "frames" / "000002.png")
    assert np.array_equal(third, _frame(3))
    code, _, err = run_cli(
        "import", "frames", str(src), "--out", str(tmp_path / "t2"), "--every", "2", "--id", "half"
    )
    assert code == 0, err
    assert [s["state"] for s in _states(tmp_path / "t2" / "half")] == [0, 1]


def test_empty_folder_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    code, _out, err = run_cli("import", "frames", str(tmp_path / "empty"), "--out", str(tmp_path / "traj"))
    assert code == 2
    assert err == (
        f"error: {tmp_path / 'empty'}: no images in the folder\n"
        "  expected: image files named so that they sort in time order (.png, .jpg, .jpeg, .bmp, .webp)\n"
        "  fix: point at the folder that holds the frames\n"
    )
    assert not (tmp_path / "traj").exists() or not any((tmp_path / "traj").iterdir())


def test_unreadable_image_fails_and_keeps_earlier_trajectories(tmp_path: Path) -> None:
    good, bad, out = tmp_path / "good", tmp_path / "bad", tmp_path / "traj"
    good.mkdir()
    bad.mkdir()
    for i in range(3):
        cv2.imwrite(str(good / f"{i}.png"), _frame(i))
        cv2.imwrite(str(bad / f"{i}.png"), _frame(i))
    (bad / "3.png").write_bytes(b"\x89PNG\r\n\x1a\n this is not really an image")
    assert run_cli("import", "frames", str(good), "--out", str(out))[0] == 0
    before = _snapshot(out)
    code, _, err = run_cli("import", "frames", str(bad), "--out", str(out))
    assert code == 2
    assert err == (
        f"error: {bad / '3.png'}: cannot read image: the file is empty, damaged or not an image\n"
        "  expected: a PNG, JPEG, BMP or WebP image\n"
        "  fix: replace or remove the file\n"
    )
    assert _snapshot(out) == before  # no half-written 'bad' trajectory, nothing else touched
    assert sorted(p.name for p in out.iterdir()) == ["good"]


def test_frames_of_different_sizes_are_refused(tmp_path: Path) -> None:
    src = tmp_path / "mixed"
    src.mkdir()
    cv2.imwrite(str(src / "0.png"), _frame(0))
    cv2.imwrite(str(src / "1.png"), _frame(1, (80, 48)))
    code, _, err = run_cli("import", "frames", str(src), "--out", str(tmp_path / "traj"))
    assert code == 2
    assert err.startswith(f"error: {src / '1.png'}: image is 80x48, the first frame was 64x48\n")


def test_video_import_samples_frames(tmp_path: Path) -> None:
    video = tmp_path / "walk.avi"
    _write_video(video, 10)
    code, _, err = run_cli("import", "video", str(video), "--out", str(tmp_path / "traj"), "--every", "3")
    assert code == 0, err
    t = load_trajectory(tmp_path / "traj" / "walk")
    assert t.n_states == 4  # frames 0, 3, 6, 9
    assert t.source["frames_declared"] == 10
    code, _, _ = run_cli("import", "video", str(video), "--out", str(tmp_path / "t2"), "--max-frames", "2")
    assert code == 0 and load_trajectory(tmp_path / "t2" / "walk").n_states == 2


def test_truncated_video_fails_and_keeps_earlier_trajectories(tmp_path: Path) -> None:
    out = tmp_path / "traj"
    video = tmp_path / "walk.avi"
    _write_video(video, 10)
    assert run_cli("import", "video", str(video), "--out", str(out))[0] == 0
    before = _snapshot(out)
    cut = tmp_path / "cut.avi"
    data = video.read_bytes()
    cut.write_bytes(data[: int(len(data) * 0.8)])
    cap = cv2.VideoCapture(str(cut))  # what the decoder can still read of the cut file
    readable = 0
    while cap.read()[0]:
        readable += 1
    assert readable < 10
    code, _, err = run_cli("import", "video", str(cut), "--out", str(out))
    assert code == 2
    assert err == (
        f"error: {cut}: video ends early: decoded {readable} of the 10 frames its header declares\n"
        "  expected: a complete video file\n"
        "  fix: the file is truncated or damaged; copy or re-encode it again\n"
    )
    assert _snapshot(out) == before


def test_video_that_cannot_be_opened(tmp_path: Path) -> None:
    bad = tmp_path / "clip.mp4"
    bad.write_bytes(b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 40)
    code, _, err = run_cli("import", "video", str(bad), "--out", str(tmp_path / "traj"))
    assert code == 2
    assert err.startswith(
        f"error: {bad}: cannot open video: the file is damaged, truncated or in an unknown format\n"
    )


# ---------------------------------------------------------------- EB-Navigation


def test_eb_nav_sample_log_imports_with_dead_reckoned_poses(tmp_path: Path) -> None:
    code, _out, err = run_cli("import", "eb-nav", str(EB_SAMPLE), "--out", str(tmp_path / "traj"))
    assert code == 0, err
    folder = tmp_path / "traj" / "ebnav_e1"
    t = load_trajectory(folder)
    assert (t.scenario, t.step_mm, t.image_size, t.n_states) == ("household", 250, (128, 128), 7)
    assert t.task == "navigate to the teddy bear in the room and be as close as possible"
    assert t.camera is not None and t.camera["vfov_deg"] == 100.0
    states = _states(folder)
    # Logged: forward, forward, rotate left, forward (blocked), rightward, backward.
    assert [s["action"] for s in states] == [
        "move_forward",
        "move_forward",
        "turn_left",
        None,
        "move_right",
        "move_backward",
        None,
    ]
    poses = [(s["pose"]["x_mm"], s["pose"]["y_mm"], s["pose"]["yaw_deg"]) for s in states]
    assert poses == [
        (0, 0, 0),
        (250, 0, 0),
        (500, 0, 0),
        (500, 0, 90),
        (500, 0, 90),  # the blocked move stays
        (750, 0, 90),  # right of a +y heading is +x
        (750, -250, 90),
    ]
    # Each state's frame is the step image of that step.
    src = sorted(EB_SAMPLE.glob("episode_1_step_3_*_front.png"))[0]
    assert np.array_equal(_read(folder / states[3]["frame"]), _read(src))


def test_eb_nav_malformed_log_line_names_file_and_line(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    shutil.copytree(EB_SAMPLE, logs)
    log = logs / "episode_1_step_6.json"
    lines = log.read_text().splitlines()
    lines[2] = lines[2][:40]  # a line cut off mid-object, as a crashed run leaves it
    log.write_text("\n".join(lines) + "\n")
    out = tmp_path / "traj"
    code, _, err = run_cli("import", "eb-nav", str(logs), "--out", str(out))
    assert code == 2
    assert err == (
        f"error: {log}:3:36: malformed log line: Unterminated string starting at\n"
        '  expected: one JSON object per line with "env_step", "action_id", "action_description" and '
        '"last_action_success", as EB-Navigation writes them\n'
        "  fix: repair or remove the line\n"
    )
    assert not out.exists() or not any(out.iterdir())


def test_eb_nav_unknown_action_and_missing_image(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    shutil.copytree(EB_SAMPLE, logs)
    log = logs / "episode_1_step_6.json"
    recs = [json.loads(line) for line in log.read_text().splitlines()]
    recs[1]["action_id"], recs[1]["action_description"] = 11, "Jump over the table"
    log.write_text("".join(json.dumps(r) + "\n" for r in recs))
    code, _, err = run_cli("import", "eb-nav", str(logs), "--out", str(tmp_path / "traj"))
    assert code == 2
    assert err.splitlines()[0] == (
        f"error: {log}:2: malformed log line: unknown action (action_id 11, "
        'action_description "Jump over the table")'
    )
    shutil.copy(EB_SAMPLE / log.name, log)
    next(logs.glob("episode_1_step_4_*.png")).unlink()
    code, _, err = run_cli("import", "eb-nav", str(logs), "--out", str(tmp_path / "traj"))
    assert code == 2
    assert err.splitlines()[0] == f"error: {logs}: episode 1: no image for step 4"


def test_eb_nav_folder_without_logs(tmp_path: Path) -> None:
    code, _, err = run_cli("import", "eb-nav", str(tmp_path), "--out", str(tmp_path / "traj"))
    assert code == 2
    assert err.splitlines()[0] == f"error: {tmp_path}: no EB-Navigation episode logs in the folder"


def test_eb_nav_unknown_episode(tmp_path: Path) -> None:
    code, _, err = run_cli("import", "eb-nav", str(EB_SAMPLE), "--out", str(tmp_path), "--episode", "2")
    assert code == 2
    assert err == "error: tests/data/extract/eb_nav: no log for episode 2\n  expected: one of 1\n"
