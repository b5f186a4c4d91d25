"""Explain this score (core.evaluation.explain): the terms recompute the evaluator's value exactly.

Every query of a 500-query protocol, both runs, every metric: the explanation's terms, summed
here and divided here (Fractions), equal the report's value; nDCG's ideal terms sum to its
denominator. The seed's q2 is checked against numbers worked out by hand.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from rankeval_tui.core.evaluation.evaluate import evaluate
from rankeval_tui.core.evaluation.explain import explain, rank_changes
from rankeval_tui.core.evaluation.metrics import METRIC_IDS
from rankeval_tui.core.files import load_protocol, load_run


@pytest.fixture(scope="module")
def mid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.tui.big_protocol import write_big_protocol

    return write_big_protocol(tmp_path_factory.mktemp("explain") / "mid", queries=500)


def test_terms_recompute_every_value_of_every_metric(mid: Path) -> None:
    protocol = load_protocol(mid)
    checked = 0
    for name in ("bm25", "dense"):
        run = load_run(mid / "runs" / f"{name}.json")
        report = evaluate(protocol, run, METRIC_IDS)
        for row in report.rows:
            ranking = run.rankings.get(row.query)
            for metric in METRIC_IDS:
                why = explain(row, ranking, protocol.relevant[row.query], protocol.k, metric)
                recomputed = (
                    None if not row.relevant else sum((t.value for t in why.terms), Fraction(0)) / why.denominator
                )
                assert recomputed == row.value(metric) == why.value, (name, row.query, metric)
                if metric == "ndcg" and row.relevant:
                    assert sum(t.value for t in why.ideal) == why.denominator
                checked += 1
    assert checked == 2 * 500 * len(METRIC_IDS)


def test_seed_q2_by_hand(seed_dir: Path) -> None:
    """q2: relevant d3 and d4 (2 documents), k = 2. fixture_A ranks d3, d1, d4; fixture_B d1, d3, d4."""
    protocol = load_protocol(seed_dir)
    relevant = protocol.relevant["q2"]
    assert relevant == frozenset({"d3", "d4"}) and protocol.k == 2
    a, b = (load_run(seed_dir / "runs" / f"fixture_{x}.json") for x in "AB")
    row_a = evaluate(protocol, a, METRIC_IDS).row("q2")
    row_b = evaluate(protocol, b, METRIC_IDS).row("q2")
    rr_a = explain(row_a, a.rankings["q2"], relevant, 2, "rr")
    assert [(t.label, t.value) for t in rr_a.terms] == [("1/1", 1)] and rr_a.ranks == (1,) and rr_a.below == (3,)
    rr_b = explain(row_b, b.rankings["q2"], relevant, 2, "rr")
    assert [(t.label, t.value) for t in rr_b.terms] == [("1/2", Fraction(1, 2))]
    ap_b = explain(row_b, b.rankings["q2"], relevant, 2, "ap")
    assert [(t.label, t.value) for t in ap_b.terms] == [("P@2", Fraction(1, 2))] and ap_b.denominator == 2
    assert ap_b.value == Fraction(1, 4)
    ndcg_b = explain(row_b, b.rankings["q2"], relevant, 2, "ndcg")
    assert [t.label for t in ndcg_b.terms] == ["1/log2(2+1)"] and [t.label for t in ndcg_b.ideal] == [
        "1/log2(1+1)",
        "1/log2(2+1)",
    ]
    assert ndcg_b.ideal[0].value == 1 and abs(float(ndcg_b.terms[0].value) - 0.6309297535714574) < 1e-12
    recall_missing = explain(evaluate(protocol, a).row("q4"), None, protocol.relevant["q4"], 2, "recall")
    assert recall_missing.value == 0 and recall_missing.never == tuple(sorted(protocol.relevant["q4"]))


def test_a_ranking_the_report_did_not_score_is_refused(seed_dir: Path) -> None:
    protocol = load_protocol(seed_dir)
    a, b = (load_run(seed_dir / "runs" / f"fixture_{x}.json") for x in "AB")
    row_a = evaluate(protocol, a).row("q2")
    with pytest.raises(ValueError, match="not the one the report scored"):
        explain(row_a, b.rankings["q2"], protocol.relevant["q2"], 2, "rr")


def test_rank_changes_between_baseline_and_candidate() -> None:
    changes = rank_changes(["d3", "d1", "d4", "d9"], ["d1", "d3", "d4", "d7"])
    assert {doc: (c.baseline, c.candidate, c.movement, c.places) for doc, c in changes.items()} == {
        "d3": (1, 2, "down", 1),
        "d1": (2, 1, "up", 1),
        "d4": (3, 3, "same", 0),
        "d9": (4, None, "gone", 0),
        "d7": (None, 4, "new", 0),
    }
    assert {c.movement for c in rank_changes(None, ["d1"]).values()} == {"new"}
