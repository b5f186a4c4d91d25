"""The scoring screen's tables: a DataTable sized from its cells' text, filled in bulk, and an in-place sync.

Why a widget of its own: the comparison and single-run tables hold thousands of rows, and
Textual's stock sizing and refilling were most of a k change's cost (see ``ScoreTable``).

The fast path reads and writes DataTable's private state, which Textual may change in any
release. All of it is in ``ScoreTable``, used only when ``textual_mismatches()`` finds the
installed Textual's DataTable as the fast path expects it; otherwise the table takes Textual's
public API (same rows and widths, slower). The tests require the fast path and compare both
paths with a stock table (tests/tui/test_score_table.py), so an incompatible Textual fails there.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import fields
from functools import cache
from itertools import zip_longest
from operator import itemgetter
from typing import Any, Self

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import CellKey, ColumnKey, DuplicateKey, Row, RowKey

from rankeval_tui.core.evaluation.evaluate import distinct_objects
from rankeval_tui.tui.safe_text import safe_cell
from rankeval_tui.tui.score.row_table import RowTable


def cell_width(value: object) -> int | None:
    """The width Textual's ``measure`` gives a cell of a one-line row, from the text alone.

    A ``Text`` measures as its widest line; a ``str`` without markup or a line break is its own
    text (Textual parses ``str`` cells as markup); ``None`` is empty. Anything else: None, for
    Textual to measure."""
    if value is None:
        return 0
    if type(value) is str and value.isascii() and value.isprintable() and "[" not in value:
        return len(value)  # a query ID as most are: one cell per character, no markup
    if isinstance(value, Text):
        plain = value.plain
    elif isinstance(value, str) and "[" not in value and "\n" not in value:
        plain = value
    else:
        return None
    lines = plain.splitlines()  # the line breaks Text.__rich_measure__ splits on
    if len(lines) == 1:
        return cell_len(lines[0])
    return max(map(cell_len, lines), default=0)


def width_range(cells: Iterable[object]) -> tuple[int, int] | None:
    """The narrowest and widest ``cell_width`` of ``cells``, each distinct object sized once;
    None when one cannot be sized that way (Textual measures those).

    Cells are mostly shared objects (``cells`` caches one Text per value), so a column of
    10,000 rows holds a few hundred distinct ones (``distinct_objects``)."""
    widths = [cell_width(cell) for cell, _ in distinct_objects(cells)]
    known = [width for width in widths if width is not None]
    if len(known) != len(widths) or not known:
        return None
    return min(known), max(known)


# DataTable's private state the fast path reads or writes, each with what it must look like.
PRIVATE_STATE: dict[str, Callable[[Any], bool]] = {
    "_data": lambda value: type(value) is dict,
    "_row_locations": lambda value: callable(getattr(value, "__setitem__", None)),
    "_new_rows": lambda value: type(value) is set,
    "_updated_cells": lambda value: type(value) is set,
    "_require_update_dimensions": lambda value: type(value) is bool,
    "_update_count": lambda value: type(value) is int,
}
# DataTable's private methods the fast path overrides or calls, with their parameters.
PRIVATE_METHODS = {
    "_update_dimensions": ["self", "new_rows"],
    "_update_column_widths": ["self", "updated_cells"],
    "_highlight_cursor": ["self"],
}
ROW_FIELDS = ["key", "height", "label", "auto_height"]


@cache
def textual_mismatches() -> tuple[str, ...]:
    """What of DataTable's private state and methods the fast path relies on differs in the
    installed Textual (empty: the fast path fits it)."""
    found: list[str] = []
    table: DataTable[Any] = DataTable()
    for name, fits in PRIVATE_STATE.items():
        if not fits(getattr(table, name, None)):
            found.append(f"DataTable().{name} is missing or of another type")
    for name, parameters in PRIVATE_METHODS.items():
        method = getattr(DataTable, name, None)
        if method is None or list(inspect.signature(method).parameters) != parameters:
            found.append(f"DataTable.{name} is missing or its parameters are not {parameters}")
    if [field.name for field in fields(Row)] != ROW_FIELDS:
        found.append(f"data_table.Row's fields are not {ROW_FIELDS}")
    return tuple(found)


class ScoreTable(RowTable):
    """A ``DataTable`` that sizes its columns from the cells' text instead of measuring each cell.

    Why: Textual 8.2 measures every cell of every new row on idle through the console (a fresh
    ``ConsoleOptions`` per cell), a pause each time a large comparison table is filled
    (``benchmarks/bench_scoring.py``), and re-measures a whole column for every narrowed cell
    (quadratic on a k change).
    The cells here are one-line ``Text``, whose measured width is ``cell_len`` of its text, so the
    columns come out the same (tests/tui/test_score_table.py compares them with a stock table);
    rows or cells it cannot size that way (labels, tall rows, markup strings) go to Textual.
    With a Textual whose DataTable differs from what this class expects (``textual_mismatches``),
    every method takes the public API instead.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.given: dict[str, Sequence[Any]] = {}
        """Each row's cells as last given to ``add_keyed_rows`` or ``changed_cells`` (the caller's
        sequence, kept): the same sequence given again is the same row, skipped whole."""

    def clear(self, columns: bool = False) -> Self:
        self.given = {}
        super().clear(columns)
        return self

    def add_keyed_rows(self, rows: Sequence[tuple[str, Sequence[Any]]]) -> None:
        """``add_row(*cells, key=key)`` for each of ``rows`` (one line each, no label), with the
        cursor check, the idle check and the first-row highlight done once for all of them.

        Why: Textual's ``add_row`` re-assigns the cursor coordinate (a validated reactive) and
        checks for idle on every row, most of the cost of filling a table of 10,000 rows."""
        if textual_mismatches():
            for key, cells in rows:
                self.add_row(*cells, key=key)
                self.given[key] = cells
            return
        columns = [column.key for column in self.ordered_columns]
        start = self.row_count
        for index, (key, cells) in enumerate(rows, start):
            row_key = RowKey(key)
            if row_key in self._row_locations:
                raise DuplicateKey(f"The row key {row_key!r} already exists.")
            if len(cells) > len(columns):
                raise ValueError("More values provided than there are columns.")
            self._row_locations[row_key] = index
            self._data[row_key] = {column: safe_cell(cell) for column, cell in zip_longest(columns, cells)}
            self.rows[row_key] = Row(row_key, 1, None, False)
            self._new_rows.add(row_key)
            self.given[key] = cells
        if not rows:
            return
        self._require_update_dimensions = True
        self.cursor_coordinate = self.cursor_coordinate
        if start == 0 and columns and self.show_cursor and self.cursor_type != "none":
            self._highlight_cursor()
        self._update_count += len(rows)
        self.check_idle()

    def set_cells(self, changes: Sequence[tuple[RowKey, ColumnKey, Any]]) -> None:
        """``update_cell(row, column, value, update_width=True)`` for each existing cell of
        ``changes``, with one refresh: a k change updates thousands of cells."""
        if textual_mismatches():
            for row_key, column_key, value in changes:
                self.update_cell(row_key, column_key, safe_cell(value), update_width=True)
            return
        for row_key, column_key, value in changes:
            self._data[row_key][column_key] = safe_cell(value)
            self._updated_cells.add(CellKey(row_key, column_key))
        if changes:
            self._update_count += len(changes)
            self._require_update_dimensions = True
            self.refresh()

    def shown_rows(self) -> Iterable[tuple[RowKey, Mapping[ColumnKey, Any]]]:
        """Each row's key and its shown cells by column key, in column order (rows in the order added)."""
        if not textual_mismatches():
            return self._data.items()
        keys = [column.key for column in self.ordered_columns]
        return ((key, dict(zip(keys, self.get_row(key)))) for key in self.rows)

    def _update_dimensions(self, *args: Any, **kwargs: Any) -> None:
        if textual_mismatches():
            super()._update_dimensions(*args, **kwargs)
        else:
            self._size_new_rows(*args, **kwargs)

    def _update_column_widths(self, *args: Any, **kwargs: Any) -> None:
        if textual_mismatches():
            super()._update_column_widths(*args, **kwargs)
        else:
            self._size_updated_cells(*args, **kwargs)

    def _size_new_rows(self, new_rows: Iterable[RowKey]) -> None:
        columns = self.ordered_columns
        rows = self.rows
        plain: list[RowKey] = []
        for_textual: list[RowKey] = []
        for row_key in new_rows:
            row = rows.get(row_key)
            if row is None:
                continue  # removed before idle: Textual skips it too
            (plain if row.label is None and row.height == 1 else for_textual).append(row_key)
        ranges = self._column_ranges(plain, [column.key for column in columns]) if plain and columns else []
        if None in ranges:
            for_textual += plain  # a cell Textual must measure
        else:
            for column, (_, widest) in zip(columns, ranges):  # type: ignore[misc]  # None excluded
                column.content_width = max(column.content_width, widest)
        super()._update_dimensions(for_textual)  # also the virtual size, from the widths above

    def _column_ranges(self, row_keys: list[RowKey], keys: list[ColumnKey]) -> list[tuple[int, int] | None]:
        """``width_range`` of each column over ``row_keys``. A row's cell dict is in column order
        (``add_row`` and ``add_keyed_rows`` build it so, updates keep it), so its values are its
        cells in order, read without hashing a ``ColumnKey`` (a Python-level ``__hash__``) per cell;
        a row in another order is read key by key."""
        rows = list(map(self._data.__getitem__, row_keys))
        pick = itemgetter(*keys)
        cells = [row.values() if list(row) == keys else pick(row) for row in rows]
        by_column = zip(*cells) if len(keys) > 1 else [[row[keys[0]] for row in rows]]
        return [width_range(column) for column in by_column]

    def _size_updated_cells(self, updated_cells: set[CellKey]) -> None:
        by_column: dict[ColumnKey, list[RowKey]] = {}
        for row_key, column_key in updated_cells:
            by_column.setdefault(column_key, []).append(row_key)
        for_textual: set[CellKey] = set()
        for column_key, row_keys in by_column.items():
            column = self.columns.get(column_key)
            rows = [key for key in row_keys if key in self.rows]
            if column is None or not rows:
                continue
            new = width_range(self._data[key][column_key] for key in rows)
            label = cell_width(column.label)
            if new is None or label is None or any(self.rows[key].height != 1 for key in rows):
                for_textual.update(CellKey(key, column_key) for key in rows)
                continue
            narrowest, widest = new
            if narrowest < column.content_width:
                # Narrowed: the column's widest cell, over the whole column once (Textual
                # re-measures the column for each narrowed cell).
                every = width_range(cells.get(column_key) for cells in self._data.values())
                if every is None:
                    for_textual.update(CellKey(key, column_key) for key in rows)
                    continue
                widest = every[1]
            column.content_width = max(label, widest)
        if for_textual:
            super()._update_column_widths(for_textual)
        self._require_update_dimensions = True


def sync_table(
    table: ScoreTable, columns: Sequence[tuple[str, str]], rows: Sequence[tuple[str, Sequence[Any]]]
) -> None:
    """Show ``rows`` in ``table``, in order, touching as little as possible.

    Same columns and same set of row keys (a k change, a new sort): cells are changed in place
    with ``update_cell`` and the order is fixed with a typed index sort. Anything else (another
    split, the regressions filter): the rows are rebuilt. Column widths follow the cells (wider
    or narrower) through ``update_width``: cheap on a ``ScoreTable``.
    """
    column_keys = [key for key, _ in columns]
    if [c.value for c in table.columns] != column_keys:
        table.clear(columns=True)
        for key, label in columns:
            table.add_column(label, key=key)
    wanted = [key for key, _ in rows]
    current = [r.key.value for r in table.ordered_rows]
    if set(current) == set(wanted) and len(current) == len(wanted):
        table.set_cells(changed_cells(table, rows))
        if current != wanted:
            index = {key: i for i, key in enumerate(wanted)}
            # Textual's sort sees a row's cells, not its key: each row is found by its first cell
            # object, since that cell is the key itself only while safe_cell keeps it a str (an ID
            # that markup could change, ``q3[/]``, is shown as a Text, which is not hashable).
            position = {id(next(iter(cells.values()))): index[str(key.value)] for key, cells in table.shown_rows()}
            table.sort(key=lambda row: position[id(row[0])])
        return
    table.clear()
    table.add_keyed_rows(rows)


def changed_cells(table: ScoreTable, rows: Sequence[tuple[str, Sequence[Any]]]) -> list[tuple[RowKey, ColumnKey, Any]]:
    """The cells of ``rows`` (all shown in ``table``, same columns) that differ from the shown ones.

    Reads the table's cell dicts directly, by the rows' string keys and in column order: a
    ``get_cell`` per cell, or hashing a ``RowKey``/``ColumnKey`` (Python-level ``__hash__``) per
    cell, was most of a k change at 10,000 rows. Cells are mostly shared objects (``cells``
    caches one per value), so ``is`` settles most of them; and a row given as the same sequence
    as last time (``ScoreTable.given``: ``compare_view.RowCells`` keeps the cells of a row the
    evaluator kept) is passed whole."""
    column_objects = [column.key for column in table.ordered_columns]
    given = table.given
    shown: dict[str | None, tuple[RowKey, Mapping[ColumnKey, Any]]] | None = None
    changed: list[tuple[RowKey, ColumnKey, Any]] = []
    for key, cells in rows:
        if given.get(key) is cells:
            continue
        given[key] = cells
        if shown is None:
            shown = {row_key.value: (row_key, data) for row_key, data in table.shown_rows()}
        row_key, row = shown[key]
        # A row's dict is in column order (add_row builds it so, updates keep it); the list
        # comparison is by identity first (the keys are the columns' own objects).
        old_cells = row.values() if list(row) == column_objects else [row.get(c) for c in column_objects]
        for column, old, value in zip(column_objects, old_cells, cells):
            if old is not value:
                value = safe_cell(value)  # the shown cell is the safe one (str IDs become Text)
                if old != value:
                    changed.append((row_key, column, value))
    return changed
