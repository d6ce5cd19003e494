"""Retrieval at scale: latency and recall@3 of the memory's hnswlib index against exact search.

For banks of 1k, 10k and 100k cards it builds the index the memory uses (metalogic.memory.index,
cosine space, M=16, ef_construction=200) and measures, for held-out query tasks:
  - stage 1 (semantic filter): one knn query for the pool (20 candidates), p50/p99 latency, at several
    search beam widths (ef);
  - recall@3 against exact brute-force cosine search (numpy): the share of the true 3 nearest cards
    the index returns; "tie-aware" also counts a returned card whose similarity equals the 3rd best
    (texts made from templates have exact ties);
  - stage 2 (ranking by logic/memory/rank on the 20 candidates): p50/p99 for SWI-Prolog and clingo.

Embeddings: task texts are generated from the agents' question templates with random objects and
frames, and embedded with the packaged all-MiniLM-L6-v2, cached under --cache. Embedding 100k texts
takes minutes on two cores; with --synthetic-above N (default 10000) larger banks use synthetic
vectors instead, said in the table: "jitter" = real embeddings of the 10k texts plus Gaussian noise
(clustered like real data), and "uniform" = random unit vectors (no structure: the hardest case for
a graph index). Prints a table and writes JSON.

    .venv/bin/python bench/memory_scale.py                  # 1k, 10k real; 100k jitter and uniform
    .venv/bin/python bench/memory_scale.py --synthetic-above 100000   # 100k real embeddings too
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from pathlib import Path

import numpy as np

from metalogic.engine.session import ENGINES
from metalogic.memory.index import EF_CONSTRUCTION, CardIndex, M
from metalogic.memory.logic import rank_candidates

CLASSES = (
    "mug",
    "bowl",
    "kettle",
    "plant",
    "chair",
    "table",
    "sofa",
    "lamp",
    "book",
    "bottle",
    "cup",
    "duck",
    "ball",
    "box",
    "laptop",
    "phone",
    "shoe",
    "bag",
    "clock",
    "vase",
    "pan",
    "knife",
    "spoon",
    "fork",
    "towel",
    "pillow",
    "bed",
    "door",
    "window",
    "fridge",
    "oven",
    "sink",
    "toilet",
    "tv",
    "remote",
    "keyboard",
    "monitor",
    "bench",
    "bicycle",
    "cone",
)
POOL = 20
K = 3


def task_texts(n: int, seed: int) -> list[str]:
    """n distinct task texts shaped like the memory's cards (question + options)."""
    from metalogic.agents.prompts import QUESTIONS

    rng = random.Random(seed)
    kinds = sorted(QUESTIONS)
    out: set[str] = set()
    while len(out) < n:
        kind = rng.choice(kinds)
        a, b = rng.sample(CLASSES, 2)
        la, lb = f"{a} o{rng.randint(1, 30)}", f"{b} o{rng.randint(1, 30)}"
        s1 = rng.randint(0, 40)
        s2 = s1 + rng.randint(1, 5)
        q = QUESTIONS[kind].format(a=la, b=lb, o=la, s1=s1, s2=s2, v1=f"step {s1}", v2=f"step {s2}", step=250)
        out.add(q + f" (frame {rng.randint(0, 40)})")
    return sorted(out)


def embed(texts: list[str], cache: Path) -> np.ndarray:
    if cache.is_file():
        arr = np.load(cache)
        if arr.shape[0] == len(texts):
            return arr
    from metalogic.memory.embed import get_embedder

    t0 = time.monotonic()
    arr = get_embedder().encode(texts, batch_size=128)
    print(f"embedded {len(texts)} texts in {time.monotonic() - t0:.0f} s", flush=True)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.save(cache, arr)
    return arr


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def percentile(xs: list[float], p: float) -> float:
    return float(np.percentile(np.array(xs), p))


def measure(
    base: np.ndarray, queries: np.ndarray, efs: list[int], rank_queries: int
) -> list[dict[str, object]]:
    n = base.shape[0]
    index = CardIndex(base.shape[1], capacity=n)
    t0 = time.monotonic()
    index.add(list(range(1, n + 1)), base)
    build_s = time.monotonic() - t0
    sims = queries @ base.T  # exact cosine (unit vectors)
    true_top = np.argsort(-sims, axis=1)[:, :K] + 1
    kth = np.sort(sims, axis=1)[:, -K]
    rows = []
    rng = random.Random(1)
    trs = {i: rng.randint(0, 1_000_000) for i in range(1, n + 1)}
    for ef in efs:
        index.ef = ef
        lat, hits, tie_hits = [], 0, 0
        for qi, q in enumerate(queries):
            t = time.perf_counter()
            got = index.search(q, POOL)
            lat.append((time.perf_counter() - t) * 1000)
            top = [i for i, _ in got[:K]]
            hits += len(set(top) & set(true_top[qi].tolist()))
            tie_hits += sum(1 for i in top if sims[qi, i - 1] >= kth[qi] - 1e-6)
        row: dict[str, object] = {
            "cards": n,
            "ef": ef,
            "build_s": round(build_s, 2),
            "p50_ms": round(percentile(lat, 50), 3),
            "p99_ms": round(percentile(lat, 99), 3),
            "recall_at_3": round(hits / (K * len(queries)), 4),
            "recall_at_3_tie_aware": round(tie_hits / (K * len(queries)), 4),
        }
        rows.append(row)
    # stage 2 on the default ef: the logic ranking of the 20 candidates
    index.ef = efs[0]
    for engine in ENGINES:
        lat2 = []
        for q in queries[:rank_queries]:
            got = index.search(q, POOL)
            cands = [(i, round(s * 1_000_000), trs[i]) for i, s in got]
            t = time.perf_counter()
            rank_candidates(cands, eta=500, k=K, floor=300, engine=engine)
            lat2.append((time.perf_counter() - t) * 1000)
        rows[0][f"rank_{engine}_p50_ms"] = round(percentile(lat2, 50), 3)
        rows[0][f"rank_{engine}_p99_ms"] = round(percentile(lat2, 99), 3)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument(
        "--efs", default="64,32,128", help="search beam widths; the first is the memory's default"
    )
    ap.add_argument(
        "--synthetic-above",
        type=int,
        default=10000,
        help="banks larger than this use synthetic vectors instead of embedding every text",
    )
    ap.add_argument("--rank-queries", type=int, default=200)
    ap.add_argument(
        "--cache",
        default=str(Path.home() / ".cache" / "metalogic" / "bench"),
        help="where text embeddings are kept between runs (outside the repository)",
    )
    ap.add_argument("--out", default="bench/results/memory_scale.json")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    efs = [int(e) for e in args.efs.split(",")]
    real_n = min(max(sizes), args.synthetic_above)
    texts = task_texts(real_n + args.queries, seed=0)
    cache = Path(args.cache) / f"minilm_{len(texts)}.npy"
    vecs = embed(texts, cache)
    base_real, queries = vecs[:real_n], vecs[real_n:]
    rng = np.random.default_rng(0)
    results = []
    for n in sizes:
        kinds = ["real"] if n <= real_n else ["jitter", "uniform"]
        for kind in kinds:
            if kind == "real":
                base, qs = base_real[:n], queries
            elif kind == "jitter":
                src = base_real[rng.integers(0, real_n, size=n)]
                base = unit(src + rng.normal(0, 0.05, size=src.shape).astype(np.float32))
                qs = queries
            else:
                base = unit(rng.normal(size=(n, vecs.shape[1])).astype(np.float32))
                qs = unit(rng.normal(size=(args.queries, vecs.shape[1])).astype(np.float32))
            for row in measure(base, qs, efs, args.rank_queries):
                row["embeddings"] = kind
                results.append(row)
                print(json.dumps(row), flush=True)
    print(
        f"\n{'cards':>7} {'embeddings':<10} {'ef':>4} {'build s':>8} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'recall@3':>9} {'tie-aware':>9} {'rank pl p50':>11} {'rank clingo p50':>15}"
    )
    for r in results:
        pl = f"{r['rank_prolog_p50_ms']:.3f}" if "rank_prolog_p50_ms" in r else ""
        cl = f"{r['rank_clingo_p50_ms']:.3f}" if "rank_clingo_p50_ms" in r else ""
        print(
            f"{r['cards']:>7} {r['embeddings']:<10} {r['ef']:>4} {r['build_s']:>8} {r['p50_ms']:>7.3f} "
            f"{r['p99_ms']:>7.3f} {r['recall_at_3']:>9.4f} {r['recall_at_3_tie_aware']:>9.4f} "
            f"{pl:>11} {cl:>15}"
        )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "cpu_count": __import__("os").cpu_count(),
        "index": {"space": "cosine", "M": M, "ef_construction": EF_CONSTRUCTION, "pool": POOL, "k": K},
        "queries": args.queries,
        "synthetic_above": args.synthetic_above,
    }
    out.write_text(json.dumps({"meta": meta, "results": results}, indent=1) + "\n")
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
