"""A second workload for bench/check_scale.py: run folders made by the project's own pipeline.

The household templates of check_scale.py have no camera, so the MRs that read boxes (mr5,
mr7-mr11, mr16) make no test case there. These runs do: synthetic 3-D worlds
(metalogic.extract.synthetic, the worlds of bench/pixel_fp.py: level, pitched and noisy cameras in
turn), every question `metalogic generate --max-per-trajectory all` asks about them, and five
reference agents answering with `metalogic ask` (a truthful one, two noisy ones, a random one and a
mirrored one). A world gives about 200 questions, so about 1,000 answers.

    .venv/bin/python bench/world_runs.py 100000 /tmp/worlds_100k     # write one run folder
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

AGENTS = ("oracle", "noisy:0.1", "noisy:0.3", "random", "biased:mirror")
ANSWERS_PER_WORLD = 1000  # about 200 questions a world, five agents
# family -> (pitch range in degrees, box edge noise in pixels), as in bench/pixel_fp.py
FAMILIES = {"level": ((0, 0), 0), "pitched": ((-35, -5), 0), "noisy": ((-35, 0), 2)}


def metalogic(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "metalogic", *args], check=True, stdout=subprocess.DEVNULL)


def write_worlds_run(folder: Path, n_answers: int, seed: int = 11) -> dict[str, int]:
    """Write a run folder (scene.lp, queries.lp, answers/*.lp) of about `n_answers` answers;
    returns its fact counts."""
    from metalogic.extract.synthetic import WorldSpec, make_world, write_worlds

    n_worlds = max(3, round(n_answers / ANSWERS_PER_WORLD))
    specs = [WorldSpec(pitch_deg=p, noise_px=n) for p, n in FAMILIES.values()]
    worlds = [
        make_world(f"{fam}_w{i}", (seed, k, i), specs[k])
        for i in range(-(-n_worlds // len(FAMILIES)))
        for k, fam in enumerate(FAMILIES)
    ][:n_worlds]
    facts = folder / "facts"
    write_worlds(worlds, facts)
    run = folder / "run"
    metalogic("generate", str(facts), "--out", str(run), "--max-per-trajectory", "all")
    for agent in AGENTS:
        metalogic("ask", str(run), "--agent", agent)
    for extra in run.glob("answers/*.json*"):  # the manifests and raw replies: not facts
        extra.unlink()

    def facts_in(path: Path, prefix: str = "") -> int:
        with path.open(encoding="utf-8") as fh:
            return sum(1 for line in fh if line.strip() and line[0] != "%" and line.startswith(prefix))

    return {
        "trajectories": len(worlds),
        "scene": facts_in(run / "scene.lp"),
        "queries": facts_in(run / "queries.lp", "query("),
        "answers": sum(facts_in(p, "answer(") for p in run.glob("answers/*.lp")),
    }


if __name__ == "__main__":
    out = Path(sys.argv[2])
    print(write_worlds_run(out, int(sys.argv[1])), "->", out / "run")
