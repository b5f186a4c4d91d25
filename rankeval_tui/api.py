"""The Python API for notebooks and scripts: load, evaluate, compare, test, tabulate.

These are the objects and functions the CLI and the screens use (no second implementation):
``evaluate`` is core/evaluation/evaluate.py's, ``compare`` core/evaluation/compare.py's,
``statistics`` core/evaluation/stats.py's. What this module adds is the glue a script wants:
metric names as users type them (``nDCG@10``), the bundled demo protocol, the CLI's JSON as a
dict, and reports as plain rows (a list of dicts) for ``pandas.DataFrame`` without pandas
being a dependency. docs/api.md shows it in use (a test runs that example).

Every value is an exact ``Fraction`` (``None`` for a query with no relevant document); the rows
give floats unless ``exact=True``. Bad input raises ``ContractError`` (a ``ValueError``) whose
message is the CLI's one-line error.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rankeval_tui.core.annotation.agreement import Agreement, agreement_of_files
from rankeval_tui.core.annotation.label_rankings import LabelRankings, rank_under_both
from rankeval_tui.core.annotation.prediction_powered import Estimates, estimate_runs, read_audited_labels
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.compare import Comparison, PairedRow, compare
from rankeval_tui.core.evaluation.evaluate import QueryRow, Report, Run
from rankeval_tui.core.evaluation.evaluate import evaluate as evaluate_metrics
from rankeval_tui.core.evaluation.metrics import DEFINITIONS, MetricId, resolve_metrics
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.evaluation.render import comparisons, render_json
from rankeval_tui.core.evaluation.stats import PairedStatistics, paired_statistics
from rankeval_tui.core.files import load_definition, load_protocol_and_qrels
from rankeval_tui.core.files import load_run as _load_run
from rankeval_tui.core.files.baseline import BaselineChoice, choose_report_baseline
from rankeval_tui.core.files.demo import BUNDLED_DEMO

if TYPE_CHECKING:
    from rankeval_tui.core.evaluation.delta_bounds import DeltaReport

DEMO_PROTOCOL = BUNDLED_DEMO
"""The seed tutorial's fixture bundled with the package (read it; copy it with ``rankeval-tui demo DIR`` to judge)."""

__all__ = [
    "DEMO_PROTOCOL",
    "Agreement",
    "BaselineChoice",
    "Comparison",
    "ContractError",
    "Estimates",
    "PairedRow",
    "LabelRankings",
    "PairedStatistics",
    "Protocol",
    "QueryRow",
    "Report",
    "Run",
    "agreement",
    "compare",
    "change_bounds",
    "choose_baseline",
    "compare_all",
    "comparison_rows",
    "estimate",
    "evaluate",
    "load_protocol",
    "load_run",
    "mean_rows",
    "report_json",
    "rankings_under_labels",
    "rows",
    "statistics",
]


def load_protocol(
    directory: str | Path = DEMO_PROTOCOL,
    *,
    qrels: str | Path | None = None,
    k: int | None = None,
    split: str | None = None,
) -> Protocol:
    """A protocol directory (protocol.toml + qrels.toml) as ``score`` reads it, with ``k`` and
    ``split`` overridden like ``--k`` / ``--split`` (a new protocol hash). Default: the demo."""
    protocol, _ = load_protocol_and_qrels(Path(directory), None if qrels is None else Path(qrels))
    return protocol.with_overrides(k, split)


def load_run(path: str | Path, name: str | None = None) -> Run:
    """A run file (JSON or TREC), named by its file stem unless ``name`` is given."""
    return _load_run(Path(path), name)


def evaluate(protocol: Protocol, run: Run, metrics: Iterable[str] = ("R", "RR")) -> Report:
    """Score ``run``: the CLI's evaluator, with metrics named as on ``score --metrics``
    (``R@10``, ``nDCG@10``, or ``nDCG`` for the protocol's k)."""
    return evaluate_metrics(protocol, run, resolve_metrics(metrics, protocol.k))


def change_bounds(
    protocol: Protocol, baseline: Run, candidate: Run, metrics: Iterable[str] = ("R", "RR")
) -> DeltaReport:
    """``score --bounds --baseline``: the exact range of the change candidate - baseline of each
    metric, per query and mean, over every 0/1 labelling of the two runs' unjudged top-k pairs
    (each labelled once for both); ``verdict_text(report.mean("rr"), ...)`` words it."""
    from rankeval_tui.core.evaluation.delta_bounds import compare_bounds

    return compare_bounds(protocol, baseline, candidate, resolve_metrics(metrics, protocol.k))


def statistics(comparisons: Comparison | Sequence[Comparison], **settings: Any) -> PairedStatistics:
    """Paired significance per metric, Holm-adjusted across the candidates facing one baseline;
    ``settings`` as ``paired_statistics`` (``test``, ``seed``, ``samples``, ``alpha``). Like
    ``score --baseline``, only the requested test is computed (``both=True`` adds the other)."""
    return paired_statistics(comparisons, **{"both": False, **settings})


def report_json(
    protocol: Protocol,
    reports: Sequence[Report],
    *,
    baseline: str | None = None,
    statistics: PairedStatistics | None = None,
    protocol_dir: str | Path | None = None,
) -> dict[str, Any]:
    """What ``score --format json`` prints for these reports, as a dict (same schema); the
    baseline chosen as by ``choose_baseline``."""
    choice = choose_baseline(reports, baseline, protocol_dir=protocol_dir)
    name = choice.name if choice is not None else None
    extra = {"baseline": choice.to_json()} if choice is not None and len(reports) > 1 else None
    return json.loads(render_json(protocol, reports, name, extra=extra, statistics=statistics))  # type: ignore[no-any-return]


def _number(value: Fraction | None, exact: bool) -> Fraction | float | None:
    return value if exact or value is None else float(value)


def _names(report: Report) -> list[tuple[MetricId, str]]:
    return [(metric, DEFINITIONS[metric].name(report.k)) for metric in report.metrics]


def rows(report: Report, *, exact: bool = False) -> list[dict[str, Any]]:
    """One dict per query of the split: the evaluator's facts and one key per metric (``R@2``,
    ``nDCG@2``...), a float (or the exact Fraction with ``exact``), None for no relevant document.
    ``pandas.DataFrame(rows(a) + rows(b))`` is a long table of two runs."""
    names = _names(report)
    return [
        {
            "run": report.run,
            "query": row.query,
            "missing": row.missing,
            "eligible": row.eligible,
            "returned": row.returned,
            "relevant": row.relevant,
            "hits": row.hits,
            "first_relevant_rank": row.first_relevant_rank,
            **{name: _number(row.value(metric), exact) for metric, name in names},
        }
        for row in report.rows
    ]


def mean_rows(reports: Iterable[Report], *, exact: bool = False) -> list[dict[str, Any]]:
    """One dict per run: its means over the eligible queries, one key per metric."""
    return [
        {
            "run": report.run,
            "eligible_queries": report.eligible_queries,
            "total_queries": report.total_queries,
            "missing_queries": len(report.missing_queries),
            **{name: _number(report.mean(metric), exact) for metric, name in _names(report)},
        }
        for report in reports
    ]


def comparison_rows(comparison: Comparison, *, exact: bool = False) -> list[dict[str, Any]]:
    """One dict per query: each compared metric's baseline and candidate value and delta, and the
    verdict in the words of the CLI (``regression`` if any metric lost)."""
    k = comparison.baseline.k
    names = [(metric, DEFINITIONS[metric].name(k)) for metric in comparison.metrics]
    table = []
    for row in comparison.rows:
        cells: dict[str, Any] = {
            "baseline": comparison.baseline.run,
            "candidate": comparison.candidate.run,
            "query": row.query,
            "verdict": row.verdict(),
            "missing_in": ", ".join(row.missing_sides()),
        }
        for metric, name in names:
            cells[f"{name} baseline"] = _number(row.value(metric, "baseline"), exact)
            cells[f"{name} candidate"] = _number(row.value(metric, "candidate"), exact)
            cells[f"{name} delta"] = _number(row.delta(metric), exact)
        table.append(cells)
    return table


def choose_baseline(
    reports: Sequence[Report], baseline: str | None = None, *, protocol_dir: str | Path | None = None
) -> BaselineChoice | None:
    """The baseline ``score`` would compare against: ``baseline`` if named, else the run named
    in ``protocol_dir/runs/BASELINE``, else the first report not empty for every query;
    ``.source`` says which rule chose it."""
    return choose_report_baseline(reports, requested=baseline, protocol_dir=protocol_dir)


def compare_all(
    reports: Sequence[Report], baseline: str | None = None, *, protocol_dir: str | Path | None = None
) -> list[Comparison]:
    """Every report against the baseline of ``choose_baseline``, as ``score`` pairs them."""
    choice = choose_baseline(reports, baseline, protocol_dir=protocol_dir)
    return comparisons(reports, choice.name if choice is not None else None)


def agreement(directory: str | Path, a: str | Path, b: str | Path) -> Agreement:
    """Two annotators' label files of one protocol compared as ``agree`` compares them (complete
    files pair by pair, a partial one on the overlap); ``.to_json()`` is ``agree --format json``."""
    return agreement_of_files(load_definition(Path(directory)), a, b)


def rankings_under_labels(
    directory: str | Path, a: str | Path, b: str | Path, runs: Sequence[Run], metrics: Iterable[str] = ("R", "RR")
) -> LabelRankings:
    """``agree --runs``: every run scored under A's labels and under B's (both complete) by the
    one evaluator, and per metric the two orderings compared (Kendall's tau-b, tau_AP, order changes)."""
    under_a, under_b = load_protocol(directory, qrels=a), load_protocol(directory, qrels=b)
    return rank_under_both(under_a, under_b, runs, resolve_metrics(metrics, under_a.k), agreement(directory, a, b))


def estimate(
    directory: str | Path,
    model: str | Path,
    audit: str | Path,
    runs: Sequence[Run],
    metrics: Iterable[str] = ("R", "RR"),
) -> Estimates:
    """``score --estimate MODEL --audit AUDIT``: each run's metrics under the model's labels and the
    prediction-powered estimate of their mean under people's labels, corrected by a seeded
    query-level audit, with its 95% interval (an estimate, docs/annotators.md); ``.to_json()`` is its JSON."""
    labels = read_audited_labels(Path(directory), model, audit)
    return estimate_runs(labels, runs, resolve_metrics(metrics, labels.model.k))
