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
from rankeval_tui.core.evaluation.tie_order import tie_order_report
from rankeval_tui.core.files.baseline import BaselineChoice, default_candidate
from rankeval_tui.core.session_cutoffs import NamedMetric, ShownMetric, shown_metrics
from rankeval_tui.core.session_runs import ScoredRun, baseline_among, empty_runs


class SessionViews:
    """The read-only views of ``core.session.ScoringSession`` (its fields, annotated here for them)."""

    base: Protocol
    protocol: Protocol
    scored: tuple[ScoredRun, ...]
    adjudicated: frozenset[str]
    metrics: tuple[MetricId, ...]
    named: tuple[NamedMetric, ...]
    baseline_choice: BaselineChoice | None

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

    def adjudicated_queries(self) -> tuple[str, ...]:
        """The selected queries whose labels were adjudicated, in protocol order (as ``score`` lists them)."""
        return tuple(q for q in self.protocol.selected_queries if q in self.adjudicated)
