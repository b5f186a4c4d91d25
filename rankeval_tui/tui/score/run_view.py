"""The scoring screen's single-run view: one run's per-query table and its means.

Formatting only: the rows and means come from a ``Report`` of the screen's ``ScoringSession``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from rankeval_tui.core.evaluation.evaluate import QueryRow, Report
from rankeval_tui.core.evaluation.metrics import label, mean_label
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.core.session_cutoffs import ShownMetric
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.core.wording import counted, exact_and_decimal, fraction_fits
from rankeval_tui.tui.score.cells import (
    STYLE_ADJUDICATED,
    STYLE_MISSING,
    STYLE_NO_RELEVANT,
    count_cell,
    decimal_places,
    signed_decimal,
    status_cell,
    value_cell,
)
from rankeval_tui.tui.score.legends import ADJUDICATED_LEGEND, POOLED_RUN_LEGEND, RUN_LEGEND
from rankeval_tui.tui.score.query_lists import named_or_counted
from rankeval_tui.tui.score.score_table import sync_table
from rankeval_tui.tui.score.score_view import ScoreView
from rankeval_tui.tui.score.score_view_state import RunFilter

if TYPE_CHECKING:
    from rankeval_tui.core.session_labels import OtherLabels, RunOrder

FACT_COLUMNS = (
    ("status", "status"),
    ("missing", "missing"),
    ("returned", "returned"),
    ("relevant", "relevant"),
    ("hits", "hits"),
    ("first", "first rel. rank"),
)

FILTER_LABELS = {
    "all": "all queries",
    "missing": "missing queries",
    "no_relevant": "no-relevant queries",
    "adjudicated": "adjudicated queries",
}


def metric_column(shown: ShownMetric, by_cutoff: bool) -> tuple[str, str]:
    """A metric's column key and heading: ``("p", "P@k")`` at the session's k alone, and
    ``("p@5", "P@5")`` when the session names them by cutoff (``ScoringSession.by_cutoff``)."""
    return (shown.key, shown.name) if by_cutoff else (shown.metric, label(shown.metric))


def run_columns(
    shown: Sequence[ShownMetric], by_cutoff: bool = False, other_labels: bool = False
) -> tuple[tuple[str, str], ...]:
    """The query, one column per metric of the session (``metric_column``), then the
    evaluator's facts: the metrics come first so that 80 columns show them. ``other_labels``
    (``--labels``): each metric's column is followed by its value under the other labels (``B``)."""
    metrics = []
    for metric in shown:
        key, name = metric_column(metric, by_cutoff)
        metrics.append((key, name))
        if other_labels:
            metrics.append((f"{key}_labels", f"{name} B"))
    return (("query", "query"), *metrics, *FACT_COLUMNS)


def shown_path(path: Path, protocol_dir: Path) -> str:
    """A run file relative to the protocol directory where it lives there (short, and the
    same on every machine, which keeps snapshots stable)."""
    try:
        return str(path.resolve().relative_to(protocol_dir.resolve()))
    except ValueError:
        return str(path)


def run_cells(
    row: QueryRow, values: Sequence[Fraction | None], adjudicated: bool, memo: dict[int, Text], pooled: bool = False
) -> list[Any]:
    """A row's cells: the query, ``values`` (one per metric column), then the row's facts.
    ``memo`` (one per refresh) holds each value's cell by the value's identity: the evaluator
    shares one Fraction per value, and hashing a Fraction (for ``value_cell``'s cache) was half
    of a 10,000-row refresh; the rows keep the values alive meanwhile."""
    cells = []
    for value in values:
        cell = memo.get(id(value))
        if cell is None:
            cell = memo[id(value)] = value_cell(value, exact=fraction_fits(value))
        cells.append(cell)
    return [
        row.query,
        *cells,
        status_cell(row, adjudicated, pooled),
        "yes" if row.missing else "no",
        count_cell(row.returned),
        count_cell(row.relevant),
        count_cell(row.hits),
        count_cell(row.first_relevant_rank),
    ]


def kept(row: QueryRow, row_filter: RunFilter, adjudicated: Collection[str]) -> bool:
    """Whether ``row`` is shown under ``row_filter``: the same tests the summary's lists use."""
    if row_filter == "missing":
        return row.missing
    if row_filter == "no_relevant":
        return not row.eligible
    if row_filter == "adjudicated":
        return row.query in adjudicated
    return True


def run_summary(
    report: Report, adjudicated: Sequence[str] = (), means: Sequence[tuple[ShownMetric, Report]] = ()
) -> Text:
    """The means (of ``report``'s metrics, or each shown metric of ``means`` from its cutoff's
    report), then the missing / no-relevant / adjudicated queries (named when few, counted when
    many: ``f`` shows them in the table), then the legend."""
    text = Text()
    shown = means or [(ShownMetric(metric, report.k, None), report) for metric in report.metrics]
    for index, (metric, at_cutoff) in enumerate(shown):
        text.append(("   " if index else "mean ") + f"{mean_label(metric.metric, metric.cutoff)} = ", style="bold")
        mean = at_cutoff.mean(metric.metric)
        text.append(decimal_places(mean) if mean is not None and not fraction_fits(mean) else exact_and_decimal(mean))
    lists = (report.missing_queries, report.no_relevant_queries, adjudicated)
    text.append_text(
        Text.assemble(
            f"   over {report.eligible_queries} eligible of {report.total_queries} queries",
            unlisted_words(report),
            "\n",
            ("missing_queries: ", "bold"),
            (named_or_counted(report.missing_queries), STYLE_MISSING),
            ("   no_relevant_in_pool_queries: " if report.pooled else "   no_relevant_queries: ", "bold"),
            (named_or_counted(report.no_relevant_queries), STYLE_NO_RELEVANT),
            ("   adjudicated_queries: ", "bold"),
            (named_or_counted(adjudicated), STYLE_ADJUDICATED),
            ("   (f: show them in the table)" if any(lists) else "", "dim"),
        )
    )
    if report.adapter_sha256:
        text.append(f"\nadapter_sha256 {report.adapter_sha256}", style="dim")
    text.append("\n")
    text.append_text(POOLED_RUN_LEGEND if report.pooled else RUN_LEGEND)
    if adjudicated:
        text.append_text(ADJUDICATED_LEGEND)
    return text


class RunView(ScoreView):
    """Title (run name, file, filter), the per-query table, and the means with the query lists."""

    name_in_ids = "run"

    def show(self, session: ScoringSession, candidate: str | None, protocol_dir: Path, row_filter: RunFilter) -> None:
        table = self.table
        summary = self.query_one("#score-run-summary", Static)
        labelled = session.labels is not None
        if candidate is None:
            self.title.update(Text("no accepted run to show", style=STYLE_MISSING))
            sync_table(table, run_columns(session.shown, session.by_cutoff, labelled), [])
            self.note(None)
            summary.update("")
            return
        report = session.report(candidate)
        shown = session.shown
        at_cutoffs = [session.report_at(candidate, s) for s in shown]  # rows in protocol order, as report's
        adjudicated = session.adjudicated
        rows = [
            (row, [r.rows[index].value(s.metric) for s, r in zip(shown, at_cutoffs)])
            for index, row in enumerate(report.rows)
            if kept(row, row_filter, adjudicated)
        ]
        under_labels = [session.at_cutoff(s.cutoff).report_under_labels(candidate) for s in shown] if labelled else []
        showing = FILTER_LABELS[row_filter]
        self.title.update(
            Text.assemble(
                ("run ", "dim"),
                (printable(report.run), "bold"),
                (printable(f"  {shown_path(report.source, protocol_dir)}") if report.source else "", "dim"),
                ("   showing: ", "dim"),
                (showing if row_filter == "all" else f"{showing} ({len(rows)} of {len(report.rows)})", "bold"),
                ("   (enter: query detail)", "dim"),
                *(labels_words(session.labels) if session.labels is not None else ()),
            )
        )
        memo: dict[int, Text] = {}
        cells = [(row, run_cells(row, values, row.query in adjudicated, memo, report.pooled)) for row, values in rows]
        if labelled:
            positions = {row.query: index for index, row in enumerate(report.rows)}
            cells = [
                (row, side_by_side(row_cells, values, [r.rows[positions[row.query]] for r in under_labels], shown))
                for (row, row_cells), (_, values) in zip(cells, rows)
            ]
        sync_table(table, run_columns(shown, session.by_cutoff, labelled), [(row.query, c) for row, c in cells])
        self.note(
            None if rows else Text(f"no {showing} in run {printable(report.run)} (f: next filter)", style=STYLE_MISSING)
        )
        means = list(zip(shown, at_cutoffs)) if session.by_cutoff else ()
        text = run_summary(report, session.adjudicated_queries(), means)
        if labelled:
            text = Text.assemble(labels_summary(session, candidate, list(zip(shown, at_cutoffs, under_labels))), text)
        summary.update(text)


def unlisted_words(report: Report) -> str:
    """``   unlisted: 553 top-10 pairs 0 by declaration`` under a protocol that declares unlisted
    pairs 0 (the run's pairs labelled by the collection's declaration, not judged), else nothing."""
    if report.unlisted is None:
        return ""
    return f"   unlisted: {counted(report.unlisted, f'top-{report.k} pair')} 0 by declaration"


def labels_words(labels: OtherLabels) -> tuple[tuple[str, str], ...]:
    """The title's ``B = model.toml (model:umbrela (a model))``: whose labels the B columns are."""
    return (("   B = ", "dim"), (printable(labels.who()), "bold"))


def side_by_side(
    cells: list[Any], values: Sequence[Fraction | None], others: Sequence[QueryRow], shown: Sequence[ShownMetric]
) -> list[Any]:
    """``run_cells``' cells with each metric's value under the other labels after its own, bold
    where the two differ (the queries where those labels change the run's score)."""
    paired: list[Any] = [cells[0]]
    for index, (metric, value, other) in enumerate(zip(shown, values, others)):
        theirs = other.value(metric.metric)
        cell = value_cell(theirs, exact=fraction_fits(theirs))
        if theirs != value:
            cell = cell.copy()
            cell.stylize("bold reverse")
        paired += [cells[1 + index], cell]
    return paired + cells[1 + len(shown) :]


def labels_summary(session: ScoringSession, run: str, means: Sequence[tuple[ShownMetric, Report, Report]]) -> Text:
    """Above the usual summary: each mean under the protocol's labels and under B, with the change;
    then, per metric, the runs' order under each label set and the pairs B orders the other way."""
    assert session.labels is not None
    text = Text.assemble(("labels B = ", "bold"), printable(session.labels.who()), "\n")
    for index, (metric, ours, theirs) in enumerate(means):
        mine, other = ours.mean(metric.metric), theirs.mean(metric.metric)
        change = "" if mine is None or other is None or mine == other else f" (Δ {signed_decimal(other - mine)})"
        text.append(("   " if index else "") + f"{mean_label(metric.metric, metric.cutoff)} ", style="bold")
        text.append(f"{decimal_text(mine)} → B {decimal_text(other)}{change}")
    text.append("\n")
    for metric_id, order in session.orders_under_labels().items():
        text.append(f"runs by {mean_label(metric_id, session.protocol.k)}: ", style="bold")
        text.append(f"{order_text(order, 0)}, under B: {order_text(order, 1)}")
        flips = ", ".join(f"{printable(c.first)} vs {printable(c.second)}" for c in order.changes)
        text.append(f"  order changes: {flips}" if flips else "  same order", style="bold yellow" if flips else "dim")
        text.append("\n")
    return text


def order_text(order: RunOrder, side: int) -> str:
    """``old > mid = new``: the runs best first under one label set, ``=`` between equal means."""
    means = order.means[side]
    ranked = order.ranked(side)
    text = printable(ranked[0]) if ranked else ""
    for before, run in zip(ranked, ranked[1:]):
        text += (" = " if means[before] == means[run] else " > ") + printable(run)
    return text


def decimal_text(value: Fraction | None) -> str:
    """A mean in four places (``1`` and ``0`` whole), ``n/a`` without one: two sets side by side."""
    if value is None:
        return "n/a"
    return str(value) if value.denominator == 1 else f"{float(value):.4f}"
