"""The scoring screen's comparison view: a candidate against a baseline, query by query.

Formatting only: the paired rows, deltas and outcomes come from a core ``Comparison``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from rich.text import Text
from textual import work
from textual.widget import Widget

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.compare import METRIC_LABELS, Comparison, Metric, PairedRow
from rankeval_tui.core.evaluation.delta_bounds import DeltaReport
from rankeval_tui.core.evaluation.evaluate import QueryRow
from rankeval_tui.core.evaluation.histogram import DeltaHistogram, delta_histogram
from rankeval_tui.core.evaluation.metrics import DEFINITIONS
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.tui.score.cells import (
    STYLE_ADJUDICATED,
    STYLE_MISSING,
    delta_bar,
    delta_cell,
    value_cell,
    verdict_cell,
)
from rankeval_tui.tui.score.change_bounds import (
    bounds_cells,
    bounds_columns,
    bounds_rows,
    bounds_summary,
    bounds_title,
    ranged_over,
)
from rankeval_tui.tui.score.compare_summary import CompareSummary
from rankeval_tui.tui.score.delta_histogram import DeltaChart
from rankeval_tui.tui.score.score_table import sync_table
from rankeval_tui.tui.score.score_view import ScoreView
from rankeval_tui.tui.score.score_view_state import ScoreViewState, paired_sort_key

SORT_LABELS = {"protocol": "protocol", "worst": "worst first", "best": "best first"}


def compare_columns(
    metrics: Sequence[Metric], chosen: Metric, cutoff: int | None = None
) -> tuple[tuple[str, str], ...]:
    """The query, base / cand / Δ of the ``chosen`` metric (``m``), the verdict and the delta bar
    first, so they fit 80 columns together; then base / cand / Δ of every other compared metric
    (ir_measures names: ``R@k``, or ``R@5`` when a ``cutoff`` is given: a session of several), to the right."""
    ordered = [chosen, *(m for m in metrics if m != chosen)] if chosen in metrics else list(metrics)
    trios = []
    for metric in ordered:
        name = DEFINITIONS[metric].prefix + ("@k" if cutoff is None else f"@{cutoff}")
        trios.append(
            [(f"base_{metric}", f"base {name}"), (f"cand_{metric}", f"cand {name}"), (f"delta_{metric}", f"Δ {name}")]
        )
    first, rest = (trios[0], trios[1:]) if trios else ([], [])
    return (("query", "query"), *first, ("verdict", "verdict"), ("chart", "Δ bar"), *(c for trio in rest for c in trio))


def compare_cells(
    row: PairedRow,
    metric: Metric,
    adjudicated: bool = False,
    memo: dict[tuple[Any, ...], list[Any]] | None = None,
    exact: bool = False,
) -> list[Any]:
    """The query cell, then cells that depend only on the two rows' values, in
    ``compare_columns``' order: with a ``memo`` (one per refresh), each distinct pair of values is
    formatted once (2000 queries hold a few hundred; the deltas are Fraction arithmetic, most of a
    row's cost). The memo is keyed by the values' identities (the evaluator shares one Fraction
    per value, and the rows keep them alive during the refresh): hashing a Fraction was a third
    of this at 10,000 queries. Decimals alone unless ``exact`` (``x``)."""
    query = Text.assemble(row.query, (" adj.", STYLE_ADJUDICATED)) if adjudicated else row.query
    base, cand = row.baseline, row.candidate
    ordered = [metric, *(m for m in row.metrics if m != metric)] if metric in row.metrics else list(row.metrics)
    pairs = [(base.value(m), cand.value(m)) for m in ordered]
    key = (*((id(b), id(c)) for b, c in pairs), base.missing, cand.missing, metric, exact)
    values = None if memo is None else memo.get(key)
    if values is None:
        values = []
        for position, (compared, (base_value, cand_value)) in enumerate(zip(ordered, pairs)):
            values += [
                value_cell(base_value, base.missing, exact),
                value_cell(cand_value, cand.missing, exact),
                delta_cell(row.delta(compared), exact),
            ]
            if position == 0:
                values += [verdict_cell(row), delta_bar(row.delta(metric))]
        if memo is not None:
            memo[key] = values
    return [query, *values]


class RowCells:
    """Each shown row's cells, kept from one refresh to the next for rows whose two query rows
    are the very same objects under the same settings (metric, decimals, metrics, adjudicated
    queries): ``compare_cells`` of those would give equal cells.

    Why: after a k change the evaluator keeps the row of every query with no relevant document
    between the two cutoffs (``evaluate``'s ``at_other_k``), most of 10,000; the same cell list
    lets ``changed_cells`` pass the whole row at once instead of cell by cell. The rows kept
    here keep their objects alive, so an identity is never another object's."""

    def __init__(self) -> None:
        self._settings: tuple[Any, ...] | None = None
        self._kept: dict[str, tuple[QueryRow, QueryRow, list[Any]]] = {}

    def cells(self, rows: Sequence[PairedRow], settings: tuple[Any, ...]) -> list[tuple[str, list[Any]]]:
        """``(query, cells)`` for ``rows``; ``settings``: metric, exact, compared metrics, and
        the adjudicated queries (compared by identity: a session's set, kept by a k change)."""
        metric, exact, _, adjudicated = settings
        kept = self._kept if settings == self._settings else {}
        memo: dict[tuple[Any, ...], list[Any]] = {}
        shown: dict[str, tuple[QueryRow, QueryRow, list[Any]]] = {}
        result = []
        for row in rows:
            old = kept.get(row.query)
            if old is not None and old[0] is row.baseline and old[1] is row.candidate:
                cells = old[2]
            else:
                cells = compare_cells(row, metric, row.query in adjudicated, memo, exact)
            shown[row.query] = (row.baseline, row.candidate, cells)
            result.append((row.query, cells))
        self._settings, self._kept = settings, shown
        return result


def is_regression(row: PairedRow) -> bool:
    """The regressions filter's rule: the verdict column's (a loss on any compared metric)."""
    return row.verdict() == "regression"


class CompareView(ScoreView):
    """Title (who against whom, on which metric, in which order), the chart of the chosen
    metric's per-query deltas, the paired table, the summary."""

    name_in_ids = "compare"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.histogram: DeltaHistogram | None = None
        """The chart's bins for the comparison and metric shown: the ``[``/``]`` filter's too."""
        self._chart_bin: int | None = None
        self._row_cells = RowCells()
        self.comparison: Comparison | None = None
        self.bounds: tuple[ScoringSession, str, str, DeltaReport | str] | None = None
        """The last change's bounds computed (or the line refusing them), with the session at
        its cutoff and the two runs they are for: kept while the view shows that pair."""
        self.bounds_note: str | None = None
        """Said above the table with those bounds when they are not the session's own (``bounds_from``)."""
        self._shown_with: tuple[ScoringSession, ScoreViewState] | None = None
        """The comparison shown: the next one is built from it (``ScoringSession.comparison``'s
        ``like``: the same object after a new sort, metric or filter, its unchanged rows kept
        after a k change; 10,000 queries were paired again at each of those keys)."""

    def above_table(self) -> Iterator[Widget]:
        yield DeltaChart(id="score-compare-chart")

    def summary_widget(self, widget_id: str) -> Widget:
        return CompareSummary(id=widget_id, classes="score-summary")

    def occupied_bins(self) -> list[int]:
        """The bins holding at least one query, left to right (what ``[``/``]`` step through)."""
        return [] if self.histogram is None else [i for i, b in enumerate(self.histogram.bins) if b.queries]

    def show(self, session: ScoringSession, comparison: Comparison | None, state: ScoreViewState) -> None:
        """``comparison`` as ``state`` chose: its metric first, order, filters (``f``, a chart's
        bin) and decimals or exact fractions. With several cutoffs, the comparison is the one at
        the chosen metric's cutoff (``ScoreViewState.comparison``), its summary and statistics too."""
        self._shown_with = (session, state)
        shown = state.shown_in(session)
        cutoff = shown.cutoff if session.by_cutoff else None
        pair = state.bounds_pair(session)
        main_k, session = session.protocol.k, session.at_cutoff(shown.cutoff)
        if pair is not None:
            return self.show_bounds(session, pair, state, shown.name if cutoff is not None else None)
        # another cutoff is another protocol: the title names its hash (the header names k's)
        other = f" (sha {session.protocol.protocol_sha256[:8]})" if session.protocol.k != main_k else ""
        metric, sort_mode, regressions_only = state.metric, state.sort_mode, state.regressions_only
        exact, delta_bin = state.exact, state.delta_bin
        table = self.table
        summary = self.query_one(CompareSummary)
        self.comparison = comparison
        if comparison is None:
            self.title.update(Text("comparison needs two accepted runs (v: single run)", style=STYLE_MISSING))
            sync_table(table, compare_columns(session.metrics, metric, cutoff), [])
            self.histogram = None
            self.query_one(DeltaChart).show(None, None, False)
            self.note(None)
            summary.clear()
            return
        histogram = self.histogram = delta_histogram(comparison, metric)
        chosen = histogram.bins[delta_bin] if delta_bin is not None else None
        rows = list(comparison.rows)
        if regressions_only:
            rows = [row for row in rows if is_regression(row)]
        if chosen is not None:
            members = set(chosen.queries)
            rows = [row for row in rows if row.query in members]
        if sort_mode != "protocol":
            rows.sort(key=paired_sort_key(sort_mode, metric, comparison.metrics))
        showing = f"regressions, any metric ({len(rows)})" if regressions_only else "all queries"
        self.title.update(
            Text.assemble(
                (printable(comparison.candidate.run), "bold"),
                (" vs ", "dim"),
                (printable(comparison.baseline.run), "bold"),
                (" (same run)" if comparison.baseline.run == comparison.candidate.run else "", STYLE_MISSING),
                ("  m ", "dim"),
                (METRIC_LABELS[metric] if cutoff is None else shown.name, "bold"),
                (other, "dim"),
                ("  s ", "dim"),
                (SORT_LABELS[sort_mode], "bold"),
                ("  f ", "dim"),
                (showing, "bold"),
                ("  ] ", "dim") if chosen is not None else "",
                (f"{chosen.range_text()}: {len(rows)}", "bold reverse") if chosen is not None else "",
            )
        )
        sync_table(
            table,
            compare_columns(comparison.metrics, metric, cutoff),
            self._row_cells.cells(rows, (metric, exact, comparison.metrics, session.adjudicated)),
        )
        if not rows and chosen is not None:
            self.note(Text(f"no query with {chosen.range_text()} under this filter (f, [ ])", style=STYLE_MISSING))
        elif not rows:
            empty = f"no regressions: {printable(comparison.candidate.run)} is worse than {printable(comparison.baseline.run)} on no query"
            self.note(Text(f"{empty} (f: all queries)", style=STYLE_MISSING))
        else:
            self.note(None)
        self._chart_bin = delta_bin
        summary.show(session, comparison, metric, exact)
        self.show_chart()

    def show_bounds(
        self, session: ScoringSession, pair: tuple[str, str], state: ScoreViewState, named: str | None
    ) -> None:
        """The comparison on a gap (``change_bounds``): the change's exact range per query and for
        the mean, computed in a worker (every candidate labelling of every query is scored), the
        table saying so until they arrive."""
        baseline, candidate = pair
        metric = state.metric
        self.comparison = self.histogram = None
        self.query_one(DeltaChart).show(None, None, False)
        summary = self.query_one(CompareSummary)
        summary.clear()
        cutoff = session.protocol.k if named is not None else None
        columns = bounds_columns(session.metrics, metric, cutoff)
        showing = "could be worse, any metric" if state.regressions_only else "all queries"
        choices = (
            ("  m ", "dim"),
            (named or METRIC_LABELS[metric], "bold"),
            ("  s ", "dim"),
            (SORT_LABELS[state.sort_mode], "bold"),
            ("  f ", "dim"),
            (showing, "bold"),
        )
        known = self.bounds
        if known is None or known[0] is not session or known[1:3] != pair:
            self.title.update(bounds_title(baseline, candidate, "computing the change's exact bounds…", choices))
            sync_table(self.table, columns, [])
            self.note(None)
            self.bounds_worker((session, baseline, candidate), lambda: session.change_bounds(baseline, candidate))
            return
        report = known[3]
        if isinstance(report, str):
            self.title.update(bounds_title(baseline, candidate, "no bounds on this change", choices))
            sync_table(self.table, columns, [])
            self.note(Text(report, style=STYLE_MISSING))
            return
        metric = metric if metric in report.metrics else report.metrics[0]
        columns = bounds_columns(report.metrics, metric, cutoff)
        rows = bounds_rows(report, metric, state.sort_mode, state.regressions_only)
        self.title.update(bounds_title(baseline, candidate, ranged_over(report), choices))
        sync_table(
            self.table, columns, [(row.query, bounds_cells(row, report.metrics, metric, state.exact)) for row in rows]
        )
        if self.bounds_note is not None:
            self.note(Text(self.bounds_note, style=STYLE_MISSING))
        elif not rows:
            self.note(Text("no query where some labelling makes it worse (f: all queries)", style=STYLE_MISSING))
        else:
            self.note(None)
        summary.show_text(bounds_summary(report, metric, state.exact))

    @work(thread=True, exclusive=True, group="score-bounds", description="bounds on the change")
    def bounds_worker(
        self,
        key: tuple[ScoringSession, str, str],
        compute: Callable[[], DeltaReport],
        note: Callable[[DeltaReport], str] | None = None,
    ) -> None:
        """``compute`` (the change's bounds: ``ScoringSession.change_bounds``) off the UI thread, for
        the session at its cutoff and the pair in ``key``; a refusal (AP or graded nDCG over too many
        unjudged documents of a query) becomes the line shown instead of the table. ``note``: what
        to say above the table with them (bounds the session did not compute)."""
        try:
            result: DeltaReport | str = compute()
        except ContractError as error:
            result = error.one_line()
        said = note(result) if note is not None and not isinstance(result, str) else None
        self.app.call_from_thread(self.bounds_done, (*key, result), said)

    def bounds_done(self, bounds: tuple[ScoringSession, str, str, DeltaReport | str], note: str | None) -> None:
        """Keep the bounds and show them, if the view still shows what they were computed for."""
        self.bounds, self.bounds_note = bounds, note
        if self._shown_with is None:
            return
        session, state = self._shown_with
        if state.bounds_pair(session) == bounds[1:3]:
            self.show(session, None, state)

    def bounds_from(self, compute: Callable[[], DeltaReport], note: Callable[[DeltaReport], str]) -> None:
        """Show the bounds ``compute`` gives (under labels the session has not read: judging to
        decide stopped early) for the pair and cutoff shown, with ``note`` saying so, until the
        pair, the cutoff or the session changes."""
        if self._shown_with is None:
            return
        session, state = self._shown_with
        pair = state.bounds_pair(session)
        if pair is not None:
            self.bounds_worker((session.at_cutoff(state.shown_in(session).cutoff), *pair), compute, note)

    def show_chart(self) -> None:
        """The chart of the shown histogram, with the bootstrap CI once the statistics have it."""
        histogram = self.histogram
        if histogram is None:
            return
        interval, pending = self.query_one(CompareSummary).interval(histogram.metric)
        if interval is not None:
            histogram = histogram.with_interval(*interval)
        self.query_one(DeltaChart).show(histogram, self._chart_bin, pending)

    def on_compare_summary_statistics_shown(self) -> None:
        self.show_chart()
