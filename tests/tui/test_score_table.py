"""ScoreTable sizes columns from the cells' text; a stock DataTable measures every cell.

Differential: the same rows and updates go into both, and the column widths and the virtual
size must come out equal, on ScoreTable's fast path (Textual's private DataTable state) and on
the public API it falls back to when the installed Textual's DataTable differs. Other tests check
the fast path fits the installed Textual and is really taken (no console measure per cell), so a
Textual upgrade that changes what it relies on fails here instead of silently bringing the slow
path back.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
import textual.widgets._data_table as data_table_module
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from rankeval_tui.tui.score import score_table
from rankeval_tui.tui.score.cells import delta_bar, value_cell
from rankeval_tui.tui.score.row_table import RowTable
from rankeval_tui.tui.score.score_table import ScoreTable, cell_width, sync_table, textual_mismatches

COLUMNS = (("q", "query"), ("v", "value"), ("w", "wide label for a narrow column"), ("x", "x"))


def rows(n: int, scale: int = 1) -> list[tuple[str, list[Any]]]:
    """Cells of every kind a table can hold: Text (styled, CJK, two lines), markup-free and
    markup str, None, an int, and the screen's own cells."""
    out: list[tuple[str, list[Any]]] = []
    for i in range(n):
        kinds: list[Any] = [
            Text("查询" * (i % 3 + scale), style="bold"),
            "[b]bold[/b]" if i % 5 == 0 else "plain " * (i % 4),
            None if i % 7 == 0 else i * scale,
            value_cell(Fraction(i % 5, 4)) if i % 2 else Text(f"line one\nsecond line {'x' * i}"),
        ]
        out.append((f"q{i}", kinds))
    out.append(("bars", [delta_bar(Fraction(-1, 3)), "", value_cell(None), Text("")]))
    return out


class Pair(App[None]):
    def compose(self) -> ComposeResult:
        # Textual's add_row path through RowTable: it shows a markup str as it is, as ScoreTable
        # does (issue 30 G: an ID like q3[/] crashed the stock table), so both must agree.
        yield RowTable(id="stock")
        yield ScoreTable(id="fast")


@pytest.fixture(params=["fast path", "public API"])
def table_path(request, monkeypatch) -> str:
    """Run a test on ScoreTable's fast path, then as with a Textual whose DataTable it does not fit."""
    if request.param == "public API":
        monkeypatch.setattr(score_table, "textual_mismatches", lambda: ("forced by the test",))
    return request.param


def test_the_fast_path_fits_the_installed_textual() -> None:
    assert textual_mismatches() == (), (
        "ScoreTable's fast path does not fit this Textual's DataTable (the screens still work, slower, "
        "through the public API): update rankeval_tui/tui/score/score_table.py: " + "; ".join(textual_mismatches())
    )


def test_a_changed_datatable_is_found(monkeypatch) -> None:
    """A private method with other parameters, or private state gone, is named (the check is not blind)."""
    monkeypatch.setattr(DataTable, "_highlight_cursor", lambda self, animate: None)
    monkeypatch.setattr(score_table, "PRIVATE_STATE", {**score_table.PRIVATE_STATE, "_renamed_state": bool})
    textual_mismatches.cache_clear()
    try:
        found = textual_mismatches()
    finally:
        textual_mismatches.cache_clear()
    assert found == (
        "DataTable()._renamed_state is missing or of another type",
        "DataTable._highlight_cursor is missing or its parameters are not ['self']",
    )


def widths(table: DataTable) -> tuple[list[int], tuple[int, int]]:
    return [c.content_width for c in table.ordered_columns], tuple(table.virtual_size)  # type: ignore[return-value]


async def test_columns_equal_a_stock_table_after_fill_and_updates(table_path: str) -> None:
    app = Pair()
    async with app.run_test(size=(200, 40)) as pilot:
        stock, fast = app.query_one("#stock", DataTable), app.query_one("#fast", ScoreTable)
        for table in (stock, fast):
            for key, label in COLUMNS:
                table.add_column(label, key=key)
            for key, cells in rows(40):
                table.add_row(*cells, key=key)
        stock.add_row("labelled", "r", 1, "s", key="labelled", label="a label")  # Textual's own path
        fast.add_row("labelled", "r", 1, "s", key="labelled", label="a label")
        await pilot.pause()
        assert widths(fast) == widths(stock)
        # Wider and narrower values in place (a k change): widths follow both ways.
        for scale, column in ((3, "q"), (1, "q"), (5, "x"), (1, "v")):
            for key, cells in rows(40, scale):
                index = [k for k, _ in COLUMNS].index(column)
                for table in (stock, fast):
                    table.update_cell(key, column, cells[index], update_width=True)
            await pilot.pause()
            assert widths(fast) == widths(stock), (scale, column)
        assert widths(fast)[0][0] > len("query")  # the cells, not only the labels, were sized


def fill_stock(table: DataTable, new_rows: list[tuple[str, list[Any]]]) -> None:
    """Textual's own way: one add_column per column, one add_row per row."""
    for key, label in COLUMNS:
        table.add_column(label, key=key)
    for key, cells in new_rows:
        table.add_row(*cells, key=key)


async def test_bulk_fill_equals_add_row_per_row(table_path: str) -> None:
    """``add_keyed_rows`` (the screen's fill) leaves the table as one ``add_row`` per row does:
    same cells, order, row metadata, cursor, widths and one highlight event (a cell cursor)."""
    highlighted: list[str | None] = []

    class Watched(Pair):
        def on_data_table_cell_highlighted(self, event: DataTable.CellHighlighted) -> None:
            highlighted.append(f"{event.data_table.id}:{event.cell_key.row_key.value}")

    app = Watched()
    async with app.run_test(size=(200, 40)) as pilot:
        stock, fast = app.query_one("#stock", DataTable), app.query_one("#fast", ScoreTable)
        fill_stock(stock, rows(30))
        sync_table(fast, COLUMNS, rows(30))
        await pilot.pause()
        assert fast._data == stock._data and list(fast._data) == list(stock._data)
        assert [list(cells) for cells in fast._data.values()] == [list(cells) for cells in stock._data.values()]
        assert list(fast.rows.values()) == list(stock.rows.values())
        locations = [{key: table._row_locations.get(key) for key in table._row_locations} for table in (fast, stock)]
        assert locations[0] == locations[1]
        assert fast.cursor_coordinate == stock.cursor_coordinate
        assert widths(fast) == widths(stock)
        assert sorted(highlighted) == ["fast:q0", "stock:q0"]
        try:
            fast.add_keyed_rows([("q3", [])])
        except data_table_module.DuplicateKey:
            pass
        else:
            raise AssertionError("a duplicate row key was accepted")


async def test_sync_table_in_place_gives_the_widths_of_a_fresh_fill(table_path: str) -> None:
    """A k change updates cells in place; the columns must be what a fresh table would get."""
    app = Pair()
    async with app.run_test(size=(200, 40)) as pilot:
        stock, fast = app.query_one("#stock", DataTable), app.query_one("#fast", ScoreTable)
        sync_table(fast, COLUMNS, rows(30, 3))
        await pilot.pause()
        sync_table(fast, COLUMNS, rows(30, 1))  # same keys: updated in place, columns narrow
        fill_stock(stock, rows(30, 1))  # a fresh fill
        await pilot.pause()
        assert widths(fast) == widths(stock)


async def test_fast_path_measures_no_cell(monkeypatch) -> None:
    calls: list[object] = []
    real = data_table_module.measure
    monkeypatch.setattr(data_table_module, "measure", lambda *a, **k: (calls.append(a[1]), real(*a, **k))[1])
    app = Pair()
    async with app.run_test(size=(200, 40)) as pilot:
        fast = app.query_one("#fast", ScoreTable)
        for key, label in COLUMNS:
            fast.add_column(label, key=key)
        calls.clear()  # add_column measures its label once
        # The screen's kinds of cell: Text, markup-free str, None (ints and markup go to Textual).
        plain_rows = [
            (
                key,
                [
                    Text(str(c)) if isinstance(c, int) else "bold" if isinstance(c, str) and "[" in c else c
                    for c in cells
                ],
            )
            for key, cells in rows(200)
        ]
        for key, cells in plain_rows:
            fast.add_row(*cells, key=key)
        await pilot.pause()
        assert fast.ordered_columns[0].content_width > len("query")
        for key, _cells in plain_rows:
            fast.update_cell(key, "q", Text("x"), update_width=True)
        await pilot.pause()
        assert calls == []
        assert fast.ordered_columns[0].content_width == len("query")  # narrowed to the label


def test_cell_width_leaves_markup_and_other_types_to_textual() -> None:
    assert cell_width(Text("查询 ab")) == 7
    assert cell_width(Text("a\nlonger")) == 6
    assert cell_width("plain") == 5 and cell_width(None) == 0
    assert cell_width("[b]x[/b]") is None and cell_width(3) is None and cell_width("a\nb") is None


async def test_reorder_in_place_with_markup_ids(table_path: str) -> None:
    """A new sort of the same rows (sync_table's in-place path) with query IDs that markup could
    change: their first cell is a Text (safe_cell), which is not hashable, so the reorder cannot
    look rows up by that cell (TypeError: the merged comparison view crashed on the hostile walk)."""
    ids = ["q3[/]", "[reverse]q2[/reverse]", "q:thumbs_up:4", "q5"]
    app = Pair()
    async with app.run_test(size=(200, 40)) as pilot:
        fast = app.query_one("#fast", ScoreTable)
        sync_table(fast, COLUMNS[:2], [(q, [q, i]) for i, q in enumerate(ids)])
        backwards = [(q, [q, i]) for i, q in reversed(list(enumerate(ids)))]
        sync_table(fast, COLUMNS[:2], backwards)
        await pilot.pause()
        assert [row.key.value for row in fast.ordered_rows] == ids[::-1]
        shown = [fast.get_row_at(i)[0] for i in range(len(ids))]
        assert [cell.plain if isinstance(cell, Text) else cell for cell in shown] == ids[::-1]
