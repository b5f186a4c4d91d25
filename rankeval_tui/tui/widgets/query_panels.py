"""The drill-down's text: the query's head, and per run its title, ranking rows and footer.

Why apart from the screen: these are pure functions of the session (labels, rankings and the
evaluator's rows; no metric is computed here), so they can be read and tested without a terminal,
and the screen keeps only layout, paging and focus.
"""

from __future__ import annotations

from rich.text import Text

from rankeval_tui.core.evaluation.metrics import label
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.evaluation.render import row_status
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.core.wording import exact_and_decimal
from rankeval_tui.tui.widgets.delta_chart import STYLE_LOSS, STYLE_MISSING, STYLE_NO_RELEVANT, STYLE_WIN

CUTOFF_KEY = " cutoff"
"""Row key of the cutoff line; document IDs cannot contain spaces, so it never clashes."""

RANKING_HEADER = ("rank", "doc", "label", "")


def relevant_documents(protocol: Protocol, query_id: str) -> list[str]:
    return [d for d in protocol.documents if protocol.qrels[query_id][d] == 1]


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
        (printable(meta.text), "bold"),
    )
    if meta.need:
        text.append(f"\nneed: {printable(meta.need)}", style="italic")
    text.append("\nrelevant: ", style="dim")
    if relevant:
        text.append(", ".join(relevant), style=STYLE_WIN)
        text.append(f"  ({len(relevant)} of {len(protocol.documents)} documents)", style="dim")
    else:
        text.append("none: every metric is null for this query, excluded from the means", style=STYLE_NO_RELEVANT)
    return text


def run_title(session: ScoringSession, query_id: str, name: str) -> Text:
    """The run, its first relevant rank, its metric values and the row's status (missing, no relevant)."""
    row = session.report(name).row(query_id)
    k = session.protocol.k
    first = "-" if row.first_relevant_rank is None else str(row.first_relevant_rank)
    text = Text.assemble(
        (printable(name), "bold"),
        "  first relevant rank ",
        (first, "bold"),
        "\n" + "  ".join(f"{label(m, k)} {exact_and_decimal(row.value(m))}" for m in session.metrics),
    )
    status = row_status(row)
    if status:
        text.append(f"\n{status}", style=STYLE_NO_RELEVANT if not row.eligible else STYLE_MISSING)
    return text


def run_footer(session: ScoringSession, query_id: str, name: str) -> Text:
    """The relevant documents the run never returned: what no cutoff could have found."""
    ranking = session.scored_run(name).rankings.get(query_id)
    never = [d for d in relevant_documents(session.protocol, query_id) if ranking is None or d not in ranking]
    text = Text("relevant never returned: ", style="dim")
    text.append(", ".join(never) if never else "none", style=STYLE_LOSS if never else "")
    return text


def ranking_rows(session: ScoringSession, query_id: str, name: str) -> list[tuple[str, tuple[object, ...]]]:
    """(row key, cells) of rank, document, label and note, with the cutoff line after rank k
    (or after a shorter ranking, saying how long it is); one MISSING row when the run has none."""
    protocol = session.protocol
    labels = protocol.qrels[query_id]
    ranking = session.scored_run(name).rankings.get(query_id)
    first = session.report(name).row(query_id).first_relevant_rank
    k = protocol.k
    cutoff = Text(f"── cutoff k={k} ──", style="bold cyan")
    rows: list[tuple[str, tuple[object, ...]]] = []
    if ranking is None:
        rows.append((CUTOFF_KEY, ("", Text("MISSING", style=STYLE_MISSING), "", "no ranking for this query")))
    for rank, doc in enumerate(ranking or (), 1):
        cells = (
            Text(str(rank), justify="right"),
            doc,
            Text("1 relevant", style=STYLE_WIN) if labels[doc] == 1 else Text("0", style="dim"),
            Text("← first relevant", style="bold") if rank == first else "",
        )
        rows.append((doc, cells))
        if rank == k:
            rows.append((CUTOFF_KEY, ("", cutoff, "", "")))
    if ranking is not None and len(ranking) < k:
        rows.append((CUTOFF_KEY, ("", cutoff, "", Text(f"ranking has {len(ranking)}", style="dim"))))
    return rows
