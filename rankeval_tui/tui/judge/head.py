"""The judging screen's text around the document: the query head (query, need, relevance,
progress), the pair line (document ID, position, label, marks) and the status row (last key, pace).

Split from ``JudgeScreen`` so the screen keeps the keys and the session calls, and these widgets
only draw what they are given: each update touches a few Statics, never a table of all pairs.
Blind judging holds here too: nothing of a run (rank, score) is ever passed in.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import ProgressBar, Static

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition, Query
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.core.wording import floored_percent

LABEL_TEXT = {None: ("unjudged", "bold yellow"), 0: ("0  not relevant", "bold"), 1: ("1  relevant", "bold green")}
UNLISTED_TEXT = ("0  unlisted: by the collection's declaration", "dim")
"""An unlabelled pair of a protocol that declares unlisted pairs 0: not judged, and said so."""


def label_shown(label: int | None, definition: ProtocolDefinition) -> tuple[str, str]:
    """A pair's label in words and its style: the binary scale's, a graded protocol's grade with
    its word, or a declared zero (``unlisted_as_zero``) kept apart from a judged 0."""
    if label is None:
        return UNLISTED_TEXT if definition.unlisted_as_zero else LABEL_TEXT[None]
    scale = definition.scale
    if scale is None:
        return LABEL_TEXT[label]
    return f"{label}  {printable(scale.words[label])}", "bold green" if label >= scale.relevant_from else "bold"


def grades_legend(definition: ProtocolDefinition) -> Text | None:
    """``Grades (relevant from 2): 0 not relevant · 1 partly · 2 relevant`` for a graded protocol
    (each grade's key is its number; one line while the head is folded, in full unfolded), None for
    the binary one (its keys 0 and 1 are in the footer)."""
    scale = definition.scale
    if scale is None:
        return None
    words = " · ".join(f"{grade} {printable(word)}" for grade, word in enumerate(scale.words))
    return Text.assemble(("Grades ", "bold"), (f"(relevant from {scale.relevant_from}): ", "dim"), words)


class JudgeHead(Vertical):
    """Query, need and relevance criterion, then the query's and the whole job's progress.

    Starts folded (class ``-folded``: the need and the criterion one line each), so the document
    below keeps its lines at 80x24; ``toggle_fold`` shows them in full."""

    def __init__(self, relevance: str, total: int, legend: Text | None = None) -> None:
        super().__init__(id="judge-head", classes="-folded")
        self.relevance = relevance
        self.total = total
        self.legend = legend
        self.shown_query: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="judge-query")
        yield Static(id="judge-need")
        yield Static(Text.assemble(("Relevance: ", "bold"), printable(self.relevance)), id="judge-criterion")
        if self.legend is not None:
            yield Static(self.legend, id="judge-grades")
        with Horizontal(id="judge-progress"):
            yield Static(id="judge-query-count")
            yield ProgressBar(show_eta=False, show_percentage=False, id="judge-query-bar")
            yield Static(id="judge-total-count")
            yield ProgressBar(total=self.total, show_eta=False, show_percentage=False, id="judge-total-bar")

    def show_query(self, query: str, session: JudgingSession) -> None:
        """The session's current query: redrawn only when it changed, since most labels move on to
        the next document of the same query."""
        if query != self.shown_query:
            self.draw_query(
                query, session.definition.queries[query], session.cursor.query_index + 1, len(session.cursor.query_ids)
            )
            self.shown_query = query

    def draw_query(self, query: str, meta: Query, position: int, count: int) -> None:
        """The query at ``position`` (1-based) of ``count``: ID, split and text; its need, if any."""
        self.query_one("#judge-query", Static).update(
            Text.assemble(
                ("Query ", "bold"),
                (query, "bold"),
                ("  split ", "dim"),
                printable(meta.split),
                ("  ", ""),
                (f"{position} of {count}", "dim"),
                "\n",
                printable(meta.shown_text),
            )
        )
        need = self.query_one("#judge-need", Static)
        need.display = bool(meta.need)
        need.update(Text.assemble(("Need ", "bold"), ("(e) ", "dim"), printable(meta.need or "")))

    def show_progress(self, query_done: int, query_size: int, judged: int) -> None:
        self.query_one("#judge-query-count", Static).update(progress_text("query", query_done, query_size))
        self.query_one("#judge-query-bar", ProgressBar).update(total=query_size, progress=query_done)
        self.query_one("#judge-total-count", Static).update(progress_text("overall", judged, self.total))
        self.query_one("#judge-total-bar", ProgressBar).update(progress=judged)

    def toggle_fold(self) -> None:
        self.toggle_class("-folded")


class PairRow(Horizontal):
    """The pair line (cut with an ellipsis if it must be) and, at the right, the position."""

    shown: tuple[JudgingSession, Static] | None = None

    def on_resize(self) -> None:
        """The room for the document ID changed: cut it again, once the new width is laid out."""
        if self.shown is not None:
            self.call_after_refresh(self.show, *self.shown)

    def compose(self) -> ComposeResult:
        yield Static(id="judge-pair")
        yield Static(id="judge-position")

    def show(self, session: JudgingSession, note_line: Static) -> None:
        """The current pair; its note (if any) in ``note_line`` below, one line of its own."""
        self.shown = (session, note_line)
        pair = self.query_one("#judge-pair", Static)
        line, position, note = current_pair_line(session, pair.content_size.width)
        pair.update(line)
        self.query_one("#judge-position", Static).update(position)
        note_line.display = note is not None
        note_line.update(Text.assemble(("note: ", "bold cyan"), printable(note or ""), ("   (n: edit)", "dim")))


class StatusRow(Horizontal):
    """The bottom line: what the last key did (cut with an ellipsis), and at its right the pace
    and time left (``~41 min left at 14 s/judgment``, empty until three judgments are timed)."""

    def compose(self) -> ComposeResult:
        yield Static(id="judge-status")
        yield Static(id="judge-pace")


def pair_line(doc: str, label: tuple[str, str], *, imported: bool, disputed: bool, id_room: int = 0) -> Text:
    """``Document d2   label: unjudged   imported   DISPUTED``: one line, what the annotator must
    see. The position sits at the row's right and the note on its own line (at 80 columns both
    were cut off the end of this line); a document ID longer than ``id_room`` cells (0: no limit)
    is cut in its middle, so its distinctive end and the label stay in view. ``label``: its
    words and style (``label_shown``)."""
    label_text, label_style = label
    if id_room and cell_len(doc) > id_room:
        doc = middle_cut(doc, id_room)
    line = Text.assemble(("Document ", "bold"), (doc, "bold"), "   label: ", (label_text, label_style))
    if imported:
        line.append("   imported", style="italic magenta")
    if disputed:
        line.append("   DISPUTED", style="bold red")
    return line


def middle_cut(text: str, room: int) -> str:
    """``msmarco_v2.1_doc…00_12345``: ``text`` in ``room`` characters, its start and end kept."""
    room = max(room, 3)
    head = (room - 1) // 2
    return text[:head] + "…" + text[len(text) - (room - 1 - head) :]


def progress_text(what: str, done: int, total: int) -> str:
    """``overall 239/240 99% · 1 left``: the exact count, its floored percentage, and what is
    left, so a nearly done job never reads as complete."""
    left = total - done
    return f"{what} {done}/{total} {floored_percent(done, total)}" + (f" · {left} left" if left else "")


def current_pair_line(session: JudgingSession, width: int = 0) -> tuple[Text, str, str | None]:
    """The session's current pair for a pair line ``width`` cells wide (0: not laid out yet): the
    pair line, the position in its query (``2 of 6``) and the note (None without one)."""
    query, doc = session.cursor.current
    position = (
        f"{session.cursor.doc_index + 1:,} of {len(session.cursor.docs_of[query]):,}"  # the query is named just above
    )
    label = label_shown(session.marks.label_of(query, doc), session.definition)
    imported, disputed = session.marks.is_imported(query, doc), session.marks.is_disputed(query, doc)
    rest = pair_line("", label, imported=imported, disputed=disputed).cell_len
    line = pair_line(doc, label, imported=imported, disputed=disputed, id_room=max(width - rest, 12) if width else 0)
    return line, position, session.marks.note_of(query, doc)
