"""The adjudication screen's text: the queue's rows, the summary line, the pair's context (query,
criterion, both annotators' labels and notes), and the decision (recorded or pending). The
document itself is drawn by the judging screen's ``DocumentView``.

Why apart from the screen: pure functions of the session and the current item (no widget, no
terminal), so they are tested without one and the screen keeps layout, keys and the write flow.
"""

from __future__ import annotations

from rich.text import Text

from rankeval_tui.core.annotation.adjudication import AdjudicationSession, overlap_words
from rankeval_tui.core.annotation.adjudication_journal import Decision
from rankeval_tui.core.annotation.agreement import Disagreement
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.files.annotator_kind import annotator_words
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.core.wording import counted, exact_and_decimal

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


def row_key(item: Disagreement) -> str:
    # IDs never contain whitespace (core.files.check_id), so a space cannot be ambiguous.
    return f"{item.query} {item.document}"


def row_cells(session: AdjudicationSession, index: int, item: Disagreement) -> list[str]:
    """#, query, document, A, B, final ("-" undecided) and the reason cut to its column."""
    decision = session.decision_of(item)
    return [
        str(index + 1),
        item.query,
        item.document,
        str(item.labels[0]),
        str(item.labels[1]),
        "-" if decision is None else str(decision.final),
        "" if decision is None else short(printable(decision.reason), REASON_WIDTH),
    ]


def neighbouring_pairs(session: AdjudicationSession) -> list[tuple[str, str]]:
    """The disagreements after and before the current one: prepared while the adjudicator reads."""
    index, items = session.index, session.items
    return [(items[i].query, items[i].document) for i in (index + 1, index - 1) if 0 <= i < len(items)]


def summary_text(session: AdjudicationSession, decided: int) -> Text:
    """Who is A and B, the adjudicator, Cohen's kappa over every pair, and how many are decided."""
    a, b = session.result.annotators
    overall = session.result.overall
    kappa = exact_and_decimal(overall.kappa) if overall.kappa is not None else f"undefined ({overall.undefined_reason})"
    if not session.items:
        state = "the annotators agree on every pair: nothing to adjudicate; w or q writes the qrels"
    elif session.complete:
        state = f"all {len(session.items)} decided"
    else:
        state = f"{decided}/{len(session.items)} decided, {len(session.items) - decided} left"
    compared = counted(overall.pairs, "pair") if session.coverage is None else overlap_words(session.coverage)
    return Text.assemble(
        ("Adjudication ", "bold"),
        printable(
            f"A = {annotator_words(a)}, B = {annotator_words(b)}; adjudicator {annotator_words(session.adjudicator)}; "
        ),
        f"kappa {kappa}, {compared}; ",
        (state, "bold"),
    )


def context_text(
    definition: ProtocolDefinition,
    item: Disagreement,
    annotators: tuple[str, str],
    place: tuple[int, int],
    *,
    full: bool,
) -> Text:
    """What the adjudicator decides by, above the document: where in the queue, the query, the
    relevance criterion, the need (``full`` only) and each annotator's label and note, one line
    each (the screen cuts them to its width unless ``full``: the document gets the rows)."""
    query = definition.queries[item.query]
    index, total = place
    text = Text.assemble(
        (f"{index + 1}/{total} ", "bold"),
        ("query ", "dim"),
        (printable(item.query), "bold"),
        (" document ", "dim"),
        (printable(item.document), "bold"),
        "  ",
        printable(query.shown_text),
        "\n",
        ("relevance ", "dim"),
        printable(definition.relevance),
        "\n",
        *((("need ", "dim"), printable(query.need), "\n") if query.need and full else ()),
        labels_text(annotators, item),
    )
    text.rstrip()
    return text


def labels_text(annotators: tuple[str, str], item: Disagreement) -> Text:
    """Each annotator's label and note, one line each."""
    parts: list = []
    for name, label, note in zip(annotators, item.labels, item.notes):
        parts += [
            (f"{printable(annotator_words(name))}: ", "bold"),
            (f"{label} {'relevant' if label else 'not relevant'}", "green" if label else ""),
            ("  note: ", "dim"),
            printable(note) if note else ("(no note)", "dim"),
            "\n",
        ]
    return Text.assemble(*parts)


def decision_text(decision: Decision | None, pending_final: int | None) -> Text:
    """The recorded decision (or "undecided"), and the pending choice waiting for its reason."""
    recorded = (
        Text("undecided", style="yellow")
        if decision is None
        else Text.assemble(
            ("decided ", "dim"), (str(decision.final), "bold"), ("  reason: ", "dim"), printable(decision.reason)
        )
    )
    if pending_final is not None:
        recorded.append(
            f"\nnew final {pending_final}: type the reason, Enter records it, Escape cancels",
            style="bold cyan",
        )
    return recorded
