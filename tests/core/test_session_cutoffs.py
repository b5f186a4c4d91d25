"""Several cutoffs in one scoring session (``--metrics R@1,R@2,RR@2``): each cutoff's numbers are
``evaluate``'s under ``protocol.with_k(cutoff)``, its own protocol and hash; the k change moves
the metrics named without ``@`` and refuses to go below one named with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.evaluate import evaluate
from rankeval_tui.core.evaluation.metrics import named_metrics
from rankeval_tui.core.files import load_protocol, load_run
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.core.session_cutoffs import metrics_at, shown_metrics


def session_with(seed_dir: Path, names: str) -> ScoringSession:
    return ScoringSession.load(seed_dir, named=named_metrics(names.split(","), 2))


def test_each_cutoff_is_scored_by_the_evaluator_under_its_own_protocol(seed_dir: Path) -> None:
    session = session_with(seed_dir, "R@1,R@2,RR@2")
    assert [s.name for s in session.shown] == ["R@1", "R@2", "RR@2"] and session.by_cutoff
    assert session.protocol.k == 2 and session.metrics == ("recall", "rr")
    at_one = session.at_cutoff(1)
    assert at_one is session.at_cutoff(1)  # one object: its statistics stay its own
    protocol = load_protocol(seed_dir)
    assert at_one.protocol.protocol_sha256 == protocol.with_k(1).protocol_sha256 != session.protocol.protocol_sha256
    for name in ("fixture_A", "fixture_B"):
        run = load_run(seed_dir / "runs" / f"{name}.json")
        for shown in session.shown:
            expected = evaluate(protocol.with_k(shown.cutoff), run, (shown.metric,))
            report = session.report_at(name, shown)
            assert report.k == shown.cutoff and report.rows == expected.rows
            assert report.mean(shown.metric) == expected.mean(shown.metric)
    # the seed: fixture_A's q2 has its first relevant document at rank 1 of 2 relevant
    assert session.report_at("fixture_A", session.shown[0]).row("q2").recall == 1 / 2
    with pytest.raises(KeyError):
        session.at_cutoff(3)
    plain = ScoringSession.load(seed_dir)  # no cutoff named: the columns say @k, as before
    assert not plain.by_cutoff and plain.at_cutoffs == () and [s.key for s in plain.shown] == ["recall@2", "rr@2"]


def test_k_change_moves_the_metrics_named_without_a_cutoff(seed_dir: Path) -> None:
    session = session_with(seed_dir, "nDCG,P@1")
    assert [s.name for s in session.shown] == ["nDCG@2", "P@1"]
    deeper = session.with_k(3)
    assert [s.name for s in deeper.shown] == ["nDCG@3", "P@1"]
    assert deeper.metrics == ("ndcg",) and [s.protocol.k for s in deeper.at_cutoffs] == [1]
    assert deeper.reload().shown == deeper.shown  # reload keeps k and the named metrics


def test_k_cannot_go_below_a_metric_named_with_its_cutoff(seed_dir: Path) -> None:
    session = session_with(seed_dir, "R@1,R@2,RR@2")
    with pytest.raises(ContractError) as refused:
        session.with_k(1)
    assert refused.value.one_line() == (
        "R@2 is shown (--metrics), so k stays at least 2: a cutoff is at most the protocol's k"
    )
    higher = session.with_k(3)  # the fixed cutoffs stay: nothing named follows k
    assert [s.name for s in higher.shown] == ["R@1", "R@2", "RR@2"] and higher.protocol.k == 3


def test_a_cutoff_above_k_is_refused_when_named() -> None:
    with pytest.raises(ContractError, match="cutoff 3 is above k \\(2\\): a cutoff is at most k"):
        named_metrics(["P@3"], 2)
    assert named_metrics(["P@1", "p@1", "P"], 2) == (("p", 1), ("p", None))


def test_shown_metrics_without_names_are_the_metrics_at_k() -> None:
    assert [s.key for s in shown_metrics((), ("recall", "rr"), 5)] == ["recall@5", "rr@5"]
    shown = shown_metrics((("p", None), ("p", 5), ("ndcg", 3)), (), 5)
    assert [s.name for s in shown] == ["P@5", "nDCG@3"]  # P and P@5 are one column at k 5
    assert metrics_at((("ndcg", 3),), 5) == ("recall", "rr")  # a report at k is always made


def test_k_change_reuses_the_fixed_cutoffs_and_holds_no_older_sessions(seed_dir: Path) -> None:
    """A cutoff named with ``@`` is the same protocol before and after a k change: its session is
    kept (the statistics computed for it stay valid), and no session at a cutoff holds others."""
    session = session_with(seed_dir, "R@1,RR")
    deeper = session.with_k(3).with_k(4)
    assert deeper.at_cutoff(1) is session.at_cutoff(1)
    assert all(s.at_cutoffs == () for s in (*session.at_cutoffs, *deeper.at_cutoffs))
    assert deeper.with_split("test").at_cutoff(1) is not session.at_cutoff(1)  # a split change scores afresh
