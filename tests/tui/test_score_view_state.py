"""The scoring screen's cycling and keep-valid rules (tui/score_view_state), without a terminal."""

from __future__ import annotations

from pathlib import Path

from rankeval_tui.core.session import ScoringSession
from rankeval_tui.tui.score_view_state import (
    choose_runs,
    drill_down_runs,
    kept_metric,
    next_option,
    next_run,
    next_split,
)


def test_next_option_wraps_after_the_last() -> None:
    runs = ("bm25.run", "dense.run", "hybrid.run")
    assert next_option(runs, "bm25.run") == "dense.run"
    assert next_option(runs, "hybrid.run") == "bm25.run"


def test_next_option_starts_at_the_first_when_current_is_not_offered() -> None:
    assert next_option(("recall", "rr"), "ndcg") == "recall"
    assert next_option(("all", "missing", "no_relevant"), "adjudicated") == "all"
    assert next_option(("bm25.run",), None) == "bm25.run"


def test_next_run_cycles_the_accepted_runs_only(seed_dir: Path) -> None:
    session = ScoringSession.load(seed_dir)
    assert [next_run(session, n) for n in ("all_empty", "fixture_A", "fixture_B")] == [
        "fixture_A",
        "fixture_B",
        "all_empty",
    ]


def test_next_run_without_a_session_or_accepted_runs_is_none(seed_dir: Path) -> None:
    assert next_run(None, "bm25.run") is None
    dev = ScoringSession.load(seed_dir).with_split("dev")  # every seed run is rejected there
    assert dev.accepted == ()
    assert next_run(dev, "fixture_A") is None


def test_choose_runs_keeps_accepted_choices(seed_dir: Path) -> None:
    session = ScoringSession.load(seed_dir)
    choice = choose_runs(session, ("fixture_B", "fixture_A"))
    assert (choice.baseline, choice.candidate, choice.chosen) == ("fixture_B", "fixture_A", ("fixture_B", "fixture_A"))


def test_choose_runs_first_time_takes_and_remembers_the_defaults(seed_dir: Path) -> None:
    session = ScoringSession.load(seed_dir)
    default = session.default_baseline()
    assert default is not None
    choice = choose_runs(session, (None, None))
    assert choice.baseline == default.name
    assert choice.candidate == session.default_candidate(default.name)
    assert choice.chosen == (choice.baseline, choice.candidate)


def test_choose_runs_remembers_a_choice_the_session_lost(seed_dir: Path) -> None:
    """A split that rejects the chosen runs shows defaults but keeps the choice for later."""
    dev = ScoringSession.load(seed_dir).with_split("dev")
    choice = choose_runs(dev, ("fixture_A", "fixture_B"))
    assert (choice.baseline, choice.candidate) == (None, None)
    assert choice.chosen == ("fixture_A", "fixture_B")
    back = choose_runs(dev.with_split("test"), choice.chosen)
    assert (back.baseline, back.candidate) == ("fixture_A", "fixture_B")


def test_kept_metric_falls_back_to_rr_then_the_first() -> None:
    assert kept_metric("recall", ("recall", "rr")) == "recall"
    assert kept_metric("ndcg", ("recall", "rr")) == "rr"
    assert kept_metric("rr", ("ndcg", "recall")) == "ndcg"


def test_drill_down_in_a_comparison_shows_the_pair_once() -> None:
    accepted = ["bm25.run", "dense.run", "hybrid.run"]
    assert drill_down_runs(True, "dense.run", "bm25.run", accepted) == ["dense.run", "bm25.run"]
    assert drill_down_runs(True, "bm25.run", "bm25.run", accepted) == ["bm25.run"]


def test_drill_down_of_one_run_shows_it_first_then_every_accepted_run() -> None:
    accepted = ["bm25.run", "dense.run", "hybrid.run"]
    assert drill_down_runs(False, "bm25.run", "hybrid.run", accepted) == ["hybrid.run", "bm25.run", "dense.run"]
    assert drill_down_runs(True, None, "hybrid.run", accepted) == ["hybrid.run", "bm25.run", "dense.run"]
    assert drill_down_runs(False, None, None, accepted) == accepted


def test_next_split_wraps(seed_dir: Path) -> None:
    session = ScoringSession.load(seed_dir)
    assert session.splits == ("dev", "test")
    first = next_split(session)
    assert first.protocol.split != session.protocol.split
    assert next_split(first).protocol.split == session.protocol.split


def test_comparison_keys_grey_out_outside_the_comparison_and_v_needs_two_runs() -> None:
    from rankeval_tui.tui.score_view_state import key_available

    for action in ("next_baseline", "next_metric", "next_sort"):
        assert key_available(action, "compare", 2) is True and key_available(action, "run", 2) is None
    assert key_available("toggle_view", "run", 2) is True
    assert key_available("toggle_view", "run", 1) is None  # nothing to compare with
    assert key_available("toggle_view", "compare", 0) is True  # always back from a comparison
    assert key_available("next_candidate", "run", 0) is True and key_available("k_up", "run", 0) is True
