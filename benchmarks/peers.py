"""The field's evaluators, called the way their users call them, with their conventions adjusted
to this project's protocol so the numbers are comparable (used by bench_evaluator and the
cross-check test).

Where the conventions differ (DESIGN.md, "Facts from the field"):
- a query missing from the run: pytrec_eval drops it, ir_measures scores 0, ranx needs
  ``make_comparable=True``. The project keeps it in the denominator at 0.
- a query with no relevant document: every peer scores it 0 and keeps it in its mean. The
  project scores it null and excludes it from both means.
- pytrec_eval's ``recip_rank`` has no cutoff; RR@k is ``rr if rr >= 1/k else 0``.

``adjust`` turns a peer's per-query values into the project's per-query values (None for the
excluded queries, 0 for the missing ones) and means over the eligible queries.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

PerQuery = dict[str, tuple[float, float]]
"""query -> (Recall@k, RR@k) as the peer reports them, only for the queries it reports."""


def score_dict(rankings: Mapping[str, list[str]]) -> dict[str, dict[str, float]]:
    """A ranking as peers want it: doc -> score, decreasing with rank (as the synth TREC runs)."""
    return {q: {d: float(1000 - r) for r, d in enumerate(ranking, 1)} for q, ranking in rankings.items()}


def pytrec_eval_scores(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Mapping[str, float]],
    k: int,
    evaluator: object | None = None,
) -> PerQuery:
    """trec_eval's ``recall.k`` and ``recip_rank`` (uncut; cut in ``adjust_rr_cutoff``)."""
    import pytrec_eval

    if evaluator is None:
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {f"recall.{k}", "recip_rank"})
    result = evaluator.evaluate(run)  # type: ignore[attr-defined]
    key = f"recall_{k}"
    return {q: (m[key], adjust_rr_cutoff(m["recip_rank"], k)) for q, m in result.items()}


def adjust_rr_cutoff(rr: float, k: int) -> float:
    """pytrec_eval ignores the cutoff of recip_rank: a first hit at rank > k must count 0."""
    return rr if rr > 0 and round(1 / rr) <= k else 0.0


def ir_measures_scores(qrels: object, run: object, k: int) -> PerQuery:
    import ir_measures
    from ir_measures import RR, R

    recall, rr = R @ k, RR @ k
    values: dict[str, dict[object, float]] = {}
    for metric in ir_measures.iter_calc([recall, rr], qrels, run):
        values.setdefault(metric.query_id, {})[metric.measure] = metric.value
    return {q: (m.get(recall, 0.0), m.get(rr, 0.0)) for q, m in values.items()}


def ranx_scores(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Mapping[str, float]],
    k: int,
    prepared: tuple[object, object] | None = None,
) -> PerQuery:
    from ranx import Qrels, Run, evaluate

    ranx_qrels, ranx_run = prepared if prepared is not None else (Qrels(qrels), Run(run))
    scores = evaluate(ranx_qrels, ranx_run, [f"recall@{k}", f"mrr@{k}"], make_comparable=True, return_mean=False)
    ids = ranx_qrels.get_query_ids()  # type: ignore[attr-defined]
    return {q: (float(r), float(m)) for q, r, m in zip(ids, scores[f"recall@{k}"], scores[f"mrr@{k}"])}


PEERS: dict[str, Callable[..., PerQuery]] = {
    "pytrec_eval": pytrec_eval_scores,
    "ir_measures": ir_measures_scores,
    "ranx": ranx_scores,
}


def adjust(
    per_query: PerQuery, selected: list[str], eligible: set[str], present: set[str]
) -> tuple[dict[str, tuple[float | None, float | None]], float | None, float | None]:
    """The project's conventions on a peer's numbers: per-query values and the two means.

    Excluded (no relevant document) -> None; missing from the run -> 0 whatever the peer said
    (ranx and ir_measures say 0, pytrec_eval says nothing); otherwise the peer's value.
    """
    rows: dict[str, tuple[float | None, float | None]] = {}
    for q in selected:
        if q not in eligible:
            rows[q] = (None, None)
        elif q not in present:
            rows[q] = (0.0, 0.0)
        else:
            recall, rr = per_query[q]
            rows[q] = (0.0 if math.isnan(recall) else recall, 0.0 if math.isnan(rr) else rr)
    scored = [v for v in rows.values() if v[0] is not None]
    if not scored:
        return rows, None, None
    return rows, sum(v[0] for v in scored) / len(scored), sum(v[1] for v in scored) / len(scored)  # type: ignore[misc]
