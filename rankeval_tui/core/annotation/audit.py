"""Auditing a model's labels with a blind human sample: which pairs a person judges, and how sure
the agreement measured on them is.

Why a sample: judging every pair a model labeled would make the model pointless; a seeded random
sample of its pairs, judged by a person, measures how far its labels can be trusted, and the
bootstrap interval says how much that measurement itself can move with the sample size.

Why blind: a person shown the model's label anchors on it (post-editing raises agreement by itself).
The sample is judged as a protocol of its own whose pools are the sampled pairs: the judging
session is built from the protocol and the sample only, so the model's labels never reach it.

Why a protocol of its own: the existing judging session (journal, lock, resume, atomic write)
then judges exactly the sample and writes it when every sampled pair is judged; the file written
says it is partial and an audit, so ``agree`` compares it on the overlap with the model's file.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rankeval_tui.core.annotation.grades import WEIGHTINGS, GradeCounts, Scale, weight
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition

BOOTSTRAP_SAMPLES = 2000
INTERVAL_LEVEL = 0.95


def sample_pairs(
    definition: ProtocolDefinition, labels: Mapping[str, Mapping[str, int]], size: int, seed: int
) -> dict[str, tuple[str, ...]]:
    """``size`` of the labeled pairs, drawn without replacement by ``random.Random(seed)`` from the
    pairs in protocol order (so the same file, size and seed give the same sample anywhere);
    per query, the sampled documents in protocol order, every query present (maybe empty)."""
    pairs = [(q, d) for q in definition.queries for d in definition.documents_of(q) if d in labels.get(q, {})]
    if type(size) is not int or size < 1:
        raise ContractError(f"--sample must be an integer >= 1, got {size!r}")
    if size > len(pairs):
        raise ContractError(f"--sample {size} is more than the {len(pairs)} pairs the labels file holds")
    chosen = set(random.Random(seed).sample(pairs, size))
    return {q: tuple(d for d in definition.documents_of(q) if (q, d) in chosen) for q in definition.queries}


def audit_definition(
    definition: ProtocolDefinition, sample: Mapping[str, tuple[str, ...]], rule: str
) -> ProtocolDefinition:
    """The protocol restricted to the sample: the same documents and criterion, the queries with
    a sampled pair, each query's pool its sampled documents (so the judging session asks for
    exactly those, and its overview lists only the queries in the sample)."""
    pools = {query: docs for query, docs in sample.items() if docs}
    queries = {query: meta for query, meta in definition.queries.items() if query in pools}
    return replace(definition, queries=queries, pools=pools, pool_rule=rule)


def audit_provenance(
    source: str, source_sha256: str, annotator: str | None, size: int, seed: int, *, unit: str = "sample"
) -> dict[str, Any]:
    """What an audit file records beside its labels: partial, and which labels it audits;
    ``unit``: ``sample`` (pairs) or ``sample_queries`` (whole queries), the key of its size."""
    audit: dict[str, Any] = {"labels_file": source, "labels_sha256": source_sha256, unit: size, "seed": seed}
    if annotator is not None:
        audit["annotator"] = annotator
    return {"partial": True, "audit": audit}


def kappa_interval(
    grades: GradeCounts,
    weighting: str,
    seed: int,
    samples: int = BOOTSTRAP_SAMPLES,
    level: float = INTERVAL_LEVEL,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of kappa (``weighting`` as ``GradeCounts.kappa``; binary kappa
    is ``unweighted`` on the binary matrix) over the compared pairs: each resample draws as many
    pairs with replacement, i.e. the cells' counts from a multinomial with the observed shares.
    Resamples where kappa is 0/0 (every pair in one cell) are left out; None if all are."""
    import numpy as np  # only for an interval: start-up of agree without one stays light

    n = grades.pairs
    if not n:
        return None
    size = grades.scale.top + 1
    counts = np.array(grades.counts, dtype=np.float64).reshape(-1)
    draws = np.random.default_rng(seed).multinomial(n, counts / n, size=samples).reshape(samples, size, size)
    power = WEIGHTINGS[weighting]
    weights = np.array([[weight(a, b, power) for b in range(size)] for a in range(size)], dtype=np.float64)
    observed = (draws * weights).sum(axis=(1, 2))
    rows, columns = draws.sum(axis=2), draws.sum(axis=1)
    expected = np.einsum("sa,ab,sb->s", rows, weights, columns)
    defined = expected > 0
    if not defined.any():
        return None
    kappas = 1 - n * observed[defined] / expected[defined]
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(kappas, [tail, 100 - tail])
    return float(low), float(high)


def binary_matrix(grades: GradeCounts) -> GradeCounts:
    """The grade matrix folded at ``relevant_from``: binary kappa is its unweighted kappa."""
    relevant = grades.scale.relevant
    cells = [[0, 0], [0, 0]]
    for a, row in enumerate(grades.counts):
        for b, count in enumerate(row):
            cells[relevant(a)][relevant(b)] += count
    return GradeCounts(Scale(), (tuple(cells[0]), tuple(cells[1])))


def audit_seed(*provenances: Mapping[str, Any]) -> int | None:
    """The seed of the audit one of the files records (``[provenance.audit] seed``), if any."""
    for provenance in provenances:
        audit = provenance.get("audit")
        if isinstance(audit, dict) and type(audit.get("seed")) is int:
            return int(audit["seed"])
    return None


def bootstrap_intervals(grades: GradeCounts, seed: int) -> dict[str, Any]:
    """Binary kappa's interval (at ``relevant_from``), and on a graded scale the weighted ones'."""
    intervals = {"kappa": kappa_interval(binary_matrix(grades), "unweighted", seed)}
    if grades.scale.graded:
        intervals.update({name: kappa_interval(grades, name, seed) for name in ("linear", "quadratic")})
    return {
        "samples": BOOTSTRAP_SAMPLES,
        "level": INTERVAL_LEVEL,
        "seed": seed,
        "intervals": {name: None if value is None else list(value) for name, value in intervals.items()},
    }
