"""``score --bounds`` -> text and JSON: every value as the range ``[low, high]`` over the 0/1
(on a graded protocol: grade) assignments of the run's unjudged top-k pairs, marked as bounds; one number only where the
range is a point (no unjudged pair decides it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from rankeval_tui import __version__
from rankeval_tui.core.evaluation.bounds import BoundsReport
from rankeval_tui.core.evaluation.delta_bounds import UNDECIDED, DeltaReport, open_pairs, verdict, verdict_text
from rankeval_tui.core.evaluation.evaluate import exact_fields
from rankeval_tui.core.evaluation.json_text import dumps_indented
from rankeval_tui.core.evaluation.metrics import label, mean_label
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.evaluation.ranges import Bound
from rankeval_tui.core.evaluation.render import grid, kind_lines, metrics_json, protocol_json, shown, shown_delta
from rankeval_tui.core.terminal_text import field_text, printable
from rankeval_tui.core.wording import counted

NO_VALUE = "no relevant in pool"


def bound_text(bound: Bound, fractions: bool, number: Callable[[Fraction | None, bool], str] = shown) -> str:
    """``0.2000``, ``[0.2000, 0.5000]`` (``number`` writes each end: ``shown_delta`` gives
    ``[-0.5000, +0.5000]``), with ``or excluded`` where an assignment leaves the query (or every
    query) without a relevant document."""
    if bound.low is None:
        return NO_VALUE
    text = (
        number(bound.low, fractions)
        if bound.low == bound.high
        else f"[{number(bound.low, fractions)}, {number(bound.high, fractions)}]"
    )
    return f"{text} or excluded" if bound.undefined_possible else text


def labels_ranged(protocol: Protocol) -> str:
    """What every unjudged pair may be: ``0/1``, or ``grade (0-3)`` on a graded scale."""
    scale = protocol.definition.scale
    return "0/1" if scale is None else f"grade (0-{scale.top})"


def bounds_block(report: BoundsReport, markdown: bool, fractions: bool, labels: str) -> list[str]:
    k = report.k
    gap_queries = sum(1 for row in report.rows if row.gap)
    field = field_text(markdown)
    below = sum(row.holes_below for row in report.rows)
    holes = f" and {counted(below, 'unjudged pair')} below the top {k}" if below else ""
    title = (
        f"run {field(report.run)}: BOUNDS over every {labels} assignment of {counted(report.gap_pairs, 'unjudged top-' + str(k) + ' pair')} "
        f"in {counted(gap_queries, 'query')}{holes} (lowest and highest, never one number)"
    )
    lines = [f"### {title}" if markdown else title]
    if markdown:
        lines.append("")
    header = ["query", "unjudged", *(label(metric, k) for metric in report.metrics)]
    rows = [
        [field(row.query), str(len(row.gap)), *(bound_text(row.bound(metric), fractions) for metric in report.metrics)]
        for row in report.rows
    ]
    lines += grid(header, rows, markdown)
    if markdown:
        lines.append("")
    lines.append(
        "mean bounds "
        + "   ".join(f"{mean_label(m, k)} = {bound_text(report.mean(m), fractions)}" for m in report.metrics)
    )
    return lines


def render_bounds_text(
    protocol: Protocol,
    reports: Sequence[BoundsReport],
    *,
    markdown: bool = False,
    fractions: bool = False,
    source: str | None = None,
) -> str:
    """``source``: where the labels came from, when not from complete qrels (``JudgedSoFar``)."""
    field = field_text(markdown)
    head = (
        f"protocol {field(protocol.name)}  sha256 {protocol.protocol_sha256}  split {field(protocol.split)}  k {protocol.k}  "
        f"queries {len(protocol.selected_queries)}"
    )
    lines = [("## " if markdown else "") + head, "", *kind_lines(protocol, markdown)]
    if source is not None:
        lines += [field(source), ""]
    for report in reports:
        lines += [*bounds_block(report, markdown, fractions, labels_ranged(protocol)), ""]
    # The protocol's name, query IDs and run names come from files a protocol's sender wrote.
    return printable("\n".join(lines).rstrip() + "\n", multiline=True)


def bound_json(bound: Bound) -> dict[str, Any]:
    return {
        **exact_fields("low", bound.low),
        **exact_fields("high", bound.high),
        "excluded_possible": bound.undefined_possible,
    }


def render_bounds_json(
    protocol: Protocol,
    reports: Sequence[BoundsReport],
    changes: Sequence[DeltaReport] = (),
    extra: dict[str, Any] | None = None,
) -> str:
    """``bounds`` instead of ``runs``: per run, metric, query and mean, the exact low and high
    (``"output": "bounds"``; not the report schema's layout, docs/metrics.md describes it);
    with a baseline, ``delta_bounds`` (the change's ranges) and ``extra`` (the gate)."""
    metrics = tuple(dict.fromkeys(m for r in reports for m in r.metrics))
    data: dict[str, Any] = {
        "output": "bounds",
        "tool": {"name": "rankeval-tui", "version": __version__},
        "metrics": metrics_json(metrics, protocol.k),
        "protocol": protocol_json(protocol),
        "bounds": {
            report.run: {
                "unjudged_pairs": report.gap_pairs,
                **unjudged_below(report),
                "measures": {
                    metric: {
                        "mean": bound_json(report.mean(metric)),
                        "per_query": [
                            {"query": row.query, "unjudged": list(row.gap), **bound_json(row.bound(metric))}
                            for row in report.rows
                        ],
                    }
                    for metric in report.metrics
                },
            }
            for report in reports
        },
    }
    if changes:
        data["delta_bounds"] = delta_reports_json(changes)
    data.update(extra or {})
    return dumps_indented(data)


def unjudged_below(report: BoundsReport) -> dict[str, int]:
    """``unjudged_pairs_below_k``, only where a protocol judged part of the way has such holes."""
    below = sum(row.holes_below for row in report.rows)
    return {"unjudged_pairs_below_k": below} if below else {}


def delta_text(bound: Bound, fractions: bool) -> str:
    """``+0.2500``, ``[-0.5000, +0.5000]``, ``or excluded`` where a labelling leaves no relevant document."""
    return bound_text(bound, fractions, shown_delta)


def short_verdict(bound: Bound, pairs: int) -> str:
    """The per-query column: ``better``, ``worse``, ``no change``, ``undecided (2)``."""
    said = verdict(bound)
    return f"{said} ({pairs})" if said == UNDECIDED else said


def delta_block(report: DeltaReport, markdown: bool, fractions: bool, labels: str) -> list[str]:
    k = report.k
    field = field_text(markdown)
    title = (
        f"change {field(report.candidate)} - {field(report.baseline)}: BOUNDS over every {labels} labelling of "
        f"{counted(report.unjudged_pairs, 'unjudged top-' + str(k) + ' pair')}, each labelled once for both runs"
    )
    lines = [f"### {title}" if markdown else title]
    if markdown:
        lines.append("")
    header = ["query", "unjudged"]
    for metric in report.metrics:
        header += [f"change {label(metric, k)}", "verdict"]
    rows = []
    for row in report.rows:
        cells = [field(row.query), str(len(row.top) + row.outside)]
        for metric in report.metrics:
            cells += [delta_text(row.bound(metric), fractions), short_verdict(row.bound(metric), len(row.top))]
        rows.append(cells)
    lines += grid(header, rows, markdown)
    if markdown:
        lines.append("")
    for metric in report.metrics:
        mean = report.mean(metric)
        lines.append(
            f"mean change {mean_label(metric, k)} = {delta_text(mean, fractions)}: "
            f"{verdict_text(mean, open_pairs(report, metric))}"
        )
    return lines


def render_delta_text(
    protocol: Protocol, reports: Sequence[DeltaReport], *, markdown: bool = False, fractions: bool = False
) -> str:
    lines: list[str] = []
    for report in reports:
        lines += ["", *delta_block(report, markdown, fractions, labels_ranged(protocol))]
    return printable("\n".join(lines) + "\n", multiline=True)


def delta_json(bound: Bound, pairs: int) -> dict[str, Any]:
    return {
        **exact_fields("delta_low", bound.low),
        **exact_fields("delta_high", bound.high),
        "excluded_possible": bound.undefined_possible,
        "verdict": verdict_text(bound, pairs),
    }


def delta_reports_json(reports: Sequence[DeltaReport]) -> dict[str, Any]:
    """``delta_bounds``: per candidate, metric, query and mean, the exact range of the change."""
    return {
        report.candidate: {
            "baseline": report.baseline,
            "unjudged_pairs": report.unjudged_pairs,
            "measures": {
                metric: {
                    "mean_delta": delta_json(report.mean(metric), open_pairs(report, metric)),
                    "per_query_delta": [
                        {"query": row.query, "unjudged": list(row.top), **delta_json(row.bound(metric), len(row.top))}
                        for row in report.rows
                    ],
                }
                for metric in report.metrics
            },
        }
        for report in reports
    }
