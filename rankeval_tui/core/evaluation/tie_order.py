"""What trec_eval's tie order would change: one summary per run, the queries on request.

A TREC run is ordered here by its rank column; trec_eval orders by score, then document ID
descending, and ignores the rank. Where the two orders differ (ties in score, mostly), trec_eval
scores the query on another ranking. Most such differences lie below k or swap two documents
of the same label and change no value, so one warning per query (114 lines for two ordinary
runs) drowned the few that matter. This module scores each differing query both ways with the
evaluator (``score_query``) and says how many change a value at k.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rankeval_tui.core.errors import quote
from rankeval_tui.core.evaluation.evaluate import Run, score_query
from rankeval_tui.core.evaluation.metrics import METRIC_IDS, PRIMARY, MetricId, label
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.wording import counted

SCORE_ORDER_OPTION = "score --score-order"
"""The option that orders TREC runs as trec_eval does."""
DETAILS_OPTION = "score --tie-order-details"
"""The option that lists the queries, one line each."""
CHANGED_NAMED = 10
"""The summary names the queries whose value changes, up to this many."""


@dataclass(frozen=True)
class TieOrderReport:
    """One run's queries (of the protocol's split) that trec_eval would rank otherwise."""

    run: str
    source: Path | None
    k: int
    queries: tuple[str, ...]
    changed: tuple[tuple[str, tuple[MetricId, ...]], ...]
    """The queries among them where a metric's value at k differs, with those metrics."""

    def summary(self) -> str:
        """One line: how many queries, how many change a value at k, the option, the details flag."""
        where = f" ({self.source})" if self.source is not None else ""
        named = ", ".join(quote(query) for query, _ in self.changed[:CHANGED_NAMED])
        more = f", and {len(self.changed) - CHANGED_NAMED} more" if len(self.changed) > CHANGED_NAMED else ""
        which = f" (query {named}{more})" if self.changed else ""
        return (
            f"run {quote(self.run)}{where}: {counted(len(self.queries), 'query')} ranked otherwise by trec_eval "
            f"(it orders by score, then document ID descending; ties in score); {len(self.changed)} of them "
            f"change a value at k={self.k}{which}; {SCORE_ORDER_OPTION} orders like trec_eval (or tie_order = "
            f'"score" in protocol.toml, init --tie-order score), {DETAILS_OPTION} lists them'
        )

    def status_line(self) -> str | None:
        """The screen's one line, only when trec_eval's order changes a value: which queries, and
        how to score in that order. A difference that changes nothing is not worth a line there."""
        if not self.changed:
            return None
        named = ", ".join(quote(query) for query, _ in self.changed[:CHANGED_NAMED])
        more = f", and {len(self.changed) - CHANGED_NAMED} more" if len(self.changed) > CHANGED_NAMED else ""
        return (
            f"run {quote(self.run)}: {counted(len(self.changed), 'query')} ranked otherwise by trec_eval change a "
            f'value at k={self.k} ({named}{more}); {SCORE_ORDER_OPTION} or tie_order = "score" orders like it'
        )

    def details(self) -> list[str]:
        """One line per differing query: whether and where a value at k changes."""
        changed = dict(self.changed)
        lines = []
        for query in self.queries:
            metrics = changed.get(query)
            effect = ", ".join(label(m, self.k) for m in metrics) if metrics else f"no value at k={self.k}"
            lines.append(f"run {quote(self.run)}: query {quote(query)}: trec_eval's order changes {effect}")
        return lines


def tie_order_report(protocol: Protocol, run: Run, metrics: tuple[MetricId, ...] = METRIC_IDS) -> TieOrderReport | None:
    """The run's differing queries of the protocol's split, each scored in both orders on
    ``metrics`` (every metric by default: a value of any of them at k); None when none differ or
    the protocol orders by score already (``tie_order = "score"``: scored as trec_eval orders)."""
    if protocol.definition.tie_order == "score":
        return None
    differing = [query for query in protocol.selected_queries if query in run.score_order]
    if not differing:
        return None
    extra = tuple(m for m in metrics if m not in PRIMARY)
    changed = []
    for query in differing:
        relevant = protocol.relevant[query]
        gains = protocol.gains_of(query)
        ours = score_query(query, run.rankings[query], relevant, protocol.k, False, extra, gains)
        theirs = score_query(query, run.score_order[query], relevant, protocol.k, False, extra, gains)
        moved = tuple(m for m in metrics if ours.value(m) != theirs.value(m))
        if moved:
            changed.append((query, moved))
    return TieOrderReport(run.name, run.source, protocol.k, tuple(differing), tuple(changed))
