"""One-way data: `report` and `compare` read what `check --out` wrote instead of checking again.

The engines really run here (clingo and SWI-Prolog); what is counted is what the public hook
`metalogic.engine.session.runs.engine_runs` records, never a stand-in for an engine.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import run_cli
from metalogic.app.pipeline import run_pipeline
from metalogic.app.runconfig import load_config
from metalogic.engine.session.runs import engine_runs

DATA = Path(__file__).parent / "data" / "report"

CONFIG = """
out = "run"

[[world]]
scenario = "household"
episodes = 1
steps = 5
seed = 3

[extract]
detector = "gt"

[generate]
max_per_trajectory = 20
seed = 1

[[agent]]
spec = "oracle"

[[agent]]
spec = "noisy:0.3"

[check]
engine = "both"

[report]
enabled = true
"""


def test_a_run_runs_each_engine_once_and_the_report_reads_the_check(tmp_path: Path) -> None:
    cfg = tmp_path / "eval.toml"
    cfg.write_text(CONFIG)
    with engine_runs() as runs:
        outcome = run_pipeline(load_config(cfg))
    assert "check" in outcome.ran and "report" in outcome.ran
    assert sorted(r.engine for r in runs) == ["clingo", "prolog"]  # the report stage ran none
    manifest = json.loads((tmp_path / "run" / "check" / "run.json").read_text())
    assert manifest["kind"] == "metalogic check output" and manifest["engine"] == "both"
    assert manifest["facts_dir"] == str(tmp_path / "run" / "questions")
    assert {"answers", "questions", "accuracy", "frames", "boxes", "scores"} <= set(manifest["tables"])
    with engine_runs() as again:
        assert run_pipeline(load_config(cfg)).ran == []
    assert again == []
    # `metalogic report OUT` reads OUT/check as the run left it: no engine runs either
    with engine_runs() as later:
        code, out, err = run_cli("report", str(tmp_path / "run"), "--no-plots")
    assert code == 0, err
    assert later == [] and err == ""
    assert out.startswith(f"{tmp_path / 'run'} (engine both): 2 agents")


def _checked(tmp: Path, *extra: str) -> tuple[Path, Path]:
    """tests/data/report checked into its own output folder: (facts folder, output folder)."""
    facts = tmp / "facts"
    shutil.copytree(DATA, facts)
    out = tmp / "out"
    code, _, err = run_cli("check", str(facts), "--mrs", "paper", "--out", str(out), *extra)
    assert code == 0, err
    return facts, out


def test_report_and_compare_work_from_the_check_output_alone(tmp_path: Path) -> None:
    facts, out = _checked(tmp_path)
    with_facts = run_cli("report", str(out), "--no-plots", "--out", str(tmp_path / "a.html"))
    shutil.rmtree(facts)  # nothing but the check output is left
    with engine_runs() as runs:
        code, text, err = run_cli("report", str(out), "--no-plots", "--out", str(tmp_path / "b.html"))
        cmp = run_cli("compare", str(out), str(out), "--agent", "steady", "--agent", "shaky+cot")
    assert runs == []
    assert code == 0, err
    assert text.replace("b.html", "a.html") == with_facts[1]
    assert "mirror          20     40.0%       100.0%     12        0            12 (60.0%)" in text
    assert "shaky+cot     10      7       70.0%               7.00           2.33" in text
    assert cmp[0] == 0, cmp[2]
    assert "all   capabilities tested in both" in cmp[1]
    page = (tmp_path / "b.html").read_text()
    data = json.loads(
        page.split('<script type="application/json" id="report-data">')[1].split("</script>")[0]
    )
    mr5 = next(v for v in data["violations"] if v["case"] == "mr5(qz0,qz1)")
    assert [(q["q"], q["answer"], q["truth"]) for q in mr5["questions"]] == [
        ("qz0", "2000", "2000"),
        ("qz1", "4000", "1750"),
    ]
    assert data["images"]["hall#0"]["boxes"][2] == {"o": "mug", "cls": "mug", "box": [494, 260, 534, 329]}


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_every_table_format_reads_back_the_same_report(tmp_path: Path, fmt: str) -> None:
    from metalogic.app.report import build_report

    _, json_out = _checked(tmp_path / "j")
    _, other = _checked(tmp_path / "o", "--format", fmt)
    a, b = build_report(str(json_out)).data, build_report(str(other)).data
    for d in (a, b):
        d["meta"].pop("generated")
    same = json.dumps(b, sort_keys=True).replace(str(tmp_path / "o"), str(tmp_path / "j"))
    assert json.dumps(a, sort_keys=True) == same
    assert len(a["violations"]) == 7


def test_report_on_a_facts_folder_checks_once_and_reuses_that_check(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(DATA, run)
    with engine_runs() as first:
        code, _, err = run_cli("report", str(run), "--no-plots", "--mrs", "paper")
    assert code == 0, err
    assert len(first) == 1 and first[0].engine == "clingo"
    assert err == (
        f"checked {run} (engine clingo); its check output is in {run / 'check'}, and is read from there "
        "while the facts, rules and options stay the same\n"
    )
    assert json.loads((run / "check" / "run.json").read_text())["request"]["mrs"] == "paper"
    with engine_runs() as second:
        assert run_cli("report", str(run), "--no-plots", "--mrs", "paper")[0] == 0
    assert second == []
    (run / "answers" / "steady.lp").write_text((run / "answers" / "steady.lp").read_text() + "\n% edited\n")
    with engine_runs() as third:
        assert run_cli("report", str(run), "--no-plots", "--mrs", "paper")[0] == 0
    assert len(third) == 1  # the facts changed: checked again, and the output replaced
    with engine_runs() as fourth:
        assert run_cli("report", str(run), "--no-plots")[0] == 0
    assert len(fourth) == 1 and fourth[0].mrs[-1] == "mr18"  # other MRs asked for: checked again


def test_bad_check_output_folders_give_one_clear_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_cli("report", str(empty)) == (
        2,
        "",
        f"error: {empty}: no check output and no facts in {empty}\n"
        "  expected: the folder 'metalogic check FACTS --out DIR' writes (run.json and its tables), "
        "or a facts folder (*.lp files)\n"
        f"  fix: write it first: metalogic check FACTS --out {empty}\n",
    )
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "run.json").write_text(json.dumps({"scene_root": ".", "seed": 0}))
    assert run_cli("compare", str(foreign), str(foreign))[2] == (
        f"error: {foreign / 'run.json'}: {foreign / 'run.json'} was not written by 'metalogic check --out'\n"
        '  expected: the manifest of a check output ("kind": "metalogic check output"), or a facts folder '
        "(*.lp files)\n"
        "  fix: point at the folder 'metalogic check FACTS --out DIR' wrote, or write one: "
        f"metalogic check FACTS --out {foreign}\n"
    )
    facts, out = _checked(tmp_path)
    manifest = json.loads((out / "run.json").read_text())
    old = {
        k: manifest[k]
        for k in ("metalogic", "engine", "facts_dir", "facts", "files", "mrs", "params", "agents")
    }
    older = tmp_path / "older"
    older.mkdir()
    (older / "run.json").write_text(json.dumps(old))
    assert run_cli("report", str(older))[2] == (
        f"error: {older / 'run.json'}: this check output was written by an older metalogic, whose manifest "
        "does not name the tables report and compare read\n"
        '  expected: a manifest of format 2 ("kind": "metalogic check output")\n'
        f"  fix: run the check again: metalogic check {facts} --out {older} (or 'metalogic run CONFIG')\n"
    )
    scores = out / "scores.json"
    saved = scores.read_bytes()
    scores.write_text(scores.read_text().replace('"violations": ', '"violations": 1', 1))  # 0 -> 10
    assert run_cli("report", str(out))[2] == (
        f"error: {scores}: corrupt check table: its content differs from what the check wrote\n"
        "  expected: the table as 'metalogic check --out' wrote it "
        "(the manifest records its rows and SHA-256)\n"
        f"  fix: run the check again: metalogic check {facts} --out {out} (or 'metalogic run CONFIG')\n"
    )
    scores.write_bytes(saved)
    (out / "scores.json").unlink()
    (out / "scores.csv").unlink()
    assert run_cli("compare", str(out), str(out), "--agent", "steady", "--agent", "mirror")[2] == (
        f"error: {out / 'scores.json'}: corrupt check table: the file is missing\n"
        "  expected: the table as 'metalogic check --out' wrote it "
        "(the manifest records its rows and SHA-256)\n"
        f"  fix: run the check again: metalogic check {facts} --out {out} (or 'metalogic run CONFIG')\n"
    )
    scores.write_bytes(saved)
    (out / "run.json").write_text("{not json")
    assert run_cli("report", str(out))[2] == (
        f"error: {out / 'run.json'}: cannot read the check manifest: not valid JSON\n"
        "  expected: the run.json that 'metalogic check --out' writes\n"
        f"  fix: run the check again: metalogic check FACTS --out {out} (or 'metalogic run CONFIG')\n"
    )


def test_a_stale_check_output_or_other_options_are_refused(tmp_path: Path) -> None:
    facts, out = _checked(tmp_path)
    assert run_cli("report", str(out), "--engine", "prolog")[2] == (
        f"error: {out / 'run.json'}: the check output in {out} was made with --engine clingo, not prolog\n"
        "  expected: the options the check ran with, or none: "
        "report and compare read a check output as it is\n"
        f"  fix: leave --engine out, or check again with it: metalogic check {facts} ... --out {out}\n"
    )
    assert run_cli("compare", str(out), str(out), "--agent", "steady", "--agent", "mirror", "--mrs", "all")[
        2
    ] == (
        f"error: {out / 'run.json'}: the check output in {out} was made with --mrs paper, not all\n"
        "  expected: the options the check ran with, or none: "
        "report and compare read a check output as it is\n"
        f"  fix: leave --mrs out, or check again with it: metalogic check {facts} ... --out {out}\n"
    )
    with (facts / "answers" / "steady.lp").open("a") as fh:
        fh.write("% one more line\n")
    assert run_cli("report", str(out))[2] == (
        f"error: {out}: the check output is stale: the facts in {facts} changed after the check wrote it\n"
        "  expected: check output written from the facts and rules as they are now\n"
        f"  fix: run the check again: metalogic check {facts} --out {out} (or 'metalogic run CONFIG')\n"
    )


def test_the_questions_stage_does_not_import_the_verdict_stage() -> None:
    code = (
        "import sys, metalogic.engine.generate.run, metalogic.app.generate; "
        "print(sorted(m for m in sys.modules"
        " if m in ('metalogic.engine.check.run', 'metalogic.engine.check.tables')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_memory_verifier_checks_a_batch_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    from metalogic.engine.check.run import run_check
    from metalogic.engine.terms import Fun, parse_term
    from metalogic.memory.verify import Given, mr_cases

    queries = {}
    for line in (DATA / "queries.lp").read_text().splitlines():
        if line.startswith("query("):
            t = parse_term(line.split("%")[0].strip().rstrip("."))
            assert isinstance(t, Fun)
            queries[str(t.args[0])] = t.args[1]
    given = []
    for line in (DATA / "answers" / "shaky.lp").read_text().splitlines():
        if line.startswith("answer("):
            t = parse_term(line.split("%")[0].strip().rstrip("."))
            assert isinstance(t, Fun)
            content = queries[str(t.args[1])]
            assert isinstance(content, Fun)
            given.append(Given(t.args[1], content, t.args[2]))
    folder = tmp_path / "batch"
    folder.mkdir()
    shutil.copy(DATA / "scene.lp", folder)
    shutil.copy(DATA / "queries.lp", folder)
    shutil.copy(DATA / "answers" / "shaky.lp", folder)
    want = {q: nv for (ag, q), nv in run_check(str(folder)).rows.by_query.items() if ag == "shaky+cot"}

    def no_folders(*_a: object, **_k: object) -> None:
        raise AssertionError("the memory verifier wrote a temporary folder")

    monkeypatch.setattr(tempfile, "TemporaryDirectory", no_folders)
    monkeypatch.setattr(tempfile, "mkdtemp", no_folders)
    got = mr_cases(
        (DATA / "scene.lp").read_text(),
        "shaky+cot",
        given,
        queries_program=(DATA / "queries.lp").read_text(),
    )
    assert got == want and sum(v for _, v in got.values()) > 0


def test_json_tables_are_written_in_batches_with_the_same_text(tmp_path: Path) -> None:
    """JSON tables are streamed a batch of rows at a time (a million rows as one list of dicts
    took gigabytes); the file is the text one json.dumps of all the rows gives."""
    import polars as pl

    from metalogic.engine.check.tables import _write_json_rows

    frames = [
        pl.DataFrame({"agent": pl.Series([], dtype=pl.Utf8)}),
        pl.DataFrame(
            {
                "agent": ['say "hi"\nthen', "é", "plain"],
                "facts": [["query(q1,size(t,0,mug))", "a\tb"], [], ["x"]],
                "share": [None, 0.5, 1.0],
            }
        ),
    ]
    for df in frames:
        for batch in (1, 2, 20_000):
            path = tmp_path / "t.json"
            _write_json_rows(df, path, batch=batch)
            assert (
                path.read_text(encoding="utf-8")
                == json.dumps(df.to_dicts(), indent=1, ensure_ascii=False) + "\n"
            )
            assert json.loads(path.read_text(encoding="utf-8")) == df.to_dicts()


def test_the_truth_of_a_check_does_not_read_the_agents_answers() -> None:
    """`check --out` gives the truth rules the world and the questions without the answers (most of
    a big run's facts); that must change no truthful answer."""
    from metalogic.engine.facts import read_facts
    from metalogic.engine.truth import true_answers

    facts = read_facts(Path(__file__).parent / "data" / "report")  # a world with its ground truth
    world = [f for f in facts.facts if not f.startswith(("answer(", "raw_reply("))]
    assert len(world) < len(facts.facts)
    full = true_answers(facts.program())
    assert full and true_answers("".join(f"{f}.\n" for f in world)) == full


def test_answers_read_by_the_quick_pattern_are_those_a_parse_gives() -> None:
    """index_fact_texts reads most answer facts with one pattern match; each fact's entry is the
    one the term parser gives (canonical agent, query and value), and facts the pattern must not
    read (answer/4, nested values, signs, strings, odd spacing) still come out as the parser reads
    them, or not at all."""
    import random

    from metalogic.engine.check.writer import _PLAIN_ANSWER, RunIndex, _index_fact, index_fact_texts
    from metalogic.engine.errors import MetalogicError
    from metalogic.engine.facts import facts_from_text

    rng = random.Random(5)
    names = ["a", "left", "fooBar", "x1", "0", "7", "10", "-3", '"s"', "none", "_", "f(x)"]
    agents = ["ag", '"noisy:0.1"', '"say \\"hi\\""', "Ag2"]

    def value() -> str:
        if rng.random() < 0.5:
            return rng.choice(names)
        inner = rng.choice([",", ", ", ",  "]).join(rng.choice(names) for _ in range(rng.randint(1, 3)))
        return f"move({inner})"

    texts = []
    for i in range(3000):
        args = [rng.choice(agents), rng.choice(["q1", "q2", str(i % 50), "7"]), value()]
        args += [value()] * (rng.random() < 0.05)  # answer/4: no answer at all
        texts.append("answer(" + rng.choice([",", ", ", " , "]).join(args) + ")")
    readable = []
    for t in texts:  # only what the fact reader accepts reaches the index
        try:
            readable += facts_from_text({"a.lp": t + ".\n"}).facts
        except MetalogicError:
            continue
    assert len(readable) > 1000
    assert 300 < sum(bool(_PLAIN_ANSWER.fullmatch(f)) for f in readable) < len(readable) - 300  # both ways
    quick = index_fact_texts(readable)
    parsed = RunIndex()
    for fact in readable:
        _index_fact(parsed, fact)
    assert quick.answers == parsed.answers
    assert ("noisy:0.1", "q1") in quick.answers  # a string agent by its label
