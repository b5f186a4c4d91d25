"""The scoring screen's comparison view: a candidate against a baseline, query by query.

Formatting only: the paired rows, deltas and outcomes come from a core ``Comparison``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from rich.text import Text
from textual.widget import Widget

from rankeval_tui.core.evaluation.compare import METRIC_LABELS, Comparison, Metric, PairedRow
from rankeval_tui.core.evaluation.metrics import DEFINITIONS
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.tui.score_view_state import SortMode
from rankeval_tui.tui.widgets.compare_summary import CompareSummary
from rankeval_tui.tui.widgets.delta_chart import (
    STYLE_ADJUDICATED,
    STYLE_MISSING,
    delta_bar,
    delta_cell,
    value_cell,
    verdict_cell,
)
from rankeval_tui.tui.widgets.score_table import sync_table
from rankeval_tui.tui.widgets.score_view import ScoreView

SORT_LABELS = {"protocol": "protocol order", "worst": "delta, worst first", "best": "delta, best first"}


def compare_columns(metrics: Sequence[Metric]) -> tuple[tuple[str, str], ...]:
    """The query, base / cand / Δ per compared metric (ir_measures names: ``R@k``), the verdict
    and the delta chart of the chosen metric."""
    columns = [("query", "query")]
    for metric in metrics:
        name = DEFINITIONS[metric].prefix + "@k"
        columns += [
            (f"base_{metric}", f"base {name}"),
            (f"cand_{metric}", f"cand {name}"),
            (f"delta_{metric}", f"Δ {name}"),
        ]
    return (*columns, ("verdict", "verdict"), ("chart", "Δ chart (m)"))


def sort_key(mode: SortMode, metric: Metric) -> Callable[[PairedRow], tuple[bool, Fraction]]:
    """Typed keys: the exact Fraction delta, queries without one (null) always last."""
    sign = -1 if mode == "best" else 1

    def key(row: PairedRow) -> tuple[bool, Fraction]:
        delta = row.delta(metric)
        return (delta is None, sign * delta if delta is not None else Fraction(0))

    return key


def compare_cells(
    row: PairedRow, metric: Metric, adjudicated: bool = False, memo: dict[tuple[Any, ...], list[Any]] | None = None
) -> list[Any]:
    """The query cell, then cells that depend only on the two rows' values: with a ``memo``
    (one per refresh), each distinct pair of values is formatted once (2000 queries hold a few
    hundred; the deltas are Fraction arithmetic, most of a row's cost). The memo is keyed by the
    values' identities (the evaluator shares one Fraction per value, and the rows keep them
    alive during the refresh): hashing a Fraction was a third of this at 10,000 queries."""
    query = Text.assemble(row.query, (" adj.", STYLE_ADJUDICATED)) if adjudicated else row.query
    base, cand = row.baseline, row.candidate
    pairs = [(base.value(m), cand.value(m)) for m in row.metrics]
    key = (*((id(b), id(c)) for b, c in pairs), base.missing, cand.missing, metric)
    values = None if memo is None else memo.get(key)
    if values is None:
        values = []
        for compared, (base_value, cand_value) in zip(row.metrics, pairs):
            values += [
                value_cell(base_value, base.missing),
                value_cell(cand_value, cand.missing),
                delta_cell(row.delta(compared)),
            ]
        values += [verdict_cell(row), delta_bar(row.delta(metric))]
        if memo is not None:
            memo[key] = values
    return [query, *values]


def is_regression(row: PairedRow) -> bool:
    """The regressions filter's rule: the verdict column's (a loss on any compared metric)."""
    return row.verdict() == "regression"


class CompareView(ScoreView):
    """Title (who against whom, on which metric, in which order), the paired table, the summary."""

    name_in_ids = "compare"

    def summary_widget(self, widget_id: str) -> Widget:
        return CompareSummary(id=widget_id, classes="score-summary")

    def show(
        self,
        session: ScoringSession,
        comparison: Comparison | None,
        metric: Metric,
        sort_mode: SortMode,
        regressions_only: bool,
    ) -> None:
        table = self.table
        summary = self.query_one(CompareSummary)
        if comparison is None:
            self.title.update(Text("comparison needs two accepted runs (v: single run)", style=STYLE_MISSING))
            sync_table(table, compare_columns(session.metrics), [])
            self.note(None)
            summary.clear()
            return
        rows = list(comparison.rows)
        if regressions_only:
            rows = [row for row in rows if is_regression(row)]
        if sort_mode != "protocol":
            rows.sort(key=sort_key(sort_mode, metric))
        self.title.update(
            Text.assemble(
                ("candidate ", "dim"),
                (printable(comparison.candidate.run), "bold"),
                (" vs baseline ", "dim"),
                (printable(comparison.baseline.run), "bold"),
                ("   (same run)" if comparison.baseline.run == comparison.candidate.run else "", STYLE_MISSING),
                ("   chart/sort: ", "dim"),
                (METRIC_LABELS[metric], "bold"),
                ("   order: ", "dim"),
                (SORT_LABELS[sort_mode], "bold"),
                ("   showing: ", "dim"),
                (f"regressions, any metric ({len(rows)})" if regressions_only else "all queries", "bold"),
            )
        )
        adjudicated = session.adjudicated
        memo: dict[tuple[Any, ...], list[Any]] = {}
        sync_table(
            table,
            compare_columns(comparison.metrics),
            [(row.query, compare_cells(row, metric, row.query in adjudicated, memo)) for row in rows],
        )
        empty = f"no regressions: {comparison.candidate.run} is worse than {comparison.baseline.run} on no query"
        self.note(Text(f"{empty} (f: all queries)", style=STYLE_MISSING) if not rows else None)
        summary.show(session, comparison, metric)
