"""A prediction-powered estimate of each metric: a model's labels on every query, corrected by
people's labels on a seeded random sample of whole queries (Angelopoulos et al. 2023,
"Prediction-powered inference"; Oosterhuis et al. 2024, "Reliable confidence intervals for
information retrieval evaluation using generative A.I.").

What is estimated: the mean a run would get if people had judged every pair of the protocol's
split (the human mean), never measured here, so always stated as an estimate beside the model-only
mean, which is what the model's labels alone give.

Why whole queries are the sampled unit: a metric is a nonlinear function of all of one query's
labels (nDCG's ideal ranking, Recall's denominator), so correcting a query needs every one of its
pairs judged by a person; a sample of pairs would leave every query's value half model, half
person. With a simple random sample S (without replacement) of n of the split's N queries:

    estimate = mean over all N of m_model(q) + mean over S of (m_people(q) - m_model(q))

is exactly unbiased for the human mean: the first term is fixed, the second is a sample mean of the
differences. Its variance is that of the sample mean, (1 - n/N) s^2 / n with s^2 the differences'
sample variance (n - 1 in the denominator); the 95% interval is estimate +- z s.e. (the normal
approximation, as in PPI). The model-only term has no variance here: it is computed on every query
of the split, the very set the human mean is over. With n = N the estimate is the human mean and
the interval has width 0.

Why a ratio in general: a query with no relevant document has no value (the evaluator's mean is
over the queries with one), and which queries those are can differ between the model's and the
people's labels. So the mean is a ratio of two totals, the values and the queries with one, each
estimated as above, and the variance is the ratio's linearization (the differences d(q) =
(m_people0 - m_model0) - estimate (e_people - e_model), e the 0/1 "has a value", 0 for no value,
divided by the estimated share of queries with a value). When every query has a value under both,
this is exactly the formula above. The same estimator with no model (m_model = 0, e_model = 0) is
the people-only estimate from the sample, shown beside it so the interval's gain is visible.

Every metric value comes from the one evaluator; this module only combines per-query values.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from statistics import NormalDist
from typing import Any

from rankeval_tui.core.errors import ContractError, describe_id, quote
from rankeval_tui.core.evaluation.evaluate import Report, Run, evaluate, fraction_text
from rankeval_tui.core.evaluation.metrics import DEFINITIONS, MetricId
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition
from rankeval_tui.core.files import load_definition, read_qrels_file
from rankeval_tui.core.files.annotator_kind import is_model
from rankeval_tui.core.files.filling import named_annotator
from rankeval_tui.core.files.holes import refuse_holes

LEVEL = 0.95
QUERY_SAMPLE_KEY = "sample_queries"
"""``[provenance.audit] sample_queries = n``: the audit judged every pair of n seeded queries."""


def audit_population(definition: ProtocolDefinition) -> list[str]:
    """The queries a query-level audit draws from: the split's queries with pairs to judge (a
    pooled protocol's query with an empty pool has nothing a person could judge)."""
    return [q for q in definition.selected_queries if definition.documents_of(q)]


def sample_queries(definition: ProtocolDefinition, size: int, seed: int) -> tuple[str, ...]:
    """``size`` of ``audit_population``, drawn without replacement by ``random.Random(seed)``
    from it in protocol order; returned in protocol order."""
    population = audit_population(definition)
    if type(size) is not int or size < 1:
        raise ContractError(f"--sample-queries must be an integer >= 1, got {size!r}")
    if size > len(population):
        raise ContractError(
            f"--sample-queries {size} is more than the {len(population)} queries of split {quote(definition.split)}"
        )
    chosen = set(random.Random(seed).sample(population, size))
    return tuple(q for q in population if q in chosen)


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its standard error and interval (None where undefined, with why)."""

    point: Fraction | None
    standard_error: float | None
    interval: tuple[float, float] | None
    undefined_reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "estimate": fraction_text(self.point),
            "estimate_decimal": None if self.point is None else float(self.point),
            "standard_error": self.standard_error,
            "interval": None if self.interval is None else list(self.interval),
            "undefined_reason": self.undefined_reason,
        }


def zero_if_none(value: Fraction | None) -> Fraction:
    return Fraction(0) if value is None else value


def corrected_mean(
    model: Sequence[Fraction | None], people: Mapping[int, Fraction | None], level: float = LEVEL
) -> Estimate:
    """The module docstring's estimator: ``model`` is every query's value under the model's labels
    (None: no value), ``people`` the sampled queries' values under people's labels, by index into
    ``model``. With every ``model`` value None it is the people-only estimate from the sample."""
    population, size = len(model), len(people)
    if not size:
        return Estimate(None, None, None, "no audited query")
    values = Fraction(sum(map(zero_if_none, model)), population) + Fraction(
        sum(zero_if_none(people[i]) - zero_if_none(model[i]) for i in people), size
    )
    share = Fraction(sum(v is not None for v in model), population) + Fraction(
        sum((people[i] is not None) - (model[i] is not None) for i in people), size
    )
    if share <= 0:
        return Estimate(None, None, None, "no query has a relevant document, as far as the labels tell")
    point = values / share
    if size < 2:
        return Estimate(point, None, None, "an interval needs at least 2 audited queries")
    differences = [
        zero_if_none(people[i]) - zero_if_none(model[i]) - point * ((people[i] is not None) - (model[i] is not None))
        for i in people
    ]
    # In floats from here: a standard error needs no exact digits, and squared fractions with
    # nDCG's 10^12 denominators would grow with every audited query.
    decimals = [float(d) for d in differences]
    centre = math.fsum(decimals) / size
    spread = math.fsum((d - centre) ** 2 for d in decimals) / (size - 1)
    error = math.sqrt((1 - size / population) * spread / size) / float(share)
    z = NormalDist().inv_cdf(0.5 + level / 2)
    return Estimate(point, error, (float(point) - z * error, float(point) + z * error))


@dataclass(frozen=True)
class MetricEstimate:
    """One run and metric: the model-only mean (the evaluator's), the estimate corrected by the
    audit, and the estimate from the audited queries alone."""

    run: str
    metric: str
    model_mean: Fraction | None
    corrected: Estimate
    people_only: Estimate

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "metric": self.metric,
            "model_mean": fraction_text(self.model_mean),
            "model_mean_decimal": None if self.model_mean is None else float(self.model_mean),
            "prediction_powered": self.corrected.to_json(),
            "audited_queries_only": self.people_only.to_json(),
        }


@dataclass(frozen=True)
class Estimates:
    """Every run and metric's estimate, with what they rest on."""

    protocol: str
    model_file: str
    model_annotator: str | None
    audit_file: str
    audited: tuple[str, ...]
    population: int
    seed: int
    split: str
    level: float
    rows: tuple[MetricEstimate, ...]

    def to_json(self) -> dict[str, Any]:
        kind = None if self.model_annotator is None else "model" if is_model(self.model_annotator) else "person"
        return {
            "protocol": self.protocol,
            "estimate": "prediction-powered (Angelopoulos et al. 2023): model labels on every query, "
            "corrected by people's labels on a seeded random sample of whole queries",
            "model_labels": {"file": self.model_file, "annotator": self.model_annotator, "annotator_kind": kind},
            "audit": {
                "file": self.audit_file,
                "queries": list(self.audited),
                "audited_queries": len(self.audited),
                "split_queries": self.population,
                "seed": self.seed,
            },
            "split": self.split,
            "level": self.level,
            "results": [row.to_json() for row in self.rows],
        }


def check_query_audit(
    definition: ProtocolDefinition, audit_labels: Mapping[str, Mapping[str, int]], audit: Mapping[str, Any], file: str
) -> tuple[tuple[str, ...], int]:
    """The audited queries and the seed, after checking the audit is what the estimate assumes: a
    seeded query sample of this split (the queries the seed draws, not chosen by hand), every pair
    of each judged."""
    size, seed = audit.get(QUERY_SAMPLE_KEY), audit.get("seed")
    if type(size) is not int or type(seed) is not int:
        raise ContractError(
            "not a query-level audit: the estimate needs every pair of seeded random queries judged "
            "(judge PROTOCOL --audit LABELS.toml --sample-queries N --seed S --qrels AUDIT.toml)",
            file=file,
        )
    drawn = sample_queries(definition, size, seed)
    judged = tuple(q for q in definition.queries if audit_labels.get(q))
    if judged != drawn:
        raise ContractError(
            f"the audited queries are not the {size} that seed {seed} draws from split {quote(definition.split)} "
            "(another split, another protocol, or edited): the estimate needs the seeded sample",
            file=file,
        )
    for query in drawn:
        missing = [d for d in definition.documents_of(query) if d not in audit_labels[query]]
        if missing:
            raise ContractError(
                f"{len(missing)} pairs of an audited query are not judged (first {quote(missing[0])}): "
                "the estimate needs every pair of each audited query",
                file=file,
                where=describe_id("query", query),
            )
    return drawn, seed


def estimate_metrics(
    model: Protocol,
    audit_labels: Mapping[str, Mapping[str, int]],
    audited: Sequence[str],
    runs: Sequence[Run],
    metrics: Sequence[MetricId],
) -> list[MetricEstimate]:
    """Each run scored by the one evaluator under the model's labels, and under the model's labels
    with the audited queries' rows replaced by people's (only those rows are read from it)."""
    labels = {q: dict(row) for q, row in model.qrels.items()}
    labels.update({q: dict(audit_labels[q]) for q in audited})
    people = Protocol(model.definition, labels, qrels_source=model.qrels_source)
    population = audit_population(model.definition)
    rows = []
    for run in runs:
        under_model, under_people = evaluate(model, run, metrics), evaluate(people, run, metrics)
        index = {row.query: i for i, row in enumerate(under_model.rows)}
        drawn_from = [index[q] for q in population]
        for metric in metrics:
            rows.append(metric_estimate(metric, model.k, under_model, under_people, drawn_from, set(audited)))
    return rows


def metric_estimate(
    metric: MetricId,
    k: int,
    under_model: Report,
    under_people: Report,
    population: Sequence[int],
    audited: Collection[str],
) -> MetricEstimate:
    """One run and metric, over the rows the audit drew from (``population``, indices of the
    reports' rows); the split's other queries have nothing to judge, so no value under any labels."""
    model_values, people_values = under_model.values(metric), under_people.values(metric)
    model = [model_values[i] for i in population]
    people = {
        position: people_values[i] for position, i in enumerate(population) if under_model.rows[i].query in audited
    }
    return MetricEstimate(
        under_model.run,
        DEFINITIONS[metric].name(k),
        under_model.mean(metric),
        corrected_mean(model, people),
        corrected_mean([None] * len(model), people),
    )


@dataclass(frozen=True)
class AuditedLabels:
    """What an estimate rests on, read and checked: the protocol under the model's labels (every
    pair), and the people's labels of the seeded audited queries."""

    model: Protocol
    model_annotator: str | None
    audit_labels: Mapping[str, Mapping[str, int]]
    audited: tuple[str, ...]
    seed: int
    files: tuple[Path, Path]


def read_audited_labels(
    directory: str | Path,
    model_path: str | Path,
    audit_path: str | Path,
    k: int | None = None,
    split: str | None = None,
) -> AuditedLabels:
    """The model's file (every pair labeled: a hole is refused as ``score`` refuses one) and the
    audit file (a seeded query-level audit of the split, ``check_query_audit``), with ``k`` and
    ``split`` overridden as ``--k`` / ``--split`` override them."""
    model_path, audit_path = Path(model_path), Path(audit_path)
    if model_path.exists() and audit_path.exists() and model_path.resolve() == audit_path.resolve():
        raise ContractError(
            "the model's labels and the audit are the same file: the audit is people's own", file=audit_path
        )
    definition = load_definition(directory)
    model_file = read_qrels_file(model_path, definition, exhaustive=False)
    refuse_holes(definition, model_file.labels, model_path, directory)
    model = Protocol(definition, model_file.labels, qrels_source=model_path).with_overrides(k, split)
    audit_file = read_qrels_file(audit_path, definition, exhaustive=False)
    audit = audit_file.provenance.get("audit")
    audited, seed = check_query_audit(
        model.definition, audit_file.labels, audit if isinstance(audit, dict) else {}, str(audit_path)
    )
    return AuditedLabels(
        model, named_annotator(model_file.provenance), audit_file.labels, audited, seed, (model_path, audit_path)
    )


def estimate_runs(labels: AuditedLabels, runs: Sequence[Run], metrics: Sequence[MetricId]) -> Estimates:
    """Every run and metric estimated (``estimate_metrics``), with what the estimates rest on."""
    model = labels.model
    return Estimates(
        model.name,
        str(labels.files[0]),
        labels.model_annotator,
        str(labels.files[1]),
        labels.audited,
        len(audit_population(model.definition)),
        labels.seed,
        model.split,
        LEVEL,
        tuple(estimate_metrics(model, labels.audit_labels, labels.audited, runs, metrics)),
    )
