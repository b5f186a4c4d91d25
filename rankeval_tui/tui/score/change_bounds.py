"""The comparison on a gap: the change candidate - baseline as exact bounds, per query and for the mean.

When either compared run has top-k pairs outside a pooled protocol's pools it has no one score,
so the comparison shows, from ``core.evaluation.delta_bounds`` (what ``score --baseline A
--bounds`` prints), the lowest and highest change over every labelling of those pairs and the
verdict it allows. Formatting only: the ranges and verdicts are the core's, and each cell is
written by ``render_bounds``' writers with the screen's number format (decimals; ``x``: the exact
fractions with them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from rich.text import Text

from rankeval_tui.core.evaluation.delta_bounds import (
    BETTER,
    UNDECIDED,
    WORSE,
    DeltaReport,
    QueryDelta,
    open_pairs,
    verdict,
    verdict_text,
)
from rankeval_tui.core.evaluation.metrics import DEFINITIONS, MetricId, mean_label
from rankeval_tui.core.evaluation.ranges import Bound
from rankeval_tui.core.evaluation.render_bounds import bound_text, short_verdict
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.core.wording import counted
from rankeval_tui.tui.score.cells import STYLE_LOSS, STYLE_MISSING, STYLE_WIN, signed_and_decimal, signed_decimal
from rankeval_tui.tui.score.score_view_state import SortMode

VERDICT_STYLES = {BETTER: STYLE_WIN, WORSE: STYLE_LOSS, UNDECIDED: STYLE_MISSING}


def number_writer(exact: bool) -> Callable[[Fraction | None, bool], str]:
    """Each end of a range as the comparison writes a delta: ``+0.5000``, or ``+1/2 (+0.5000)``."""
    write = signed_and_decimal if exact else signed_decimal
    return lambda value, _fractions: write(value)


def range_text(bound: Bound, exact: bool) -> str:
    """``[0, +0.5000]``, ``+0.5000`` where the range is one number, ``or excluded`` where a
    labelling leaves no relevant document (``render_bounds.bound_text``)."""
    return bound_text(bound, exact, number_writer(exact))


def bounds_columns(metrics: Sequence[MetricId], chosen: MetricId, cutoff: int | None) -> tuple[tuple[str, str], ...]:
    """The query, its unjudged pairs, then per metric (the chosen one first) the change's range and its verdict."""
    ordered = [chosen, *(m for m in metrics if m != chosen)] if chosen in metrics else list(metrics)
    columns = [("query", "query"), ("unjudged", "unjudged")]
    for metric in ordered:
        name = DEFINITIONS[metric].prefix + ("@k" if cutoff is None else f"@{cutoff}")
        columns += [(f"range_{metric}", f"Δ {name} range"), (f"verdict_{metric}", "verdict")]
    return tuple(columns)


def bounds_cells(row: QueryDelta, metrics: Sequence[MetricId], chosen: MetricId, exact: bool) -> list[Text | str]:
    """One query's cells in ``bounds_columns``' order; each verdict coloured as the comparison's are."""
    ordered = [chosen, *(m for m in metrics if m != chosen)] if chosen in metrics else list(metrics)
    cells: list[Text | str] = [printable(row.query), Text(str(len(row.top) + row.outside), justify="right")]
    for metric in ordered:
        bound = row.bound(metric)
        cells += [
            Text(range_text(bound, exact), justify="right"),
            Text(short_verdict(bound, len(row.top)), style=VERDICT_STYLES.get(verdict(bound), "")),
        ]
    return cells


def can_lose(row: QueryDelta) -> bool:
    """The regressions filter on bounds: some labelling makes the candidate worse on some metric."""
    return any(bound.low is not None and bound.low < 0 for _, bound in row.bounds)


def bounds_rows(report: DeltaReport, metric: MetricId, sort_mode: SortMode, losses_only: bool) -> list[QueryDelta]:
    """The rows as ``s`` and ``f`` ask: protocol order, worst first (by the lowest change, then the
    highest), best first (by the highest, then the lowest); ties by query ID. Queries no labelling
    gives a value last."""
    rows = [row for row in report.rows if can_lose(row)] if losses_only else list(report.rows)
    if sort_mode == "protocol":
        return rows
    sign = 1 if sort_mode == "worst" else -1

    def key(row: QueryDelta) -> tuple[bool, Fraction, Fraction, str]:
        bound = row.bound(metric)
        if bound.low is None or bound.high is None:
            return (True, Fraction(0), Fraction(0), row.query)
        first, second = (bound.low, bound.high) if sort_mode == "worst" else (bound.high, bound.low)
        return (False, sign * first, sign * second, row.query)

    return sorted(rows, key=key)


def bounds_summary(report: DeltaReport, chosen: MetricId, exact: bool) -> Text:
    """Per metric (the chosen one first, highlighted) the mean change's range and its verdict in
    words (``decided better``, ``undecided (N unjudged pairs can change it)``), then how to decide it."""
    text = Text()
    for metric in sorted(report.metrics, key=lambda m: m != chosen):
        mean = report.mean(metric)
        said = verdict(mean)
        text.append(f"{mean_label(metric, report.k):<9}", style="bold reverse" if metric == chosen else "bold")
        text.append(f" change {range_text(mean, exact)}: ")
        text.append(verdict_text(mean, open_pairs(report, metric)), style=VERDICT_STYLES.get(said, ""))
        text.append("\n")
    text.append(
        f"over every labelling of {counted(report.unjudged_pairs, 'unjudged pair')}, each labelled once for "
        "both runs (no paired statistics on a gap) · d: judge them in the order that decides",
        style="dim",
    )
    return text


def bounds_title(baseline: str, candidate: str, said: str, choices: Sequence[tuple[str, str]]) -> Text:
    """Who against whom on bounds, what is shown (the pairs ranged over, or what is being
    computed), then the view's choices (``m``, ``s``, ``f``) as the comparison's title has them."""
    return Text.assemble(
        (printable(candidate), "bold"),
        (" vs ", "dim"),
        (printable(baseline), "bold"),
        ("  ", ""),
        (said, STYLE_MISSING),
        *choices,
    )


def labels_so_far(report: DeltaReport) -> str:
    """What the comparison says after judging to decide stopped early: whose labels the bounds
    are under, and why the runs have no exact scores yet."""
    return (
        f"under the labels judged so far; {counted(report.unjudged_pairs, 'hole')} of the grown pools "
        "left unjudged: the protocol scores once every one is judged (d resumes in the order that decides)"
    )


def ranged_over(report: DeltaReport) -> str:
    return f"on bounds: {counted(report.unjudged_pairs, 'unjudged top-' + str(report.k) + ' pair')}"
