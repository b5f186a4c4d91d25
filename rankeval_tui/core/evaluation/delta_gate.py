"""The regression gate on a gap: pass only when every labelling of the unjudged pairs passes,
fail only when every labelling fails, else undecided (``score --bounds --fail-on-regression``).

The gate without a gap fails a candidate that is significantly lower than the baseline (a
paired test, negative mean change) or that drops one query by more than ``--max-query-drop``.
On a gap each criterion is decided on what can be bounded exactly (delta_bounds.py):

* a query's drop: some labelling drops it by more than DROP when its lowest change is below
  -DROP; every labelling does when its highest change is, and no labelling leaves the query
  without a relevant document. Queries share no pair, so "every labelling fails" holds as soon
  as one query fails under all of its own labellings.
* significance: a p-value has no exact range over the labellings, so it never proves a
  failure; it is ruled out for every labelling only when no labelling lowers the mean
  (lowest mean change >= 0): "significantly lower" needs a negative mean change. The statistics
  are therefore not computed on a gap; they are shown once the pairs are judged.

So the gate never passes when some labelling could fail it. ``undecided`` may also be said
when every labelling fails but for different reasons under different labellings; judging the
open pairs decides it either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from rankeval_tui.core.evaluation.delta_bounds import DeltaReport
from rankeval_tui.core.evaluation.metrics import label, mean_label
from rankeval_tui.core.wording import exact_and_decimal

PASSED, FAILED, UNDECIDED = "passed", "failed", "undecided"
EXIT_CODES = {PASSED: 0, FAILED: 1, UNDECIDED: 3}


@dataclass(frozen=True)
class GateOnGap:
    certain: tuple[str, ...]
    """Failures under every labelling."""
    possible: tuple[str, ...]
    """Failures under some labelling but not every one."""
    open_pairs: int
    """Unjudged top-k pairs of the queries behind the possible failures: judging them decides."""

    @property
    def outcome(self) -> str:
        if self.certain:
            return FAILED
        return UNDECIDED if self.possible else PASSED

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.outcome]


def gate_on_gap(reports: Sequence[DeltaReport], max_query_drop: Fraction) -> GateOnGap:
    certain: list[str] = []
    possible: list[str] = []
    open_queries: set[tuple[str, str]] = set()
    for report in reports:
        runs = f"run {report.candidate!r} vs baseline {report.baseline!r}"
        for metric in report.metrics:
            mean = report.mean(metric)
            if mean.low is not None and mean.low < 0:
                possible.append(
                    f"{runs}: {mean_label(metric, report.k)} change can be as low as {exact_and_decimal(mean.low)} "
                    "(some labelling lowers the mean; its significance is known once judged)"
                )
                open_queries.update((report.candidate, row.query) for row in report.rows if not row.bound(metric).exact)
            for row in report.rows:
                bound = row.bound(metric)
                if bound.low is None or bound.high is None or -bound.low <= max_query_drop:
                    continue
                where = f"{runs}: {label(metric, report.k)} on query {row.query!r}"
                if -bound.high > max_query_drop and not bound.undefined_possible:
                    certain.append(
                        f"{where} drops by at least {exact_and_decimal(-bound.high)} under every labelling, "
                        f"more than --max-query-drop {exact_and_decimal(max_query_drop)}"
                    )
                else:
                    possible.append(
                        f"{where} can drop by {exact_and_decimal(-bound.low)}, more than --max-query-drop "
                        f"{exact_and_decimal(max_query_drop)}"
                    )
                    open_queries.add((report.candidate, row.query))
    pairs = {  # a baseline's pair is one pair for every candidate
        (row.query, doc)
        for report in reports
        for row in report.rows
        if (report.candidate, row.query) in open_queries
        for doc in row.top
    }
    return GateOnGap(tuple(certain), tuple(possible), len(pairs))
