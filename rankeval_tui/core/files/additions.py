"""Documents and queries to add to a protocol (``grow --corpus/--queries``), read from files.

Accepted: protocol.toml-shaped TOML files (``[documents.ID] text = ..., title = ...``,
``[queries.ID] text = ..., split = ...``), which may be another protocol's protocol.toml, and
every format ``init`` reads (``importers``: BEIR, Pyserini, JSONL, TSV, a folder of .md/.txt).
Every table or record is checked with the same rules as on the way in; nothing is dropped or
coerced.
"""

from __future__ import annotations

from pathlib import Path

from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.evaluation.protocol import Query
from rankeval_tui.core.files import importers
from rankeval_tui.core.files.protocol_files import (
    DOCUMENT_OPTIONAL,
    DOCUMENT_REQUIRED,
    PROTOCOL_FILE,
    PROTOCOL_TABLES,
    QUERY_OPTIONAL,
    QUERY_REQUIRED,
    check_id,
    check_table,
)
from rankeval_tui.core.files.tomlio import read_toml


def source_file(path: Path) -> Path:
    """A protocol directory stands for its protocol.toml."""
    return path / PROTOCOL_FILE if (path / PROTOCOL_FILE).is_file() else path


def is_protocol_shaped(path: Path) -> bool:
    """A .toml file or a protocol directory; anything else is read by ``importers``."""
    return path.suffix == ".toml" or (path / PROTOCOL_FILE).is_file()


def read_tables(path: Path, name: str) -> dict[str, object]:
    data = read_toml(path)
    for key in data:
        if key not in PROTOCOL_TABLES:
            raise ContractError(
                f"unknown top-level table {quote(key)} (known: {', '.join(PROTOCOL_TABLES)})", file=path
            )
    table = data.get(name)
    if not isinstance(table, dict) or not table:
        raise ContractError(f"no [{name}] tables to add", file=path)
    return table


def read_documents(path: Path) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """(documents, titles, notices) in file order: ``[documents.ID] text = ..., title = ...`` or
    any corpus format of ``init``; the notices list what a folder corpus did not read, as init does."""
    if not is_protocol_shaped(path):
        corpus = importers.read_corpus(path)
        return corpus.documents, corpus.titles, importers.skipped_notices(path, corpus)
    path = source_file(path)
    documents: dict[str, str] = {}
    titles: dict[str, str] = {}
    for doc, table in read_tables(path, "documents").items():
        where = f"[documents.{doc}]"
        check_id("document", doc, file=path, where=where)
        checked = check_table(table, DOCUMENT_REQUIRED, DOCUMENT_OPTIONAL, file=path, where=where)
        assert checked is not None  # check_table raises by default
        documents[doc] = checked["text"]
        if "title" in checked:
            titles[doc] = checked["title"]
    return documents, titles, []


def read_queries(path: Path, split: str) -> dict[str, Query]:
    """``[queries.ID] text = ..., split = ..., need = ...`` in file order, or any queries format
    of ``init`` (where each query gets ``split`` unless the file carries its own)."""
    if not is_protocol_shaped(path):
        return importers.read_queries(path, split).queries
    path = source_file(path)
    queries = {}
    for query, table in read_tables(path, "queries").items():
        where = f"[queries.{query}]"
        check_id("query", query, file=path, where=where)
        meta = check_table(table, QUERY_REQUIRED, QUERY_OPTIONAL, file=path, where=where)
        assert meta is not None
        queries[query] = Query(text=meta["text"], split=meta["split"], need=meta.get("need"))
    return queries
