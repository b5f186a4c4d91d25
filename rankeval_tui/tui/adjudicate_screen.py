"""The adjudication screen: the queue of pairs two annotators labeled differently.

It shows both labels and both notes above the disputed document; the adjudicator presses 0 or
1, types the reason and presses Enter. The decision is recorded by
``core.adjudication.AdjudicationSession`` (journal fsynced first), then shown; this screen
never reads or writes a qrels file itself. The last decision writes the exhaustive result (in a
worker, as judging writes on its last label); a decision changed afterwards writes it again,
and ``q`` never leaves decisions made and no file.

The document is drawn by the judging screen's ``DocumentView`` (a screen at a time, matches
painted, find, best passage), so moving to another disagreement costs a screenful at any
document length. A decision is for the pair whose document the view has painted: 0/1 is refused
until the view has drawn the current pair, and the pair chosen travels with the decision to the
session, which refuses it if the current pair is another one (keys typed ahead of a redraw).

Layout: side by side from 110 columns; narrower (the ``-narrow`` breakpoint class) the queue
folds (``t`` or Tab shows it above the document) and the notes take one line each (``e``
unfolds them), so the document gets the rows. The reason field is below at full width.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widgets import DataTable, Header, Input, Static

from rankeval_tui.core.annotation.adjudication import AdjudicationSession
from rankeval_tui.core.errors import ContractError, describe_os_error
from rankeval_tui.tui.adjudicate_keys import ADJUDICATE_BINDINGS, HELP_ONLY
from rankeval_tui.tui.adjudicate_writing import AdjudicationWriting
from rankeval_tui.tui.hangups import exit_on_hangup
from rankeval_tui.tui.judge.document_text import PreparedDocuments
from rankeval_tui.tui.judge.document_view import DocumentView
from rankeval_tui.tui.judge.reading import find_in_document, step_match
from rankeval_tui.tui.safe_text import edited, printable, safe_cell
from rankeval_tui.tui.widgets.adjudicate_text import (
    COLUMNS,
    REASON_WIDTH,
    context_text,
    decision_text,
    neighbouring_pairs,
    row_cells,
    row_key,
    summary_text,
)
from rankeval_tui.tui.widgets.help_screen import HelpScreen
from rankeval_tui.tui.widgets.pinned_footer import PinnedFooter

ADJUDICATION_FOOTNOTE = (
    "Only the pairs the two files label differently are queued. A decision is a final 0/1 with a\n"
    "reason for the pair whose document is on screen, fsynced to the journal before it is shown;\n"
    "the qrels are written at the last one."
)


def not_on_screen(query: str, document: str) -> str:
    return f"NOT chosen: the document of {query}/{document} is not on screen yet; read it, then press 0 or 1"


class AdjudicateScreen(AdjudicationWriting):
    """Queue of disagreeing pairs on the left, the current pair and its document on the right."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = ADJUDICATE_BINDINGS

    pending_final: reactive[int | None] = reactive(None)
    """The label chosen with 0/1 for the current pair, waiting for its reason; None when no
    choice is pending. Kept apart from the session: nothing is a decision before Enter."""

    decided: reactive[int] = reactive(0)
    """How many disagreements are decided (mirrors the session, drives the summary line)."""

    def __init__(self, session: AdjudicationSession) -> None:
        super().__init__(session)
        self.prefilled_reason = ""  # the recorded reason put in the reason field (safe_text.edited)
        self.pending_pair: tuple[str, str] | None = None  # the pair 0/1 was pressed on (its document drawn)
        self.documents = PreparedDocuments(session.definition, lambda: neighbouring_pairs(session))

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield Static(id="adjudicate-summary")
        with Horizontal(id="adjudicate-body"):
            yield DataTable(id="adjudicate-queue", cursor_type="row", zebra_stripes=True)
            with Vertical(id="adjudicate-detail"):
                yield Static(id="adjudicate-labels")
                yield Static(id="adjudicate-decision")
                yield DocumentView(id="adjudicate-doc")
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
        self.set_status(" · ".join(self.session.warnings))  # in the status line, never over the queue
        self.decided = self.session.decided
        if self.session.items:
            table.move_cursor(row=self.session.index)
        self.query_one(DocumentView if self.has_class("-narrow") else DataTable).focus()
        self.show_current()

    def watch_horizontal_breakpoint(self) -> None:
        """Narrow, the queue folds: the arrows then belong to the document."""
        if self.has_class("-narrow") and not self.has_class("-queue"):
            self.query_one(DocumentView).focus()

    def watch_decided(self, decided: int) -> None:
        self.query_one("#adjudicate-summary", Static).update(summary_text(self.session, decided))

    def watch_pending_final(self, final: int | None) -> None:
        reason = self.query_one("#adjudicate-reason", Input)
        reason.disabled = final is None
        if final is None:
            self.pending_pair = None
        self.show_decision()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape only while a choice waits for its reason (typed characters go to the reason, so
        0, 1, n, w and q are inactive); ← → move the reason field's cursor, not the pair."""
        if action == "step":
            return not self.query_one("#adjudicate-reason", Input).has_focus
        return action != "cancel" or self.pending_final is not None

    def show_current(self) -> None:
        item = self.session.current
        labels = self.query_one("#adjudicate-labels", Static)
        view = self.query_one(DocumentView)
        if item is None:
            labels.update("")
            view.display = False
        else:
            place = (self.session.index, len(self.session.items))
            annotators = self.session.result.annotators
            labels.update(context_text(self.session.definition, item, annotators, place, full=self.has_class("-notes")))
            view.show(self.documents.get(item.query, item.document), key=(item.query, item.document))
            self.call_after_refresh(self.documents.prepare_neighbours)
        self.show_decision()

    def show_decision(self) -> None:
        item = self.session.current
        decision = "" if item is None else decision_text(self.session.decision_of(item), self.pending_final)
        self.query_one("#adjudicate-decision", Static).update(decision)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        stale = event.cursor_row != event.data_table.cursor_row  # the cursor has moved on since
        if not stale and 0 <= event.cursor_row < len(self.session.items):
            self.select(event.cursor_row)

    def select(self, index: int) -> None:
        """Make disagreement ``index`` the current one (a pending choice is for the pair left: dropped)."""
        if index == self.session.index:
            return
        self.pending_final = None
        self.query_one("#adjudicate-reason", Input).value = ""
        self.session.select(index)
        self.show_current()
        table = self.query_one(DataTable)
        if table.cursor_row != index:
            table.move_cursor(row=index)

    def action_step(self, delta: int) -> None:
        if self.session.items:
            self.select(max(0, min(len(self.session.items) - 1, self.session.index + delta)))

    def action_choose(self, final: int) -> None:
        item = self.session.current
        if item is None:
            self.notify("nothing to adjudicate")
            return
        pair = (item.query, item.document)
        if self.query_one(DocumentView).drawn_key != pair:  # typed ahead of the redraw, or squeezed out
            self.set_status(not_on_screen(*pair))
            return
        self.pending_pair = pair
        self.pending_final = final
        reason = self.query_one("#adjudicate-reason", Input)
        decision = self.session.decision_of(item)
        self.prefilled_reason = decision.reason if decision is not None else ""
        reason.value = printable(self.prefilled_reason)  # from the journal: shown safe, kept unless edited
        reason.focus()

    def action_cancel(self) -> None:
        self.pending_final = None
        self.query_one("#adjudicate-reason", Input).value = ""
        self.focus_browsing()

    def focus_browsing(self) -> None:
        """Focus the queue where it is shown, else the document (the arrows' two homes)."""
        queue_shown = not self.has_class("-narrow") or self.has_class("-queue")
        self.query_one(DataTable if queue_shown else DocumentView).focus()

    def action_switch_focus(self) -> None:
        if self.has_class("-narrow") and not self.has_class("-queue"):
            self.add_class("-queue")
            self.query_one(DataTable).focus()
        elif self.query_one(DataTable).has_focus:
            self.query_one(DocumentView).focus()
        else:
            self.query_one(DataTable).focus()

    def action_toggle_queue(self) -> None:
        self.toggle_class("-queue")
        self.focus_browsing()

    def action_toggle_notes(self) -> None:
        self.toggle_class("-notes")
        self.show_current()

    def action_find(self) -> None:
        find_in_document(self.app, self.query_one(DocumentView), self.set_status)

    def action_step_match(self, direction: int) -> None:
        self.set_status(step_match(self.query_one(DocumentView), direction))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.pending_final is None or self.pending_pair is None:
            return
        try:
            # journaled before anything is shown; refused if the current pair is not the one chosen on
            decision_pair = self.pending_pair
            self.session.decide(self.pending_final, edited(event.value, self.prefilled_reason), pair=decision_pair)
        except ContractError as error:
            self.set_status(error.one_line())
            self.action_cancel()
            return
        except OSError as error:  # disk full: the journal refused the line, nothing changed
            self.notify(f"decision NOT recorded: {describe_os_error(error)}", severity="error", timeout=30)
            return
        table = self.query_one(DataTable)
        index = self.session.positions[decision_pair]
        item = self.session.items[index]
        cells = row_cells(self.session, index, item)
        table.update_cell(row_key(item), "final", cells[5])
        table.update_cell(row_key(item), "reason", safe_cell(cells[6]))
        self.decided = self.session.decided
        self.action_cancel()
        table.move_cursor(row=self.session.index)
        self.show_current()
        if self.session.complete and not self.session.written:
            self.write_output(self.session.snapshot())

    def action_help(self) -> None:
        keys = [binding for binding in self.BINDINGS if isinstance(binding, Binding)] + HELP_ONLY
        self.app.push_screen(HelpScreen(keys, title="Adjudication keys", footnote=ADJUDICATION_FOOTNOTE))

    def action_next_undecided(self) -> None:
        found = self.session.first_undecided(self.session.index + 1) if self.session.items else None
        if found is None:
            self.notify("every disagreement is decided")
            return
        self.select(found)
