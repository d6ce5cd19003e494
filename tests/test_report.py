"""`metalogic report` on a hand-checkable run (tests/data/report): the numbers it shows, the files
it writes, and the page itself rendered by the real headless Chromium."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from helpers_report import DATA, Chromium, chromium, make_run

from helpers import run_cli
from metalogic.app.report import build_report
from metalogic.engine.rules.loader import load_ruleset

__all__ = ["chromium"]  # the fixture, used by name


def test_report_writes_the_page_the_plots_and_a_terminal_summary(tmp_path: Path) -> None:
    from PIL import Image

    run = make_run(tmp_path)
    code, out, err = run_cli("report", str(run), "--engine", "both", "--mrs", "paper")
    assert code == 0, err
    folder = run / "report"
    assert sorted(p.name for p in folder.iterdir()) == [
        "accuracy.png",
        "mr_share.png",
        "radar.png",
        "report.html",
        "scores_heatmap.png",
    ]
    for png in folder.glob("*.png"):
        with Image.open(png) as im:
            assert im.format == "PNG" and im.width > 300 and im.height > 200
            assert len(im.convert("RGB").getcolors(1 << 20) or []) > 20, png.name  # a plot, not a blank
    assert oct((folder / "report.html").stat().st_mode & 0o044) == oct(0o044 & ~_umask())
    # error rates: shaky+cot breaks 7 of 10 test cases, all in trajectory hall, over 3 objects
    assert "shaky+cot     10      7       70.0%               7.00           2.33" in out
    # MR share: sc1a's two violations are one MR1 and one MR2 case; sc4a's only one is the invalid reply
    assert "sc1a      2  50.0%   50.0%       -        -" in out
    assert "sc4a      1      -       -       -   100.0%" in out
    # accuracy beside consistency: mirror is never flagged, yet 12 of its 20 answers are wrong
    assert "Accuracy beside consistency (ground truth for 20 of 20 questions)" in out
    assert "mirror          20     40.0%       100.0%     12        0            12 (60.0%)" in out
    assert "shaky+cot       20     75.0%        30.0%      5        5              0 (0.0%)" in out
    assert "steady          20    100.0%       100.0%      0        0              0 (0.0%)" in out
    assert "note: 1 of 3 frames could not be shown" in out
    assert out.rstrip().endswith("plots: scores_heatmap.png, radar.png, mr_share.png, accuracy.png")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_report_runs_the_anchored_mrs_by_default(tmp_path: Path) -> None:
    """The mirror agent answers left for right everywhere, so no law of logic catches it (it agrees
    with itself); by default the report also runs the anchored MRs, and MR7 sees every mirrored
    obj_dir answer disagree with where the boxes are."""
    run = make_run(tmp_path)
    paper = build_report(str(run), mrs="paper", agents=["mirror"])
    assert paper.data["violations"] == []
    rep = build_report(str(run), agents=["mirror"])
    assert sorted((v["case"], v["mr"], v["reason"]) for v in rep.data["violations"]) == [
        (f"mr7({q})", "mr7", "lateral_against_boxes") for q in ("qo1", "qo2", "qo3", "qo4", "qo5")
    ]
    # The headline is the weakest kind of evidence: the five anchored cases, all broken (the three
    # paper cases hold).
    sc2a = next(r for r in rep.data["scores"] if r["agent"] == "mirror" and r["sc"] == "sc2a")
    assert (sc2a["cases"], sc2a["violations"]) == (5, 5)


def test_report_data_joins_each_violation_with_its_frames_questions_and_rule(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    rep = build_report(str(run), mrs="paper")
    by_case = {v["case"]: v for v in rep.data["violations"]}
    assert len(by_case) == 7 and {v["agent"] for v in by_case.values()} == {"shaky+cot"}
    mr5 = by_case["mr5(qz0,qz1)"]
    law = load_ruleset().by_id("mr5").law
    assert (mr5["mr"], mr5["mr_name"], mr5["law"], mr5["reason"]) == (
        "mr5",
        "size-depth consistency",
        law,
        "size_depth_mismatch",
    )
    assert [(f["key"], f["objects"]) for f in mr5["frames"]] == [("hall#0", ["mug"]), ("hall#1", ["mug"])]
    assert [(q["q"], q["answer"], q["truth"]) for q in mr5["questions"]] == [
        ("qz0", "2000", "2000"),
        ("qz1", "4000", "1750"),
    ]
    # a move case shows the three states it spans; state 2's frame file is missing
    moves = by_case["mr1(qm10,qm02,qm12)"]
    assert [f["key"] for f in moves["frames"]] == ["hall#0", "hall#1", "hall#2"]
    images = rep.data["images"]
    assert images["hall#0"]["src"].startswith("data:image/jpeg;base64,")
    assert images["hall#2"]["src"] is None
    assert (
        images["hall#2"]["note"]
        == f"frame file not found or unreadable: {tmp_path / 'facts/frames/hall_2.png'}"
    )
    assert (images["hall#2"]["w"], images["hall#2"]["h"]) == (640, 480)  # from image_size/3
    assert images["hall#0"]["boxes"][2] == {"o": "mug", "cls": "mug", "box": [494, 260, 534, 329]}
    invalid = by_case["mr1(qp1,qp2,qp3)"]
    assert invalid["questions"][2]["raw"] == "<b>somewhere</b> over there"
    acc = {(r["agent"], r["sc"]): r for r in rep.data["accuracy"]}
    assert (
        acc[("mirror", "sc2a")]["consistent_but_wrong"] == 5 and acc[("mirror", "sc2a")]["consistency"] == 1.0
    )
    assert acc[("shaky+cot", "sc4a")]["flagged"] == 1  # the invalid reply is wrong and flagged
    shares = {(r["sc"], r["mr"]): r["violations"] for r in rep.data["mr_errors"]}
    assert shares == {
        ("sc1a", "mr1"): 1,
        ("sc1a", "mr2"): 1,
        ("sc1b", "mr2"): 1,
        ("sc2a", "mr1"): 1,
        ("sc2a", "mr2"): 1,
        ("sc3b", "mr5"): 1,
        ("sc4a", "invalid"): 1,
    }


def test_report_caps_thumbnails_and_browser_entries_with_notes(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    rep = build_report(str(run), max_thumbnails=2, max_violations=5, mrs="paper")
    entries = rep.data["violations"]
    assert len(entries) == 5
    assert [bool(v["frames"]) for v in entries] == [True, True, False, False, False]
    assert [v["thumbs_capped"] for v in entries] == [False, False, True, True, True]
    assert rep.notes == [
        "2 more violations of shaky+cot are not in the browser (see 'metalogic check --out')",
        "frames are shown for the first 2 violations of each agent",
        f"1 of 3 frames could not be shown (looked under {tmp_path / 'facts'}); "
        "their boxes are drawn on a blank frame",
    ]


def test_report_without_run_json_or_truth_still_renders(tmp_path: Path) -> None:
    run = tmp_path / "plain"
    run.mkdir()
    shutil.copytree(DATA / "answers", run / "answers")
    scene = [
        line
        for line in (DATA / "scene.lp").read_text().splitlines()
        if not line.startswith(("gt_", "frame("))
    ]
    (run / "scene.lp").write_text("\n".join(scene) + "\n")
    shutil.copy(DATA / "queries.lp", run / "queries.lp")
    code, out, err = run_cli(
        "report", str(run), "--no-plots", "--mrs", "paper", "--out", str(tmp_path / "out" / "r.html")
    )
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["r.html"]
    assert "note: no ground truth in this run (gt_* facts), so accuracy is not shown" in out
    assert "Accuracy beside consistency" not in out
    page = (tmp_path / "out" / "r.html").read_text()
    embedded = page.split('<script type="application/json" id="report-data">')[1].split("</script>")[0]
    data = json.loads(embedded)
    assert data["accuracy"] == [] and len(data["violations"]) == 7
    assert data["images"]["hall#0"]["note"] == "no frame/3 fact for trajectory hall, state 0"
    assert data["violations"][2]["questions"][2]["raw"] == "<b>somewhere</b> over there"
    assert "<b>somewhere" not in page  # escaped inside the page's script element


def test_report_bad_input_gives_one_clear_error_and_writes_nothing(tmp_path: Path) -> None:
    code, _, err = run_cli("report", str(tmp_path / "nope"))
    assert code == 2
    assert err == (
        f"error: run folder '{tmp_path / 'nope'}' does not exist\n"
        "  expected: a run folder (or any facts folder) holding answer facts\n"
        "  fix: check the path; runs are written by 'metalogic generate' and answered by 'metalogic ask'\n"
    )
    unanswered = tmp_path / "unanswered"
    unanswered.mkdir()
    shutil.copy(DATA / "queries.lp", unanswered)
    assert run_cli("report", str(unanswered))[2] == (
        f"error: no agent answers in {unanswered}, so there is nothing to report\n"
        "  expected: answer(Agent, Query, Value) facts under the folder\n"
        f"  fix: answer the questions first: metalogic ask {unanswered} --agent oracle\n"
    )
    assert not (unanswered / "report").exists()
    run = make_run(tmp_path)
    code, _, err = run_cli("report", str(run), "--agent", "stedy")
    assert code == 2
    assert err == (
        f"error: no answers from agent 'stedy' in {run}\n"
        "  expected: one of mirror, shaky+cot, steady\n"
        "  fix: did you mean steady?\n"
    )
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = run_cli("report", str(run), "--no-plots", "--out", str(blocker / "r.html"))
    assert code == 2
    assert err == (
        f"error: cannot write the report to {blocker / 'r.html'}: {blocker} is a file, not a folder\n"
        "  expected: a folder for the report (created when missing)\n"
        "  fix: choose another --out\n"
    )
    assert not (run / "report").exists()


STATE = """JSON.stringify({
  cells: [...document.querySelectorAll("#heatmap-svg g.cell > text")].map(t => t.textContent),
  heatmapSize: (r => [r.width, r.height])(document.getElementById("heatmap-svg").getBoundingClientRect()),
  radars: [...document.querySelectorAll("svg.radar")].map(s => s.dataset.title),
  radarPoints: [...document.querySelectorAll("svg.radar polygon.score-area")]
    .map(p => p.points.numberOfItems),
  shareCells: [...document.querySelectorAll("#mr-share-svg g.cell:not(.empty) > text")]
    .map(t => t.textContent),
  rateRows: document.querySelectorAll("#error-rates-table tbody tr").length,
  accuracyRows: document.querySelectorAll("#accuracy-table tbody tr").length,
  points: document.querySelectorAll("#accuracy-svg circle.point").length,
  cards: document.querySelectorAll("#vb-list article.violation").length,
  count: document.getElementById("vb-count").textContent,
  frames: document.querySelectorAll("#vb-list figure").length,
  hints: [...document.querySelectorAll("#vb-list p.hint")].map(p => p.textContent),
  notes: [...document.querySelectorAll("#notes li")].map(li => li.textContent),
})"""

DECODED = """Promise.all([...document.querySelectorAll("#vb-list svg image")].map(el => new Promise(done => {
  const im = new Image(); im.onload = () => done(im.naturalWidth); im.onerror = () => done(0);
  im.src = el.getAttribute("href");
})))"""


def pick(browser: Chromium, select_id: str, value: str) -> str:
    """Choose a value in one of the browser's filters, as a user would; the count it then shows."""
    script = (
        f"(() => {{ const s = document.getElementById({json.dumps(select_id)});"
        f" s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change'));"
        " return document.getElementById('vb-count').textContent; })()"
    )
    return str(browser.js(script))


def test_report_page_renders_in_headless_chromium(tmp_path: Path, chromium: Chromium) -> None:
    from PIL import Image

    run = make_run(tmp_path)
    code, _, err = run_cli("report", str(run), "--no-plots", "--max-thumbnails", "5", "--mrs", "paper")
    assert code == 0, err
    page = run / "report" / "report.html"
    chromium.load(page)
    state = json.loads(chromium.js(STATE))
    # agent x SC heatmap: 3 agents x 6 capabilities with test cases, in agent then SC order
    assert state["cells"] == ["1.00"] * 6 + ["0.33", "0.00", "0.33", "1.00", "0.00", "0.00"] + ["1.00"] * 6
    assert state["heatmapSize"][0] > 300 and state["heatmapSize"][1] > 100
    assert state["radars"] == ["mirror", "shaky+cot", "steady"] and state["radarPoints"] == [6, 6, 6]
    assert "50% (1)" in state["shareCells"] and "100% (1)" in state["shareCells"]
    assert state["rateRows"] == 3 and state["points"] == 3
    assert state["accuracyRows"] == 21  # 3 agents x (6 capabilities + all)
    assert state["cards"] == 7 and state["count"] == "showing 1\u20137 of 7 violations (page 1 of 1)"
    # frames for the first 5 violations (3 + 1 + 1 + 2 + 2; state 2's is blank), a note for the others
    assert (
        state["frames"] == 9
        and state["hints"] == ["frames are shown for the first violations of each agent only"] * 2
    )
    assert state["notes"] == [
        "frames are shown for the first 5 violations of each agent",
        f"1 of 3 frames could not be shown (looked under {tmp_path / 'facts'}); "
        "their boxes are drawn on a blank frame",
    ]
    widths = chromium.js(DECODED)
    assert len(widths) == 8 and all(w == 320 for w in widths)  # every embedded thumbnail decodes
    # the filters work, and text from the facts is shown as text, never as markup
    assert pick(chromium, "vb-agent", "mirror") == "no violation matches"
    pick(chromium, "vb-agent", "shaky+cot")
    assert pick(chromium, "vb-sc", "sc2a") == "showing 1\u20132 of 2 violations (page 1 of 1)"
    assert pick(chromium, "vb-mr", "mr1") == "showing 1\u20131 of 1 violations (page 1 of 1)"
    assert chromium.js("document.querySelectorAll('#vb-list g.box.asked').length") == 3  # duck, ball, mug
    pick(chromium, "vb-sc", "")
    pick(chromium, "vb-mr", "")
    chromium.js(
        "(() => { const s = document.getElementById('vb-search'); s.value = 'qp3';"
        " s.dispatchEvent(new Event('input')); })()"
    )
    assert chromium.js("document.getElementById('vb-count').textContent").startswith("showing 1\u20131 of 1")
    assert chromium.js("document.querySelectorAll('#vb-list b').length") == 1  # only the agent name
    assert chromium.js("document.getElementById('vb-list').textContent.includes('<b>somewhere</b>')")
    shot = tmp_path / "shot.png"
    shot.write_bytes(chromium.screenshot())
    with Image.open(shot) as im:
        assert im.size == (1280, 1600)
        assert len(im.convert("RGB").getcolors(1 << 20) or []) > 100  # charts drawn, not a blank page
    assert chromium.problems() == []
    assert all(u.startswith(("file:", "data:")) for u in chromium.requests()), chromium.requests()


def test_report_browser_pages_through_many_violations(tmp_path: Path, chromium: Chromium) -> None:
    run = tmp_path / "many"
    run.mkdir()
    lines = ["trajectory(long, household).", "step_mm(long, 250)."]
    for k in range(30):  # 30 symmetry cases, each broken: 2 steps there, 3 back
        a, b = 2 * k, 2 * k + 1
        lines += [
            f"query(d{k}a, move_dist(long, {a}, {b})).",
            f"query(d{k}b, move_dist(long, {b}, {a})).",
            f"answer(wobbly, d{k}a, 2).",
            f"answer(wobbly, d{k}b, 3).",
        ]
    (run / "facts.lp").write_text("\n".join(lines) + "\n")
    code, out, err = run_cli("report", str(run), "--no-plots", "--max-violations", "25", "--mrs", "paper")
    assert code == 0, err
    assert "note: 5 more violations of wobbly are not in the browser (see 'metalogic check --out')" in out
    chromium.load(run / "report" / "report.html")
    count = "document.getElementById('vb-count').textContent"
    assert chromium.js(count) == "showing 1\u201320 of 25 violations (page 1 of 2)"
    chromium.js("document.getElementById('vb-next').click()")
    assert chromium.js(count) == "showing 21\u201325 of 25 violations (page 2 of 2)"
    assert chromium.js("document.getElementById('vb-next').disabled") is True
    assert chromium.js("document.querySelectorAll('#vb-list article.violation').length") == 5
    assert chromium.js("document.querySelector('#vb-list .hint').textContent") == (
        "no frame or tracked box for these questions"
    )
    assert chromium.problems() == []


def test_each_blamed_answer_comes_with_the_frames_it_is_about(tmp_path: Path, chromium: Chromium) -> None:
    run = make_run(tmp_path)
    data = build_report(str(run)).data  # every MR: blame decides the headline
    blamed = [r for r in data["blamed"] if r["agent"] == "shaky+cot"]
    assert blamed, "shaky+cot breaks 7 of 10 cases, so some of its answers are blamed"
    for r in blamed:
        # the frames are those the question names: move_dir(hall, 0, 2) names states 0 and 2
        args = r["content"][r["content"].index("(") + 1 : -1].split(",")
        states = [f["state"] for f in r["frames"]]
        assert states and all(str(s) in args[1:] for s in states), (r["content"], states)
        assert all(f["key"] in data["images"] for f in r["frames"])
    code, _, err = run_cli("report", str(run), "--no-plots")
    assert code == 0, err
    chromium.load(run / "report" / "report.html")
    chromium.js(
        "(() => { const s = document.getElementById('blamed-agent'); s.value = 'shaky+cot';"
        " s.dispatchEvent(new Event('change')); })()"
    )
    drawn = chromium.js(
        "[...document.querySelectorAll('#blamed-table tbody tr')]"
        ".map(r => r.querySelectorAll('figure').length)"
    )
    assert drawn == [len(r["frames"]) for r in blamed]
    assert chromium.problems() == []
