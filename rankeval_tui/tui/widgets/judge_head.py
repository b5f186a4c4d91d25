"""The judging screen's text around the document: the query head (query, need, relevance,
progress) and the pair line (document ID, position, label, marks).

Split from ``JudgeScreen`` so the screen keeps the keys and the session calls, and these widgets
only draw what they are given: each update touches a few Statics, never a table of all pairs.
Blind judging holds here too: nothing of a run (rank, score) is ever passed in.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import ProgressBar, Static

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.evaluation.protocol import Query
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.core.wording import floored_percent

LABEL_TEXT = {None: ("unjudged", "bold yellow"), 0: ("0  not relevant", "bold"), 1: ("1  relevant", "bold green")}


class JudgeHead(Vertical):
    """Query, need and relevance criterion, then the query's and the whole job's progress.

    Starts folded (class ``-folded``: the need and the criterion one line each), so the document
    below keeps its lines at 80x24; ``toggle_fold`` shows them in full."""

    def __init__(self, relevance: str, total: int) -> None:
        super().__init__(id="judge-head", classes="-folded")
        self.relevance = relevance
        self.total = total
        self.shown_query: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="judge-query")
        yield Static(id="judge-need")
        yield Static(Text.assemble(("Relevance: ", "bold"), printable(self.relevance)), id="judge-criterion")
        with Horizontal(id="judge-progress"):
            yield Static(id="judge-query-count")
            yield ProgressBar(show_eta=False, show_percentage=False, id="judge-query-bar")
            yield Static(id="judge-total-count")
            yield ProgressBar(total=self.total, show_eta=False, show_percentage=False, id="judge-total-bar")

    def show_query(self, query: str, session: JudgingSession) -> None:
        """The session's current query: redrawn only when it changed, since most labels move on to
        the next document of the same query."""
        if query != self.shown_query:
            self.draw_query(query, session.definition.queries[query], session.query_index + 1, len(session.query_ids))
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
                printable(meta.text),
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


def pair_line(
    doc: str,
    position: int,
    count: int,
    query: str,
    label: int | None,
    *,
    imported: bool,
    disputed: bool,
    note: str | None,
) -> Text:
    """``Document d2   label: unjudged   imported   DISPUTED   2 of 6 in q1   note: ...``: one line
    (the screen cuts it with an ellipsis rather than wrap it over the document), so what the
    annotator must see comes first: the document, its label and marks; the position (also in
    the progress line) and the note (also under ``n``) after."""
    label_text, label_style = LABEL_TEXT[label]
    line = Text.assemble(("Document ", "bold"), (doc, "bold"), "   label: ", (label_text, label_style))
    if imported:
        line.append("   imported", style="italic magenta")
    if disputed:
        line.append("   DISPUTED", style="bold red")
    line.append(f"   {position} of {count} in {query}", style="dim")
    if note:
        line.append("   note: ", style="bold cyan")
        line.append(printable(note))
    return line


def progress_text(what: str, done: int, total: int) -> str:
    """``overall 239/240 99% · 1 left``: the exact count, its floored percentage, and what is
    left, so a nearly done job never reads as complete."""
    left = total - done
    return f"{what} {done}/{total} {floored_percent(done, total)}" + (f" · {left} left" if left else "")


def current_pair_line(session: JudgingSession) -> Text:
    """``pair_line`` of the session's current pair, with its label and marks."""
    query, doc = session.current
    return pair_line(
        doc,
        session.doc_index + 1,
        len(session.docs_of[query]),
        query,
        session.label_of(query, doc),
        imported=session.is_imported(query, doc),
        disputed=session.is_disputed(query, doc),
        note=session.note_of(query, doc),
    )
