"""The scoring screen's single-run view: one run's per-query table and its means.

Formatting only: the rows and means come from a ``Report`` of the screen's ``ScoringSession``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from rankeval_tui.core.evaluation.evaluate import QueryRow, Report
from rankeval_tui.core.evaluation.metrics import MetricId, label, mean_label
from rankeval_tui.core.evaluation.render import exact_and_decimal
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.tui.widgets.delta_chart import (
    STYLE_ADJUDICATED,
    STYLE_MISSING,
    STYLE_NO_RELEVANT,
    count_cell,
    status_cell,
    value_cell,
)
from rankeval_tui.tui.widgets.legends import ADJUDICATED_LEGEND, RUN_LEGEND
from rankeval_tui.tui.widgets.score_table import ScoreTable, sync_table

FACT_COLUMNS = (
    ("query", "query"),
    ("status", "status"),
    ("missing", "missing"),
    ("returned", "returned"),
    ("relevant", "relevant"),
    ("hits", "hits"),
    ("first", "first rel. rank"),
)


def run_columns(metrics: Sequence[MetricId]) -> tuple[tuple[str, str], ...]:
    """The evaluator's facts, then one column per metric of the session (keyed by metric id)."""
    return (*FACT_COLUMNS, *((metric, label(metric)) for metric in metrics))


def shown_path(path: Path, protocol_dir: Path) -> str:
    """A run file relative to the protocol directory where it lives there (short, and the
    same on every machine, which keeps snapshots stable)."""
    try:
        return str(path.resolve().relative_to(protocol_dir.resolve()))
    except ValueError:
        return str(path)


def run_cells(row: QueryRow, metrics: Sequence[MetricId], adjudicated: bool = False) -> list[Any]:
    return [
        row.query,
        status_cell(row, adjudicated),
        "yes" if row.missing else "no",
        count_cell(row.returned),
        count_cell(row.relevant),
        count_cell(row.hits),
        count_cell(row.first_relevant_rank),
        *(value_cell(row.value(metric)) for metric in metrics),
    ]


def run_summary(report: Report, adjudicated: Sequence[str] = ()) -> Text:
    k = report.k
    text = Text()
    for index, metric in enumerate(report.metrics):
        text.append(("   " if index else "mean ") + f"{mean_label(metric, k)} = ", style="bold")
        text.append(exact_and_decimal(report.mean(metric)))
    text.append_text(
        Text.assemble(
            f"   over {report.eligible_queries} eligible of {report.total_queries} queries\n",
            ("missing_queries: ", "bold"),
            (", ".join(report.missing_queries) or "none", STYLE_MISSING),
            ("   no_relevant_queries: ", "bold"),
            (", ".join(report.no_relevant_queries) or "none", STYLE_NO_RELEVANT),
            ("   adjudicated_queries: ", "bold"),
            (", ".join(adjudicated) or "none", STYLE_ADJUDICATED),
        )
    )
    if report.adapter_sha256:
        text.append(f"\nadapter_sha256 {report.adapter_sha256}", style="dim")
    text.append("\n")
    text.append_text(RUN_LEGEND)
    if adjudicated:
        text.append_text(ADJUDICATED_LEGEND)
    return text


class RunView(Vertical):
    """Title (run name, file), the per-query table, and the means with the query lists."""

    def compose(self) -> ComposeResult:
        yield Static("", id="score-run-title", classes="score-title")
        yield ScoreTable(id="score-run-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="score-run-summary", classes="score-summary")

    def show(self, session: ScoringSession, candidate: str | None, protocol_dir: Path) -> None:
        table = self.query_one(ScoreTable)
        title = self.query_one("#score-run-title", Static)
        summary = self.query_one("#score-run-summary", Static)
        if candidate is None:
            title.update(Text("no accepted run to show", style=STYLE_MISSING))
            sync_table(table, run_columns(session.metrics), [])
            summary.update("")
            return
        report = session.report(candidate)
        title.update(
            Text.assemble(
                ("run ", "dim"),
                (report.run, "bold"),
                (f"  {shown_path(report.source, protocol_dir)}" if report.source else "", "dim"),
                ("   (c: next run, enter: query detail)", "dim"),
            )
        )
        adjudicated = session.adjudicated
        metrics = report.metrics
        sync_table(
            table,
            run_columns(metrics),
            [(row.query, run_cells(row, metrics, row.query in adjudicated)) for row in report.rows],
        )
        summary.update(run_summary(report, session.adjudicated_queries()))
