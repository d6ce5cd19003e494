"""The audit catches what it must: unsound rules (with counter-examples `metalogic check`
reproduces), a table that leaves out a realisable entry, and a redundant MR; and it passes the
shipped MRs where they are sound."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import ROOT, run_cli
from metalogic.engine.audit.completeness import completeness
from metalogic.engine.audit.redundancy import non_redundancy
from metalogic.engine.audit.soundness import soundness
from metalogic.engine.audit.tightness import tightness
from metalogic.engine.audit.worlds import FAMILIES
from metalogic.engine.check.run import run_check
from metalogic.engine.rules.loader import load_ruleset
from metalogic.logic import CORE_DIR

PLANTED = ROOT / "tests" / "data" / "audit"


def reproduce(facts: str, tmp: Path, rules: Path | None) -> set[tuple[str, str]]:
    (tmp / "world").mkdir()
    (tmp / "world" / "facts.lp").write_text(facts)
    found = set()
    for engine in ("clingo", "prolog"):
        res = run_check(str(tmp / "world"), engine=engine, rules_dirs=[str(rules)] if rules else [])
        found |= {(a, mr) for a, _c, mr, _s, _r in res.rows.violations}
    return found


def test_strict_triangle_is_caught_with_a_world_that_check_reproduces(tmp_path: Path) -> None:
    rules = load_ruleset([PLANTED / "strict_triangle"])
    verdicts = soundness(rules, FAMILIES["moves"], bound=1, mrs=[rules.by_id("strict_triangle")])
    (v,) = verdicts
    assert v.status == "unsound", v.detail
    assert "not_strictly_shorter" in v.detail
    assert reproduce(v.facts, tmp_path, PLANTED / "strict_triangle") == {("oracle", "strict_triangle")}


def test_mr5_needs_its_pixel_guard(tmp_path: Path) -> None:
    rules = load_ruleset([PLANTED / "raw_size_depth"])
    verdicts = {v.subject: v for v in soundness(rules, FAMILIES["depth"], bound=12)}
    assert verdicts["mr5 sc3b"].status == "sound"
    assert verdicts["mr3 sc3b"].status == "sound"
    raw = verdicts["mr5_raw sc3b"]
    assert raw.status == "unsound"
    assert reproduce(raw.facts, tmp_path, PLANTED / "raw_size_depth") == {("oracle", "mr5_raw")}


def test_a_table_missing_an_entry_is_reported_with_what_a_world_realises(tmp_path: Path) -> None:
    algebra = (CORE_DIR / "algebra.lp").read_text()
    cut = "sign_add(exact, X, -X, Z) :- sign(X), X != 0, sign(Z).\n"
    assert cut in algebra
    planted = tmp_path / "algebra.lp"
    planted.write_text(algebra.replace(cut, ""))
    by = {v.subject: v for v in tightness(algebra=planted)}
    assert by["move/exact signs (lateral)"].status == "unsound table"
    assert by["move/exact with turns"].status == "unsound table"
    assert by["map/star"].status == "tight"
    shipped = {v.subject: v.status for v in tightness()}
    assert set(shipped.values()) == {"tight"}


def test_a_duplicate_of_mr2_is_redundant_and_mr2_is_not() -> None:
    rules = load_ruleset([PLANTED / "map_symmetry"])
    assert non_redundancy(rules, rules.by_id("map_symmetry")).status == "redundant"
    v = non_redundancy(load_ruleset(), load_ruleset().by_id("mr2"))
    assert v.status == "witness"
    assert "mr2 flags" in v.detail


def test_every_shipped_mr_has_a_witness_no_other_mr_catches() -> None:
    """Non-redundancy of the shipped set. It read `applicable/2`, which the check's rules stopped
    deriving (they derive the few cases that do not apply, case_off/2), and from then on every MR whose
    witness needs another MR's cases to hold looked redundant (mr1, mr6, mr14, mr15)."""
    rules = load_ruleset()
    verdicts = {m.id: non_redundancy(rules, m) for m in rules.mrs}
    assert {k: v.status for k, v in verdicts.items() if v.status != "witness"} == {}


def test_audit_command_writes_its_report(tmp_path: Path) -> None:
    code, out, _err = run_cli(
        "audit", "--mr", "mr5", "--samples", "0", "--workers", "1", "--out", str(tmp_path)
    )
    assert code == 0, out
    assert "mr5 sc3b" in out and "sound" in out
    assert (tmp_path / "audit.json").exists() and (tmp_path / "audit.md").exists()
    witness = tmp_path / "non-redundancy-mr5" / "facts.lp"
    assert witness.exists()
    res = run_check(str(witness.parent))
    assert {mr for _a, _c, mr, _s, _r in res.rows.violations} == {"mr5"}


def test_audit_command_fails_on_a_planted_unsound_rule(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    shutil.copytree(PLANTED / "raw_size_depth", rules)
    code, out, _ = run_cli(
        "audit", "--rules", str(rules), "--mr", "mr5_raw", "--samples", "0", "--workers", "1"
    )
    assert code == 1
    assert "unsound" in out


def test_completeness_catches_sizes_too_small_and_too_large_and_a_common_scale_with_the_ground() -> None:
    """Halving every size keeps MR10's one-sided bound and every ratio, and scaling every length
    keeps every ratio; where the camera's height is known, MR17's ground anchor catches both (and
    doubling every size is caught as before). No distortion survives on the view worlds."""
    verdicts = {v.subject: v for v in completeness(load_ruleset(), FAMILIES["view"])}
    assert verdicts["only(size,double) sc3a"].status == "caught"
    assert verdicts["only(size,half) sc3a"].status == "caught"
    assert {sc: verdicts[f"scale {sc}"].status for sc in ("sc2b", "sc3a", "sc3b", "sc4b")} == dict.fromkeys(
        ("sc2b", "sc3a", "sc3b", "sc4b"), "caught"
    )
    assert [v.subject for v in verdicts.values() if v.status != "caught"] == []


def test_unknown_mr_is_a_clear_error() -> None:
    code, _out, err = run_cli("audit", "--mr", "mr99")
    assert code == 2
    assert err.startswith("error: unknown MR 'mr99'")
