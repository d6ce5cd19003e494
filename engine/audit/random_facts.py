"""Random fact sets for engine-agreement checks (`metalogic audit`, part d).

Each call writes one small random world: queries of every kind over a few states and objects
(some asked twice in other forms, most asked both ways round so that MR cases arise), random
answers from each query's vocabulary (sometimes invalid or missing), detections and truncations.
"""

from __future__ import annotations

import random

from metalogic.engine.vocab import Vocabulary, vocabulary

KIND_ARGS = {
    "move_dir": "ss",
    "move_dist": "ss",
    "obj_dir": "soo",
    "obj_dist": "soo",
    "map_dir": "soo",
    "map_dist": "soo",
    "size": "so",
    "depth": "so",
    "ego_dist": "so",
}


def random_program(
    rng: random.Random, traj: str, queries: int = 14, agents: int = 2, answers: random.Random | None = None
) -> str:
    """One random trajectory's facts. `answers`: draw the agents' answers from this generator
    instead of `rng` (two calls with equal `rng` seeds then differ in their answers alone)."""
    voc = vocabulary()
    states, objects = [0, 1, 2], ["a", "b", "c"]
    contents: list[str] = []
    while len(contents) < queries:
        kind = rng.choice(list(KIND_ARGS))
        args = []
        if KIND_ARGS[kind] == "ss":
            s1, s2 = rng.sample(states, 2)
            args = [str(s1), str(s2)]
        elif KIND_ARGS[kind] == "soo":
            a, b = rng.sample(objects, 2)
            args = [str(rng.choice(states)), a, b]
        else:
            args = [str(rng.choice(states)), rng.choice(objects)]
        contents.append(f"{kind}({traj}, {', '.join(args)})")
        if rng.random() < 0.6 and KIND_ARGS[kind] != "so":  # the same question the other way round
            flipped = [args[1], args[0]] if KIND_ARGS[kind] == "ss" else [args[0], args[2], args[1]]
            contents.append(f"{kind}({traj}, {', '.join(flipped)})")
    lines = []
    for i, content in enumerate(contents):
        qid = f"{traj}q{i}"
        lines.append(f"query({qid}, {content}).")
        lines.append(f"form({qid}, {rng.choice(['choice', 'free'])}).")
        kind = content.split("(")[0]
        pick = answers or rng
        for ag in range(agents):
            if pick.random() < 0.1:
                continue
            lines.append(f"answer(ag{ag}, {qid}, {_value(pick, voc, kind)}).")
    for s in states:
        for o in objects:
            if rng.random() < 0.8:
                y1, h = rng.randint(0, 200), rng.randint(1, 120)
                lines.append(f"detection({traj}, {s}, {o}, thing, 900, 10, {y1}, 60, {y1 + h}).")
                if rng.random() < 0.15:
                    lines.append(f"truncated({traj}, {s}, {o}).")
    return "\n".join(lines) + "\n"


def _value(rng: random.Random, voc: Vocabulary, kind: str) -> str:
    if rng.random() < 0.05:
        return "invalid"
    ty = voc.query_kinds[kind].answer_type
    if ty == "move":
        return f"move({rng.choice(voc.names['move'])}, {rng.choice(list(voc.turns))})"
    if ty in voc.names:
        return rng.choice(voc.names[ty])
    if ty == "steps":
        return str(rng.randint(0, 6))
    return str(rng.choice([0, 100, 150, 200, 300, 450, 1000, rng.randint(1, 5000)]))
