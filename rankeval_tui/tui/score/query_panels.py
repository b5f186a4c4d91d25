"""The drill-down's text: the query's head, and per run its title, ranking rows and footer.

Why apart from the screen: these are pure functions of the session (labels, rankings and the
evaluator's rows; no metric is computed here), so they can be read and tested without a terminal,
and the screen keeps only layout, paging and focus.
"""

from __future__ import annotations

from rich.text import Text

from rankeval_tui.core.evaluation.explain import rank_changes
from rankeval_tui.core.evaluation.metrics import label
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition
from rankeval_tui.core.evaluation.render import row_status
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.core.wording import exact_and_decimal
from rankeval_tui.tui.score.cells import STYLE_MISSING, STYLE_NO_RELEVANT, STYLE_WIN
from rankeval_tui.tui.score.explain_text import movement_cell

CUTOFF_KEY = " cutoff"
"""Row key of the cutoff line; document IDs cannot contain spaces, so it never clashes."""

RANKING_HEADER = ("rank", "doc", "label", "")
RANKING_KEYS = ("rank", "doc", "label", "note")


def ranking_header(compared: bool) -> tuple[str, ...]:
    """The ranking table's column labels; the last column says how a document moved between
    the compared runs (``compared``), else marks the first relevant document."""
    return (*RANKING_HEADER[:3], "moved") if compared else RANKING_HEADER


def relevant_documents(protocol: Protocol, query_id: str) -> list[str]:
    """The query's relevant documents (label 1, or a grade from ``relevant_from``), in protocol order."""
    relevant = protocol.relevant[query_id]
    return [d for d in protocol.definition.documents_of(query_id) if d in relevant]


def query_head(session: ScoringSession, query_id: str) -> Text:
    """ID, split, k, protocol hash, the text and need, and the relevant documents (or why none)."""
    protocol = session.protocol
    meta = protocol.queries[query_id]
    relevant = relevant_documents(protocol, query_id)
    text = Text.assemble(
        ("query ", "dim"),
        (query_id, "bold"),
        ("  split ", "dim"),
        printable(meta.split),
        ("  k ", "dim"),
        str(protocol.k),
        ("  sha256 ", "dim"),
        protocol.protocol_sha256[:12],
        "\n",
        (printable(meta.shown_text), "bold"),
    )
    if meta.need:
        text.append(f"\nneed: {printable(meta.need)}", style="italic")
    text.append("\nrelevant: ", style="dim")
    if relevant:
        text.append(", ".join(relevant), style=STYLE_WIN)
        judged = len(protocol.definition.documents_of(query_id))
        where = "in its pool of" if protocol.kind == "pooled" else "of"
        text.append(f"  ({len(relevant)} {where} {judged} documents)", style="dim")
    else:
        text.append("none: every metric is null for this query, excluded from the means", style=STYLE_NO_RELEVANT)
    return text


def run_title(session: ScoringSession, query_id: str, name: str) -> Text:
    """The run, its first relevant rank, its metric values and the row's status (missing, no relevant)."""
    row = session.report(name).row(query_id)
    values = (
        f"{label(s.metric, s.cutoff)} {exact_and_decimal(session.report_at(name, s).row(query_id).value(s.metric))}"
        for s in session.shown
    )
    first = "-" if row.first_relevant_rank is None else str(row.first_relevant_rank)
    text = Text.assemble(
        (printable(name), "bold"),
        "  first relevant rank ",
        (first, "bold"),
        "\n" + "  ".join(values),
    )
    status = row_status(row, session.protocol.kind == "pooled")
    if status:
        text.append(f"\n{status}", style=STYLE_NO_RELEVANT if not row.eligible else STYLE_MISSING)
    return text


def label_cell(label: int | None, definition: ProtocolDefinition) -> Text:
    """``1 relevant``, ``0``, or (past k under a pooled protocol: outside the pool) ``unjudged``;
    a graded protocol's grade (``3 relevant`` from ``relevant_from`` up), and under
    ``unlisted_as_zero`` an unlisted pair's ``0 unlisted`` (by declaration, not judged)."""
    if label is None:
        if definition.unlisted_as_zero:
            return Text("0 unlisted", style="italic dim")
        return Text("unjudged", style="italic dim")
    if label >= definition.relevant_from:
        return Text(f"{label} relevant", style=STYLE_WIN)
    return Text(str(label), style="dim")


def label_number(label: int | None, definition: ProtocolDefinition) -> Text:
    """The highlighted document's label, tersely: its number (green from ``relevant_from`` up),
    ``unjudged``, or under ``unlisted_as_zero`` ``0 unlisted`` (by declaration, not judged)."""
    if label is None:
        return Text("0 unlisted" if definition.unlisted_as_zero else "unjudged", style="dim")
    return Text(str(label), style=STYLE_WIN if label >= definition.relevant_from else "dim")


def ranking_rows(
    session: ScoringSession, query_id: str, name: str, other: str | None = None, candidate_side: bool = False
) -> list[tuple[str, tuple[object, ...]]]:
    """(row key, cells) of rank, document, label and note, with the cutoff line after rank k
    (or after a shorter ranking, saying how long it is); one MISSING row when the run has none.
    The note marks the first relevant document, or with ``other`` (the compared run) says how the
    document moved between the baseline and the candidate (``candidate_side``: this run is the
    candidate; ``movement_cell``): in the same width, so two panels still fit 140 columns with
    long IDs (the first relevant rank is in the panel's title and its explanation)."""
    protocol = session.protocol
    labels = protocol.qrels.get(query_id, {})
    ranking = session.scored_run(name).rankings.get(query_id)
    first = session.report(name).row(query_id).first_relevant_rank
    k = protocol.k
    cutoff = Text(f"── cutoff k={k} ──", style="bold cyan")
    changes = {}
    if other is not None:
        theirs = session.scored_run(other).rankings.get(query_id)
        changes = rank_changes(*((theirs, ranking) if candidate_side else (ranking, theirs)))
    rows: list[tuple[str, tuple[object, ...]]] = []
    if ranking is None:
        rows.append((CUTOFF_KEY, ("", Text("MISSING", style=STYLE_MISSING), "", "no ranking for this query")))
    for rank, doc in enumerate(ranking or (), 1):
        cells = (
            Text(str(rank), justify="right"),
            Text(doc),
            label_cell(labels.get(doc), protocol.definition),
            movement_cell(changes.get(doc), candidate_side)
            if other is not None
            else Text("← first relevant", style="bold")
            if rank == first
            else "",
        )
        rows.append((doc, cells))
        if rank == k:
            rows.append((CUTOFF_KEY, ("", cutoff, "", "")))
    if ranking is not None and len(ranking) < k:
        rows.append((CUTOFF_KEY, ("", cutoff, "", Text(f"ranking has {len(ranking)}", style="dim"))))
    return rows
