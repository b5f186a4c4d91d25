"""The overview: every pair of the protocol at a glance, and a jump to any of them.

It reads the judging session (never a file) and returns the chosen pair to the judging
screen, which records the jump (or ``QUIT``: the judging screen then quits as its own ``q``
does); this screen changes nothing itself.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Static

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.wording import counted
from rankeval_tui.tui.judge.dialogs import JUDGING_FOOTNOTE
from rankeval_tui.tui.judge.head import label_shown
from rankeval_tui.tui.judge.label_matrix import LabelMatrix
from rankeval_tui.tui.judge.matrix_cells import UNJUDGED, column_caption
from rankeval_tui.tui.judge.messages import EVERY_PAIR_JUDGED
from rankeval_tui.tui.widgets.help_screen import HelpScreen
from rankeval_tui.tui.widgets.pinned_footer import PinnedFooter

QUIT = "quit"
"""The overview's result when the annotator quits from it: judging quits, as with its own ``q``."""


class OverviewScreen(Screen[tuple[str, str] | str | None]):
    """Queries x documents: 1, 0, unjudged, disputed. Enter jumps to the pair under the cursor."""

    BINDINGS = [
        Binding("escape", "back", "Back", id="overview.back"),
        Binding("o", "back", "Back", show=False, id="overview.back_o"),
        Binding("g", "next_unjudged", "Next unjudged", id="overview.next_unjudged"),
        Binding("question_mark", "help", "Help", key_display="?", id="overview.help"),
        Binding("q", "quit", "Quit", tooltip="quit judging (as q on the judging screen)", id="overview.quit"),
    ]

    def __init__(self, session: JudgingSession) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        session = self.session
        yield Header(show_clock=False)
        if session.order == "corpus":
            order = "corpus order"
            columns = "columns: doc # = n-th document in corpus order; rows: query, judged/total"
        else:
            order = f"shuffled, seed {session.seed}"
            columns = (
                "columns: pos # = position in each query's own shuffled order (not one document "
                "per column); rows: query, judged/total"
            )
        yield Static(
            Text.assemble(
                ("Overview ", "bold"),
                f"{counted(len(session.cursor.query_ids), 'query')} x {columns_of(session)}, {order}; "
                f"{session.marks.remaining} of {session.marks.total} left   ",
                ("1", "bold green"),
                " relevant  ",
                ("0", "bold"),
                " not relevant  ",
                (UNJUDGED, "bold yellow"),
                " unjudged  ",
                ("x", "reverse red"),
                " disputed",
                *((("  ", ""), ("1", "italic underline"), (" imported", "")) if session.marks.imported.source else ()),
                "\n",
                (columns, "dim"),
            ),
            id="overview-legend",
        )
        yield LabelMatrix(session, id="overview-matrix")
        yield Static(id="overview-cell")
        yield PinnedFooter(("help", "quit"))

    def on_mount(self) -> None:
        self.sub_title = "overview"
        self.query_one(LabelMatrix).focus()
        self.show_cell(*self.session.cursor.current, self.session.cursor.doc_index)

    def show_cell(self, query: str, doc: str, col: int) -> None:
        """Describe the cell under the cursor: its column (as numbered on the ruler), pair and state."""
        label = self.session.marks.label_of(query, doc)
        state = cell_state(label, self.session.definition)
        extra = "  disputed" if self.session.marks.is_disputed(query, doc) else ""
        imported = (
            "  imported" if self.session.marks.is_imported(query, doc) else ""
        )  # the source: judge screen, provenance
        note = "  note" if self.session.marks.note_of(query, doc) else ""
        self.query_one("#overview-cell", Static).update(
            Text.assemble(
                (column_caption(self.session.order), "dim"),
                f"{col + 1:<4}",
                ("query ", "dim"),
                query,
                ("  document ", "dim"),
                doc,
                "  ",
                state,
                (extra, "red"),
                (imported, "italic magenta"),
                (note, "cyan"),
            )
        )

    def on_label_matrix_moved(self, message: LabelMatrix.Moved) -> None:
        self.show_cell(message.query, message.doc, message.col)

    def on_label_matrix_selected(self, message: LabelMatrix.Selected) -> None:
        self.dismiss((message.query, message.doc))

    def action_back(self) -> None:
        self.dismiss(None)

    def action_quit(self) -> None:
        self.dismiss(QUIT)

    def action_help(self) -> None:
        keys = [b for b in (*self.BINDINGS, *LabelMatrix.BINDINGS) if isinstance(b, Binding)]
        self.app.push_screen(HelpScreen(keys, title="Overview keys", footnote=JUDGING_FOOTNOTE))

    def action_next_unjudged(self) -> None:
        """Move the matrix cursor (not the session) to the next unjudged cell after it."""
        matrix = self.query_one(LabelMatrix)
        found = self.session.cursor.find_unjudged(*matrix.cursor)
        if found is None:
            self.notify(EVERY_PAIR_JUDGED)
        else:
            matrix.cursor = found


def columns_of(session: JudgingSession) -> str:
    """``6 documents``, or for a pooled protocol ``its own pool`` (rows differ in length)."""
    if session.definition.pools is not None:
        return "its own pool"
    return counted(len(session.definition.documents), "document")


BINARY_STATE = {None: "unjudged", 0: "0 not relevant", 1: "1 relevant"}


def cell_state(label: int | None, definition: ProtocolDefinition) -> str:
    """The cell line's words for a label: the binary scale's own, else as the pair line says it
    (a graded protocol's grade and word, a declared zero of ``unlisted_as_zero``)."""
    if definition.scale is None and (label is not None or not definition.unlisted_as_zero):
        return BINARY_STATE[label]
    return label_shown(label, definition)[0]
