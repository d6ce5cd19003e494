"""Retrieval on real embeddings (the packaged all-MiniLM-L6-v2) and a real hnswlib index.

- the semantic filter finds cards about the same kind of question;
- reliability (TRS) decides between a very similar unreliable card and a slightly less similar
  reliable one exactly where eta puts the crossing of their scores;
- plain RAG ignores reliability; 'none' gives no memory;
- deployment (a bank opened read-only, context_for, the inspection commands) leaves every byte of
  the bank as it was.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from helpers import run_cli
from helpers_memory import add_cards, digest, give_visits
from metalogic.engine.errors import MetalogicError
from metalogic.memory.bank import Bank
from metalogic.memory.retrieve import Settings, context_for, deployment_bank, retrieve, retrieve_vector
from metalogic.memory.retrieve import embed_task as embed

pytest.importorskip("hnswlib", reason="the memory extra (hnswlib) is not installed")

CARDS = [
    (
        "obj_dir",
        "Where is the mug o2 relative to the bowl o5 in this view? nearer, farther, left, right, above, "
        "below.",
        "Read left and right from box centres.",
        "Compare box centres horizontally first.",
    ),
    (
        "obj_dir",
        "Where is the chair o1 relative to the lamp o3 in this view? nearer, farther, left, right, "
        "above, below.",
        "Depth was judged from box size.",
        "Use the lower box edge for nearness.",
    ),
    (
        "obj_dir",
        "Where is the kettle o4 relative to the plant o6 in this view?",
        "Vertical order was missed.",
        "Check above or below from the box tops.",
    ),
    (
        "depth",
        "How far is the sofa o7 from the camera, measured along the direction the camera looks?",
        "Depth from apparent size.",
        "Divide a typical height by the box height.",
    ),
    (
        "depth",
        "How far is the television o8 from the camera along the viewing direction?",
        "The box was cut off.",
        "Skip truncated boxes when judging depth.",
    ),
    (
        "move_dist",
        "How far did you travel between step 2 and step 5? Count in steps of 250 mm.",
        "Steps were over-counted.",
        "Count steps from the growth of a shared object.",
    ),
    (
        "move_dist",
        "How far did you travel between step 0 and step 3, in steps of 250 mm?",
        "The turn was counted as travel.",
        "Do not count turns as distance.",
    ),
    (
        "size",
        "How tall is the bottle o9 in reality? Give its real height, not its size in the picture.",
        "Height read from pixels.",
        "Scale the box height by the distance.",
    ),
]


@pytest.fixture
def bank(tmp_path: Path) -> Bank:
    from metalogic.memory.embed import get_embedder

    emb = get_embedder()
    b = Bank.create(tmp_path / "bank", embedder=emb.name, dim=emb.dim)
    add_cards(b, CARDS)
    return b


def test_semantic_filter_finds_the_same_kind_of_question(bank: Bank) -> None:
    for query, kind in [
        (
            "Where is the cup o3 relative to the laptop o9 in this view? nearer, farther, left, right.",
            "obj_dir",
        ),
        ("How far is the fridge o2 from the camera, measured along the direction the camera looks?", "depth"),
        ("How far did you travel between step 4 and step 6? Count in steps of 250 mm.", "move_dist"),
    ]:
        hits = retrieve(bank, query, Settings(mode="rag", k=2))
        assert [h.card.kind for h in hits] == [kind, kind], query
        assert hits[0].similarity >= hits[1].similarity > 0.5


def test_similarity_floor_keeps_unrelated_cards_out(bank: Bank) -> None:
    text = "Bake the bread at two hundred degrees for forty minutes."
    assert retrieve(bank, text, Settings(floor=0.3)) == []
    assert context_for(bank, text) == ""
    assert retrieve(bank, text, Settings(floor=-1.0, k=3))  # without a floor something is always returned


def _pool_scores(hits: list, eta: float) -> dict[int, float]:
    sims = [h.similarity for h in hits]
    trss = [h.card.v / 1e6 for h in hits]

    def z(x: float, xs: list[float]) -> float:
        sd = statistics.pstdev(xs)
        return (x - statistics.mean(xs)) / sd if sd else 0.0

    return {h.card.id: (1 - eta) * z(h.similarity, sims) + eta * z(h.card.v / 1e6, trss) for h in hits}


def test_reliable_card_beats_a_more_similar_unreliable_one_exactly_when_eta_says(bank: Bank) -> None:
    vec = embed(
        bank, "Where is the mug o2 relative to the bowl o5 in this view? nearer, farther, left, right."
    )
    first = retrieve_vector(bank, vec, Settings(mode="rag", k=3))
    similar, runner_up = first[0].card.id, first[1].card.id  # card 1 (near copy of the query), then card 2
    give_visits(bank, similar, [0, 0, 1000, 0, 0, 0, 0, 1000, 0, 0])  # reused 10 times, rarely right
    give_visits(bank, runner_up, [1000, 1000, 1000, 0, 1000, 1000, 1000, 1000, 1000, 1000])
    assert bank.get(similar).v < 300_000 < 700_000 < bank.get(runner_up).v

    pool: list = []
    retrieve_vector(bank, vec, Settings(k=8, eta=0.0, floor=0.3, pool=8), pool)
    s0, s1 = _pool_scores(pool, 0.0), _pool_scores(pool, 1.0)
    lead_sim = s0[similar] - s0[runner_up]
    lead_trs = s1[runner_up] - s1[similar]
    crossing = lead_sim / (lead_sim + lead_trs)  # eta where the two real-valued scores are equal
    assert 0.02 < crossing < 0.98
    for eta in (0.0, crossing - 0.02, crossing + 0.02, 0.5 if crossing < 0.48 else 1.0):
        eta = round(eta, 3)
        top = retrieve_vector(bank, vec, Settings(k=1, eta=eta, floor=0.3, pool=8))[0].card.id
        assert top == (similar if eta < crossing else runner_up), (eta, crossing)
    # plain RAG never looks at reliability, whatever eta says
    assert retrieve_vector(bank, vec, Settings(mode="rag", k=1, eta=1.0))[0].card.id == similar


def test_modes_and_the_context_text(bank: Bank) -> None:
    query = "How far is the sofa o3 from the camera, measured along the direction the camera looks?"
    assert retrieve(bank, query, Settings(mode="none")) == []
    ctx = context_for(bank, query, k=2)
    assert ctx.count("Lesson ") == 2
    assert "Divide a typical height by the box height." in ctx  # the lesson of the matching depth card
    assert "Read left and right" not in ctx
    for card in bank.cards():
        assert f"{card.v}" not in ctx  # no statistics are shown, only the task, summary and lesson


def test_bad_settings_are_one_clear_error(bank: Bank) -> None:
    with pytest.raises(MetalogicError) as err:
        retrieve(bank, "x", Settings(eta=1.5))
    assert err.value.render() == (
        "bad value '1.5' for --eta\n  expected: a decimal from 0 to 1 in steps of 0.001\n"
        "  fix: e.g. --eta 0.5"
    )
    with pytest.raises(MetalogicError) as err:
        retrieve(bank, "x", Settings(mode="smaa"))
    assert "did you mean sma?" in err.value.render()


def test_deployment_leaves_the_bank_byte_identical(bank: Bank, tmp_path: Path) -> None:
    give_visits(bank, 1, [1000, 0])
    bank.retire(8, "test")
    bank.close()
    folder = tmp_path / "bank"
    before = digest(folder)
    assert set(before) == {"cards.sqlite", "index.hnsw"}
    ro = deployment_bank(folder)
    for text in [c[1] for c in CARDS] + ["Where is the duck relative to the ball?"]:
        assert context_for(folder, text, k=3, eta=0.5)
        assert context_for(ro, text, k=2, eta=0.0, mode="rag")
    with pytest.raises(MetalogicError) as err:
        ro.retire(2, "not allowed")
    assert "read-only" in err.value.render()
    for args in (
        ["list", str(folder), "--all"],
        ["show", str(folder), "3"],
        ["history", str(folder), "1"],
        ["stats", str(folder)],
        ["query", str(folder), "Where is the cup?", "--eta", "0.9"],
    ):
        code, _, err_text = run_cli("memory", *args)
        assert code == 0, err_text
    assert digest(folder) == before


def test_index_is_rebuilt_from_the_database(bank: Bank, tmp_path: Path) -> None:
    """The index file is a cache: without it (or stale), retrieval still sees every active card."""
    bank.save_index()
    add_cards(bank, [("size", "How tall is the vase o4 in reality?", "s", "Scale by distance.")])
    bank.conn.close()  # as if the process died before saving the index again
    folder = tmp_path / "bank"
    reopened = Bank.open(folder, readonly=True)
    hits = retrieve(reopened, "How tall is the vase o4 in reality?", Settings(mode="rag", k=1))
    assert hits[0].card.id == len(CARDS) + 1
    (folder / "index.hnsw").unlink()
    again = Bank.open(folder, readonly=True)
    assert len(again.index()) == len(CARDS) + 1
