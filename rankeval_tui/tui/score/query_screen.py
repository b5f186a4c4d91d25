"""Drill-down of one query: why its numbers are what they are.

Shows the query text and need, then each run's ranking side by side with every document's
label, a cutoff line at k, the first relevant rank (from the evaluator's row), the relevant
documents the run never returned, and the text of the highlighted document. Labels and
rankings are read from the session's protocol and runs; no metric is computed here.

Fits any terminal: as many run panels as fit side by side at their full width, Tab stepping
to the next run (the window of panels follows); the query's head scrolls in a box of bounded
height, and the document is drawn by the judging screen's line-based ``DocumentView`` (a
screenful at any length, the query's terms painted, opened on its best passage) in a box of
fixed height, so the rankings keep their room on 80x24 and no key waits for a long document.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from rankeval_tui.core.evaluation.metrics import MetricId
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.core.session_cutoffs import ShownMetric
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.tui.judge.document_text import PreparedDocuments
from rankeval_tui.tui.judge.document_view import DocumentView
from rankeval_tui.tui.safe_text import safe_cell
from rankeval_tui.tui.score.explain_text import explanation_text
from rankeval_tui.tui.score.query_panels import (
    CUTOFF_KEY,
    RANKING_KEYS,
    label_number,
    query_head,
    ranking_header,
    ranking_rows,
    run_title,
)
from rankeval_tui.tui.score.row_table import RowTable
from rankeval_tui.tui.score.score_footer import ScoreFooter
from rankeval_tui.tui.score.score_table import cell_width
from rankeval_tui.tui.score.score_view_state import kept_shown, next_option

PANEL_CHROME = 4
"""Cells of a run panel besides its columns: the border (2) and the table's vertical scrollbar (2)."""

CELL_PADDING = 2
"""Cells Textual adds around each column of a ``DataTable`` (one each side)."""


def panel_width(rows: list[tuple[object, ...]], header: tuple[str, ...]) -> int:
    """Cells a run panel needs to show every column of its table uncut."""
    widths = [max(cell_width(row[i]) or 0 for row in [header, *rows]) for i in range(len(header))]
    return sum(widths) + CELL_PADDING * len(widths) + PANEL_CHROME


def window(focus: int, first: int, shown: int, panels: int) -> int:
    """The first panel to show so that ``shown`` consecutive panels include ``focus``."""
    shown = max(1, min(shown, panels))
    if focus < first:
        return focus
    if focus >= first + shown:
        return focus - shown + 1
    return min(first, panels - shown)


class QueryScreen(Screen[None]):
    """One query under the session's protocol, for the runs the scoring screen was showing."""

    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    """``-short`` (under 30 lines): smaller head and document boxes (rankeval.tcss)."""

    BINDINGS = [
        Binding("escape,backspace", "app.pop_screen", "back", id="query.back"),
        Binding("tab", "next_run(1)", "next run", id="query.next_run"),
        Binding("shift+tab", "next_run(-1)", "previous run", id="query.previous_run", show=False),
        Binding("n", "page('#query-head-box')", "need", id="query.need", tooltip="scroll the query's text and need"),
        Binding("d", "page('#query-doc-box')", "doc", id="query.doc", tooltip="scroll the document's text"),
        Binding("m", "next_metric", "metric", id="query.metric", tooltip="the metric explained under each ranking"),
        Binding("question_mark", "help", "help", id="query.help", key_display="?"),
        Binding("q", "app.quit", "quit", id="query.quit"),
    ]

    def __init__(
        self,
        session: ScoringSession,
        query: str,
        runs: Sequence[str],
        metric: ShownMetric | None = None,
        compared: bool = False,
    ) -> None:
        super().__init__()
        self.session = session
        self.query_id = query
        self.runs = list(runs)
        self.shown = metric if metric in session.shown else kept_shown("rr", None, session.shown)
        """The metric each panel explains, at its own cutoff (``m``: the next of the session's)."""
        self.compared = compared and len(self.runs) == 2
        """The runs are the comparison's baseline and candidate: each document's move is shown."""
        self.first_shown = 0
        """Index of the leftmost run panel on screen (the others scroll in with Tab)."""
        self.widths = [0] * len(self.runs)
        """Cells each run panel needs to show its columns uncut (set when filled)."""
        self.documents = PreparedDocuments(session.protocol.definition, self.neighbours, kept=3 + len(self.runs))
        """The documents shown, prepared once each (the last few kept): the text box's source."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="query-head-box"):
            yield Static(query_head(self.session, self.query_id), id="query-head")
        yield Static("", id="query-window")
        with Horizontal(id="query-runs"):
            for index, name in enumerate(self.runs):
                with Vertical(id=f"query-run-{index}", classes="query-run"):
                    yield Static(run_title(self.session, self.query_id, name), classes="query-run-title")
                    yield RowTable(id=f"query-table-{index}", classes="query-table", cursor_type="row")
                    yield Static(self.explanation(name), id=f"query-why-{index}", classes="query-run-footer")
        yield Static(Text("highlight a document to read it", style="dim"), id="query-doc")
        yield DocumentView(id="query-doc-box")
        yield ScoreFooter()

    def on_mount(self) -> None:
        for index, name in enumerate(self.runs):
            self.widths[index] = self.fill(self.query_one(f"#query-table-{index}", DataTable), name)
        self.show_panels(0)

    def on_resize(self) -> None:
        self.show_panels(self.focused_run())

    # ------------------------------------------------------------------ run panels

    def focused_run(self) -> int:
        focused = self.focused
        ids = [f"query-table-{index}" for index in range(len(self.runs))]
        return ids.index(focused.id) if focused is not None and focused.id in ids else self.first_shown

    def panels_fitting(self) -> int:
        """How many panels fit side by side at full width (at least one: it scrolls if wider)."""
        room = self.size.width or self.app.size.width
        shown, used = 0, 0
        for width in sorted(self.widths, reverse=True):  # the widest decide: any window must fit
            if used + width > room:
                break
            shown, used = shown + 1, used + width
        return max(1, shown)

    def show_panels(self, focus: int) -> None:
        """Show the window of panels that holds run ``focus``, and focus its table."""
        shown = self.panels_fitting()
        self.first_shown = window(focus, self.first_shown, shown, len(self.runs))
        last = min(self.first_shown + shown, len(self.runs))
        for index in range(len(self.runs)):
            self.query_one(f"#query-run-{index}").display = self.first_shown <= index < last
        note = self.query_one("#query-window", Static)
        note.display = last - self.first_shown < len(self.runs)
        note.update(
            Text(
                f"runs {self.first_shown + 1}-{last} of {len(self.runs)} shown (tab: next run)"
                if last - self.first_shown > 1
                else f"run {self.first_shown + 1} of {len(self.runs)} shown (tab: next run)",
                style="dim",
            )
        )
        table = self.query_one(f"#query-table-{focus}", DataTable)
        table.focus()
        self.show_document(table)

    @property
    def metric(self) -> MetricId:
        return self.shown.metric

    def explanation(self, name: str) -> Text:
        """``shown`` explained from the session at its cutoff (``--metrics P@5,P@10``: P@5's terms at 5)."""
        return explanation_text(self.session.at_cutoff(self.shown.cutoff), self.query_id, name, self.metric)

    def action_next_metric(self) -> None:
        self.shown = next_option(self.session.shown, self.shown)
        for index, name in enumerate(self.runs):
            self.query_one(f"#query-why-{index}", Static).update(self.explanation(name))

    def action_next_run(self, step: int) -> None:
        self.show_panels((self.focused_run() + step) % len(self.runs))

    def action_help(self) -> None:
        self.notify(
            "tab / shift+tab next / previous run · up/down a ranking's rows (the document box follows) · "
            "m the metric explained under each ranking (its terms, exact) · "
            "n page the query's need · d page the document · esc back to the scores · q quit",
            timeout=10,
        )

    def action_page(self, box: str) -> None:
        """A page further down a text box, back to its top after the end (the tables keep the keys)."""
        if box == "#query-doc-box":
            view = self.query_one(DocumentView)
            if view.top >= view.last_top():
                view.action_start()
            else:
                view.action_page(1)
            return
        scroll = self.query_one(box, VerticalScroll)
        if scroll.scroll_y >= scroll.max_scroll_y:
            scroll.scroll_home(animate=False)
        else:
            scroll.scroll_page_down(animate=False)

    def fill(self, table: DataTable, name: str) -> int:
        """The run's ranking rows (``query_panels.ranking_rows``); returns the width its panel needs."""
        other = None
        if self.compared:
            other = self.runs[1] if name == self.runs[0] else self.runs[0]
        header = ranking_header(other is not None)
        for key, column in zip(RANKING_KEYS, header):
            table.add_column(column, key=key)
        rows = ranking_rows(self.session, self.query_id, name, other, candidate_side=name == self.runs[-1])
        for key, row in rows:
            table.add_row(*map(safe_cell, row), key=key)  # document IDs: never markup
        return panel_width([row for _, row in rows], header)

    @on(DataTable.RowHighlighted)
    def highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.has_focus:  # the other panels' cursors do not replace the text
            self.show_document(event.data_table)

    def neighbours(self) -> list[tuple[str, str]]:
        """The documents a key shows next, prepared while the reader reads: the rows above and
        below the cursor of the focused ranking (↑ ↓), the other rankings' highlighted ones (Tab)."""
        tables = [self.query_one(f"#query-table-{index}", DataTable) for index in range(len(self.runs))]
        focused = tables[self.focused_run()]
        places = [(focused, focused.cursor_row + step) for step in (1, -1)]
        places += [(table, table.cursor_row) for table in tables if table is not focused]
        docs = [
            table.coordinate_to_cell_key(Coordinate(row, 0)).row_key.value
            for table, row in places
            if 0 <= row < table.row_count
        ]
        return [(self.query_id, doc) for doc in docs if doc is not None and doc != CUTOFF_KEY]

    def show_document(self, table: DataTable) -> None:
        """The text and label of ``table``'s highlighted document, so a label can be checked against it."""
        if not table.row_count:
            return
        doc = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        if doc is None or doc == CUTOFF_KEY:
            return
        protocol = self.session.protocol
        label = protocol.qrels.get(self.query_id, {}).get(doc)  # None: outside a pooled query's pool
        self.query_one("#query-doc", Static).update(
            Text.assemble(
                (printable(doc), "bold"),
                ("  label ", "dim"),
                label_number(label, protocol.definition),
            ),
            layout=False,  # a row of fixed height: a key's frame needs no new layout
        )
        self.query_one(DocumentView).show(self.documents.get(self.query_id, doc), key=(self.query_id, doc))
        self.call_after_refresh(self.prepare_neighbours)  # after this frame, while the reader reads

    def prepare_neighbours(self) -> None:
        """Prepare the documents a key shows next (``neighbours``) in a worker thread, so the UI
        thread only draws: a key pressed meanwhile is handled at once (a document it shows that
        is still being prepared is waited for, not prepared twice). A newer call cancels an
        older one between documents."""
        pairs = self.neighbours()
        self.run_worker(
            lambda: self.documents.prepare_ahead(pairs, lambda: get_current_worker().is_cancelled),
            group="prepare-documents",
            exclusive=True,
            thread=True,
        )
