"""The seed's chunk-cutoff observations, computed with the project's adapter and evaluator."""

from __future__ import annotations

from fractions import Fraction

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.adapter import adapt_runs
from rankeval_tui.core.evaluation.evaluate import Run, evaluate
from tests.core.seed import CHUNK_RUN, CHUNK_TO_DOC, CORPUS, PROTOCOL, QRELS, QUERIES


def summary(rankings) -> dict:
    report = evaluate(PROTOCOL, Run("chunks", rankings))
    text = lambda v: None if v is None else str(v)  # noqa: E731
    return {
        "recall_at_2": text(report.recall_at_k),
        "mrr_at_2": text(report.mrr_at_k),
        "missing_queries": report.missing_queries,
        "eligible_queries": report.eligible_queries,
        "rows": {
            row.query: {"recall": text(row.recall), "rr": text(row.rr), "returned": row.returned} for row in report.rows
        },
    }


def experiment() -> dict:
    complete = adapt_runs(CORPUS, QUERIES, CHUNK_TO_DOC, CHUNK_RUN)
    truncated = adapt_runs(CORPUS, QUERIES, CHUNK_TO_DOC, {q: r[:2] for q, r in CHUNK_RUN.items()})
    uncollapsed = {q: [CHUNK_TO_DOC[c] for c in ranks] for q, ranks in CHUNK_RUN.items()}
    try:
        evaluate(PROTOCOL, Run("raw", uncollapsed))
    except ContractError as error:
        raw = {"accepted": False, "reason": error.rule}
    else:  # pragma: no cover - the assertion in the test reports it
        raw = {"accepted": True}
    repeated_hits = sum(QRELS["q2"][CHUNK_TO_DOC[c]] for c in CHUNK_RUN["q2"][:2])
    return {
        "document_runs": complete.document_runs,
        "provenance": complete.evidence,
        "collapse_then_document_cutoff": summary(complete.document_runs),
        "two_chunk_budget_then_collapse": summary(truncated.document_runs),
        "raw_id_replacement": raw,
        "naive_q2_duplicate_occurrence_recall": str(Fraction(repeated_hits, sum(QRELS["q2"].values()))),
    }
