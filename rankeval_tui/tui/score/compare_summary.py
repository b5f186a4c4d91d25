"""The comparison's summary: means, exact mean deltas, win/tie/loss, and the paired statistics.

The statistics (sign-flip, bootstrap, Holm: seconds of draws on thousands of queries) come
from a worker owned by this widget, in a child process when large, so no key waits for them;
until they arrive the summary says they are being computed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from rich.text import Text
from textual import work
from textual.message import Message
from textual.reactive import reactive
from textual.worker import get_current_worker

from rankeval_tui.core.evaluation.compare import Comparison, Metric
from rankeval_tui.core.evaluation.metrics import mean_label
from rankeval_tui.core.evaluation.stats import CandidateStatistics, PairedStatistics, decimal
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.core.session_statistics import (
    StatisticsUnavailable,
    prepare_statistics_process,
    statistics_in_process,
)
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.core.wording import exact_and_decimal
from rankeval_tui.tui.score.cells import STYLE_LOSS, signed_and_decimal, signed_decimal
from rankeval_tui.tui.score.hanging_text import HangingStatic
from rankeval_tui.tui.score.legends import ADJUDICATED_LEGEND, COMPARE_LEGEND
from rankeval_tui.tui.score.score_stats import INDENT, pending_line, statistics_lines

LISTED = 6
"""Regressions named in the summary; more would push the table off the screen (``f`` shows
every regression in the table)."""

PROCESS_MIN_WORK = 200
"""Queries x candidates above which the statistics run in a child process: below it, starting
a process costs more than the draws themselves (``benchmarks/bench_score_statistics.py``)."""


def in_process(session: ScoringSession) -> bool:
    """Whether this session's comparisons get their statistics from a child process."""
    accepted = len(session.accepted)
    return accepted >= 2 and len(session.protocol.selected_queries) * (accepted - 1) > PROCESS_MIN_WORK


def prepare_statistics(session: ScoringSession) -> None:
    """Have a statistics child waiting (``core.session_statistics.prepare_statistics_process``)
    when this session will need one; called by the loading worker, off the UI thread."""
    if in_process(session):
        prepare_statistics_process()


def listed(queries: Sequence[str]) -> str:
    if not queries:
        return "none"
    if len(queries) <= LISTED:
        return ", ".join(queries)
    return f"{len(queries)} queries ({', '.join(queries[:LISTED])}, …; f: every regression)"


DETAILED_METRICS = 2
"""Up to this many compared metrics (the seed's pair), every metric's paired tests are shown."""


@dataclass(frozen=True, eq=False)
class StatsResult:
    """Paired statistics and what they were computed for: shown only while both still match.

    Identity equality: a reactive skips a value equal to the current one, and two sessions
    with the same k compare equal by value though only the newest is on screen."""

    session: ScoringSession
    baseline: str
    statistics: PairedStatistics | None
    complete: bool = True
    """False for the child's early result: the sign-flip p, Holm and verdict, the bootstrap to come."""
    failure: str | None = None
    """Why there are no statistics (the child process was killed): shown, and the next request retries."""


class CompareSummary(HangingStatic):
    """The text under the comparison table; redrawn when the statistics for it arrive."""

    statistics_result: reactive[StatsResult | None] = reactive(None, init=False)
    """The last paired statistics the worker finished (every candidate against one baseline,
    Holm across them, as ``score --baseline``); stale once the session or baseline changed."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        # wrapped lines indented under the metric labels, not at column 0
        super().__init__(len(INDENT), id=id, classes=classes)
        self._stats_wanted: tuple[ScoringSession, str] | None = None
        self._shown: tuple[ScoringSession, Comparison, Metric] | None = None
        self._exact = False

    def show(self, session: ScoringSession, comparison: Comparison, metric: Metric, exact: bool = False) -> None:
        """Summarise ``comparison`` (the chosen ``metric`` first and highlighted; decimals alone
        unless ``exact``) and ask for its statistics."""
        self._shown = (session, comparison, metric)
        self._exact = exact
        self.request_statistics()
        self.show_text(self.summary_text())

    def clear(self) -> None:
        self._shown = None
        self.show_text(Text())

    def current_statistics(self) -> StatsResult | None:
        """The worker's result if it is for the session and baseline shown, else None (pending)."""
        result = self.statistics_result
        if self._shown is None or result is None:
            return None
        session, comparison, _ = self._shown
        if result.session is not session or result.baseline != comparison.baseline.run:
            return None
        return result

    class StatisticsShown(Message):
        """New statistics are on screen: the chart draws their bootstrap CI."""

    def watch_statistics_result(self) -> None:
        if self._shown is not None:
            self.show_text(self.summary_text())
            self.post_message(self.StatisticsShown())

    def interval(self, metric: Metric) -> tuple[tuple[Fraction, Fraction, Fraction] | None, bool]:
        """The bootstrap CI of ``metric``'s mean delta for the pair shown (low, high, confidence),
        or None; and whether it is still to come (statistics pending or incomplete)."""
        result = self.current_statistics()
        if result is None or self._shown is None:
            return None, True
        mine = None if result.statistics is None else result.statistics.get(self._shown[1].candidate.run)
        boot = None if mine is None or metric not in mine.metrics else mine.metrics[metric].bootstrap
        if boot is None:
            return None, not result.complete
        return (boot.low, boot.high, boot.confidence), False

    def summary_text(self) -> Text:
        """Per metric, the chosen one first: means, mean delta, win/tie/loss; then the verdict in
        words and the paired tests, then the regressions (named or counted). With more than ``DETAILED_METRICS`` metrics
        only the chosen one's tests are shown, so the summary grows by one line per metric and
        leaves the table room. Decimals alone unless ``x`` asked for the exact fractions."""
        assert self._shown is not None
        session, comparison, chosen = self._shown
        exact = self._exact
        base, cand = comparison.baseline, comparison.candidate
        k = base.k
        result = self.current_statistics()
        family = None if result is None else result.statistics
        mine = None if family is None else family.get(cand.run)
        mean = exact_and_decimal if exact else decimal
        change = signed_and_decimal if exact else signed_decimal
        text = Text()
        for metric in sorted(comparison.metrics, key=lambda m: m != chosen):
            counts = comparison.counts(metric)
            worse = comparison.regressions(metric)
            text.append(f"{mean_label(metric, k):<9}", style="bold reverse" if metric == chosen else "bold")
            text.append(
                f" {printable(base.run)} {mean(base.mean(metric))} → "
                f"{printable(cand.run)} {mean(cand.mean(metric))}  Δ {change(comparison.mean_delta(metric))}"
                f"  win/tie/loss {counts['win']}/{counts['tie']}/{counts['loss']}\n"
            )
            if base.run != cand.run and (len(comparison.metrics) <= DETAILED_METRICS or metric == chosen):
                # the verdict and tests before the list of regressions: in view at 80x24 (the
                # same run has nothing to test; beyond the seed's pair, the chosen metric's only)
                text.append_text(self.tests_text(metric, result, family, mine, len(comparison.rows)))
                text.append("\n")
            text.append(INDENT + f"regressions: {listed(worse)}\n", style=STYLE_LOSS if worse else "")
        text.append_text(COMPARE_LEGEND)
        if session.adjudicated_queries():
            text.append_text(ADJUDICATED_LEGEND)
        return text

    def tests_text(
        self,
        metric: Metric,
        result: StatsResult | None,
        family: PairedStatistics | None,
        mine: CandidateStatistics | None,
        queries: int,
    ) -> Text:
        """The verdict and paired tests of ``metric``, or why there are none (yet)."""
        if result is None:
            return pending_line(queries)
        if result.failure:
            return Text(f"          paired statistics failed (v twice: try again): {result.failure}", style="bold")
        if family is None or mine is None:
            return Text("          no paired statistics for this pair", style="dim")
        return statistics_lines(
            mine.metrics[metric],
            family.alpha,
            len(family.candidates),
            bootstrap_pending=not result.complete,
            exact=self._exact,
        )

    # ------------------------------------------------------------------ statistics worker

    def request_statistics(self) -> None:
        """Ask for the statistics of the session and baseline shown, unless they are shown
        or already being computed. A newer request cancels the running one (``exclusive``)."""
        current = self.current_statistics()
        if self._shown is None or len(self._shown[0].accepted) < 2 or (current is not None and not current.failure):
            return
        session, baseline = self._shown[0], self._shown[1].baseline.run
        wanted = self._stats_wanted
        if wanted is not None and wanted[0] is session and wanted[1] == baseline:
            return  # identity: sessions compare equal by value (k 2 -> 3 -> 2)
        self._stats_wanted = (session, baseline)
        self.statistics_worker(session, baseline)

    # ``description`` given: without it Textual builds one from ``repr`` of the arguments, in
    # the UI thread, and the session's dataclass repr spelled out every ranking at each request.
    @work(thread=True, exclusive=True, group="score-stats", description="paired statistics")
    def statistics_worker(self, session: ScoringSession, baseline: str) -> None:
        """Small comparisons in this thread; large ones in a child process (pure-Python draws
        holding the GIL would slow every key), which a newer request terminates."""
        worker = get_current_worker()
        reports = session.family(baseline)
        if not in_process(session):
            statistics = session.statistics(baseline)
        else:

            def early(first: PairedStatistics | None) -> None:  # the sign-flip p before the bootstrap
                if not worker.is_cancelled:
                    self.app.call_from_thread(
                        self.statistics_done, StatsResult(session, baseline, first, complete=False)
                    )

            try:
                statistics = statistics_in_process(reports, cancelled=lambda: worker.is_cancelled, early=early)
            except StatisticsUnavailable as error:  # shown with a way to retry; the app goes on
                self.app.call_from_thread(
                    self.statistics_done, StatsResult(session, baseline, None, failure=str(error))
                )
                return
        if not worker.is_cancelled:
            self.app.call_from_thread(self.statistics_done, StatsResult(session, baseline, statistics))

    def statistics_done(self, result: StatsResult) -> None:
        shown = self._shown
        if result.failure:
            self._stats_wanted = None  # the next show (v twice) asks again
        if shown is not None and result.session is shown[0] and result.baseline == shown[1].baseline.run:
            self.statistics_result = result
