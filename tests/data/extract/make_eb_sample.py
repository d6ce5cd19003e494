"""Regenerate the EB-Navigation sample log in tests/data/extract/eb_nav/.

EB-Navigation (EmbodiedBench) writes, per episode, a JSON-lines log with one object per step and
one PNG per step named episode_<N>_step_<M>_<YYYYmmdd_HHMMSS>_front.png (step 0 = the first view).
This script writes such a log for a 6-step episode with one blocked move, rendering its step
images in our household world so that the frames match the logged actions.

    .venv/bin/python tests/data/extract/make_eb_sample.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from metalogic.extract.importers import EB_ACTIONS, dead_reckon, write_png
from metalogic.extract.scenarios import make
from metalogic.extract.world import CameraSpec

OUT = Path(__file__).resolve().parent / "eb_nav"
INSTRUCTION = "navigate to the teddy bear in the room and be as close as possible"
# (action id, succeeded, what the model said about it)
STEPS = [
    (0, True, "The teddy bear is ahead of me on the right. I will move forward to get closer."),
    (0, True, "The teddy bear is closer now, still ahead and to the right. Moving forward again."),
    (5, True, "I lost sight of the teddy bear. I will rotate left once to look for it."),
    (0, False, "Something seems to be in front of me; I will still try to move forward."),
    (2, True, "The forward move was blocked. I will step to the right to go around the obstacle."),
    (1, True, "I am too close to the furniture; stepping back to see the room."),
]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.iterdir():
        old.unlink()
    sc = make("household", CameraSpec(128, 128, 90.0), np.random.default_rng(5))
    try:
        pose = sc.start
        distance = 3.1
        lines = []
        for step in range(len(STEPS) + 1):
            rgb, _ = sc.world.render(sc.camera(pose))
            write_png(OUT / f"episode_1_step_{step}_20250301_1015{10 + step:02d}_front.png", rgb)
            if step == len(STEPS):
                break
            aid, ok, thought = STEPS[step]
            desc, name = EB_ACTIONS[aid]
            pose = dead_reckon(pose, name, ok)
            sc.moved(pose)
            distance = round(distance - (0.21 if ok and aid == 0 else 0.0), 4)
            feedback = (
                f"Last action {desc} executed successfully."
                if ok
                else f"Last action {desc} is invalid. Fridge is blocking Agent 0 from moving by "
                "(0.0000, 0.0000, 0.2500)."
            )
            reasoning = json.dumps(
                {
                    "visual_state_description": "A room with a table and a few toys.",
                    "reasoning_and_reflection": thought,
                    "language_plan": f"{desc}",
                    "executable_plan": [{"action_id": aid, "action_name": desc}],
                }
            )
            lines.append(
                {
                    "distance": distance,
                    "env_feedback": feedback,
                    "reasoning": reasoning,
                    "instruction": INSTRUCTION,
                    "env_step": step + 1,
                    "episode_elapsed_seconds": round(4.2 * (step + 1) + 0.37, 3),
                    "task_success": 0.0,
                    "last_action_success": ok,
                    "action_id": aid,
                    "action_description": desc,
                }
            )
        with (OUT / f"episode_1_step_{len(STEPS)}.json").open("w", encoding="utf-8") as fh:
            for rec in lines:
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    finally:
        sc.world.close()


if __name__ == "__main__":
    main()
