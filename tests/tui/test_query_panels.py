"""The drill-down's text without a terminal: rows with the cutoff, the missing ranking, the
relevant documents never returned (the seed: fixture_A misses q4, k 2)."""

from __future__ import annotations

from pathlib import Path

from rankeval_tui.core.session import ScoringSession
from rankeval_tui.tui.score.query_panels import CUTOFF_KEY, query_head, ranking_rows, run_footer, run_title


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
    assert run_footer(session, "q4", "fixture_A").plain == f"relevant never returned: {relevant}"
    assert run_footer(session, "q2", "fixture_B").plain == "relevant never returned: none"
    assert "first relevant rank -" in run_title(session, "q4", "fixture_A").plain
