"""The adjudication screen: the queue of pairs two annotators labeled differently.

It shows both labels and both notes beside the query and document text; the adjudicator
presses 0 or 1, types the reason and presses Enter. The decision is recorded by
``core.adjudication.AdjudicationSession`` (journal fsynced first), then shown; this screen
never reads or writes a qrels file itself. The last decision writes the exhaustive result (in a
worker, as judging writes on its last label); a decision changed afterwards writes it again,
and ``q`` never leaves decisions made and no file.

Layout: side by side from 110 columns; narrower, the queue sits above the pair (the ``-narrow``
breakpoint class). The reason field is below both at full width, so it is never out of view.
"""

from __future__ import annotations

import asyncio

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import DataTable, Header, Input, Static
from textual.worker import Worker

from rankeval_tui.core.annotation.adjudication import AdjudicationSession, AdjudicationSnapshot
from rankeval_tui.core.errors import ContractError, describe_os_error
from rankeval_tui.core.wording import counted
from rankeval_tui.tui.adjudicate_keys import ADJUDICATE_BINDINGS
from rankeval_tui.tui.hangups import exit_on_hangup, stop_exiting_on_hangup
from rankeval_tui.tui.safe_text import edited, plain, printable, safe_cell
from rankeval_tui.tui.widgets.adjudicate_text import (
    COLUMNS,
    REASON_WIDTH,
    decision_text,
    labels_text,
    pair_text,
    row_cells,
    row_key,
    summary_text,
)
from rankeval_tui.tui.widgets.help_screen import HelpScreen
from rankeval_tui.tui.widgets.pinned_footer import PinnedFooter

ADJUDICATION_FOOTNOTE = (
    "Only the pairs the two files label differently are queued. A decision is a final 0/1 with a\n"
    "reason, fsynced to the journal before it is shown; the qrels are written at the last one."
)


class AdjudicateScreen(Screen[str | None]):
    """Queue of disagreeing pairs on the left, the current pair in full on the right."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = ADJUDICATE_BINDINGS

    pending_final: reactive[int | None] = reactive(None)
    """The label chosen with 0/1 for the current pair, waiting for its reason; None when no
    choice is pending. Kept apart from the session: nothing is a decision before Enter."""

    decided: reactive[int] = reactive(0)
    """How many disagreements are decided (mirrors the session, drives the summary line)."""

    def __init__(self, session: AdjudicationSession) -> None:
        super().__init__()
        self.session = session
        self._write_worker: Worker[None] | None = None
        self._written_message: str | None = None
        self.prefilled_reason = ""  # the recorded reason put in the reason field (safe_text.edited)

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield Static(id="adjudicate-summary")
        with Horizontal(id="adjudicate-body"):
            yield DataTable(id="adjudicate-queue", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="adjudicate-detail"):  # a long document scrolls here
                yield Static(id="adjudicate-labels")
                yield Static(id="adjudicate-decision")
                yield Static(id="adjudicate-pair")
        yield Input(placeholder="0 or 1, then the reason; Enter records", id="adjudicate-reason", disabled=True)
        yield Static(id="adjudicate-status")
        yield PinnedFooter(("help", "quit_keep"))

    def on_mount(self) -> None:
        exit_on_hangup(self.app)  # SIGHUP/SIGTERM end the app; the command then releases the lock
        self.sub_title = "adjudication"
        table = self.query_one(DataTable)
        for key, label in COLUMNS:  # the reason column is sized for reasons typed later, not its header
            table.add_column(label, key=key, width=REASON_WIDTH if key == "reason" else None)
        for i, item in enumerate(self.session.items):
            table.add_row(*map(safe_cell, row_cells(self.session, i, item)), key=row_key(item))  # IDs: never markup
        for warning in self.session.warnings:
            self.notify(warning, severity="warning", timeout=10)
        self.decided = self.session.decided
        if self.session.items:
            table.move_cursor(row=self.session.index)
        table.focus()
        self.show_current()

    # ------------------------------------------------------------ showing

    def watch_decided(self, decided: int) -> None:
        self.query_one("#adjudicate-summary", Static).update(summary_text(self.session, decided))

    def watch_pending_final(self, final: int | None) -> None:
        reason = self.query_one("#adjudicate-reason", Input)
        reason.disabled = final is None
        self.show_decision()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape is shown only while a choice waits for its reason: then it is the one key the
        footer can offer (typed characters go to the reason, so 0, 1, n, w and q are inactive)."""
        return action != "cancel" or self.pending_final is not None

    def show_current(self) -> None:
        item = self.session.current
        pair = "" if item is None else pair_text(self.session.definition, item)
        self.query_one("#adjudicate-pair", Static).update(pair)
        labels = "" if item is None else labels_text(self.session.result.annotators, item)
        self.query_one("#adjudicate-labels", Static).update(labels)
        self.show_decision()

    def show_decision(self) -> None:
        item = self.session.current
        decision = "" if item is None else decision_text(self.session.decision_of(item), self.pending_final)
        self.query_one("#adjudicate-decision", Static).update(decision)

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
        self.prefilled_reason = decision.reason if decision is not None else ""
        reason.value = printable(self.prefilled_reason)  # from the journal: shown safe, kept unless edited
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
            # journaled before anything is shown
            self.session.decide(self.pending_final, edited(event.value, self.prefilled_reason))
        except ContractError as error:
            self.notify(error.one_line(), severity="error")
            return
        except OSError as error:  # disk full: the journal refused the line, nothing changed
            self.notify(f"decision NOT recorded: {describe_os_error(error)}", severity="error", timeout=30)
            return
        table = self.query_one(DataTable)
        key = row_key(item)
        index = self.session.positions[(item.query, item.document)]
        cells = row_cells(self.session, index, item)
        table.update_cell(key, "final", cells[5])
        table.update_cell(key, "reason", safe_cell(cells[6]))
        self.decided = self.session.decided
        self.action_cancel()
        table.move_cursor(row=self.session.index)
        self.show_current()
        if self.session.complete and not self.session.written:
            self.write_output(self.session.snapshot())

    def on_unmount(self) -> None:
        stop_exiting_on_hangup()

    def action_help(self) -> None:
        keys = [binding for binding in self.BINDINGS if isinstance(binding, Binding)]
        self.app.push_screen(HelpScreen(keys, title="Adjudication keys", footnote=ADJUDICATION_FOOTNOTE))

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
                f"{counted(left, 'disagreement')} undecided; the qrels are written only when all are decided",
                severity="warning",
            )
            return
        self.write_output(self.session.snapshot())

    def set_status(self, text: str) -> None:
        self.query_one("#adjudicate-status", Static).update(plain(text))  # names pairs: never markup

    def write_output(self, snapshot: AdjudicationSnapshot) -> Worker[None]:
        """Write ``snapshot`` in a worker (atomic; a large protocol's TOML takes a while)."""
        self.set_status(f"writing {self.session.output.name}…")
        self._write_worker = self.run_worker(self._write(snapshot), exclusive=True, group="adjudicate-write")
        return self._write_worker

    async def _write(self, snapshot: AdjudicationSnapshot) -> None:
        try:
            self._written_message = await asyncio.to_thread(self.session.write, snapshot)
        except ContractError as error:
            self.set_status(f"qrels NOT written: {error.one_line()}")
            return
        except OSError as error:
            self.set_status(f"qrels NOT written: {describe_os_error(error)}")
            self.notify(
                f"qrels NOT written: {describe_os_error(error)}; every decision is safe in "
                f"{self.session.journal_path}; press w to retry, or quit and run adjudicate again",
                severity="error",
                timeout=30,
            )
            return
        self.set_status(f"all {counted(len(snapshot.decisions), 'disagreement')} decided: wrote {self.session.output}")

    async def action_quit_keep(self) -> None:
        """Quit. All decided: the file holds every decision first (written now if it does not)."""
        if self._write_worker is not None:
            await self._write_worker.wait()
        if self.session.complete and not self.session.written:
            await self.write_output(self.session.snapshot()).wait()
            if not self.session.written:
                return  # the write failed and says so; the adjudicator retries or ctrl+q
        if self.session.written:
            self.dismiss(self._written_message)
            return
        left = len(self.session.items) - self.session.decided
        self.dismiss(
            f"{left} of {counted(len(self.session.items), 'disagreement')} undecided; progress is kept in "
            f"{self.session.journal_path}; run adjudicate again to continue"
        )
