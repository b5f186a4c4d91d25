"""Chunk runs -> document runs: first-occurrence collapse with provenance, and its own hash.

The adapter has no k on purpose: it collapses the whole chunk ranking, and the evaluator then
cuts at document k. Everything is validated before anything is produced, a query the chunk
run lacks stays missing (never backfilled with an empty list), and ``adapter_sha256`` covers
the mapping and the rule's name, so a changed mapping is visible while the protocol hash,
which does not depend on the run, stays the same.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rankeval_tui.core.errors import ContractError, describe_id, quote
from rankeval_tui.core.evaluation.evaluate import Run
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition

ADAPTER_RULE = "first-occurrence-document-v1"


@dataclass(frozen=True)
class Adaptation:
    """The result of collapsing a chunk run: document rankings, provenance and the adapter hash."""

    adapter_sha256: str
    document_runs: dict[str, list[str]]
    evidence: dict[str, dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"adapter_sha256": self.adapter_sha256, "document_runs": self.document_runs, "evidence": self.evidence}

    def as_run(self, name: str, source: Path | None = None) -> Run:
        return Run(name=name, rankings=self.document_runs, source=source, adapter_sha256=self.adapter_sha256)


def adapter_sha256(chunk_to_doc: Mapping[str, str]) -> str:
    """sha256 of the canonical JSON of the rule name and the mapping (order-independent)."""
    config = {"adapter": ADAPTER_RULE, "chunk_to_doc": dict(chunk_to_doc)}
    raw = json.dumps(config, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def is_id(value: object) -> bool:
    return type(value) is str and bool(value)


def check_adapter_inputs(
    corpus: Mapping[str, str],
    queries: Mapping[str, Mapping[str, Any]],
    chunk_to_doc: object,
    chunk_runs: object,
    split: object,
    source: Path | None,
    map_source: Path | None,
) -> None:
    """Every input the adapter is given, checked in the order the first problem is reported."""
    check_corpus_and_queries(corpus, queries, split, source)
    if type(chunk_to_doc) is not dict or type(chunk_runs) is not dict:
        raise ContractError("mapping and runs must be dictionaries", file=source)
    check_chunk_map(chunk_to_doc, corpus, map_source)
    selected = {q for q, meta in queries.items() if meta["split"] == split}
    if not selected:
        raise ContractError(f"split has no queries: split {quote(split)}", file=source)
    check_chunk_runs(chunk_runs, chunk_to_doc, selected, source)


def check_corpus_and_queries(
    corpus: Mapping[str, str], queries: Mapping[str, Mapping[str, Any]], split: object, source: Path | None
) -> None:
    if type(corpus) is not dict or not corpus:
        raise ContractError("nonempty corpus dictionary required", file=source)
    if not all(is_id(d) for d in corpus):
        raise ContractError("corpus document IDs must be nonempty strings", file=source)
    if type(queries) is not dict or not queries:
        raise ContractError("nonempty query dictionary required", file=source)
    if not is_id(split):
        raise ContractError("split must be a nonempty string", file=source)
    for query, meta in queries.items():
        if not is_id(query) or type(meta) is not dict:
            raise ContractError("query IDs and metadata are invalid", file=source, where=describe_id("query", query))
        if not is_id(meta.get("split")):
            raise ContractError("query split must be a nonempty string", file=source, where=describe_id("query", query))


def check_chunk_map(chunk_to_doc: dict[Any, Any], corpus: Mapping[str, str], map_source: Path | None) -> None:
    """Each chunk maps to a document of the corpus."""
    for chunk, doc in chunk_to_doc.items():
        if not is_id(chunk) or not is_id(doc):
            raise ContractError(
                "chunk and document IDs must be strings", file=map_source, where=describe_id("chunk", chunk)
            )
        if doc not in corpus:
            raise ContractError(
                f"mapping points outside the corpus: document {quote(doc)}",
                file=map_source,
                where=describe_id("chunk", chunk),
            )


def check_chunk_runs(
    chunk_runs: dict[Any, Any], chunk_to_doc: dict[Any, Any], selected: set[str], source: Path | None
) -> None:
    """Each ranked query is of the split; each ranking a list of distinct, mapped chunks."""
    for query in chunk_runs:
        if query not in selected:
            raise ContractError("unknown or wrong-split query", file=source, where=describe_id("query", query))
    for query, ranking in chunk_runs.items():
        where = describe_id("query", query)
        if type(ranking) is not list:
            raise ContractError("chunk ranking must be a list", file=source, where=where)
        for chunk in ranking:
            if type(chunk) is not str or chunk not in chunk_to_doc:
                raise ContractError(
                    "unknown or invalid chunk ID", file=source, where=f"{where}, {describe_id('chunk', chunk)}"
                )
        if len(set(ranking)) != len(ranking):
            raise ContractError("duplicate chunk ID", file=source, where=where)


def collapse(ranking: Sequence[str], chunk_to_doc: Mapping[str, str]) -> list[dict[str, Any]]:
    """Documents in order of their first chunk, each with every rank its chunks held."""
    documents: dict[str, dict[str, Any]] = {}
    for rank, chunk in enumerate(ranking, 1):
        doc = chunk_to_doc[chunk]
        if doc not in documents:
            documents[doc] = {"document_id": doc, "first_chunk_id": chunk, "first_chunk_rank": rank, "chunk_ranks": []}
        documents[doc]["chunk_ranks"].append(rank)
    return list(documents.values())


def adapt_runs(
    corpus: Mapping[str, str],
    queries: Mapping[str, Mapping[str, Any]],
    chunk_to_doc: Mapping[str, str],
    chunk_runs: Mapping[str, Sequence[str]],
    split: str = "test",
    *,
    source: Path | None = None,
    map_source: Path | None = None,
) -> Adaptation:
    """Validate every supplied rank, then keep each document at its first chunk's position.

    ``source`` and ``map_source`` (the chunk run's and the mapping's files) only locate errors.
    """
    check_adapter_inputs(corpus, queries, chunk_to_doc, chunk_runs, split, source, map_source)
    document_runs: dict[str, list[str]] = {}
    evidence: dict[str, dict[str, Any]] = {}
    for query, ranking in chunk_runs.items():
        documents = collapse(ranking, chunk_to_doc)
        document_runs[query] = [row["document_id"] for row in documents]
        evidence[query] = {
            "received_chunks": len(ranking),
            "distinct_documents": len(documents),
            "documents": documents,
        }
    return Adaptation(adapter_sha256(chunk_to_doc), document_runs, evidence)


def adapt_for_protocol(
    definition: ProtocolDefinition, chunk_to_doc: Mapping[str, str], chunk_run: Run, *, map_source: Path | None = None
) -> Adaptation:
    """The adapter applied to a loaded protocol and chunk run (what ``adapt`` and ``score`` use)."""
    queries = {q: meta.canonical() for q, meta in definition.queries.items()}
    return adapt_runs(
        dict(definition.documents),
        queries,
        dict(chunk_to_doc),
        dict(chunk_run.rankings),
        definition.split,
        source=chunk_run.source,
        map_source=map_source,
    )
