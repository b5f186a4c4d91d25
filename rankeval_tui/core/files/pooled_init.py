"""``rankeval-tui init DIR --qrels QRELS --run RUN --k 10`` without a corpus: a pooled protocol.

Each query's pool is the documents its labels name, in the qrels file's order, and with
``--pool-depth D`` also every document in some run's top D for that query (rank order, runs in
the order given): a pooled pair without a label is a hole for ``judge``, never a 0. The queries
are those of ``--queries`` when given (TREC topics, JSONL, TSV), else the qrels' and runs' query
IDs, without texts (scoring needs none; the judging screen says when one is missing). Texts of
pooled documents come from ``--corpus`` when given; a document without one can still be scored.
"""

from __future__ import annotations

import random

from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.evaluation.evaluate import Run
from rankeval_tui.core.evaluation.gaps import run_gap
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition, Query
from rankeval_tui.core.files.importers import ImportedLabels, read_corpus, read_labels, read_queries
from rankeval_tui.core.files.protocol_files import PROTOCOL_FILE, QrelsFile
from rankeval_tui.core.files.protocol_init import (
    InitRequest,
    PlannedProtocol,
    check_options,
    check_target,
    cut_run,
    load_runs,
    plan_protocol,
    provenance,
    qrels_provenance,
    raw,
    run_file_name,
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
    imported = read_queries(request.queries, request.split) if request.queries is not None else None
    known = None if imported is None else imported.queries
    corpus = read_corpus(request.corpus) if request.corpus is not None else None
    ids = None if corpus is None else corpus.documents  # with a corpus, a document outside it is a typo
    runs = load_runs(request, known, ids)
    labels = (
        None
        if request.qrels is None
        else read_labels(request.qrels, known, ids, request.threshold, request.relevant_values)
    )
    if imported is not None:
        queries: dict[str, Query] = dict(imported.queries)
    else:
        queries = {query: Query(text=None, split=request.split) for query in query_ids(labels, runs)}
        if not queries:
            raise ContractError("no queries: the qrels file and the runs name none")
    in_split = [q for q, meta in queries.items() if meta.split == request.split]
    if not in_split:
        splits = sorted({meta.split for meta in queries.values()})
        raise ContractError(f"no query of split {quote(request.split)} (the queries have: {', '.join(splits)})")
    if request.sample_queries is not None:
        if request.sample_queries > len(in_split):
            raise ContractError(
                f"--sample-queries {request.sample_queries} is more than the {len(in_split)} queries of split "
                f"{quote(request.split)}"
            )
        chosen = set(random.Random(request.seed).sample(in_split, request.sample_queries))
        queries = {q: meta for q, meta in queries.items() if q in chosen}
    kept_labels = {q: row for q, row in (labels.labels if labels else {}).items() if q in queries}
    pools: dict[str, dict[str, None]] = {q: dict.fromkeys(kept_labels.get(q, {})) for q in queries}
    if request.pool_depth is not None:
        for run in runs:
            for query, ranking in run.rankings.items():
                if query in pools:
                    pools[query].update(dict.fromkeys(ranking[: request.pool_depth]))
    pooled = {d for pool in pools.values() for d in pool}
    texts = {} if corpus is None else {d: t for d, t in corpus.documents.items() if d in pooled}
    sizes = {
        "documents_read": 0 if corpus is None else len(corpus.documents),
        "documents": len(pooled),
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
        f"pooled: {pool_rule(request, runs)}; texts of {len(texts)} of the {len(pooled)} pooled documents"
    )
    if request.corpus is None:
        made["corpus"]["source"] = "none (pooled: texts optional)"
    if request.queries is None:
        made["queries"]["source"] = "the query IDs of the qrels and runs (no texts)"
    directory = request.directory
    definition = ProtocolDefinition(
        name=request.name or directory.absolute().name,
        k=request.k,
        split=request.split,
        relevance=request.relevance,
        documents=texts,
        queries=queries,
        titles={} if corpus is None else {d: t for d, t in corpus.titles.items() if d in texts},
        provenance=made,
        source=directory / PROTOCOL_FILE,
        pools={q: tuple(pool) for q, pool in pools.items()},
        pool_rule=pool_rule(request, runs),
    )
    qrels = None
    if labels is not None:
        qrels = QrelsFile(labels=kept_labels, provenance=qrels_provenance(request, labels, kept_labels))
    if request.sample_queries is not None:
        files = {f"{run.name}.json": cut_run(run, queries, None) for run in runs}
    else:
        files = {run_file_name(run): raw(run) for run in runs}
    gapped = [name for name, run in zip(files, runs) if run_gap(definition, run.rankings, definition.k)]
    notices: list[str] = []
    if corpus is None:
        notices.append("no --corpus: documents have no text; scoring needs none, judging shows each as missing")
    if request.sample_queries is not None and runs:
        notices.append("runs were cut to the protocol's queries and written as JSON (the original files are unchanged)")
    return PlannedProtocol(directory, definition, qrels, files, notices, gapped)
