"""The default baseline (core.files.baseline) and the session that uses it: each rule, the errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.evaluate import Run, evaluate
from rankeval_tui.core.files import load_protocol
from rankeval_tui.core.files.baseline import BaselineChoice, choose_baseline, choose_report_baseline
from rankeval_tui.core.session import ScoringSession


def protocol_with_runs(root: Path, names: list[str], baseline_file: str | None = None) -> Path:
    """A protocol directory whose runs/ holds an (empty) run file per name, and BASELINE if given."""
    runs = root / "runs"
    runs.mkdir(parents=True)
    for name in names:
        (runs / f"{name}.json").write_text("{}", encoding="utf-8")
    if baseline_file is not None:
        (runs / "BASELINE").write_text(baseline_file, encoding="utf-8")
    return root


def test_requested_wins_over_the_file_and_the_order(tmp_path: Path) -> None:
    directory = protocol_with_runs(tmp_path, ["bm25", "dense"], "bm25\n")
    choice = choose_baseline(["bm25", "dense"], requested="dense", protocol_dir=directory)
    assert choice == BaselineChoice("dense", "--baseline")
    assert choice.describe() == "baseline dense (--baseline)"


def test_the_file_wins_over_the_first_run(tmp_path: Path) -> None:
    directory = protocol_with_runs(tmp_path, ["bm25", "dense"], "dense\n")
    assert choose_baseline(["bm25", "dense"], protocol_dir=directory) == BaselineChoice("dense", "runs/BASELINE")


def test_without_a_file_the_first_run(tmp_path: Path) -> None:
    directory = protocol_with_runs(tmp_path, ["bm25", "dense"])
    assert choose_baseline(["dense", "bm25"], protocol_dir=directory) == BaselineChoice("dense", "first run")


def test_a_run_empty_for_every_query_is_skipped_and_named() -> None:
    choice = choose_baseline(["all_empty", "bm25", "dense"], empty={"all_empty"})
    assert choice == BaselineChoice("bm25", "first run with results; all_empty empty for every query")


def test_every_run_empty_says_so() -> None:
    choice = choose_baseline(["all_empty", "none_yet"], empty={"all_empty", "none_yet"})
    assert choice == BaselineChoice("all_empty", "first run; every run is empty for every query")


def test_rejected_runs_are_never_the_baseline() -> None:
    assert choose_baseline(["broken", "bm25"], rejected={"broken"}) == BaselineChoice("bm25", "first run")
    assert choose_baseline(["broken"], rejected={"broken"}) is None


def test_an_empty_run_named_explicitly_is_respected(tmp_path: Path) -> None:
    directory = protocol_with_runs(tmp_path, ["all_empty", "bm25"], "all_empty")
    choice = choose_baseline(["all_empty", "bm25"], protocol_dir=directory, empty={"all_empty"})
    assert choice == BaselineChoice("all_empty", "runs/BASELINE")


def test_a_file_naming_a_run_not_given_falls_back_to_the_first_given(tmp_path: Path) -> None:
    """``--run`` chose other runs: the file's run exists in runs/, so it is no error, just not here."""
    directory = protocol_with_runs(tmp_path, ["bm25", "dense", "splade"], "bm25")
    assert choose_baseline(["dense", "splade"], protocol_dir=directory) == BaselineChoice("dense", "first run")


def test_a_file_naming_an_unknown_run_is_an_error_naming_the_file(tmp_path: Path) -> None:
    directory = protocol_with_runs(tmp_path, ["bm25", "dense"], "bm52\n")
    with pytest.raises(ContractError) as raised:
        choose_baseline(["bm25", "dense"], protocol_dir=directory)
    line = raised.value.one_line()
    assert str(directory / "runs" / "BASELINE") in line and "'bm52'" in line and "bm25, dense" in line


@pytest.mark.parametrize("text", ["", "\n\n", "bm25\ndense\n"])
def test_a_file_that_is_not_one_name_is_an_error(tmp_path: Path, text: str) -> None:
    directory = protocol_with_runs(tmp_path, ["bm25", "dense"], text)
    with pytest.raises(ContractError, match="one run name on one line"):
        choose_baseline(["bm25", "dense"], protocol_dir=directory)


def test_an_unknown_requested_run_is_an_error() -> None:
    with pytest.raises(ContractError, match=r"--baseline 'bm52' is not one of the runs: bm25, dense"):
        choose_baseline(["bm25", "dense"], requested="bm52")


def test_reports_are_empty_when_no_query_got_a_document(seed_dir: Path) -> None:
    protocol = load_protocol(seed_dir)
    reports = [
        evaluate(protocol, Run("all_empty", {"q2": [], "q3": []})),
        evaluate(protocol, Run("one_hit", {"q5": ["d1"]})),  # q5 has no relevant document: still a result
    ]
    assert choose_report_baseline(reports) == BaselineChoice(
        "one_hit", "first run with results; all_empty empty for every query"
    )


def test_the_demo_session_compares_fixture_b_against_fixture_a(seed_dir: Path) -> None:
    session = ScoringSession.load(seed_dir)  # runs: all_empty, fixture_A, fixture_B
    assert session.default_baseline() == BaselineChoice("fixture_A", "runs/BASELINE")
    assert session.default_candidate("fixture_A") == "fixture_B"
    assert ScoringSession.load(seed_dir, baseline="fixture_B").default_baseline() == BaselineChoice(
        "fixture_B", "--baseline"
    )


def test_without_the_file_the_demo_session_skips_the_empty_run(seed_copy: Path) -> None:
    (seed_copy / "runs" / "BASELINE").unlink()
    session = ScoringSession.load(seed_copy)
    assert session.default_baseline() == BaselineChoice(
        "fixture_A", "first run with results; all_empty empty for every query"
    )
    assert session.default_candidate("fixture_A") == "fixture_B"


def test_a_session_with_a_bad_file_is_refused(seed_copy: Path) -> None:
    (seed_copy / "runs" / "BASELINE").write_text("fixture_C\n", encoding="utf-8")
    with pytest.raises(ContractError, match="names run 'fixture_C'"):
        ScoringSession.load(seed_copy)


def test_reload_reads_run_files_added_after_the_start(seed_copy: Path) -> None:
    session = ScoringSession.load(seed_copy)
    (seed_copy / "runs" / "fixture_C.json").write_text(json.dumps({"q4": ["d6"]}), encoding="utf-8")
    reloaded = session.reload()
    assert [s.name for s in reloaded.accepted] == ["all_empty", "fixture_A", "fixture_B", "fixture_C"]
    assert reloaded.report("fixture_C").row("q4").rr == 1


def test_reload_of_given_runs_reads_only_those(seed_copy: Path) -> None:
    session = ScoringSession.load(seed_copy, [(None, seed_copy / "runs" / "fixture_A.json")])
    (seed_copy / "runs" / "fixture_C.json").write_text("{}", encoding="utf-8")
    assert [s.name for s in session.reload().scored] == ["fixture_A"]
