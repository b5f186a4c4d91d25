"""The scoring screen and drill-down on a pooled protocol made from TREC files alone (no texts):
the header names the pool rule, statuses and legend say "in pool", a document past k outside
the pool reads "unjudged" (never 0), a missing text reads as missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankeval_tui.core.session import ScoringSession
from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.score.query_panels import query_head, ranking_rows
from tests.cli.helpers import run_cli
from tests.cli.test_pools_cli import QRELS, RUN


@pytest.fixture()
def pooled(tmp_path: Path) -> Path:
    (tmp_path / "qrels.trec").write_text(QRELS + "q:1003 0 docs/z.md 0\n")
    (tmp_path / "bm25.trec").write_text(RUN + "q:1003 Q0 docs/z.md 1 1 bm25\n")
    directory = tmp_path / "p"
    made = run_cli("init", directory, "--qrels", tmp_path / "qrels.trec", "--run", tmp_path / "bm25.trec", "--k", "2")
    assert made.returncode == 0, made.stderr
    return directory


def test_drill_down_rows_say_unjudged_past_k_never_0(pooled: Path) -> None:
    session = ScoringSession.load(pooled)
    cells = dict(ranking_rows(session, "q:1001", "bm25"))
    assert str(cells["docs/export.md"][2]) == "1 relevant" and str(cells["unjudged-below-k"][2]) == "unjudged"
    head = query_head(session, "q:1001").plain
    assert "no query text in this protocol" in head and "(1 in its pool of 2 documents)" in head


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_scoring_screen_names_the_pool_rule_and_no_relevant_in_pool(pooled: Path, size) -> None:
    app = RankevalApp(pooled)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        text = "\n".join(str(widget.render()) for widget in screen.query("Static"))
        assert "pooled: each query's pool: the documents labelled for it in qrels.trec" in text
        assert "no_relevant_in_pool_queries: q:1003" in text
        assert "Recall@k's denominator is the relevant documents in the query's pool" in text
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("q")
