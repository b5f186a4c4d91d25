"""Drill-down of one query: why its numbers are what they are.

Shows the query text and need, then each run's ranking side by side with every document's
label, a cutoff line at k, the first relevant rank (from the evaluator's row), the relevant
documents the run never returned, and the text of the highlighted document. Labels and
rankings are read from the session's protocol and runs; no metric is computed here.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from rankeval_tui.core.evaluation.metrics import label
from rankeval_tui.core.evaluation.render import exact_and_decimal, row_status
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.tui.widgets.delta_chart import STYLE_LOSS, STYLE_MISSING, STYLE_NO_RELEVANT, STYLE_WIN

CUTOFF_KEY = " cutoff"
"""Row key of the cutoff line; document IDs cannot contain spaces, so it never clashes."""


class QueryScreen(Screen[None]):
    """One query under the session's protocol, for the runs the scoring screen was showing."""

    BINDINGS = [
        Binding("escape,backspace", "app.pop_screen", "back", id="query.back"),
        Binding("tab", "app.focus_next", "next run", id="query.next_run", show=False),
        Binding("q", "app.quit", "quit", id="query.quit"),
    ]

    def __init__(self, session: ScoringSession, query: str, runs: Sequence[str]) -> None:
        super().__init__()
        self.session = session
        self.query_id = query
        self.runs = list(runs)

    def compose(self) -> ComposeResult:
        yield Static(self.head_text(), id="query-head")
        with Horizontal(id="query-runs"):
            for index, name in enumerate(self.runs):
                with Vertical(classes="query-run"):
                    yield Static(self.run_title(name), classes="query-run-title")
                    yield DataTable(id=f"query-table-{index}", classes="query-table", cursor_type="row")
                    yield Static(self.run_footer(name), classes="query-run-footer")
        yield Static(Text("highlight a document to read it", style="dim"), id="query-doc")
        yield Footer()

    def on_mount(self) -> None:
        for index, name in enumerate(self.runs):
            self.fill(self.query_one(f"#query-table-{index}", DataTable), name)

    # ------------------------------------------------------------------ content

    def head_text(self) -> Text:
        protocol = self.session.protocol
        meta = protocol.queries[self.query_id]
        relevant = [d for d in protocol.documents if protocol.qrels[self.query_id][d] == 1]
        text = Text.assemble(
            ("query ", "dim"),
            (self.query_id, "bold"),
            ("  split ", "dim"),
            meta.split,
            ("  k ", "dim"),
            str(protocol.k),
            ("  sha256 ", "dim"),
            protocol.protocol_sha256[:12],
            "\n",
            (meta.text, "bold"),
        )
        if meta.need:
            text.append(f"\nneed: {meta.need}", style="italic")
        text.append("\nrelevant: ", style="dim")
        if relevant:
            text.append(", ".join(relevant), style=STYLE_WIN)
            text.append(f"  ({len(relevant)} of {len(protocol.documents)} documents)", style="dim")
        else:
            text.append("none: every metric is null for this query, excluded from the means", style=STYLE_NO_RELEVANT)
        return text

    def run_title(self, name: str) -> Text:
        row = self.session.report(name).row(self.query_id)
        k = self.session.protocol.k
        first = "null" if row.first_relevant_rank is None else str(row.first_relevant_rank)
        text = Text.assemble(
            (name, "bold"),
            "\nfirst relevant rank ",
            (first, "bold"),
            "\n" + "  ".join(f"{label(m, k)} {exact_and_decimal(row.value(m))}" for m in self.session.metrics),
        )
        status = row_status(row)
        if status:
            text.append(f"\n{status}", style=STYLE_NO_RELEVANT if not row.eligible else STYLE_MISSING)
        return text

    def run_footer(self, name: str) -> Text:
        protocol = self.session.protocol
        ranking = self.session.scored_run(name).rankings.get(self.query_id)
        relevant = [d for d in protocol.documents if protocol.qrels[self.query_id][d] == 1]
        never = [d for d in relevant if ranking is None or d not in ranking]
        text = Text("relevant never returned: ", style="dim")
        text.append(", ".join(never) if never else "none", style=STYLE_LOSS if never else "")
        return text

    def fill(self, table: DataTable, name: str) -> None:
        """Rank, document, label, and the cutoff line after rank k (or after a shorter ranking)."""
        protocol = self.session.protocol
        labels = protocol.qrels[self.query_id]
        ranking = self.session.scored_run(name).rankings.get(self.query_id)
        first = self.session.report(name).row(self.query_id).first_relevant_rank
        k = protocol.k
        table.add_column("rank", key="rank")
        table.add_column("doc", key="doc")
        table.add_column("label", key="label")
        table.add_column("", key="note")
        if ranking is None:
            table.add_row("", Text("MISSING", style=STYLE_MISSING), "", "no ranking for this query", key=CUTOFF_KEY)
            return
        for rank, doc in enumerate(ranking, 1):
            label = labels[doc]
            table.add_row(
                Text(str(rank), justify="right"),
                doc,
                Text("1 relevant", style=STYLE_WIN) if label == 1 else Text("0", style="dim"),
                Text("← first relevant", style="bold") if rank == first else "",
                key=doc,
            )
            if rank == k:
                table.add_row("", Text(f"── cutoff k={k} ──", style="bold cyan"), "", "", key=CUTOFF_KEY)
        if len(ranking) < k:
            table.add_row(
                "",
                Text(f"── cutoff k={k} ──", style="bold cyan"),
                "",
                Text(f"ranking has {len(ranking)}", style="dim"),
                key=CUTOFF_KEY,
            )

    @on(DataTable.RowHighlighted)
    def show_document(self, event: DataTable.RowHighlighted) -> None:
        """The highlighted document's text and label, so a label can be checked against it."""
        doc = event.row_key.value
        if doc is None or doc == CUTOFF_KEY:
            return
        label = self.session.protocol.qrels[self.query_id][doc]
        self.query_one("#query-doc", Static).update(
            Text.assemble(
                (doc, "bold"),
                ("  label ", "dim"),
                (str(label), STYLE_WIN if label else "dim"),
                "  ",
                self.session.protocol.documents[doc],
            )
        )
