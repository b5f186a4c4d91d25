"""``rankeval-tui init DIR --qrels QRELS --run RUN --k 10`` without a corpus: a pooled protocol.

Each query's pool is the documents its labels name, in the qrels file's order, and with
``--pool-depth D`` also every document in some run's top D for that query (rank order, runs in
the order given): a pooled pair without a label is a hole for ``judge``, never a 0. The queries
are those of ``--queries`` when given (TREC topics, JSONL, TSV), else the qrels' and runs' query
IDs, without texts (scoring needs none; the judging screen says when one is missing). Texts of
pooled documents come from ``--corpus`` when given; a document without one can still be scored.
"""

from __future__ import annotations

from typing import Any

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.evaluate import Run
from rankeval_tui.core.evaluation.gaps import run_gap
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition, Query
from rankeval_tui.core.evaluation.run_check import query_id_mismatch
from rankeval_tui.core.files.importers import (
    ImportedCorpus,
    ImportedLabels,
    ImportedQueries,
    read_corpus,
    read_labels,
    read_queries,
)
from rankeval_tui.core.files.protocol_files import PROTOCOL_FILE
from rankeval_tui.core.files.protocol_init import (
    InitRequest,
    PlannedProtocol,
    check_options,
    check_target,
    chosen_queries,
    declared_settings,
    kept_labels,
    load_runs,
    plan_protocol,
    planned_qrels,
    planned_run_files,
    provenance,
    tie_order_proposals,
)


def pool_rule(request: InitRequest, runs: list[Run]) -> str:
    """The rule in words, recorded in protocol.toml and shown beside every pooled score."""
    parts = []
    if request.qrels is not None:
        parts.append(f"the documents labelled for it in {request.qrels.name}")
    if request.pool_depth is not None:
        names = ", ".join(run.name for run in runs)
        parts.append(f"the top {request.pool_depth} of run{'s' if len(runs) > 1 else ''} {names}")
    return "each query's pool: " + " plus ".join(parts)


def query_ids(labels: ImportedLabels | None, runs: list[Run]) -> list[str]:
    """Without a queries file: the qrels' queries in file order, then the runs' new ones."""
    ids = dict.fromkeys(labels.labels if labels is not None else ())
    for run in runs:
        ids.update(dict.fromkeys(run.rankings))
    return list(ids)


def plan(request: InitRequest) -> PlannedProtocol:
    """``init``'s plan of either kind: pooled without ``--corpus`` or with ``--pool-depth`` (per
    query), else exhaustive (also ``--union-pool-depth``: every query judged on the union)."""
    pooled = request.corpus is None or (request.pool_depth is not None and not request.union_pool)
    return plan_pooled(request) if pooled else plan_protocol(request)


def plan_pooled(request: InitRequest) -> PlannedProtocol:
    """Read and validate the labels, runs and optional texts; the pools; raise before any write."""
    check_target(request.directory)
    check_options(request)
    imported, corpus, runs, labels = read_pooled_inputs(request)
    queries = chosen_queries(request, pooled_queries(request, imported, labels, runs), file=None)
    kept = kept_labels(labels, queries)
    pools = query_pools(request, queries, kept, runs)
    pooled = {d for pool in pools.values() for d in pool}
    texts = {} if corpus is None else {d: t for d, t in corpus.documents.items() if d in pooled}
    directory = request.directory
    definition = ProtocolDefinition(
        name=request.name or directory.absolute().name,
        k=request.k,
        split=request.split,
        relevance=request.relevance_rule,
        documents=texts,
        queries=queries,
        titles={} if corpus is None else {d: t for d, t in corpus.titles.items() if d in texts},
        provenance=pooled_provenance(request, corpus, imported, labels, runs, queries, len(texts), len(pooled)),
        source=directory / PROTOCOL_FILE,
        pools={q: tuple(pool) for q, pool in pools.items()},
        pool_rule=pool_rule(request, runs),
        **declared_settings(request, labels),
    )
    files = planned_run_files(runs, queries, request.sample_queries is not None, None)
    gapped = [
        name
        for name, run in zip(files, runs)
        if not definition.unlisted_as_zero and run_gap(definition, run.rankings, definition.k)
    ]  # under the declaration a gap is scored (unlisted pairs are 0), not refused
    notices = pooled_notices(request, corpus, runs) + tie_order_proposals(request, runs)
    warnings = id_warnings(runs, labels)
    qrels = planned_qrels(request, labels, kept)
    return PlannedProtocol(directory, definition, qrels, files, notices, gapped, warnings)


def read_pooled_inputs(
    request: InitRequest,
) -> tuple[ImportedQueries | None, ImportedCorpus | None, list[Run], ImportedLabels | None]:
    """The queries and corpus files when given, then the runs and labels, each checked against
    the queries and documents read before it (a document outside a given corpus is a typo)."""
    imported = read_queries(request.queries, request.split) if request.queries is not None else None
    corpus = read_corpus(request.corpus) if request.corpus is not None else None
    known = None if imported is None else imported.queries
    ids = None if corpus is None else corpus.documents
    runs = load_runs(request, known, ids)
    if request.qrels is None:
        return imported, corpus, runs, None
    keep_grades = request.relevant_from is not None
    return (
        imported,
        corpus,
        runs,
        read_labels(request.qrels, known, ids, request.threshold, request.relevant_values, keep_grades),
    )


def id_warnings(runs: list[Run], labels: ImportedLabels | None) -> list[str]:
    """A warning per run whose query IDs mostly miss the qrels' (``01`` against ``1``)."""
    if labels is None:
        return []
    found = (query_id_mismatch(run.name, list(run.rankings), list(labels.labels)) for run in runs)
    return [warning for warning in found if warning is not None]


def pooled_notices(request: InitRequest, corpus: ImportedCorpus | None, runs: list[Run]) -> list[str]:
    notices: list[str] = []
    if corpus is None:
        notices.append("no --corpus: documents have no text; scoring needs none, judging shows each as missing")
    if request.sample_queries is not None and runs:
        notices.append("runs were cut to the protocol's queries and written as JSON (the original files are unchanged)")
    return notices


def pooled_queries(
    request: InitRequest, imported: ImportedQueries | None, labels: ImportedLabels | None, runs: list[Run]
) -> dict[str, Query]:
    """The queries file's queries, else the qrels' and runs' query IDs (without texts, in the request's split)."""
    if imported is not None:
        return dict(imported.queries)
    queries = {query: Query(text=None, split=request.split) for query in query_ids(labels, runs)}
    if not queries:
        raise ContractError("no queries: the qrels file and the runs name none")
    return queries


def query_pools(
    request: InitRequest, queries: dict[str, Query], kept: dict[str, dict[str, int]], runs: list[Run]
) -> dict[str, dict[str, None]]:
    """Each query's pool in order: its labelled documents, then with ``--pool-depth D`` each run's top D."""
    pools: dict[str, dict[str, None]] = {q: dict.fromkeys(kept.get(q, {})) for q in queries}
    if request.pool_depth is not None:
        for run in runs:
            for query, ranking in run.rankings.items():
                if query in pools:
                    pools[query].update(dict.fromkeys(ranking[: request.pool_depth]))
    return pools


def pooled_provenance(
    request: InitRequest,
    corpus: ImportedCorpus | None,
    imported: ImportedQueries | None,
    labels: ImportedLabels | None,
    runs: list[Run],
    queries: dict[str, Query],
    texts: int,
    pooled: int,
) -> dict[str, Any]:
    """``provenance`` of a pooled protocol: the pool rule and the sources it was made without."""
    sizes = {
        "documents_read": 0 if corpus is None else len(corpus.documents),
        "documents": pooled,
        "queries_read": len(queries) if imported is None else len(imported.queries),
        "queries": len(queries),
        "files_skipped": 0 if corpus is None else len(corpus.skipped_files),
    }
    made = provenance(
        request,
        "none" if corpus is None else corpus.format,
        "none" if imported is None else imported.format,
        imported is not None and imported.split_from_file,
        labels,
        runs,
        sizes,
    )
    made["corpus"]["selection"] = (
        f"pooled: {pool_rule(request, runs)}; texts of {texts} of the {pooled} pooled documents"
    )
    if request.corpus is None:
        made["corpus"]["source"] = "none (pooled: texts optional)"
    if request.queries is None:
        made["queries"]["source"] = "the query IDs of the qrels and runs (no texts)"
    return made
