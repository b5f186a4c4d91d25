"""Reports -> text for people (table, Markdown) and machines (JSON).

Renderers format what the evaluator computed; they never recompute a metric. Text shows
decimals (4 places) so long fractions stay readable, and the exact fraction beside each with
``fractions=True`` (``score --fractions``). JSON gives every value both ways: ``KEY`` the exact
fraction as a string, ``KEY_decimal`` the nearest double (layout: docs/metrics.md and
rankeval_tui/schema/report.schema.json).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from fractions import Fraction
from functools import partial
from operator import attrgetter

from rankeval_tui import __version__
from rankeval_tui.core.evaluation.evaluate import (
    MISSING,
    QUERY,
    RELEVANT,
    ROW_FIELDS,
    ROW_JSON_KEYS,
    QueryRow,
    Report,
    decimal_value,
    distinct_objects,
    exact_fields,
    fraction_text,
    json_value,
)
from rankeval_tui.core.evaluation.json_text import Columns, column_text, dumps_indented, map_distinct
from rankeval_tui.core.evaluation.metrics import DEFINITIONS, MetricId, label, mean_label
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition
from rankeval_tui.core.evaluation.splits import set_aside_words
from rankeval_tui.core.evaluation.text_grid import grid as grid
from rankeval_tui.core.evaluation.text_grid import grid_columns
from rankeval_tui.core.terminal_text import field_text, ids_text, markdown_text, printable
from rankeval_tui.core.wording import counted, exact_and_decimal

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:  # stats, compare (two runs or more), histogram (tables): imported when used
    from typing import Any

    from rankeval_tui.core.evaluation.compare import Comparison, Metric
    from rankeval_tui.core.evaluation.histogram import Interval
    from rankeval_tui.core.evaluation.stats import PairedStatistics

SCHEMA_VERSION = 1
SCHEMA_PATH = "rankeval_tui/schema/report.schema.json"


def signed(value: Fraction | None) -> str:
    if value is None:
        return "n/a"
    return ("+" if value > 0 else "") + str(value) if value else "0"


def shown(value: Fraction | None, fractions: bool, places: int = 4) -> str:
    """A value for text output: ``0.8333``, or ``5/6 (0.8333)`` with ``fractions``."""
    if fractions:
        return exact_and_decimal(value, places)
    return "null" if value is None else f"{float(value):.{places}f}"


def shown_delta(value: Fraction | None, fractions: bool, places: int = 4) -> str:
    """A signed delta: ``+0.3333``, or the exact ``+1/3`` with ``fractions``."""
    if fractions or value is None or not value:
        return signed(value)
    return f"{float(value):+.{places}f}"


NO_CI = "--test bootstrap"
"""What a chart without a CI says: the option that draws one."""


RECALL_DENOMINATOR = {
    "exhaustive": "the relevant documents of the query in the whole corpus",
    "pooled": "the relevant documents in the query's pool (judged pairs only; unjudged pairs are never read as 0)",
    "unlisted": "the relevant documents the qrels list for the query (every unlisted pair is 0 by the "
    "collection's declaration)",
}
"""What Recall@k divides by, per protocol kind: every output of a pooled protocol says it."""


def row_status(row: QueryRow, pooled: bool = False) -> str:
    """Words, not only colour: missing and no-relevant queries must read differently (and a
    pooled protocol's query has no relevant document *in its pool*, which is a weaker fact)."""
    if not row.eligible:
        return "no relevant in pool (excluded)" if pooled else "no relevant (excluded)"
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
    if protocol.kind == "pooled":  # the exhaustive kind's header stays the seed's
        data |= {
            "kind": "pooled",
            "pool_rule": protocol.definition.pool_rule or "not recorded",
            "pooled_pairs": protocol.definition.pair_count,
            "recall_denominator": RECALL_DENOMINATOR["pooled"],
        }
    return data | settings_json(protocol.definition)


def settings_json(definition: ProtocolDefinition) -> dict[str, Any]:
    """The protocol's declared settings, each only where set (a protocol without them: no key)."""
    data: dict[str, Any] = {}
    if definition.scale is not None:
        data["scale"] = {"grades": list(definition.scale.words), "relevant_from": definition.scale.relevant_from}
    if definition.unlisted_as_zero:
        data["unlisted_as_zero"] = True
        data["recall_denominator"] = RECALL_DENOMINATOR["unlisted"]
    if definition.tie_order != "rank":
        data["tie_order"] = definition.tie_order
    return data


def settings_lines(definition: ProtocolDefinition) -> list[str]:
    """The declared settings in words, under the header of every text output (none: no line)."""
    lines = []
    if definition.scale is not None:
        scale = definition.scale
        words = ", ".join(f"{grade} {word}" for grade, word in enumerate(scale.words))
        lines.append(
            f"scale: grades 0-{scale.top} ({words}); relevant from grade {scale.relevant_from}; nDCG's gain is the grade"
        )
    if definition.unlisted_as_zero:
        lines.append(
            "unlisted: every pair the qrels do not list is 0 by the collection's declaration (unlisted_as_zero), "
            "not judged; each run's count below"
        )
    if definition.tie_order != "rank":
        lines.append(
            "tie order: score (TREC runs ordered as trec_eval orders them: score, then document ID descending)"
        )
    return lines


def comparison_json(comparison: Comparison, statistics: PairedStatistics | None = None) -> dict[str, Any]:
    """Deltas and counts; with ``statistics``, each metric also carries its significance tests."""
    statistics_of: dict[Metric, dict[str, Any]] = {}
    if statistics is not None and (stats := statistics.get(comparison.candidate.run)) is not None:
        statistics_of = {
            metric: {"statistics": stats.metrics[metric].to_json(statistics.alpha)} for metric in comparison.metrics
        }
    return {
        "baseline": comparison.baseline.run,
        "candidate": comparison.candidate.run,
        "metrics": {
            metric: {
                **exact_fields("mean_delta", comparison.mean_delta(metric)),
                **comparison.counts(metric),
                "regressions": comparison.regressions(metric),
                "improvements": comparison.improvements(metric),
                **statistics_of.get(metric, {}),
            }
            for metric in comparison.metrics
        },
    }


def metrics_json(metrics: Sequence[MetricId], k: int) -> dict[str, Any]:
    """The header's metric definitions: what each key of ``measures`` and ``comparisons`` means."""
    return {
        metric: {
            "name": DEFINITIONS[metric].name(k),
            "label": label(metric, k),
            "mean_label": mean_label(metric, k),
            "definition": DEFINITIONS[metric].definition,
        }
        for metric in metrics
    }


def measures_json(report: Report, query_texts: Sequence[str] | None = None) -> dict[str, Any]:
    """Every computed metric of a report: the mean and each query's value, exact and decimal.

    The evaluator shares one Fraction per distinct value (``distinct_objects``), so each one's
    string and float are made once, not once a query (a third of this at 100,000 queries).
    ``query_texts``: the queries' JSON texts (``row_columns``), to write each ``per_query``
    list as the text's columns (``json_text.Columns``)."""
    measures: dict[str, Any] = {}
    for metric in report.metrics:
        values = report.values(metric)
        per_query: object
        if query_texts is not None:
            per_query = Columns(
                ["query", "value", "value_decimal"], query_texts, [values, values], [fraction_text, decimal_value]
            )
        else:
            fields = {id(value): exact_fields("value", value) for value, _ in distinct_objects(values)}
            per_query = [{"query": row.query, **fields[id(value)]} for row, value in zip(report.rows, values)]
        measures[metric] = {
            "name": DEFINITIONS[metric].name(report.k),
            **exact_fields("mean", report.mean(metric)),
            "per_query": per_query,
        }
    return measures


def row_columns(rows: Sequence[QueryRow]) -> Columns:
    """A report's ``rows`` as the JSON text's columns: ``QueryRow.to_json`` of every row."""
    fields = dict(zip(ROW_FIELDS, zip(*rows))) if rows else dict.fromkeys(ROW_FIELDS, ())
    values = [fields[key] for key in ROW_JSON_KEYS[1:]]
    return Columns(ROW_JSON_KEYS, column_text(fields["query"]), values, [json_value] * len(values))


def report_json(report: Report, columns: bool = False) -> dict[str, Any]:
    """The seed's report keys and values unchanged (exact strings), then ``metrics`` (the ids
    computed, in order) and ``measures`` (every value as fraction and decimal). ``columns``:
    the per-query lists as ``json_text.Columns``, for ``render_json`` (the values as the text's
    columns, not a dict per row: the lists are most of a big report)."""
    if not columns:
        return {**report.to_json(), "metrics": list(report.metrics), "measures": measures_json(report)}
    rows = row_columns(report.rows)
    measures = measures_json(report, rows.first)
    return {**report.to_json(rows), "metrics": list(report.metrics), "measures": measures}


def cutoff_json(protocol: Protocol, reports: Sequence[Report]) -> dict[str, Any]:
    """One more cutoff of ``score --metrics P@5,P@10``: its own k and hash, the metrics' names at
    that k and the runs' reports, in the layout of the top level's (for ``render_json``)."""
    metrics = tuple(dict.fromkeys(m for r in reports for m in r.metrics))
    return {
        "k": protocol.k,
        "protocol_sha256": protocol.protocol_sha256,
        "metrics": metrics_json(metrics, protocol.k),
        "runs": {r.run: report_json(r, columns=True) for r in reports},
    }


def comparisons(reports: Sequence[Report], baseline: str | None = None) -> list[Comparison]:
    """Each report against the baseline (the first report unless named)."""
    if len(reports) < 2:
        return []
    from rankeval_tui.core.evaluation.compare import compare  # with two runs or more: start-up of one

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
    metrics = tuple(dict.fromkeys(m for r in reports for m in r.metrics))
    data: dict[str, Any] = {
        "schema": SCHEMA_PATH,
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "rankeval-tui", "version": __version__},
        "metrics": metrics_json(metrics, protocol.k),
        "protocol": protocol_json(protocol, adjudicated),
        "runs": {r.run: report_json(r, columns=True) for r in reports},
    }
    pairs = comparisons(reports, baseline)
    if pairs:
        data["comparisons"] = [comparison_json(c, statistics) for c in pairs]
        if statistics is not None:
            data["statistics"] = statistics.settings_json()
    if extra:
        data.update(extra)
    return dumps_indented(data)


def status_words(row: QueryRow, adjudicated: Collection[str] = (), pooled: bool = False) -> str:
    """The status column: ``ok``, the evaluator's special case, and ``adjudicated`` beside either."""
    status = row_status(row, pooled) or "ok"
    return f"{status}, adjudicated" if row.query in adjudicated else status


def status_column(report: Report, adjudicated: Collection[str]) -> list[str]:
    """``status_words`` of every row, made once per distinct case (eligible, missing, adjudicated)."""
    rows = report.rows
    cases = list(
        zip(map(bool, map(RELEVANT, rows)), map(MISSING, rows), map(adjudicated.__contains__, map(QUERY, rows)))
    )
    words = {case: status_words(row, adjudicated, report.pooled) for case, row in dict(zip(cases, rows)).items()}
    return list(map(words.__getitem__, cases))


def report_block(
    report: Report, markdown: bool, adjudicated: Collection[str] = (), fractions: bool = False
) -> list[str]:
    k = report.k
    field = field_text(markdown)
    title = f"run {field(report.run)}" + (f"  ({field(str(report.source))})" if report.source else "")
    lines = [f"### {title}" if markdown else title]
    if report.adapter_sha256:
        lines.append(f"adapter_sha256 {report.adapter_sha256}")
    if report.set_aside:
        lines.append(f"set aside (--ignore-other-splits): {field(set_aside_words(report.set_aside))}")
    if markdown:
        lines.append("")
    header = ["query", "status", "returned", "relevant", "hits", "first rel. rank"]
    header += [label(metric, k) for metric in report.metrics]
    rows = report.rows
    columns = [
        list(map(markdown_text, map(QUERY, rows)) if markdown else map(QUERY, rows)),
        status_column(report, adjudicated),
        *(list(map(str, map(attrgetter(name), rows))) for name in ("returned", "relevant", "hits")),
        ["-" if rank is None else str(rank) for rank in map(attrgetter("first_relevant_rank"), rows)],
        *(map_distinct(partial(shown, fractions=fractions), report.values(metric)) for metric in report.metrics),
    ]
    lines += grid_columns(header, columns, markdown)
    if markdown:
        lines.append("")
    means = "   ".join(f"{mean_label(m, k)} = {shown(report.mean(m), fractions)}" for m in report.metrics)
    over = f"over {report.eligible_queries} eligible of {report.total_queries} queries"
    if report.pooled:
        over += f" ({len(report.no_relevant_queries)} with no relevant in pool)"
    lines.append(f"mean {means}   {over}")
    if markdown:
        lines.append("")
    if report.unlisted is not None:
        lines.append(
            f"unlisted: {counted(report.unlisted, f'top-{k} pair')} of this run labelled 0 by the collection's "
            "declaration, not judged"
        )
        if markdown:
            lines.append("")
    lines.append("missing_queries: " + ids_text(report.missing_queries, markdown))
    if markdown:
        lines.append("")
    name = "no_relevant_in_pool_queries" if report.pooled else "no_relevant_queries"
    lines.append(f"{name}: " + ids_text(report.no_relevant_queries, markdown))
    return lines


VERDICT_WORDS = {"n/a": "no relevant", "regression": "WORSE", "improved": "better", "same": "same"}


def comparison_block(
    comparison: Comparison,
    markdown: bool,
    statistics: PairedStatistics | None = None,
    fractions: bool = False,
    no_ci: str = NO_CI,
) -> list[str]:
    base, cand = comparison.baseline, comparison.candidate
    k = base.k
    metrics = comparison.metrics
    base_run, cand_run = map(field := field_text(markdown), (base.run, cand.run))
    lines = [("### " if markdown else "") + f"{cand_run} vs baseline {base_run}"]
    if markdown:
        lines.append("")
    header = ["query"]
    heads = [run.replace("|", "\\|") if markdown else run for run in (base_run, cand_run)]  # no grid escape there
    for metric in metrics:
        header += [f"{label(metric, k)} {heads[0]}", f"{label(metric, k)} {heads[1]}", "delta"]
    header.append("verdict")
    rows = []
    for row in comparison.rows:
        verdict = VERDICT_WORDS[row.verdict()]
        missing = [{"baseline": base_run, "candidate": cand_run}[side] for side in row.missing_sides()]
        if missing:
            verdict += f" (missing in {', '.join(missing)})"
        cells = [field(row.query)]
        for metric in metrics:
            cells += [
                shown(row.value(metric, "baseline"), fractions, 3),
                shown(row.value(metric, "candidate"), fractions, 3),
                shown_delta(row.delta(metric), fractions, 3),
            ]
        rows.append([*cells, verdict])
    lines += grid(header, rows, markdown)
    if markdown:
        lines.append("")
    lines += delta_charts(comparison, statistics, markdown, no_ci)
    for metric in metrics:
        counts = comparison.counts(metric)
        worse = comparison.regressions(metric)
        lines.append(
            f"{mean_label(metric, k)}: mean delta {shown_delta(comparison.mean_delta(metric), fractions)}; "
            f"win/tie/loss {counts['win']}/{counts['tie']}/{counts['loss']}; "
            f"worse on: {ids_text(worse, markdown)}"
        )
        if markdown:
            lines.append("")
    if statistics is not None and (stats := statistics.get(comparison.candidate.run)) is not None:
        for metric in metrics:
            lines.append(stats.metrics[metric].summary(statistics.alpha, k, fractions))
            if markdown:
                lines.append("")
    return lines


def kind_lines(protocol: Protocol, markdown: bool) -> list[str]:
    """What a pooled protocol measured, under the header of every text output."""
    definition = protocol.definition
    pairs = "judged pair" if not definition.unlisted_as_zero else "pooled pair"
    denominator = RECALL_DENOMINATOR["unlisted" if definition.unlisted_as_zero else "pooled"]
    lines = [
        f"kind pooled: {counted(definition.pair_count, pairs)}; {field_text(markdown)(definition.pool_rule or 'pool rule not recorded')}",
        f"Recall@k's denominator: {denominator}",
    ]
    return [line for text in lines for line in (text, "")] if markdown else [*lines, ""]


def delta_charts(
    comparison: Comparison, statistics: PairedStatistics | None, markdown: bool, no_ci: str = NO_CI
) -> list[str]:
    """The distribution of each metric's per-query deltas, drawn as the scoring screen draws it
    (``core.evaluation.histogram``), with the bootstrap CI when ``--test bootstrap`` computed it;
    fenced in Markdown so the step summary keeps the columns. ``no_ci``: what a chart without one
    says (the option, or why it has none where the option was given)."""
    from rankeval_tui.core.evaluation.histogram import comparison_charts  # tables only: start-up of JSON

    mine = None if statistics is None else statistics.get(comparison.candidate.run)
    intervals: dict[Metric, Interval] = {}
    for metric in comparison.metrics:
        boot = None if mine is None else mine.metrics[metric].bootstrap
        if boot is not None:
            intervals[metric] = (boot.low, boot.high, boot.confidence)
    lines = comparison_charts(comparison, intervals, no_ci=no_ci)
    return ["```text", *lines, "```", ""] if markdown else [*lines, ""]


def render_text(
    protocol: Protocol,
    reports: Sequence[Report],
    baseline: str | None = None,
    markdown: bool = False,
    statistics: PairedStatistics | None = None,
    adjudicated: Collection[str] | None = None,
    fractions: bool = False,
    baseline_note: str | None = None,
    no_ci: str = NO_CI,
) -> str:
    """With ``adjudicated``, a line ``adjudicated_queries: ...`` under the header and
    ``adjudicated`` in those queries' status cells; with ``fractions``, exact values beside
    the decimals; ``baseline_note`` (where the baseline came from) heads the comparisons."""
    short = protocol.protocol_sha256
    field = field_text(markdown)
    head = (
        f"protocol {field(protocol.name)}  sha256 {short}  split {field(protocol.split)}  k {protocol.k}  "
        f"queries {len(protocol.selected_queries)}"
    )
    lines = [("## " if markdown else "") + head, ""]
    if protocol.kind == "pooled":
        lines += kind_lines(protocol, markdown)
    if settings := settings_lines(protocol.definition):
        lines += [line for text in settings for line in (text, "")] if markdown else [*settings, ""]
    if adjudicated is not None:
        lines += ["adjudicated_queries: " + ids_text(adjudicated_in(protocol, adjudicated), markdown), ""]
    for report in reports:
        lines += report_block(report, markdown, adjudicated or (), fractions)
        lines.append("")
    pairs = comparisons(reports, baseline)
    if pairs and baseline_note:
        lines += [field(baseline_note), ""]
    for comparison in pairs:
        lines += comparison_block(comparison, markdown, statistics, fractions, no_ci)
        lines.append("")
    # The protocol's name and the run names come from files a protocol's sender wrote.
    return printable("\n".join(lines).rstrip() + "\n", multiline=True)
