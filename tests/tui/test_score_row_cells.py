"""The comparison keeps a row's cells across a k change only where they cannot have changed.

``compare_view.RowCells`` reuses the cell list of a query whose baseline and candidate rows are
the very objects shown before (the evaluator keeps a row when no relevant document lies between
the two cutoffs), and ``changed_cells`` passes such a row whole. These check that every reused
row equals what ``compare_cells`` gives afresh, that other settings reuse nothing, and that a
table updated this way shows what a fresh fill shows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult

from rankeval_tui.core.session import ScoringSession
from rankeval_tui.tui.score.compare_view import RowCells, compare_cells, compare_columns
from rankeval_tui.tui.score.score_table import ScoreTable, sync_table
from tests.tui.big_protocol import write_big_protocol


def plain(cells: list[Any]) -> list[Any]:
    return [getattr(cell, "plain", cell) for cell in cells]


def fresh(comparison, metric: str, adjudicated, exact: bool) -> list[tuple[str, list[Any]]]:
    return [(row.query, compare_cells(row, metric, row.query in adjudicated, None, exact)) for row in comparison.rows]


def sessions(tmp_path: Path) -> tuple[ScoringSession, ScoringSession]:
    session = ScoringSession.load(write_big_protocol(tmp_path / "mid", queries=500))
    return session, session.with_k(session.protocol.k + 1)


def test_kept_rows_reuse_their_cells_and_changed_rows_are_made_afresh(tmp_path: Path) -> None:
    before, after = sessions(tmp_path)
    cells = RowCells()
    old_comparison, new_comparison = before.comparison("bm25", "dense"), after.comparison("bm25", "dense")
    settings = ("rr", False, new_comparison.metrics, after.adjudicated)
    first = dict(cells.cells(old_comparison.rows, settings))
    second = cells.cells(new_comparison.rows, settings)
    expected = fresh(new_comparison, "rr", after.adjudicated, False)
    assert [(q, plain(c)) for q, c in second] == [(q, plain(c)) for q, c in expected]
    kept = {
        new.query
        for old, new in zip(old_comparison.rows, new_comparison.rows)
        if old.baseline is new.baseline and old.candidate is new.candidate
    }
    assert 0 < len(kept) < len(new_comparison.rows)  # the evaluator kept some rows, re-scored others
    assert all((cells_ is first[query]) == (query in kept) for query, cells_ in second)


def test_other_settings_reuse_nothing(tmp_path: Path) -> None:
    session, _ = sessions(tmp_path)
    comparison = session.comparison("bm25", "dense")
    cells = RowCells()
    first = dict(cells.cells(comparison.rows, ("rr", False, comparison.metrics, session.adjudicated)))
    exact = cells.cells(comparison.rows, ("rr", True, comparison.metrics, session.adjudicated))
    assert not any(c is first[q] for q, c in exact)
    expected = fresh(comparison, "rr", session.adjudicated, True)
    assert [(q, plain(c)) for q, c in exact] == [(q, plain(c)) for q, c in expected]


class Tables(App[None]):
    def compose(self) -> ComposeResult:
        yield ScoreTable(id="updated")
        yield ScoreTable(id="filled")


async def test_a_table_updated_through_kept_rows_shows_a_fresh_fill(tmp_path: Path) -> None:
    before, after = sessions(tmp_path)
    columns = compare_columns(after.metrics, "rr")
    settings = ("rr", False, after.metrics, after.adjudicated)
    cells = RowCells()
    app = Tables()
    async with app.run_test(size=(200, 40)) as pilot:
        updated, filled = app.query_one("#updated", ScoreTable), app.query_one("#filled", ScoreTable)
        sync_table(updated, columns, cells.cells(before.comparison("bm25", "dense").rows, settings))
        await pilot.pause()
        sync_table(updated, columns, cells.cells(after.comparison("bm25", "dense").rows, settings))
        sync_table(filled, columns, fresh(after.comparison("bm25", "dense"), "rr", after.adjudicated, False))
        await pilot.pause()
        for index in range(updated.row_count):
            assert plain(updated.get_row_at(index)) == plain(filled.get_row_at(index))
        assert [c.content_width for c in updated.ordered_columns] == [c.content_width for c in filled.ordered_columns]
