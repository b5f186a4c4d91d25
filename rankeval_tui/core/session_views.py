"""What a scoring session shows of its runs: accepted and rejected, reports, comparisons, the
metric columns at their cutoffs, the default baseline and candidate.

Why a module of its own: ``core/session.py`` builds sessions (load, k, split, reload, cutoffs);
these are the read-only questions the screen asks of one, none of which builds anything. The
fields they read are ``ScoringSession``'s, which mixes this class in.
"""

from __future__ import annotations

from rankeval_tui.core.evaluation.compare import Comparison, compare
from rankeval_tui.core.evaluation.evaluate import Report, Run
from rankeval_tui.core.evaluation.metrics import MetricId
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.evaluation.run_check import in_tie_order
from rankeval_tui.core.evaluation.tie_order import tie_order_report
from rankeval_tui.core.files.baseline import BaselineChoice, default_candidate
from rankeval_tui.core.session_cutoffs import NamedMetric, ShownMetric, shown_metrics
from rankeval_tui.core.session_runs import ScoredRun, baseline_among, empty_runs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rankeval_tui.core.evaluation.delta_bounds import DeltaReport
    from rankeval_tui.core.session_labels import OtherLabels, RunOrder


class SessionViews:
    """The read-only views of ``core.session.ScoringSession`` (its fields, annotated here for them)."""

    base: Protocol
    protocol: Protocol
    scored: tuple[ScoredRun, ...]
    adjudicated: frozenset[str]
    metrics: tuple[MetricId, ...]
    named: tuple[NamedMetric, ...]
    baseline_choice: BaselineChoice | None
    labels: OtherLabels | None
    under_labels: dict[str, Report]

    @property
    def shown(self) -> tuple[ShownMetric, ...]:
        """The metric columns, in the order named: each ``named`` metric at its cutoff (k for
        one named without ``@``), once each; without ``named``, ``metrics`` at k."""
        return shown_metrics(self.named, self.metrics, self.protocol.k)

    @property
    def by_cutoff(self) -> bool:
        """Whether the views name each metric by its cutoff (``P@5``) rather than ``P@k``: when a
        shown metric is at a cutoff other than k, or was named with one (``--metrics P@10``),
        so the headings do not change style as the k key moves k."""
        return any(shown.fixed is not None or shown.cutoff != self.protocol.k for shown in self.shown)

    @property
    def splits(self) -> tuple[str, ...]:
        """The protocol's splits in order of first appearance."""
        return tuple(dict.fromkeys(meta.split for meta in self.base.queries.values()))

    @property
    def accepted(self) -> tuple[ScoredRun, ...]:
        return tuple(s for s in self.scored if not s.rejected)

    @property
    def rejected(self) -> tuple[ScoredRun, ...]:
        return tuple(s for s in self.scored if s.rejected)

    @property
    def comparable(self) -> tuple[ScoredRun, ...]:
        """The runs a comparison can take, in order: the accepted ones, and those rejected for their
        gap alone (``ScoredRun.on_gap``), compared on the change's exact bounds."""
        return tuple(s for s in self.scored if not s.rejected or s.on_gap)

    def on_bounds(self, baseline: str, candidate: str) -> bool:
        """Whether the two runs compare on bounds: either has top-k pairs outside the pools."""
        return any(s.on_gap for s in self.scored if s.name in (baseline, candidate))

    def change_bounds(self, baseline: str, candidate: str) -> DeltaReport:
        """The exact range of each metric's change candidate - baseline, per query and for the mean,
        over every labelling of the two runs' unjudged top-k pairs: ``score --baseline --bounds``'s
        ``compare_bounds``, on the runs as scored (tie order applied). ``ContractError`` where it
        refuses (a graded protocol; AP over too many unjudged documents of a query)."""
        from rankeval_tui.core.evaluation.delta_bounds import compare_bounds  # only a comparison on a gap needs it

        definition = self.protocol.definition
        runs = {s.name: s.run for s in self.comparable if s.run is not None}
        return compare_bounds(
            self.protocol,
            in_tie_order(definition, runs[baseline]),
            in_tie_order(definition, runs[candidate]),
            self.metrics,
        )

    @property
    def eligible_queries(self) -> int:
        """Selected queries with at least one relevant document (the means' denominator)."""
        relevant = self.protocol.relevant
        return sum(1 for q in self.protocol.selected_queries if relevant[q])

    def default_baseline(self) -> BaselineChoice | None:
        """``core.session_runs.baseline_among`` the runs accepted now: the load's choice while it stays accepted."""
        return baseline_among(self.accepted, self.baseline_choice)

    def default_candidate(self, baseline: str | None) -> str | None:
        """The run first compared with ``baseline``: the first other accepted run with results."""
        return default_candidate([s.name for s in self.accepted], baseline, empty_runs(self.accepted))

    def report(self, name: str) -> Report:
        """The report of an accepted run; ``KeyError`` for an unknown or rejected one."""
        for scored in self.scored:
            if scored.name == name and scored.report is not None:
                return scored.report
        raise KeyError(name)

    def scored_run(self, name: str) -> Run:
        """The document run behind an accepted report (for showing rankings, not for scoring)."""
        for scored in self.scored:
            if scored.name == name and scored.run is not None and scored.report is not None:
                return scored.run
        raise KeyError(name)

    def tie_order_summaries(self) -> list[str]:
        """One line per accepted TREC run whose values trec_eval's order would change
        (``core.evaluation.tie_order``): what the screen says once, in a status line under its rows."""
        reports = (tie_order_report(self.protocol, s.run, self.metrics) for s in self.accepted if s.run is not None)
        lines = (report.status_line() for report in reports if report is not None)
        return [line for line in lines if line is not None]

    def comparison(self, baseline: str, candidate: str, like: Comparison | None = None) -> Comparison:
        """``core.evaluation.compare`` of two accepted runs (both were scored under ``self.protocol``);
        ``like``: the comparison shown before, whose unchanged rows are kept (``compare`` says how)."""
        report, other = self.report(baseline), self.report(candidate)
        if like is not None and like.baseline is report and like.candidate is other:
            return like  # the same two reports: nothing to pair again (a new sort, metric or filter)
        return compare(report, other, like)

    def report_under_labels(self, name: str) -> Report:
        """An accepted run's report under ``--labels`` at this session's k and split (the same run
        and metrics as ``report``); made once per session. ``KeyError`` without labels or run."""
        if self.labels is None:
            raise KeyError(name)
        report = self.under_labels.get(name)
        if report is None:
            run = self.scored_run(name)
            report = self.under_labels[name] = self.labels.report(self.protocol, run, self.metrics)
        return report

    def orders_under_labels(self) -> dict[MetricId, RunOrder]:
        """Per metric, the accepted runs' means under the protocol's labels and under ``--labels``,
        and the pairs of runs the two order differently; empty with fewer than two runs."""
        from rankeval_tui.core.session_labels import RunOrder  # only --labels needs it

        names = [s.name for s in self.accepted]
        if self.labels is None or len(names) < 2:
            return {}
        ours = [self.report(name) for name in names]
        theirs = [self.report_under_labels(name) for name in names]
        return {metric: RunOrder.of(metric, ours, theirs) for metric in self.metrics}

    def adjudicated_queries(self) -> tuple[str, ...]:
        """The selected queries whose labels were adjudicated, in protocol order (as ``score`` lists them)."""
        return tuple(q for q in self.protocol.selected_queries if q in self.adjudicated)
