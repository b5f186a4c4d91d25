"""The scoring screen: one run's per-query table, or a baseline/candidate comparison.

The screen holds a ``ScoringSession`` (core) and the viewer's choices (view, baseline,
candidate, metric, order, filters: one ``ScoreViewState``); the views beside it in ``tui/score`` format
them. It never reads a file or computes a metric itself. Loading and reloading go through a
worker (file IO); a k or split change asks the session for fresh reports and updates the existing
table cells in place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import ContentSwitcher, DataTable, Static

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.compare import Comparison
from rankeval_tui.core.evaluation.metrics import PRIMARY, MetricId
from rankeval_tui.core.gc_pause import paused_gc
from rankeval_tui.core.preread import Preread
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.core.session_cutoffs import NamedMetric
from rankeval_tui.core.session_runs import RunSpec
from rankeval_tui.tui.messages import OpenDecide, OpenJudging
from rankeval_tui.tui.score.change_bounds import labels_so_far
from rankeval_tui.tui.score.compare_summary import prepare_statistics
from rankeval_tui.tui.score.compare_view import CompareView
from rankeval_tui.tui.score.delta_histogram import DeltaChart
from rankeval_tui.tui.score.hanging_text import HangingStatic
from rankeval_tui.tui.score.query_jump import QueryJump
from rankeval_tui.tui.score.run_view import RunView
from rankeval_tui.tui.score.score_footer import ScoreFooter
from rankeval_tui.tui.score.score_header import RUNS_INDENT, header_text, runs_text
from rankeval_tui.tui.score.score_keys import SCORE_BINDINGS, SCORE_HELP
from rankeval_tui.tui.score.score_table import ScoreTable
from rankeval_tui.tui.score.score_view_state import (
    ScoreViewState,
    key_available,
    next_split,
    selected_queries,
)
from rankeval_tui.tui.widgets.launch_notice import LaunchNotice


@dataclass(frozen=True)
class LoadRequest:
    """What the app asks this screen to load (core-level inputs, never argparse)."""

    protocol_dir: Path
    run_specs: tuple[RunSpec, ...] = ()
    qrels_path: Path | None = None
    k: int | None = None
    split: str | None = None
    chunk_map_path: Path | None = None
    metrics: tuple[MetricId, ...] = PRIMARY
    baseline: str | None = None
    """``--baseline NAME``; None leaves the choice to ``runs/BASELINE`` and the first run."""
    preread: Preread | None = None
    """What the command line read already (``core.preread``): for the first load only."""
    named: tuple[NamedMetric, ...] = ()
    """``--metrics`` with their cutoffs (``core.session_cutoffs``); given, they replace ``metrics``."""
    labels_path: Path | None = None
    """``--labels LABELS.toml``: every run scored under that label file too, side by side."""

    def load(self, first: bool = False) -> ScoringSession:
        """The session; the ``first`` load uses ``preread``, any later one reads the files."""
        return ScoringSession.load(
            self.protocol_dir,
            self.run_specs,
            qrels_path=self.qrels_path,
            k=self.k,
            split=self.split,
            chunk_map_path=self.chunk_map_path,
            metrics=self.metrics,
            baseline=self.baseline,
            preread=self.preread if first else None,
            named=self.named,
            labels_path=self.labels_path,
        )


def drill_down(*args: Any) -> Screen[None]:
    """The query drill-down, its module (with the document view) imported when first opened."""
    from rankeval_tui.tui.score.query_screen import QueryScreen

    return QueryScreen(*args)


class ScoreScreen(Screen[None]):
    """Per-query scores of one run, or of a candidate against a baseline, with a drill-down."""

    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    """``-short`` (under 30 lines) drops the margins that would cost table rows (rankeval.tcss)."""
    BINDINGS = SCORE_BINDINGS

    session: reactive[ScoringSession | None] = reactive(None, init=False, always_update=True)
    """Everything shown: protocol (with k, split), runs, reports. Replaced whole, never mutated."""
    state: reactive[ScoreViewState] = reactive(ScoreViewState(), init=False)
    """The viewer's choices (view, runs, metric, order, filters), replaced whole on each key."""
    problem: reactive[str | None] = reactive(None, init=False)
    """A protocol that failed to load or reload, as one line; shown instead of hiding it."""

    def __init__(self, request: LoadRequest) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        yield Static("loading…", id="score-header")
        with VerticalScroll(id="score-runs-box", can_focus=False):  # reasons scroll; the table has the focus
            yield HangingStatic(RUNS_INDENT, id="score-runs")  # wraps under the run names
        yield Static("", id="score-problem")
        with ContentSwitcher(initial="score-run-view", id="score-switcher"):
            yield RunView(id="score-run-view")
            yield CompareView(id="score-compare-view")
        yield QueryJump(self.current_table, lambda: selected_queries(self.session), id="score-jump")
        yield LaunchNotice(id="score-notice")
        yield ScoreFooter()

    def on_mount(self) -> None:
        self.load_worker(initial=True)

    # ------------------------------------------------------------------ loading

    @work(thread=True, exclusive=True, group="score-load")
    def load_worker(self, initial: bool = False) -> None:
        """Read protocol and runs off the UI thread; a bad protocol becomes a message, not a crash."""
        try:
            session = self.request.load(initial) if initial or self.session is None else self.session.reload()
        except ContractError as error:
            first = initial or self.session is None
            prefix = "protocol rejected" if first else "reload failed, still showing the last good files"
            self.app.call_from_thread(self.set_problem, f"{prefix}: {error.one_line()}")
            return
        self.app.call_from_thread(self.set_session, session)
        self.app.call_from_thread(self.query_one(LaunchNotice).say, session.tie_order_summaries() if initial else [])
        prepare_statistics(session)  # after the rows: the first child starts the fork server, a slow start

    def set_problem(self, message: str) -> None:
        self.problem = message
        if self.session is not None:
            self.notify(message, severity="error", timeout=8)

    def set_session(self, session: ScoringSession) -> None:
        """Adopt a new session; the viewer's choices follow it (``ScoreViewState.adopting``), and outlive
        one without their runs (a split that rejects them all: the comparison says it needs two)."""
        self.problem = None
        self.set_reactive(ScoreScreen.state, self.state.adopting(session))
        self.session = session
        self.refresh_bindings()  # v needs two accepted runs; a table focused before the load sent no signal

    # ------------------------------------------------------------------ reactive plumbing

    def watch_session(self) -> None:
        self.refresh_all()

    def watch_state(self, old: ScoreViewState, new: ScoreViewState) -> None:
        """Redraw what the change shows in (``ScoreViewState.redraws``); a new view takes the focus."""
        redraw = {"all": self.refresh_all, "compare": self.refresh_compare, "run": self.refresh_run}
        for part in new.redraws(old):
            redraw[part]()
        if new.view != old.view:
            self.current_table().focus()

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
        self.query_one("#score-header", Static).update(header_text(session))
        self.query_one("#score-runs", HangingStatic).show_text(
            runs_text(session, self.state.baseline, self.state.candidate)
        )
        self.query_one("#score-switcher", ContentSwitcher).current = f"score-{self.state.view}-view"
        self.refresh_run()
        self.refresh_compare()
        if self.focused is None:  # the table of a view that was hidden had the focus
            self.current_table().focus()

    def current_table(self) -> ScoreTable:
        return self.query_one(f"#score-{self.state.view}-table", ScoreTable)

    # Only the visible table is filled: a hidden table of thousands of rows would double the
    # cost of every k change. Switching views syncs the other one (in place where it can).

    def refresh_run(self) -> None:
        if self.session is not None and self.state.view == "run":
            self.query_one(RunView).show(
                self.session, self.state.run_shown(self.session), self.request.protocol_dir, self.state.run_filter
            )

    def current_comparison(self) -> Comparison | None:
        return self.state.comparison(self.session, self.query_one(CompareView).comparison)

    def refresh_compare(self) -> None:
        if self.session is None or self.state.view != "compare":
            return
        self.query_one(CompareView).show(self.session, self.current_comparison(), self.state)

    # ------------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Comparison-only keys are greyed out where they would do nothing (``key_available``)."""
        session = self.session
        comparable = len(session.comparable) if session is not None else 0
        return key_available(action, self.state.view, comparable, self.state.bounds_pair(session) is not None)

    def action_toggle_view(self) -> None:
        # No refresh_bindings(): the focus change refreshes the footer; twice rebuilt it per v.
        self.state = self.state.toggled_view()

    def rescore(self, change: Callable[[ScoringSession], ScoringSession]) -> None:
        if self.session is None:
            return
        try:
            with paused_gc(freeze=True):  # no full collection over the sessions (core.gc_pause)
                self.set_session(change(self.session))
        except ContractError as error:
            self.notify(error.one_line(), severity="error")

    def action_k_up(self) -> None:
        self.rescore(lambda s: s.with_k(s.protocol.k + 1))

    def action_k_down(self) -> None:
        if self.session is not None and self.session.protocol.k <= 1:
            return self.notify("k is already 1", severity="warning")
        self.rescore(lambda s: s.with_k(s.protocol.k - 1))

    def action_next_split(self) -> None:
        self.rescore(next_split)

    def action_next_baseline(self) -> None:
        self.state = self.state.next_baseline(self.session)
        self.refresh_bindings()

    def action_next_candidate(self) -> None:
        self.state = self.state.next_candidate(self.session)

    def action_next_metric(self) -> None:
        self.state = self.state.next_metric(self.session)

    def action_next_sort(self) -> None:
        self.state = self.state.next_sort()

    def action_step_bin(self, step: int) -> None:
        self.state = self.state.stepped_bin(self.query_one(CompareView).occupied_bins(), step)

    @on(DeltaChart.BinClicked)
    def bin_clicked(self, message: DeltaChart.BinClicked) -> None:
        self.state = self.state.chosen_bin(message.index)

    def action_toggle_exact(self) -> None:
        self.state = self.state.toggled_exact()

    def action_page_summary(self) -> None:
        self.query_one(CompareView).page_summary()

    def action_next_filter(self) -> None:
        self.state = self.state.next_filter(self.session)

    def action_find_query(self) -> None:
        self.query_one(QueryJump).open()

    def action_reload(self) -> None:
        """Re-read protocol, qrels and runs from disk (after a run file changed)."""
        self.notify("reloading files from disk…", timeout=2)
        self.load_worker()

    def action_judge(self) -> None:
        self.post_message(OpenJudging())

    def action_decide(self) -> None:
        """``d`` on a comparison on a gap: its unjudged pairs grown into the pools and judged in the
        order that decides the change (the app opens the judging screen: ``judge --decide``), at the
        protocol's own k and split, which the judging order uses."""
        session, pair = self.session, self.state.bounds_pair(self.session)
        if session is None or pair is None:
            return
        if (session.protocol.k, session.protocol.split) != (session.base.k, session.base.split):
            self.notify(
                f"d judges at the protocol's k {session.base.k} and split {session.base.split}: "
                "set them back (+/-, t) first",
                severity="warning",
            )
            return
        runs = {s.name: s.run for s in session.comparable if s.run is not None}
        self.post_message(OpenDecide(runs[pair[0]], runs[pair[1]], session.metrics, self.judging_ended))

    def judging_ended(self, judging: Any) -> None:
        """Back from judging to decide: every hole judged, the qrels were written and the files
        are read again (the runs now score exactly); else the protocol has holes and cannot be
        scored yet, and the comparison shows the change's bounds under the labels so far, as
        ``score --bounds`` computes them from the qrels file and the journal."""
        if judging.marks.complete:
            self.load_worker()
            return
        from rankeval_tui.core.annotation.decide_session import bounds_so_far

        session, pair = self.session, self.state.bounds_pair(self.session)
        if session is None or pair is None:
            return
        runs = {s.name: s.run for s in session.comparable if s.run is not None}
        baseline, candidate = runs[pair[0]], runs[pair[1]]
        qrels_path = Path(judging.qrels_path)
        self.query_one(CompareView).bounds_from(
            lambda: bounds_so_far(self.request.protocol_dir, qrels_path, baseline, candidate, session.metrics),
            labels_so_far,
        )

    def action_help(self) -> None:
        self.notify(SCORE_HELP, timeout=10)

    @on(DataTable.RowSelected)
    def open_query(self, event: DataTable.RowSelected) -> None:
        """Enter on a query: its text, need and every accepted run's ranking with labels."""
        if self.session is None or event.row_key.value is None:
            return
        runs, shown = self.state.drill_down(self.session), self.state.shown_in(self.session)  # explained at its cutoff
        self.app.push_screen(drill_down(self.session, event.row_key.value, runs, shown, self.state.view == "compare"))
