"""Reports -> text for people (table, Markdown) and machines (JSON).

Renderers format what the evaluator computed; they never recompute a metric. Decimals appear
only beside the exact fraction, for reading.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from fractions import Fraction
from typing import Any

from rankeval_tui.core.evaluation.compare import METRICS, Comparison, Metric, compare
from rankeval_tui.core.evaluation.evaluate import QueryRow, Report
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.evaluation.stats import PairedStatistics


def exact_and_decimal(value: Fraction | None, places: int = 4) -> str:
    """``5/6 (0.8333)``; ``null`` where the seed says null."""
    if value is None:
        return "null"
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value} ({float(value):.{places}f})"


def signed(value: Fraction | None) -> str:
    if value is None:
        return "n/a"
    return ("+" if value > 0 else "") + str(value) if value else "0"


def row_status(row: QueryRow) -> str:
    """Words, not only colour: missing and no-relevant queries must read differently."""
    if not row.eligible:
        return "no relevant (excluded)"
    if row.missing:
        return "MISSING (scored 0)"
    return ""


def adjudicated_in(protocol: Protocol, adjudicated: Collection[str]) -> list[str]:
    """The selected queries whose labels were adjudicated, in protocol order."""
    return [q for q in protocol.selected_queries if q in adjudicated]


def protocol_json(protocol: Protocol, adjudicated: Collection[str] | None = None) -> dict[str, Any]:
    """The protocol's identity; with ``adjudicated`` (from the qrels file's [adjudication]
    table) also which of its queries had labels decided by an adjudicator. It lives here and
    not in the report rows, whose keys are the seed's."""
    data: dict[str, Any] = {
        "name": protocol.name,
        "protocol_sha256": protocol.protocol_sha256,
        "split": protocol.split,
        "k": protocol.k,
        "queries": list(protocol.selected_queries),
        "documents": len(protocol.documents),
    }
    if adjudicated is not None:
        data["adjudicated_queries"] = adjudicated_in(protocol, adjudicated)
    return data


def comparison_json(comparison: Comparison, statistics: PairedStatistics | None = None) -> dict[str, Any]:
    """Deltas and counts; with ``statistics``, each metric also carries its significance tests."""
    statistics_of: dict[Metric, dict[str, Any]] = {}
    if statistics is not None and (stats := statistics.get(comparison.candidate.run)) is not None:
        statistics_of = {metric: {"statistics": stats.metrics[metric].to_json(statistics.alpha)} for metric in METRICS}
    return {
        "baseline": comparison.baseline.run,
        "candidate": comparison.candidate.run,
        "metrics": {
            metric: {
                "mean_delta": None if (d := comparison.mean_delta(metric)) is None else str(d),
                **comparison.counts(metric),
                "regressions": comparison.regressions(metric),
                "improvements": comparison.improvements(metric),
                **statistics_of.get(metric, {}),
            }
            for metric in METRICS
        },
    }


def comparisons(reports: Sequence[Report], baseline: str | None = None) -> list[Comparison]:
    """Each report against the baseline (the first report unless named)."""
    if len(reports) < 2:
        return []
    base = next((r for r in reports if r.run == baseline), reports[0])
    return [compare(base, r) for r in reports if r is not base]


def render_json(
    protocol: Protocol,
    reports: Sequence[Report],
    baseline: str | None = None,
    extra: dict[str, Any] | None = None,
    statistics: PairedStatistics | None = None,
    adjudicated: Collection[str] | None = None,
) -> str:
    data: dict[str, Any] = {
        "protocol": protocol_json(protocol, adjudicated),
        "runs": {r.run: r.to_json() for r in reports},
    }
    pairs = comparisons(reports, baseline)
    if pairs:
        data["comparisons"] = [comparison_json(c, statistics) for c in pairs]
        if statistics is not None:
            data["statistics"] = statistics.settings_json()
    if extra:
        data.update(extra)
    return json.dumps(data, ensure_ascii=False, indent=2)


def grid(header: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool) -> list[str]:
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
        return lines
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    return [fmt(header), fmt(["-" * w for w in widths]), *(fmt(r) for r in rows)]


def status_words(row: QueryRow, adjudicated: Collection[str] = ()) -> str:
    """The status column: ``ok``, the evaluator's special case, and ``adjudicated`` beside either."""
    status = row_status(row) or "ok"
    return f"{status}, adjudicated" if row.query in adjudicated else status


def set_aside_words(set_aside: Mapping[str, int]) -> str:
    """``3 queries of split 'dev', 1 query of split 'train'``."""
    return ", ".join(f"{n} {'query' if n == 1 else 'queries'} of split {split!r}" for split, n in set_aside.items())


def report_block(report: Report, markdown: bool, adjudicated: Collection[str] = ()) -> list[str]:
    k = report.k
    title = f"run {report.run}" + (f"  ({report.source})" if report.source else "")
    lines = [f"### {title}" if markdown else title]
    if report.adapter_sha256:
        lines.append(f"adapter_sha256 {report.adapter_sha256}")
    if report.set_aside:
        lines.append(f"set aside (--ignore-other-splits): {set_aside_words(report.set_aside)}")
    if markdown:
        lines.append("")
    header = ["query", "status", "returned", "relevant", "hits", "first rel. rank", f"Recall@{k}", f"RR@{k}"]
    rows = [
        [
            r.query,
            status_words(r, adjudicated),
            str(r.returned),
            str(r.relevant),
            str(r.hits),
            "-" if r.first_relevant_rank is None else str(r.first_relevant_rank),
            exact_and_decimal(r.recall),
            exact_and_decimal(r.rr),
        ]
        for r in report.rows
    ]
    lines += grid(header, rows, markdown)
    if markdown:
        lines.append("")
    lines.append(
        f"mean Recall@{k} = {exact_and_decimal(report.recall_at_k)}   "
        f"MRR@{k} = {exact_and_decimal(report.mrr_at_k)}   "
        f"over {report.eligible_queries} eligible of {report.total_queries} queries"
    )
    if markdown:
        lines.append("")
    lines.append("missing_queries: " + (", ".join(report.missing_queries) or "none"))
    if markdown:
        lines.append("")
    lines.append("no_relevant_queries: " + (", ".join(report.no_relevant_queries) or "none"))
    return lines


VERDICT_WORDS = {"n/a": "no relevant", "regression": "WORSE", "improved": "better", "same": "same"}


def comparison_block(comparison: Comparison, markdown: bool, statistics: PairedStatistics | None = None) -> list[str]:
    base, cand = comparison.baseline, comparison.candidate
    k = base.k
    lines = [("### " if markdown else "") + f"{cand.run} vs baseline {base.run}"]
    if markdown:
        lines.append("")
    header = [
        "query",
        f"Recall@{k} {base.run}",
        f"Recall@{k} {cand.run}",
        "delta",
        f"RR@{k} {base.run}",
        f"RR@{k} {cand.run}",
        "delta",
        "verdict",
    ]
    rows = []
    for row in comparison.rows:
        verdict = VERDICT_WORDS[row.verdict()]
        missing = [{"baseline": base.run, "candidate": cand.run}[side] for side in row.missing_sides()]
        if missing:
            verdict += f" (missing in {', '.join(missing)})"
        rows.append(
            [
                row.query,
                exact_and_decimal(row.baseline.recall, 3),
                exact_and_decimal(row.candidate.recall, 3),
                signed(row.delta("recall")),
                exact_and_decimal(row.baseline.rr, 3),
                exact_and_decimal(row.candidate.rr, 3),
                signed(row.delta("rr")),
                verdict,
            ]
        )
    lines += grid(header, rows, markdown)
    if markdown:
        lines.append("")
    metric_labels: tuple[tuple[Metric, str], ...] = (("recall", f"Recall@{k}"), ("rr", f"MRR@{k}"))
    for metric, label in metric_labels:
        counts = comparison.counts(metric)
        worse = comparison.regressions(metric)
        lines.append(
            f"{label}: mean delta {signed(comparison.mean_delta(metric))}; "
            f"win/tie/loss {counts['win']}/{counts['tie']}/{counts['loss']}; "
            f"worse on: {', '.join(worse) or 'none'}"
        )
        if markdown:
            lines.append("")
    if statistics is not None and (stats := statistics.get(comparison.candidate.run)) is not None:
        for metric in METRICS:
            lines.append(stats.metrics[metric].summary(statistics.alpha, k))
            if markdown:
                lines.append("")
    return lines


def render_text(
    protocol: Protocol,
    reports: Sequence[Report],
    baseline: str | None = None,
    markdown: bool = False,
    statistics: PairedStatistics | None = None,
    adjudicated: Collection[str] | None = None,
) -> str:
    """With ``adjudicated``, a line ``adjudicated_queries: ...`` under the header and
    ``adjudicated`` in those queries' status cells."""
    short = protocol.protocol_sha256
    head = (
        f"protocol {protocol.name}  sha256 {short}  split {protocol.split}  k {protocol.k}  "
        f"queries {len(protocol.selected_queries)}"
    )
    lines = [("## " if markdown else "") + head, ""]
    if adjudicated is not None:
        lines += ["adjudicated_queries: " + (", ".join(adjudicated_in(protocol, adjudicated)) or "none"), ""]
    for report in reports:
        lines += report_block(report, markdown, adjudicated or ())
        lines.append("")
    for comparison in comparisons(reports, baseline):
        lines += comparison_block(comparison, markdown, statistics)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
