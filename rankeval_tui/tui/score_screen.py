"""The scoring screen: one run's per-query table, or a baseline/candidate comparison.

The screen holds a ``ScoringSession`` (core) and formats it; it never reads a file or computes
a metric itself. Loading and reloading go through a worker (file IO); a k or split change asks
the session for fresh reports and updates the existing table cells in place. The paired
statistics of the comparison (sign-flip, bootstrap, Holm: seconds of draws on thousands of
queries) come from another worker, in a child process when large, so no key waits for them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import ContentSwitcher, DataTable, Footer, Static
from textual.widgets.data_table import CellKey, ColumnKey, RowKey
from textual.worker import get_current_worker

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.compare import METRIC_LABELS, Comparison, Metric, PairedRow
from rankeval_tui.core.evaluation.evaluate import QueryRow, Report
from rankeval_tui.core.evaluation.render import exact_and_decimal, signed
from rankeval_tui.core.evaluation.stats import PairedStatistics
from rankeval_tui.core.session import RunSpec, ScoringSession, statistics_in_process
from rankeval_tui.tui.widgets.delta_chart import (
    STYLE_ADJUDICATED,
    STYLE_LOSS,
    STYLE_MISSING,
    STYLE_NO_RELEVANT,
    STYLE_WIN,
    count_cell,
    delta_bar,
    delta_cell,
    status_cell,
    value_cell,
    verdict_cell,
)
from rankeval_tui.tui.widgets.score_stats import pending_line, statistics_lines

View = Literal["run", "compare"]
SortMode = Literal["protocol", "worst", "best"]
SORT_MODES: tuple[SortMode, ...] = ("protocol", "worst", "best")
SORT_LABELS = {"protocol": "protocol order", "worst": "delta, worst first", "best": "delta, best first"}

RUN_COLUMNS = (
    ("query", "query"),
    ("status", "status"),
    ("missing", "missing"),
    ("returned", "returned"),
    ("relevant", "relevant"),
    ("hits", "hits"),
    ("first", "first rel. rank"),
    ("recall", "Recall@k"),
    ("rr", "RR@k"),
)
COMPARE_COLUMNS = (
    ("query", "query"),
    ("base_recall", "base R@k"),
    ("cand_recall", "cand R@k"),
    ("delta_recall", "Δ R@k"),
    ("base_rr", "base RR@k"),
    ("cand_rr", "cand RR@k"),
    ("delta_rr", "Δ RR@k"),
    ("verdict", "verdict"),
    ("chart", "Δ chart (m)"),
)

LEGEND = Text.assemble(
    "legend: ",
    ("MISSING (scored 0)", STYLE_MISSING),
    " the run has no ranking for the query: it counts 0 in both means · ",
    ("no relevant (excluded)", STYLE_NO_RELEVANT),
    " no relevant document: Recall/RR are null and the query is left out of the means",
)
COMPARE_LEGEND = Text.assemble(
    "legend: ",
    ("▼ REGRESSION", STYLE_LOSS),
    " candidate worse than baseline on a metric · ",
    ("▲ improved", STYLE_WIN),
    " better · = same · ",
    ("0 missing", STYLE_MISSING),
    " no ranking, scored 0 · ",
    ("n/a", STYLE_NO_RELEVANT),
    " no relevant document (null, not compared)",
)
ADJUDICATED_LEGEND = Text.assemble(
    " · ",
    ("adj.", STYLE_ADJUDICATED),
    " adjudicated: the query's labels were disputed and decided by an adjudicator (qrels [adjudication])",
)


LISTED = 6
"""Regressions named in the summary; more would push the table off the screen (``f`` lists them all)."""


def listed(queries: Sequence[str]) -> str:
    if not queries:
        return "none"
    if len(queries) <= LISTED:
        return ", ".join(queries)
    return f"{len(queries)} queries ({', '.join(queries[:LISTED])}, …; f: only these)"


def sort_key(mode: SortMode, metric: Metric) -> Callable[[PairedRow], tuple[bool, Fraction]]:
    """Typed keys: the exact Fraction delta, queries without one (null) always last."""
    sign = -1 if mode == "best" else 1

    def key(row: PairedRow) -> tuple[bool, Fraction]:
        delta = row.delta(metric)
        return (delta is None, sign * delta if delta is not None else Fraction(0))

    return key


def all_known(widths: list[int | None]) -> list[int] | None:
    """The widths, or None when ``cell_width`` could not size one of them (Textual measures those)."""
    known = [width for width in widths if width is not None]
    return known if len(known) == len(widths) else None


def cell_width(value: object) -> int | None:
    """The width Textual's ``measure`` gives a cell of a one-line row, from the text alone.

    A ``Text`` measures as its widest line; a ``str`` without markup or a line break is its own
    text (Textual parses ``str`` cells as markup); ``None`` is empty. Anything else: None, for
    Textual to measure."""
    if value is None:
        return 0
    if isinstance(value, Text):
        plain = value.plain
    elif isinstance(value, str) and "[" not in value and "\n" not in value:
        plain = value
    else:
        return None
    lines = plain.splitlines()  # the line breaks Text.__rich_measure__ splits on
    if len(lines) == 1:
        return cell_len(lines[0])
    return max(map(cell_len, lines), default=0)


class ScoreTable(DataTable):
    """A ``DataTable`` that sizes its columns from the cells' text instead of measuring each cell.

    Why: Textual 8.2 measures every cell of every new row on idle through the console (a fresh
    ``ConsoleOptions`` per cell): ~0.17 s for the 2000 x 9 comparison table, each time a table is
    filled, and re-measures a whole column for every narrowed cell (quadratic on a k change).
    The cells here are one-line ``Text``, whose measured width is ``cell_len`` of its text, so the
    columns come out the same (tests/tui/test_score_table.py compares them with a stock table);
    rows or cells it cannot size that way (labels, tall rows, markup strings) go to Textual.
    """

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        columns = self.ordered_columns
        keys = [column.key for column in columns]
        widths = [column.content_width for column in columns]
        # Cells are mostly shared objects (delta_chart caches one Text per value): each distinct
        # one is sized once per pass (all are alive in the table, so their ids are distinct).
        sized: dict[int, int | None] = {}
        for_textual: list[RowKey] = []
        for row_key in new_rows:
            row = self.rows.get(row_key)
            if row is None:
                continue  # removed before idle: Textual skips it too
            if row.label is not None or row.height != 1:
                for_textual.append(row_key)
                continue
            cells = self._data[row_key]
            row_widths = []
            for key in keys:
                value = cells.get(key)
                width = sized.get(id(value), -1)
                if width == -1:
                    width = sized[id(value)] = cell_width(value)
                row_widths.append(width)
            known = all_known(row_widths)
            if known is None:
                for_textual.append(row_key)
                continue
            widths = [a if a >= b else b for a, b in zip(widths, known)]
        for column, width in zip(columns, widths):
            column.content_width = width
        super()._update_dimensions(for_textual)  # also the virtual size, from the widths above

    def _update_column_widths(self, updated_cells: set[CellKey]) -> None:
        by_column: dict[ColumnKey, list[RowKey]] = {}
        for row_key, column_key in updated_cells:
            by_column.setdefault(column_key, []).append(row_key)
        for_textual: set[CellKey] = set()
        for column_key, row_keys in by_column.items():
            column = self.columns.get(column_key)
            rows = [key for key in row_keys if key in self.rows]
            if column is None or not rows:
                continue
            new = all_known([cell_width(self._data[key][column_key]) for key in rows])
            label = cell_width(column.label)
            if new is None or label is None or any(self.rows[key].height != 1 for key in rows):
                for_textual.update(CellKey(key, column_key) for key in rows)
                continue
            if min(new) < column.content_width:
                # Narrowed: the column's widest cell, over the whole column once (Textual
                # re-measures the column for each narrowed cell).
                every = all_known([cell_width(cells.get(column_key)) for cells in self._data.values()])
                if every is None:
                    for_textual.update(CellKey(key, column_key) for key in rows)
                    continue
                column.content_width = max([label, *every])
            else:
                column.content_width = max([label, *new])
        if for_textual:
            super()._update_column_widths(for_textual)
        self._require_update_dimensions = True


def sync_table(
    table: ScoreTable, columns: Sequence[tuple[str, str]], rows: Sequence[tuple[str, Sequence[Any]]]
) -> None:
    """Show ``rows`` in ``table``, in order, touching as little as possible.

    Same columns and same set of row keys (a k change, a new sort): cells are changed in place
    with ``update_cell`` and the order is fixed with a typed index sort. Anything else (another
    split, the regressions filter): the rows are rebuilt. Column widths follow the cells (wider
    or narrower) through ``update_width``: cheap on a ``ScoreTable``.
    """
    column_keys = [key for key, _ in columns]
    if [c.value for c in table.columns] != column_keys:
        table.clear(columns=True)
        for key, label in columns:
            table.add_column(label, key=key)
    wanted = [key for key, _ in rows]
    current = [r.key.value for r in table.ordered_rows]
    if set(current) == set(wanted) and len(current) == len(wanted):
        for key, cells in rows:
            for column, value in zip(column_keys, cells):
                old = table.get_cell(key, column)
                if old is not value and old != value:
                    table.update_cell(key, column, value, update_width=True)
        if current != wanted:
            index = {key: i for i, key in enumerate(wanted)}
            table.sort(key=lambda row: index[row[0]])
        return
    table.clear()
    for key, cells in rows:
        table.add_row(*cells, key=key)


class ScoreFooter(Footer):
    """The stock footer, not rebuilt when the keys it would show are the ones it shows.

    Why: Textual's ``Footer`` recomposes (a new widget per key, each one styled) on every
    bindings signal, and one ``v`` sends several (focus leaves the hidden table, enters the other,
    and once more after the refresh): the footer was rebuilt twice per ``v``, three times at start,
    ~20-30 ms each on this machine. What it shows is compared, not assumed: keys, actions,
    descriptions, enabled state and tooltips, and the footer's own display settings."""

    _shown: tuple[Any, ...] | None = None

    def _showing(self) -> tuple[Any, ...]:
        keys = tuple(
            (binding.key, binding.action, binding.description, binding.key_display, enabled, tooltip)
            for _, binding, enabled, tooltip in self.screen.active_bindings.values()
            if binding.show
        )
        return keys, self.compact, self.show_command_palette, self.combine_groups

    async def recompose(self) -> None:
        showing = self._showing() if self._bindings_ready and self.is_attached else None
        if showing is not None and showing == self._shown:
            return
        self._shown = showing
        await super().recompose()


PROCESS_MIN_WORK = 200
"""Queries x candidates above which the statistics run in a child process: below it, starting
a process (~0.3 s) costs more than the draws themselves."""


@dataclass(frozen=True, eq=False)
class StatsResult:
    """Paired statistics and what they were computed for: shown only while both still match.

    Identity equality: a reactive skips a value equal to the current one, and two sessions
    with the same k compare equal by value though only the newest is on screen."""

    session: ScoringSession
    baseline: str
    statistics: PairedStatistics | None


@dataclass(frozen=True)
class LoadRequest:
    """What the app asks this screen to load (core-level inputs, never argparse)."""

    protocol_dir: Path
    run_specs: tuple[RunSpec, ...] = ()
    qrels_path: Path | None = None
    k: int | None = None
    split: str | None = None
    chunk_map_path: Path | None = None

    def load(self) -> ScoringSession:
        return ScoringSession.load(
            self.protocol_dir,
            self.run_specs,
            qrels_path=self.qrels_path,
            k=self.k,
            split=self.split,
            chunk_map_path=self.chunk_map_path,
        )


class ScoreScreen(Screen[None]):
    """Per-query scores of one run, or of a candidate against a baseline, with a drill-down."""

    BINDINGS = [
        Binding("v", "toggle_view", "view", id="score.view"),
        Binding("plus,equals_sign", "k_up", "k+", id="score.k_up", key_display="+"),
        Binding("minus", "k_down", "k-", id="score.k_down"),
        Binding("t", "next_split", "split", id="score.split"),
        Binding("b", "next_baseline", "base", id="score.baseline"),
        Binding("c", "next_candidate", "cand", id="score.candidate"),
        Binding("m", "next_metric", "metric", id="score.metric"),
        Binding("s", "next_sort", "sort", id="score.sort"),
        Binding("f", "toggle_regressions", "regress", id="score.filter"),
        Binding("r", "reload", "reload", id="score.reload"),
        Binding("j", "judge", "judge", id="score.judge"),
        Binding("question_mark", "help", "help", id="score.help", key_display="?"),
        Binding("q", "app.quit", "quit", id="score.quit"),
    ]

    session: reactive[ScoringSession | None] = reactive(None, init=False, always_update=True)
    """Everything shown: protocol (with k, split), runs, reports. Replaced whole, never mutated."""
    view: reactive[View] = reactive("run", init=False)
    """The single-run table or the baseline/candidate comparison."""
    baseline: reactive[str | None] = reactive(None, init=False)
    """Name of the accepted run the candidate is compared with."""
    candidate: reactive[str | None] = reactive(None, init=False)
    """Name of the accepted run shown in the single-run view and compared against the baseline."""
    metric: reactive[Metric] = reactive("rr", init=False)
    """Metric of the delta chart, the sort and the regressions filter (RR@k first: the seed's q2)."""
    sort_mode: reactive[SortMode] = reactive("protocol", init=False)
    """Order of the comparison rows; deltas are sorted as exact Fractions."""
    regressions_only: reactive[bool] = reactive(False, init=False)
    """Show only queries where the candidate lost to the baseline on ``metric``."""
    problem: reactive[str | None] = reactive(None, init=False)
    """A protocol that failed to load or reload, as one line; shown instead of hiding it."""
    statistics_result: reactive[StatsResult | None] = reactive(None, init=False)
    """The last paired statistics the worker finished (every candidate against one baseline,
    Holm across them, as ``score --baseline``); stale once the session or baseline changed."""

    def __init__(self, request: LoadRequest) -> None:
        super().__init__()
        self.request = request
        self._stats_wanted: tuple[ScoringSession, str] | None = None

    def compose(self) -> ComposeResult:
        yield Static("loading…", id="score-header")
        yield Static("", id="score-runs")
        yield Static("", id="score-problem")
        with ContentSwitcher(initial="score-run-view", id="score-switcher"):
            with Vertical(id="score-run-view"):
                yield Static("", id="score-run-title", classes="score-title")
                yield ScoreTable(id="score-run-table", cursor_type="row", zebra_stripes=True)
                yield Static("", id="score-run-summary", classes="score-summary")
            with Vertical(id="score-compare-view"):
                yield Static("", id="score-compare-title", classes="score-title")
                yield ScoreTable(id="score-compare-table", cursor_type="row", zebra_stripes=True)
                yield Static("", id="score-compare-summary", classes="score-summary")
        yield ScoreFooter()

    def on_mount(self) -> None:
        self.load_worker(initial=True)

    # ------------------------------------------------------------------ loading

    @work(thread=True, exclusive=True, group="score-load")
    def load_worker(self, initial: bool = False) -> None:
        """Read protocol and runs off the UI thread; a bad protocol becomes a message, not a crash."""
        try:
            session = self.request.load() if initial or self.session is None else self.session.reload()
        except ContractError as error:
            prefix = (
                "protocol rejected"
                if initial or self.session is None
                else "reload failed, still showing the last good files"
            )
            self.app.call_from_thread(self.set_problem, f"{prefix}: {error.one_line()}")
            return
        self.app.call_from_thread(self.set_session, session)

    def set_problem(self, message: str) -> None:
        self.problem = message
        if self.session is not None:
            self.notify(message, severity="error", timeout=8)

    def set_session(self, session: ScoringSession) -> None:
        """Adopt a new session, keeping baseline/candidate where those runs are still accepted."""
        names = [s.name for s in session.accepted]
        baseline = self.baseline if self.baseline in names else (names[0] if names else None)
        candidate: str | None
        if self.candidate in names:
            candidate = self.candidate
        else:
            others = [n for n in names if n != baseline]
            candidate = others[0] if others else baseline
        self.problem = None
        self.set_reactive(ScoreScreen.baseline, baseline)
        self.set_reactive(ScoreScreen.candidate, candidate)
        if self.view == "compare" and len(names) < 2:
            self.set_reactive(ScoreScreen.view, "run")
        self.session = session

    # ------------------------------------------------------------------ reactive plumbing

    def watch_session(self) -> None:
        self.refresh_all()

    def watch_view(self, view: View) -> None:
        self.refresh_all()
        self.query_one(f"#score-{view}-table", DataTable).focus()

    def watch_baseline(self) -> None:
        self.refresh_all()

    def watch_candidate(self) -> None:
        self.refresh_all()

    def watch_metric(self) -> None:
        self.refresh_compare()

    def watch_sort_mode(self) -> None:
        self.refresh_compare()

    def watch_regressions_only(self) -> None:
        self.refresh_compare()

    def watch_statistics_result(self) -> None:
        comparison = self.current_comparison() if self.view == "compare" else None
        if comparison is not None:
            self.query_one("#score-compare-summary", Static).update(self.compare_summary(comparison))

    def watch_problem(self, problem: str | None) -> None:
        widget = self.query_one("#score-problem", Static)
        widget.update(Text(problem or "", style="bold red"))
        widget.display = problem is not None
        if self.session is None and problem is not None:
            self.query_one("#score-header", Static).update(Text("protocol could not be loaded", style="bold red"))
            self.query_one("#score-switcher").display = False

    # ------------------------------------------------------------------ rendering

    def refresh_all(self) -> None:
        session = self.session
        if session is None:
            return
        self.query_one("#score-switcher").display = True
        self.query_one("#score-header", Static).update(self.header_text(session))
        self.query_one("#score-runs", Static).update(self.runs_text(session))
        self.query_one("#score-switcher", ContentSwitcher).current = f"score-{self.view}-view"
        self.refresh_run()
        self.refresh_compare()

    # Only the visible table is filled: a hidden table of thousands of rows would double the
    # cost of every k change. Switching views syncs the other one (in place where it can).

    def header_text(self, session: ScoringSession) -> Text:
        protocol = session.protocol
        changed = protocol.k != session.base.k or protocol.split != session.base.split
        return Text.assemble(
            ("protocol ", "dim"),
            (protocol.name, "bold"),
            ("   sha256 ", "dim"),
            (protocol.protocol_sha256[:12], "bold"),
            ("   split ", "dim"),
            (protocol.split, "bold"),
            ("   k ", "dim"),
            (str(protocol.k), "bold"),
            ("   queries ", "dim"),
            (f"{len(protocol.selected_queries)} total / {session.eligible_queries} eligible", "bold"),
            (f"   (files say k {session.base.k}, split {session.base.split})" if changed else "", "yellow"),
        )

    def runs_text(self, session: ScoringSession) -> Text:
        text = Text("runs: ", style="dim")
        if not session.scored:
            text.append("none: put run files in runs/ or pass --run PATH", style=STYLE_MISSING)
        for scored in session.accepted:
            roles = [r for r, n in (("baseline", self.baseline), ("candidate", self.candidate)) if n == scored.name]
            text.append("✓ ", style=STYLE_WIN)
            text.append(scored.name, style="bold" if roles else "")
            text.append(f" [{', '.join(roles)}]  " if roles else "  ", style="cyan")
        for scored in session.rejected:
            text.append("\n✗ REJECTED ", style=STYLE_LOSS)
            text.append(scored.name, style="bold")
            text.append(f": {scored.error}")
        for scored in session.scored:
            for warning in scored.warnings:
                text.append(f"\n⚠ {scored.name}: {warning}", style="yellow")
        return text

    def refresh_run(self) -> None:
        session = self.session
        if session is None or self.view != "run":
            return
        table = self.query_one("#score-run-table", ScoreTable)
        title = self.query_one("#score-run-title", Static)
        summary = self.query_one("#score-run-summary", Static)
        if self.candidate is None:
            title.update(Text("no accepted run to show", style=STYLE_MISSING))
            sync_table(table, RUN_COLUMNS, [])
            summary.update("")
            return
        report = session.report(self.candidate)
        title.update(
            Text.assemble(
                ("run ", "dim"),
                (report.run, "bold"),
                (f"  {self.shown_path(report.source)}" if report.source else "", "dim"),
                ("   (c: next run, enter: query detail)", "dim"),
            )
        )
        adjudicated = session.adjudicated
        sync_table(
            table, RUN_COLUMNS, [(row.query, self.run_cells(row, row.query in adjudicated)) for row in report.rows]
        )
        summary.update(self.run_summary(report, session.adjudicated_queries()))

    def shown_path(self, path: Path) -> str:
        """A run file relative to the protocol directory where it lives there (short, and the
        same on every machine, which keeps snapshots stable)."""
        try:
            return str(path.resolve().relative_to(self.request.protocol_dir.resolve()))
        except ValueError:
            return str(path)

    @staticmethod
    def run_cells(row: QueryRow, adjudicated: bool = False) -> list[Any]:
        return [
            row.query,
            status_cell(row, adjudicated),
            "yes" if row.missing else "no",
            count_cell(row.returned),
            count_cell(row.relevant),
            count_cell(row.hits),
            count_cell(row.first_relevant_rank),
            value_cell(row.recall),
            value_cell(row.rr),
        ]

    @staticmethod
    def run_summary(report: Report, adjudicated: Sequence[str] = ()) -> Text:
        k = report.k
        text = Text.assemble(
            (f"mean Recall@{k} = ", "bold"),
            exact_and_decimal(report.recall_at_k),
            (f"   MRR@{k} = ", "bold"),
            exact_and_decimal(report.mrr_at_k),
            f"   over {report.eligible_queries} eligible of {report.total_queries} queries\n",
            ("missing_queries: ", "bold"),
            (", ".join(report.missing_queries) or "none", STYLE_MISSING),
            ("   no_relevant_queries: ", "bold"),
            (", ".join(report.no_relevant_queries) or "none", STYLE_NO_RELEVANT),
            ("   adjudicated_queries: ", "bold"),
            (", ".join(adjudicated) or "none", STYLE_ADJUDICATED),
        )
        if report.adapter_sha256:
            text.append(f"\nadapter_sha256 {report.adapter_sha256}", style="dim")
        text.append("\n")
        text.append_text(LEGEND)
        if adjudicated:
            text.append_text(ADJUDICATED_LEGEND)
        return text

    def current_comparison(self) -> Comparison | None:
        session = self.session
        if session is None or self.baseline is None or self.candidate is None or len(session.accepted) < 2:
            return None
        return session.comparison(self.baseline, self.candidate)

    def refresh_compare(self) -> None:
        if self.session is None or self.view != "compare":
            return
        table = self.query_one("#score-compare-table", ScoreTable)
        title = self.query_one("#score-compare-title", Static)
        summary = self.query_one("#score-compare-summary", Static)
        comparison = self.current_comparison()
        if comparison is None:
            title.update(Text("comparison needs two accepted runs", style=STYLE_MISSING))
            sync_table(table, COMPARE_COLUMNS, [])
            summary.update("")
            return
        metric = self.metric
        rows = list(comparison.rows)
        if self.regressions_only:
            rows = [row for row in rows if row.outcome(metric) == "loss"]
        if self.sort_mode != "protocol":
            rows.sort(key=sort_key(self.sort_mode, metric))
        title.update(
            Text.assemble(
                ("candidate ", "dim"),
                (comparison.candidate.run, "bold"),
                (" vs baseline ", "dim"),
                (comparison.baseline.run, "bold"),
                ("   (same run)" if comparison.baseline.run == comparison.candidate.run else "", STYLE_MISSING),
                ("   chart/sort/filter: ", "dim"),
                (METRIC_LABELS[metric], "bold"),
                ("   order: ", "dim"),
                (SORT_LABELS[self.sort_mode], "bold"),
                ("   showing: ", "dim"),
                ("regressions only" if self.regressions_only else "all queries", "bold"),
            )
        )
        adjudicated = self.session.adjudicated
        memo: dict[tuple[Any, ...], list[Any]] = {}
        sync_table(
            table,
            COMPARE_COLUMNS,
            [(row.query, self.compare_cells(row, metric, row.query in adjudicated, memo)) for row in rows],
        )
        self.request_statistics()
        summary.update(self.compare_summary(comparison))

    @staticmethod
    def compare_cells(
        row: PairedRow, metric: Metric, adjudicated: bool = False, memo: dict[tuple[Any, ...], list[Any]] | None = None
    ) -> list[Any]:
        """The query cell, then eight cells that depend only on the two rows' values: with a
        ``memo`` (one per refresh), each distinct pair of values is formatted once (2000 queries
        hold a few hundred; the deltas are Fraction arithmetic, most of a row's cost)."""
        query = Text.assemble(row.query, (" adj.", STYLE_ADJUDICATED)) if adjudicated else row.query
        base, cand = row.baseline, row.candidate
        key = (base.recall, cand.recall, base.rr, cand.rr, base.missing, cand.missing, metric)
        values = None if memo is None else memo.get(key)
        if values is None:
            values = [
                value_cell(base.recall, base.missing),
                value_cell(cand.recall, cand.missing),
                delta_cell(row.delta("recall")),
                value_cell(base.rr, base.missing),
                value_cell(cand.rr, cand.missing),
                delta_cell(row.delta("rr")),
                verdict_cell(row),
                delta_bar(row.delta(metric)),
            ]
            if memo is not None:
                memo[key] = values
        return [query, *values]

    def current_statistics(self) -> StatsResult | None:
        """The worker's result if it is for the session and baseline on screen, else None (pending)."""
        result = self.statistics_result
        if result is None or result.session is not self.session or result.baseline != self.baseline:
            return None
        return result

    def compare_summary(self, comparison: Comparison) -> Text:
        """Per metric: means, exact mean delta, win/tie/loss, regressions; then the paired
        tests and a verdict in words (the chosen metric's label highlighted)."""
        base, cand = comparison.baseline, comparison.candidate
        k = base.k
        result = self.current_statistics()
        family = None if result is None else result.statistics
        mine = None if family is None else family.get(cand.run)
        text = Text()
        metric_rows: tuple[tuple[Metric, str, str], ...] = (
            ("recall", f"Recall@{k}", "recall_at_k"),
            ("rr", f"MRR@{k}", "mrr_at_k"),
        )
        for metric, label, attr in metric_rows:
            counts = comparison.counts(metric)
            worse = comparison.regressions(metric)
            text.append(f"{label:<9}", style="bold reverse" if metric == self.metric else "bold")
            text.append(
                f" {base.run} {exact_and_decimal(getattr(base, attr))} → "
                f"{cand.run} {exact_and_decimal(getattr(cand, attr))}  Δ {signed(comparison.mean_delta(metric))}"
                f"  win/tie/loss {counts['win']}/{counts['tie']}/{counts['loss']}  "
            )
            text.append(f"regressions: {listed(worse)}\n", style=STYLE_LOSS if worse else "")
            if base.run == cand.run:
                continue  # "same run" is in the title; nothing to test
            if result is None:
                text.append_text(pending_line(len(comparison.rows)))
            elif family is None or mine is None:
                text.append("          no paired statistics for this pair", style="dim")
            else:
                text.append_text(
                    statistics_lines(
                        mine.metrics[metric],
                        family.alpha,
                        len(family.candidates),
                    )
                )
            text.append("\n")
        text.append_text(COMPARE_LEGEND)
        if self.session is not None and self.session.adjudicated_queries():
            text.append_text(ADJUDICATED_LEGEND)
        return text

    # ------------------------------------------------------------------ statistics worker

    def request_statistics(self) -> None:
        """Ask for the statistics of the session and baseline on screen, unless they are shown
        or already being computed. A newer request cancels the running one (``exclusive``)."""
        session, baseline = self.session, self.baseline
        if session is None or baseline is None or len(session.accepted) < 2 or self.current_statistics() is not None:
            return
        wanted = self._stats_wanted
        if wanted is not None and wanted[0] is session and wanted[1] == baseline:
            return  # identity: sessions compare equal by value (k 2 -> 3 -> 2)
        self._stats_wanted = (session, baseline)
        self.statistics_worker(session, baseline)

    # ``description`` given: without it Textual builds one from ``repr`` of the arguments, in
    # the UI thread, and the session's dataclass repr spelled out every ranking (19 MB, 0.15 s
    # on 2000 queries) at each request.
    @work(thread=True, exclusive=True, group="score-stats", description="paired statistics")
    def statistics_worker(self, session: ScoringSession, baseline: str) -> None:
        """Small comparisons in this thread; large ones in a child process (pure-Python draws
        holding the GIL would slow every key ~10x), which a newer request terminates."""
        worker = get_current_worker()
        reports = session.family(baseline)
        if len(reports[0].rows) * (len(reports) - 1) <= PROCESS_MIN_WORK:
            statistics = session.statistics(baseline)
        else:
            statistics = statistics_in_process(reports, cancelled=lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.app.call_from_thread(self.statistics_done, StatsResult(session, baseline, statistics))

    def statistics_done(self, result: StatsResult) -> None:
        if result.session is self.session and result.baseline == self.baseline:
            self.statistics_result = result

    # ------------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Comparison-only keys are greyed out where they would do nothing."""
        if action in ("next_baseline", "next_metric", "next_sort", "toggle_regressions"):
            return True if self.view == "compare" else None
        if action == "toggle_view":
            return True if self.session is not None and len(self.session.accepted) >= 2 else None
        return True

    def action_toggle_view(self) -> None:
        # No refresh_bindings() here: watch_view moves the focus to the other view's table, and
        # a focus change refreshes the footer (b/m/s/f greyed outside the comparison) by itself;
        # a second refresh recomposed the footer twice (~30 ms on each v).
        self.view = "compare" if self.view == "run" else "run"

    def rescore(self, change: Callable[[ScoringSession], ScoringSession]) -> None:
        if self.session is None:
            return
        try:
            self.set_session(change(self.session))
        except ContractError as error:
            self.notify(error.one_line(), severity="error")

    def action_k_up(self) -> None:
        self.rescore(lambda s: s.with_k(s.protocol.k + 1))

    def action_k_down(self) -> None:
        if self.session is not None and self.session.protocol.k <= 1:
            self.notify("k is already 1", severity="warning")
            return
        self.rescore(lambda s: s.with_k(s.protocol.k - 1))

    def action_next_split(self) -> None:
        def next_split(s: ScoringSession) -> ScoringSession:
            splits = s.splits
            return s.with_split(splits[(splits.index(s.protocol.split) + 1) % len(splits)])

        self.rescore(next_split)

    def cycle(self, current: str | None) -> str | None:
        names = [s.name for s in self.session.accepted] if self.session else []
        if not names:
            return None
        return names[(names.index(current) + 1) % len(names)] if current in names else names[0]

    def action_next_baseline(self) -> None:
        self.baseline = self.cycle(self.baseline)
        self.refresh_bindings()

    def action_next_candidate(self) -> None:
        self.candidate = self.cycle(self.candidate)

    def action_next_metric(self) -> None:
        self.metric = "recall" if self.metric == "rr" else "rr"

    def action_next_sort(self) -> None:
        self.sort_mode = SORT_MODES[(SORT_MODES.index(self.sort_mode) + 1) % len(SORT_MODES)]

    def action_toggle_regressions(self) -> None:
        self.regressions_only = not self.regressions_only

    def action_reload(self) -> None:
        """Re-read protocol, qrels and runs from disk (after a run file changed)."""
        self.notify("reloading files from disk…", timeout=2)
        self.load_worker()

    def action_judge(self) -> None:
        open_judging = getattr(self.app, "open_judging", None)
        if open_judging is None:
            self.notify("the judging screen is not available in this build", severity="warning")
            return
        open_judging()

    def action_help(self) -> None:
        self.notify(
            "v run/compare · +/- k · t split · b/c baseline/candidate · m metric · s sort · "
            "f regressions only · enter query detail · r reload · j judge · q quit",
            timeout=10,
        )

    @on(DataTable.RowSelected)
    def open_query(self, event: DataTable.RowSelected) -> None:
        """Enter on a query: its text, need and every accepted run's ranking with labels."""
        if self.session is None or event.row_key.value is None:
            return
        from rankeval_tui.tui.query_screen import QueryScreen

        if self.view == "compare" and self.baseline and self.candidate:
            runs = list(dict.fromkeys([self.baseline, self.candidate]))
        else:
            runs = list(
                dict.fromkeys([*([self.candidate] if self.candidate else []), *(s.name for s in self.session.accepted)])
            )
        self.app.push_screen(QueryScreen(self.session, event.row_key.value, runs))
