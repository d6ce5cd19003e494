"""The schema tables in docs/facts.md are the ones `metalogic schema --format markdown` prints."""

from __future__ import annotations

from helpers import ROOT, run_cli


def test_facts_doc_holds_the_current_schema() -> None:
    code, printed, err = run_cli("schema", "--format", "markdown")
    assert code == 0, err
    doc = (ROOT / "docs" / "facts.md").read_text()
    section = doc.split("<!-- schema:begin -->", 1)[1].split("<!-- schema:end -->", 1)[0]
    assert "occluded(T, S, O)" in printed
    assert section.strip() == printed.strip(), (
        "docs/facts.md is out of date: paste `metalogic schema --format markdown` between its markers"
    )
