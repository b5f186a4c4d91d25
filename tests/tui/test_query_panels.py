"""The drill-down's text without a terminal: rows with the cutoff, the missing ranking, the
relevant documents never returned (the seed: fixture_A misses q4, k 2)."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from rankeval_tui.core.evaluation.metrics import METRIC_IDS
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.tui.score.explain_text import explanation_text
from rankeval_tui.tui.score.query_panels import CUTOFF_KEY, query_head, ranking_rows, run_title


def test_rows_put_the_cutoff_after_rank_k_and_mark_the_first_relevant(seed_dir: Path) -> None:
    session = ScoringSession.load(seed_dir)
    rows = ranking_rows(session, "q2", "fixture_B")
    assert [key for key, _ in rows] == ["d1", "d3", CUTOFF_KEY, "d4"]
    cells = dict(rows)
    assert str(cells["d3"][2]) == "1 relevant" and "first relevant" in str(cells["d3"][3])
    assert str(cells["d1"][2]) == "0" and cells["d1"][3] == ""
    assert "cutoff k=2" in str(rows[2][1][1])


def test_a_missing_ranking_is_one_row_and_every_relevant_document_is_never_returned(seed_dir: Path) -> None:
    session = ScoringSession.load(seed_dir)
    rows = ranking_rows(session, "q4", "fixture_A")
    assert len(rows) == 1 and rows[0][0] == CUTOFF_KEY and "MISSING" in str(rows[0][1][1])
    relevant = query_head(session, "q4").plain.split("relevant: ", 1)[1].split("  (")[0]
    assert explanation_text(session, "q4", "fixture_A", "rr").plain.endswith(f"never returned: {relevant}")
    assert explanation_text(session, "q2", "fixture_B", "rr").plain.endswith("; never returned: none")
    assert "first relevant rank -" in run_title(session, "q4", "fixture_A").plain


def test_the_seed_q2_explained_and_the_moves_between_the_runs(seed_dir: Path) -> None:
    """q2, k 2, relevant d3 and d4: fixture_A ranks d3 d1 d4, fixture_B d1 d3 d4."""
    session = ScoringSession.load(seed_dir, metrics=METRIC_IDS)
    assert explanation_text(session, "q2", "fixture_B", "rr").plain == (
        "RR@2 = 1 / first relevant rank = 1/2 (0.5000)\n"
        "relevant at rank 2 of the top 2 (1 of 2); below k at 3; never returned: none"
    )
    assert explanation_text(session, "q2", "fixture_B", "ap").plain.startswith(
        "AP@2 = Σ precision at each relevant rank / relevant = (P@2 1/2) / 2 relevant = 1/4 (0.2500)"
    )
    ndcg = explanation_text(session, "q2", "fixture_A", "ndcg").plain
    assert "(1/log2(1+1) 1) / ideal 1.6309" in ndcg and "ideal DCG: 2 relevant at ranks 1-2 = 1 + 0.6309" in ndcg
    moves = {key: str(cells[3]) for key, cells in ranking_rows(session, "q2", "fixture_B", "fixture_A", True)}
    assert moves == {"d1": "▲1 (was 2)", "d3": "▼1 (was 1)", CUTOFF_KEY: "", "d4": "="}
    gone = {key: str(cells[3]) for key, cells in ranking_rows(session, "q3", "fixture_A", "fixture_B")}
    assert gone == {"d2": "now 2", "d5": "now 1", CUTOFF_KEY: ""}
    new = {key: str(cells[3]) for key, cells in ranking_rows(session, "q4", "fixture_B", "fixture_A", True)}
    assert new["d6"] == "new"


TERM = re.compile(r"P@(\d+) (\d+(?:/\d+)?)")


@pytest.mark.parametrize("name", ["bm25", "dense"])
def test_the_shown_ap_terms_recompute_the_shown_value(tmp_path: Path, name: str) -> None:
    """Every query of 500: the precisions written in the explanation, summed and divided by the
    relevant count written there, are the value written after them and the report's, exactly."""
    from tests.tui.big_protocol import write_big_protocol

    directory = write_big_protocol(tmp_path / "mid", queries=500)
    session = ScoringSession.load(directory, metrics=("recall", "rr", "ap"))
    report = session.report(name)
    for row in report.rows:
        first = explanation_text(session, row.query, name, "ap").plain.splitlines()[0]
        if not row.relevant:
            continue
        terms = [Fraction(value) for _, value in TERM.findall(first)]
        relevant = int(re.search(r"/ (\d+) relevant", first).group(1))
        shown = Fraction(first.rsplit(" relevant = ", 1)[1].split(" (")[0])
        assert sum(terms, Fraction(0)) / relevant == shown == row.value("ap"), row.query
        assert [int(rank) for rank, _ in TERM.findall(first)] == [
            rank for rank, doc in enumerate(session.scored_run(name).rankings.get(row.query, ())[:10], 1)
            if doc in session.protocol.relevant[row.query]
        ]  # fmt: skip
