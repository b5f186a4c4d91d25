"""The adjudication screen: the queue of pairs two annotators labeled differently.

It shows both labels and both notes beside the query and document text; the adjudicator
presses 0 or 1, types the reason and presses Enter. The decision is recorded by
``core.adjudication.AdjudicationSession`` (journal fsynced first), then shown; this screen
never reads or writes a qrels file itself. ``w`` writes the exhaustive result once every
disagreement is decided.
"""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from rankeval_tui.core.annotation.adjudication import AdjudicationSession
from rankeval_tui.core.annotation.agreement import Disagreement
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.render import exact_and_decimal

COLUMNS = (
    ("n", "#"),
    ("query", "query"),
    ("document", "document"),
    ("a", "A"),
    ("b", "B"),
    ("final", "final"),
    ("reason", "reason"),
)
REASON_WIDTH = 28


def short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


class AdjudicateScreen(Screen[str | None]):
    """Queue of disagreeing pairs on the left, the current pair in full on the right."""

    BINDINGS = [
        Binding("0", "choose(0)", "Final 0", id="adjudicate.final_0"),
        Binding("1", "choose(1)", "Final 1", id="adjudicate.final_1"),
        Binding("n", "next_undecided", "Next undecided", id="adjudicate.next_undecided"),
        Binding("w", "write", "Write qrels", id="adjudicate.write"),
        Binding("q", "quit_keep", "Quit (keep progress)", id="adjudicate.quit"),
        Binding("escape", "cancel", "Cancel", show=False, id="adjudicate.cancel"),
    ]

    pending_final: reactive[int | None] = reactive(None)
    """The label chosen with 0/1 for the current pair, waiting for its reason; None when no
    choice is pending. Kept apart from the session: nothing is a decision before Enter."""

    decided: reactive[int] = reactive(0)
    """How many disagreements are decided (mirrors the session, drives the summary line)."""

    def __init__(self, session: AdjudicationSession) -> None:
        super().__init__()
        self.session = session

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield Static(id="adjudicate-summary")
        with Horizontal(id="adjudicate-body"):
            yield DataTable(id="adjudicate-queue", cursor_type="row", zebra_stripes=True)
            with Vertical(id="adjudicate-detail"):
                yield Static(id="adjudicate-pair")
                yield Static(id="adjudicate-labels")
                yield Static(id="adjudicate-decision")
                yield Input(
                    placeholder="press 0 or 1, then type the reason and press Enter",
                    id="adjudicate-reason",
                    disabled=True,
                )
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "adjudication"
        table = self.query_one(DataTable)
        for key, label in COLUMNS:  # the reason column is sized for reasons typed later, not its header
            table.add_column(label, key=key, width=REASON_WIDTH if key == "reason" else None)
        for i, item in enumerate(self.session.items):
            table.add_row(*self.row_cells(i, item), key=self.row_key(item))
        for warning in self.session.warnings:
            self.notify(warning, severity="warning", timeout=10)
        self.decided = self.session.decided
        if self.session.items:
            table.move_cursor(row=self.session.index)
        table.focus()
        self.show_current()

    @staticmethod
    def row_key(item: Disagreement) -> str:
        # IDs never contain whitespace (core.files.check_id), so a space cannot be ambiguous.
        return f"{item.query} {item.document}"

    def row_cells(self, index: int, item: Disagreement) -> list[str]:
        decision = self.session.decision_of(item)
        return [
            str(index + 1),
            item.query,
            item.document,
            str(item.labels[0]),
            str(item.labels[1]),
            "-" if decision is None else str(decision.final),
            "" if decision is None else short(decision.reason, REASON_WIDTH),
        ]

    # ------------------------------------------------------------ showing

    def watch_decided(self, decided: int) -> None:
        session = self.session
        a, b = session.result.annotators
        overall = session.result.overall
        kappa = (
            exact_and_decimal(overall.kappa) if overall.kappa is not None else f"undefined ({overall.undefined_reason})"
        )
        if not session.items:
            state = "the annotators agree on every pair: nothing to adjudicate; press w to write the qrels"
        elif session.complete:
            state = f"all {len(session.items)} decided: press w to write {session.output}"
        else:
            state = f"{decided}/{len(session.items)} decided, {len(session.items) - decided} left"
        self.query_one("#adjudicate-summary", Static).update(
            Text.assemble(
                ("Adjudication ", "bold"),
                f"A = {a}, B = {b}; adjudicator {session.adjudicator}; ",
                f"kappa {kappa}, {overall.pairs} pairs; ",
                (state, "bold"),
            )
        )

    def watch_pending_final(self, final: int | None) -> None:
        reason = self.query_one("#adjudicate-reason", Input)
        reason.disabled = final is None
        self.show_decision()

    def show_current(self) -> None:
        item = self.session.current
        pair = self.query_one("#adjudicate-pair", Static)
        labels = self.query_one("#adjudicate-labels", Static)
        if item is None:
            pair.update("")
            labels.update("")
            self.show_decision()
            return
        definition = self.session.definition
        query = definition.queries[item.query]
        pair.update(
            Text.assemble(
                ("query ", "dim"),
                (item.query, "bold"),
                "  ",
                query.text,
                "\n",
                *((("need ", "dim"), query.need, "\n") if query.need else ()),
                ("relevance ", "dim"),
                definition.relevance,
                "\n",
                ("document ", "dim"),
                (item.document, "bold"),
                "  ",
                definition.documents[item.document],
            )
        )
        parts: list = []
        for name, label, note in zip(self.session.result.annotators, item.labels, item.notes):
            parts += [
                (f"{name}: ", "bold"),
                (f"{label} {'relevant' if label else 'not relevant'}", "green" if label else ""),
                ("  note: ", "dim"),
                note if note else ("(no note)", "dim"),
                "\n",
            ]
        labels.update(Text.assemble(*parts))
        self.show_decision()

    def show_decision(self) -> None:
        item = self.session.current
        widget = self.query_one("#adjudicate-decision", Static)
        if item is None:
            widget.update("")
            return
        decision = self.session.decision_of(item)
        recorded = (
            Text("undecided", style="yellow")
            if decision is None
            else Text.assemble(
                ("decided ", "dim"), (str(decision.final), "bold"), ("  reason: ", "dim"), decision.reason
            )
        )
        if self.pending_final is not None:
            recorded.append(
                f"\nnew final {self.pending_final}: type the reason, Enter records it, Escape cancels",
                style="bold cyan",
            )
        widget.update(recorded)

    # ------------------------------------------------------------ events and actions

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row is not None and 0 <= event.cursor_row < len(self.session.items):
            if event.cursor_row != self.session.index:
                self.pending_final = None
            self.session.select(event.cursor_row)
            self.show_current()

    def action_choose(self, final: int) -> None:
        item = self.session.current
        if item is None:
            self.notify("nothing to adjudicate")
            return
        self.pending_final = final
        reason = self.query_one("#adjudicate-reason", Input)
        decision = self.session.decision_of(item)
        reason.value = decision.reason if decision is not None else ""
        reason.focus()

    def action_cancel(self) -> None:
        self.pending_final = None
        self.query_one("#adjudicate-reason", Input).value = ""
        self.query_one(DataTable).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.pending_final is None:
            return
        item = self.session.current
        assert item is not None
        try:
            self.session.decide(self.pending_final, event.value)  # journaled before anything is shown
        except ContractError as error:
            self.notify(error.one_line(), severity="error")
            return
        table = self.query_one(DataTable)
        key = self.row_key(item)
        index = self.session.positions[(item.query, item.document)]
        cells = self.row_cells(index, item)
        table.update_cell(key, "final", cells[5])
        table.update_cell(key, "reason", cells[6])
        self.decided = self.session.decided
        self.action_cancel()
        table.move_cursor(row=self.session.index)
        self.show_current()
        if self.session.complete:
            self.notify(f"all {len(self.session.items)} disagreements decided; press w to write")

    def action_next_undecided(self) -> None:
        found = self.session.first_undecided(self.session.index + 1) if self.session.items else None
        if found is None:
            self.notify("every disagreement is decided")
            return
        self.query_one(DataTable).move_cursor(row=found)

    def action_write(self) -> None:
        if not self.session.complete:
            left = len(self.session.items) - self.session.decided
            self.notify(
                f"{left} disagreements are undecided; the qrels are written only when all are decided",
                severity="warning",
            )
            return
        self.write_output()

    @work(exclusive=True, group="adjudicate-write")
    async def write_output(self) -> None:
        """Atomic write off the event loop: a large protocol's TOML takes a while to build."""
        try:
            message = await asyncio.to_thread(self.session.write)
        except ContractError as error:
            self.notify(error.one_line(), severity="error")
            return
        self.dismiss(message)

    def action_quit_keep(self) -> None:
        left = len(self.session.items) - self.session.decided
        self.dismiss(
            None
            if self.session.written
            else f"{left} of {len(self.session.items)} disagreements undecided; progress is kept in "
            f"{self.session.journal_path}; run adjudicate again to continue"
        )
