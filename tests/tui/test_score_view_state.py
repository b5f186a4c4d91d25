"""The scoring screen's cycling and keep-valid rules (tui/score/score_view_state), without a terminal."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from rankeval_tui.core.evaluation.compare import PairedRow
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.tui.score.score_view_state import (
    RUN_FILTERS,
    ScoreViewState,
    choose_runs,
    drill_down_runs,
    kept_metric,
    next_option,
    next_run,
    next_split,
    paired_sort_key,
)
from tests.partial_protocol import IMPORTED, RUN, TRUTH, write_partial_protocol


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
    from rankeval_tui.tui.score.score_view_state import key_available

    for action in ("next_baseline", "next_metric", "next_sort"):
        assert key_available(action, "compare", 2) is True and key_available(action, "run", 2) is None
    assert key_available("toggle_view", "run", 2) is True
    assert key_available("toggle_view", "run", 1) is None  # nothing to compare with
    assert key_available("toggle_view", "compare", 0) is True  # always back from a comparison
    assert key_available("next_candidate", "run", 0) is True and key_available("k_up", "run", 0) is True


# ---------------------------------------------------------------- ScoreViewState: one key, one new state


@pytest.fixture()
def help_session(tmp_path: Path) -> ScoringSession:
    """q:1001..q:1003, every pair labelled, two accepted runs: bm25.run (the default baseline,
    first) and dense.run, which leaves q:1003 out."""
    labels = {query: dict(docs) for query, docs in IMPORTED.items()}
    for (query, doc), label in TRUTH.items():
        labels[query][doc] = label
    directory = write_partial_protocol(tmp_path / "help", labels=labels, with_run=False)
    (directory / "runs").mkdir()
    (directory / "runs" / "bm25.run.json").write_text(json.dumps(RUN))
    dense = {"q:1001": ["docs/login.md", "docs/export.md"], "q:1002": ["docs/login.md"]}
    (directory / "runs" / "dense.run.json").write_text(json.dumps(dense))
    session = ScoringSession.load(directory)
    assert [s.name for s in session.accepted] == ["bm25.run", "dense.run"]
    return session


def test_a_new_screen_shows_one_run_of_every_query_by_rr() -> None:
    state = ScoreViewState()
    assert (state.view, state.baseline, state.candidate, state.metric) == ("run", None, None, "rr")
    assert (state.sort_mode, state.regressions_only, state.run_filter, state.chosen_runs) == (
        "protocol",
        False,
        "all",
        (None, None),
    )


def test_v_toggles_the_view_and_keeps_every_other_choice() -> None:
    state = ScoreViewState(baseline="bm25.run", candidate="dense.run", metric="recall", run_filter="missing")
    comparing = state.toggled_view()
    assert comparing == replace(state, view="compare")
    assert comparing.toggled_view() == state


def test_b_and_c_cycle_the_accepted_runs_and_remember_the_pair(help_session: ScoringSession) -> None:
    state = ScoreViewState(view="compare").adopting(help_session)
    assert (state.baseline, state.candidate) == ("bm25.run", "dense.run")
    swapped = state.next_baseline(help_session)
    assert (swapped.baseline, swapped.candidate, swapped.chosen_runs) == (
        "dense.run",
        "dense.run",
        ("dense.run", "dense.run"),
    )
    back = swapped.next_candidate(help_session)
    assert (back.baseline, back.candidate, back.chosen_runs) == ("dense.run", "bm25.run", ("dense.run", "bm25.run"))


def test_c_without_accepted_runs_forgets_the_candidate(seed_dir: Path) -> None:
    """As before the state existed: a ``c`` where no run is accepted remembers no candidate."""
    dev = ScoringSession.load(seed_dir).with_split("dev")
    state = ScoreViewState(chosen_runs=("fixture_A", "fixture_B")).adopting(dev)
    assert state.next_candidate(dev).chosen_runs == (None, None)


def test_m_cycles_the_session_metrics_or_the_primary_ones_without_a_session(help_session: ScoringSession) -> None:
    state = ScoreViewState()
    assert help_session.metrics == ("recall", "rr")
    assert state.next_metric(help_session).metric == "recall"
    assert state.next_metric(help_session).next_metric(help_session).metric == "rr"
    assert state.next_metric(None).metric == "recall"  # PRIMARY: Recall@k and RR@k


def test_s_cycles_the_orders() -> None:
    state = ScoreViewState()
    assert [state := state.next_sort() for _ in range(3)] == [
        ScoreViewState(sort_mode="worst"),
        ScoreViewState(sort_mode="best"),
        ScoreViewState(sort_mode="protocol"),
    ]


def test_f_in_a_comparison_toggles_regressions_and_leaves_the_run_filter() -> None:
    state = ScoreViewState(view="compare", run_filter="missing")
    assert state.next_filter(None) == replace(state, regressions_only=True)
    assert state.next_filter(None).next_filter(None) == state


def test_f_in_one_run_skips_adjudicated_without_adjudication(help_session: ScoringSession) -> None:
    assert not help_session.adjudicated
    state = ScoreViewState()
    seen = [(state := state.next_filter(help_session)).run_filter for _ in range(3)]
    assert seen == ["missing", "no_relevant", "all"]
    assert ScoreViewState(run_filter="adjudicated").next_filter(None).run_filter == "all"  # a filter that vanished


def test_f_in_one_run_offers_adjudicated_when_the_qrels_have_it(seed_copy: Path, tmp_path: Path) -> None:
    from tests.core.test_session import adjudicate_copy

    adjudicate_copy(seed_copy, tmp_path)  # q1, q2 and q4 adjudicated
    session = ScoringSession.load(seed_copy)
    assert session.adjudicated
    state = ScoreViewState()
    seen = [(state := state.next_filter(session)).run_filter for _ in RUN_FILTERS]
    assert seen == ["missing", "no_relevant", "adjudicated", "all"]


def test_adopting_keeps_the_view_filters_and_a_shown_metric(help_session: ScoringSession) -> None:
    state = ScoreViewState(view="compare", metric="recall", sort_mode="worst", regressions_only=True)
    adopted = state.adopting(help_session)
    assert adopted == replace(state, baseline="bm25.run", candidate="dense.run", chosen_runs=("bm25.run", "dense.run"))
    assert ScoreViewState(metric="ndcg").adopting(help_session).metric == "rr"  # not shown: RR@k


def test_adopting_a_session_without_the_chosen_runs_keeps_the_choice_for_later(seed_dir: Path) -> None:
    test = ScoringSession.load(seed_dir)
    chosen = ScoreViewState(chosen_runs=("fixture_B", "fixture_A")).adopting(test)
    lost = chosen.adopting(test.with_split("dev"))  # every seed run is rejected on dev
    assert (lost.baseline, lost.candidate, lost.chosen_runs) == (None, None, ("fixture_B", "fixture_A"))
    back = lost.adopting(test)
    assert (back.baseline, back.candidate) == ("fixture_B", "fixture_A")


def test_comparison_needs_a_session_both_runs_and_two_accepted(help_session: ScoringSession, seed_dir: Path) -> None:
    pair = ScoreViewState(baseline="bm25.run", candidate="dense.run")
    comparison = pair.comparison(help_session)
    assert comparison is not None and (comparison.baseline.run, comparison.candidate.run) == ("bm25.run", "dense.run")
    assert pair.comparison(None) is None
    assert replace(pair, baseline=None).comparison(help_session) is None
    one_run = ScoringSession.load(seed_dir, [(None, seed_dir / "runs" / "fixture_A.json")])
    assert ScoreViewState(baseline="fixture_A", candidate="fixture_A").comparison(one_run) is None


def test_drill_down_follows_the_view(help_session: ScoringSession) -> None:
    state = ScoreViewState(baseline="dense.run", candidate="bm25.run")
    assert state.drill_down(help_session) == ["bm25.run", "dense.run"]  # the shown run first, then every run
    assert state.toggled_view().drill_down(help_session) == ["dense.run", "bm25.run"]  # the pair, baseline first


@pytest.mark.parametrize(
    ("change", "redraws"),
    [
        ({"view": "compare"}, ("all",)),
        ({"baseline": "dense.run"}, ("all",)),
        ({"candidate": "bm25.run"}, ("all",)),
        ({"candidate": "bm25.run", "metric": "recall"}, ("all",)),
        ({"metric": "recall"}, ("compare",)),
        ({"sort_mode": "worst"}, ("compare",)),
        ({"regressions_only": True}, ("compare",)),
        ({"run_filter": "missing"}, ("run",)),
        ({"sort_mode": "best", "run_filter": "missing"}, ("compare", "run")),
        ({"chosen_runs": ("dense.run", "dense.run")}, ()),
        ({}, ()),
    ],
)
def test_a_change_redraws_only_what_shows_it(change: dict, redraws: tuple[str, ...]) -> None:
    before = ScoreViewState(baseline="bm25.run", candidate="dense.run", chosen_runs=("bm25.run", "dense.run"))
    assert replace(before, **change).redraws(before) == redraws


class Side:
    """A query's row under one run, as ``PairedRow`` reads it: its values by metric."""

    def __init__(self, **values: Fraction | None) -> None:
        self.values = values
        self.missing = False

    def value(self, metric: str) -> Fraction | None:
        return self.values[metric]


def paired(query: str, rr: tuple[int, int] | None, recall: tuple[int, int] | None) -> PairedRow:
    """A row whose baseline is ``rr[0]`` / ``recall[0]`` and candidate ``rr[1]`` / ``recall[1]``
    (quarters); None: no relevant document (null on both sides)."""

    def side(i: int) -> Side:
        return Side(
            rr=None if rr is None else Fraction(rr[i], 4), recall=None if recall is None else Fraction(recall[i], 4)
        )

    return PairedRow(query, side(0), side(1), ("rr", "recall"))  # type: ignore[arg-type]


def test_sort_ties_are_broken_by_baseline_value_then_other_metric_then_query_id() -> None:
    rows = [
        paired("q:5", None, None),  # no delta: always last
        paired("q:9", (4, 0), (4, 0)),  # RR -1 from 1, Recall -1
        paired("q:4", (4, 2), (2, 2)),  # RR -1/2 from 1, Recall 0
        paired("q:1", (4, 0), (4, 2)),  # RR -1 from 1, Recall -1/2
        paired("q:3", (2, 0), (2, 2)),  # RR -1/2 from 1/2, Recall 0
        paired("q:0", (4, 0), (4, 0)),  # as q:9: the query ID decides
    ]
    worst = sorted(rows, key=paired_sort_key("worst", "rr", ("rr", "recall")))
    assert [r.query for r in worst] == ["q:0", "q:9", "q:1", "q:4", "q:3", "q:5"]
    best = sorted(rows, key=paired_sort_key("best", "rr", ("rr", "recall")))
    assert [r.query for r in best] == ["q:3", "q:4", "q:1", "q:0", "q:9", "q:5"]
