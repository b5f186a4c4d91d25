"""core.session_runs: the per-run steps of a scoring session, on plain tuples (no session, no terminal)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from rankeval_tui.core.evaluation.metrics import PRIMARY
from rankeval_tui.core.files import load_protocol, run_files
from rankeval_tui.core.files.baseline import BaselineChoice
from rankeval_tui.core.session_runs import (
    ScoredRun,
    baseline_among,
    baseline_at_load,
    read_runs,
    rescored_at_k,
    score_runs,
)

FALLBACK = BaselineChoice("fixture_B", "first run with results; all_empty empty for every query")


def seed_scored(directory: Path) -> tuple[ScoredRun, ...]:
    """Every run of ``runs/`` read and scored at the protocol's own k and split."""
    loaded = read_runs([(None, path) for path in run_files(directory)])
    return score_runs(load_protocol(directory), loaded, None, None, PRIMARY)


def rejected(scored: tuple[ScoredRun, ...], name: str) -> tuple[ScoredRun, ...]:
    """``scored`` with run ``name`` turned into a rejected entry, as a split change can do."""
    return tuple(replace(s, report=None, error="rejected here") if s.name == name else s for s in scored)


def test_the_load_reads_runs_baseline_and_never_picks_a_rejected_run(seed_dir: Path) -> None:
    scored = seed_scored(seed_dir)  # all_empty, fixture_A, fixture_B; runs/BASELINE names fixture_A
    assert baseline_at_load(scored, requested=None, protocol_dir=seed_dir) == BaselineChoice(
        "fixture_A", "runs/BASELINE"
    )
    assert baseline_at_load(scored, requested="fixture_B", protocol_dir=seed_dir) == BaselineChoice(
        "fixture_B", "--baseline"
    )
    assert baseline_at_load(rejected(scored, "fixture_A"), requested=None, protocol_dir=seed_dir) == FALLBACK


def test_the_load_s_choice_holds_while_accepted_then_the_rule_reads_no_file(seed_dir: Path) -> None:
    scored = seed_scored(seed_dir)
    at_load = BaselineChoice("fixture_A", "runs/BASELINE")
    assert baseline_among(scored, at_load) is at_load
    accepted_now = tuple(s for s in rejected(scored, "fixture_A") if not s.rejected)
    assert baseline_among(accepted_now, at_load) == FALLBACK
    assert baseline_among(scored, None) == BaselineChoice(  # runs/BASELINE is not read again
        "fixture_A", "first run with results; all_empty empty for every query"
    )
    assert baseline_among((), at_load) is None


def test_a_k_change_rescores_accepted_runs_as_a_fresh_scoring_and_keeps_rejected_ones(seed_copy: Path) -> None:
    (seed_copy / "runs" / "typo.json").write_text(json.dumps({"q2": ["d1", "d404"]}), encoding="utf-8")
    scored = seed_scored(seed_copy)
    at_three = load_protocol(seed_copy).with_k(3)
    fresh = score_runs(at_three, read_runs([(None, path) for path in run_files(seed_copy)]), None, None, PRIMARY)
    changed = rescored_at_k(scored, at_three, PRIMARY)
    assert [s.report for s in changed] == [s.report for s in fresh]
    assert [s.name for s in changed if s.rejected] == ["typo"]
    assert all(after is before for after, before in zip(changed, scored, strict=True) if before.rejected)
