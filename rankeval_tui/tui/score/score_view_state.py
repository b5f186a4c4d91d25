"""The scoring screen's view state and its rules for cycling choices and keeping them valid (no textual).

Kept apart from ``ScoreScreen`` so the rules (what ``v``/``b``/``c``/``m``/``s``/``f`` pick next,
which baseline and candidate survive a reload, a k or a split change, what a change redraws) are
unit-tested without a terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from operator import attrgetter
from typing import Literal, TypeVar

from rankeval_tui.core.evaluation.compare import Comparison, Metric, PairedRow
from rankeval_tui.core.evaluation.metrics import PRIMARY
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.core.session_cutoffs import ShownMetric

Option = TypeVar("Option")

View = Literal["run", "compare"]
RunFilter = Literal["all", "missing", "no_relevant", "adjudicated"]
RUN_FILTERS: tuple[RunFilter, ...] = ("all", "missing", "no_relevant", "adjudicated")
"""The single run's ``f`` cycle, in the order the summary lists them."""
SortMode = Literal["protocol", "worst", "best"]
SORT_MODES: tuple[SortMode, ...] = ("protocol", "worst", "best")
"""The comparison's ``s`` cycle: protocol order, then by the chosen metric's delta."""
Redraw = Literal["all", "compare", "run"]
"""What a state change redraws: everything (``ScoreScreen.refresh_all``), or one view."""
SHOWN_EVERYWHERE = attrgetter("view", "baseline", "candidate")
"""The fields the header, the runs line and both views show."""
COMPARISON_ORDER = attrgetter("metric", "metric_cutoff", "sort_mode", "regressions_only", "exact", "delta_bin")
"""The fields that order, filter and format the comparison's rows only."""

SortKey = tuple[bool, Fraction, Fraction, tuple[Fraction, ...], str]


def paired_sort_key(mode: SortMode, metric: Metric, metrics: Sequence[Metric]) -> Callable[[PairedRow], SortKey]:
    """The comparison's order for ``s`` (``worst`` or ``best`` first by ``metric``'s delta, an
    exact Fraction; queries without one, no relevant document, always last).

    Ties (14 queries at -1 are common) are broken, in this order, by: the baseline's value of
    ``metric`` (worst first: the higher one, a good result lost; best first: the lower one, a
    poor result mended), then the other compared metrics' deltas in their order (in the same
    direction as the sort), then the query ID. Documented in docs/scoring.md."""
    sign = -1 if mode == "best" else 1
    others = [m for m in metrics if m != metric]
    zero = Fraction(0)

    def key(row: PairedRow) -> SortKey:
        delta = row.delta(metric)
        if delta is None:
            return (True, zero, zero, (), row.query)
        base = row.value(metric, "baseline") or zero
        rest = tuple(sign * (row.delta(m) or zero) for m in others)
        return (False, sign * delta, -sign * base, rest, row.query)

    return key


def next_option(options: Sequence[Option], current: Option | None) -> Option:
    """The option after ``current``, wrapping; the first one when ``current`` is not offered
    (a metric missing from ``--metrics``, a filter that vanished). ``options`` is never empty."""
    for position, option in enumerate(options):
        if option == current:
            return options[(position + 1) % len(options)]
    return options[0]


def next_run(session: ScoringSession | None, current: str | None, comparing: bool = False) -> str | None:
    """The accepted run after ``current`` (``b``, ``c``); None when no run is accepted. ``comparing``:
    among the runs a comparison takes (``ScoringSession.comparable``: a run with a gap too)."""
    runs = (session.comparable if comparing else session.accepted) if session else ()
    names = [s.name for s in runs]
    return next_option(names, current) if names else None


@dataclass(frozen=True)
class RunChoice:
    """Baseline and candidate to show for a session, and the pair to remember as chosen."""

    baseline: str | None
    candidate: str | None
    chosen: tuple[str | None, str | None]
    """Restored when a later split or reload that lost them (runs of another split are
    rejected) gives them back."""


def choose_runs(session: ScoringSession, chosen: tuple[str | None, str | None]) -> RunChoice:
    """The chosen baseline/candidate where those runs are accepted, otherwise the session's
    default (``--baseline``, ``runs/BASELINE``, first run with results); the choice is the
    viewer's and outlives a session without them. A run with a gap (``ScoredRun.on_gap``) is never
    the default baseline, but is the default candidate when no other accepted run is left."""
    names = [s.name for s in session.comparable]
    chosen_baseline, chosen_candidate = chosen
    baseline: str | None
    if chosen_baseline in names:
        baseline = chosen_baseline
    else:
        default = session.default_baseline()
        baseline = default.name if default else None
    candidate = chosen_candidate if chosen_candidate in names else session.default_candidate(baseline)
    if chosen_candidate not in names and candidate in (None, baseline):  # no other accepted run
        candidate = next((s.name for s in session.comparable if s.on_gap and s.name != baseline), candidate)
    if chosen_baseline is None or chosen_candidate is None:
        chosen = (baseline, candidate)
    return RunChoice(baseline, candidate, chosen)


def kept_metric(current: Metric, metrics: Sequence[Metric]) -> Metric:
    """``current`` if the session still shows it, else RR@k where shown (the seed's q2), else the first."""
    if current in metrics:
        return current
    return "rr" if "rr" in metrics else metrics[0]


def kept_shown(metric: Metric, cutoff: int | None, shown: Sequence[ShownMetric]) -> ShownMetric:
    """The shown metric named as ``metric`` at ``cutoff`` (``ShownMetric.fixed``: None follows
    k) if the session still shows it; else ``kept_metric``'s choice among the metrics, at the
    first cutoff showing it. ``shown`` is never empty."""
    for candidate in shown:
        if (candidate.metric, candidate.fixed) == (metric, cutoff):
            return candidate
    fallback = kept_metric(metric, [s.metric for s in shown])
    return next(s for s in shown if s.metric == fallback)


def drill_down_runs(comparing: bool, baseline: str | None, candidate: str | None, accepted: Sequence[str]) -> list[str]:
    """Runs the query detail shows, in order: the compared pair in a comparison, else the shown
    run first and then every accepted run (each once); a run with a gap has no scores to show."""
    if comparing and baseline and candidate:
        return [name for name in dict.fromkeys([baseline, candidate]) if name in accepted]
    first = [candidate] if candidate is not None and candidate in accepted else []
    return list(dict.fromkeys([*first, *accepted]))


def selected_queries(session: ScoringSession | None) -> tuple[str, ...]:
    """The queries of the session's split (what ``/`` can jump to), none before the first load."""
    return tuple(session.protocol.selected_queries) if session is not None else ()


def next_split(session: ScoringSession) -> ScoringSession:
    """The session rescored on the split after the current one (``t``), wrapping."""
    return session.with_split(next_option(session.splits, session.protocol.split))


def key_available(action: str, view: str, comparable_runs: int, on_bounds: bool = False) -> bool | None:
    """Whether a key works now: True, or None to grey it out in the footer (Textual's
    ``check_action``). b, m, s, x, p, [ and ] act on the comparison only; v opens the comparison only when
    two runs can be compared (accepted, or with a gap), and always leads back from it; d (judge in
    the order that decides) works on a comparison on bounds only, and is hidden (False) elsewhere;
    ] and [ (the chart's bins) are hidden there: a gap has no chart."""
    if action == "step_bin" and on_bounds:
        return False  # no chart on a gap: no one delta per query to bin
    if action in ("next_baseline", "next_metric", "next_sort", "toggle_exact", "page_summary", "step_bin"):
        return True if view == "compare" else None
    if action == "toggle_view":
        return True if comparable_runs >= 2 or view == "compare" else None
    if action == "decide":
        return view == "compare" and on_bounds
    return True


@dataclass(frozen=True)
class ScoreViewState:
    """The viewer's choices on the scoring screen; each key gives a new state, never a mutation.

    Why one value: the screen compares the old and new state to redraw only what changed
    (``redraws``), and every rule for the next choice is tested here without a terminal."""

    view: View = "run"
    """The single-run table or the baseline/candidate comparison."""
    baseline: str | None = None
    """Name of the accepted run the candidate is compared with."""
    candidate: str | None = None
    """Name of the accepted run shown in the single-run view and compared against the baseline."""
    metric: Metric = "rr"
    """Metric of the delta chart, the sort and the regressions filter (RR@k first: the seed's q2)."""
    metric_cutoff: int | None = None
    """The chosen metric's cutoff as named with ``@`` (``ShownMetric.fixed``), None for the session's
    k: the comparison is the one at that cutoff (``--metrics P@5,P@10``: each its own protocol)."""
    sort_mode: SortMode = "protocol"
    """Order of the comparison rows; deltas are sorted as exact Fractions."""
    regressions_only: bool = False
    """Comparison: show only the regressions, by the verdict column's rule (a loss on any metric)."""
    exact: bool = False
    """Comparison: exact fractions beside the decimals (``x``); decimals alone by default, so the
    chosen metric, the verdict and the bar fit 80 columns."""
    delta_bin: int | None = None
    """Comparison: only the queries in this bin of the chart (``[``/``]``, a click), or all.
    Bins are fixed ranges (``core.evaluation.histogram``), so the choice outlives a k change."""
    run_filter: RunFilter = "all"
    """Single run: all queries, or only its missing, no-relevant or adjudicated ones (``f``)."""
    chosen_runs: tuple[str | None, str | None] = (None, None)
    """Baseline and candidate as last chosen: restored when a split or reload that lost
    them (runs of another split are rejected) gives them back."""

    def toggled_view(self) -> ScoreViewState:
        """``v``: the comparison from the single run, and back."""
        return replace(self, view="compare" if self.view == "run" else "run")

    def next_baseline(self, session: ScoringSession | None) -> ScoreViewState:
        """``b``: the accepted run after the baseline (in a comparison, one with a gap too), remembered as chosen."""
        baseline = next_run(session, self.baseline, self.view == "compare")
        return replace(self, baseline=baseline, chosen_runs=(baseline, self.candidate))

    def next_candidate(self, session: ScoringSession | None) -> ScoreViewState:
        """``c``: the accepted run after the candidate (in a comparison, one with a gap too), remembered as chosen."""
        candidate = next_run(session, self.candidate, self.view == "compare")
        return replace(self, candidate=candidate, chosen_runs=(self.baseline, candidate))

    def next_metric(self, session: ScoringSession | None) -> ScoreViewState:
        """``m``: the next of the session's metrics (``--metrics``, each at its cutoff; Recall@k
        and RR@k by default)."""
        if session is None:
            return replace(self, metric=next_option(PRIMARY, self.metric), delta_bin=None)
        chosen = next_option(session.shown, self.shown_in(session))
        return replace(self, metric=chosen.metric, metric_cutoff=chosen.fixed, delta_bin=None)  # a bin of another chart

    def shown_in(self, session: ScoringSession) -> ShownMetric:
        """The chosen metric at its cutoff in ``session`` (``kept_shown``)."""
        return kept_shown(self.metric, self.metric_cutoff, session.shown)

    def next_sort(self) -> ScoreViewState:
        """``s``: the next of the comparison's orders."""
        return replace(self, sort_mode=next_option(SORT_MODES, self.sort_mode))

    def stepped_bin(self, occupied: Sequence[int], step: int) -> ScoreViewState:
        """``]`` / ``[``: the next / previous bin that holds queries, then all queries again."""
        options: list[int | None] = [None, *occupied]
        position = options.index(self.delta_bin) if self.delta_bin in options else 0
        return replace(self, delta_bin=options[(position + step) % len(options)])

    def chosen_bin(self, index: int) -> ScoreViewState:
        """A click on a bin: its queries; a click on the bin shown: all queries again."""
        return replace(self, delta_bin=None if index == self.delta_bin else index)

    def toggled_exact(self) -> ScoreViewState:
        """``x``: the comparison's exact fractions shown, or hidden again."""
        return replace(self, exact=not self.exact)

    def next_filter(self, session: ScoringSession | None) -> ScoreViewState:
        """``f``. Comparison: all queries <-> regressions. Single run: all -> missing -> no relevant
        -> adjudicated (when any) -> all: the lists the summary counts, in full in the table."""
        if self.view == "compare":
            return replace(self, regressions_only=not self.regressions_only)
        filters = [f for f in RUN_FILTERS if f != "adjudicated" or (session and session.adjudicated)]
        return replace(self, run_filter=next_option(filters, self.run_filter))

    def adopting(self, session: ScoringSession) -> ScoreViewState:
        """The state for a new session: the chosen runs where it accepts them (``choose_runs``),
        the metric where it still shows it (``kept_metric``); the view and filters are kept."""
        choice = choose_runs(session, self.chosen_runs)
        shown = self.shown_in(session)
        return replace(
            self,
            baseline=choice.baseline,
            candidate=choice.candidate,
            chosen_runs=choice.chosen,
            metric=shown.metric,
            metric_cutoff=shown.fixed,
        )

    def comparison(self, session: ScoringSession | None, like: Comparison | None = None) -> Comparison | None:
        """The candidate against the baseline at the chosen metric's cutoff; None without both, or
        with fewer than two accepted runs (the comparison view then says it needs two). ``like``:
        the comparison shown before (``ScoringSession.comparison`` keeps what it can of it)."""
        if session is None or self.baseline is None or self.candidate is None or len(session.accepted) < 2:
            return None
        if self.bounds_pair(session) is not None:
            return None
        return session.at_cutoff(self.shown_in(session).cutoff).comparison(self.baseline, self.candidate, like)

    def bounds_pair(self, session: ScoringSession | None) -> tuple[str, str] | None:
        """Baseline and candidate when they compare on the change's exact bounds (either has a gap
        in a pooled protocol: ``ScoringSession.on_bounds``), else None."""
        if session is None or self.baseline is None or self.candidate is None:
            return None
        names = {s.name for s in session.comparable}
        if {self.baseline, self.candidate} <= names and session.on_bounds(self.baseline, self.candidate):
            return self.baseline, self.candidate
        return None

    def run_shown(self, session: ScoringSession) -> str | None:
        """The run of the single-run view: the candidate when accepted (one with a gap has no
        score), else the baseline, else the first accepted run."""
        accepted = [s.name for s in session.accepted]
        for name in (self.candidate, self.baseline, *accepted):
            if name in accepted:
                return name
        return None

    def drill_down(self, session: ScoringSession) -> list[str]:
        """The runs ``Enter`` shows a query's rankings of, in order (``drill_down_runs``)."""
        accepted = [s.name for s in session.accepted]
        return drill_down_runs(self.view == "compare", self.baseline, self.candidate, accepted)

    def redraws(self, before: ScoreViewState) -> tuple[Redraw, ...]:
        """What changed since ``before`` shows in: everything for another view or pair of runs,
        else the comparison for its metric, order or regressions filter and the single run for
        its filter; nothing for a remembered choice alone (``chosen_runs``). Why not always
        everything: the header, the runs line and the other view have nothing new to show."""
        if SHOWN_EVERYWHERE(self) != SHOWN_EVERYWHERE(before):
            return ("all",)
        parts: list[Redraw] = []
        if COMPARISON_ORDER(self) != COMPARISON_ORDER(before):
            parts.append("compare")
        if self.run_filter != before.run_filter:
            parts.append("run")
        return tuple(parts)
