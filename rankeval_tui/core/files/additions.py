"""Documents and queries to add to a protocol (``grow --corpus/--queries``), read from files.

Accepted today: protocol.toml-shaped TOML files (``[documents.ID] text = ...``,
``[queries.ID] text = ..., split = ...``), which may be another protocol's protocol.toml.
Every table is checked with protocol.toml's own rules; nothing is dropped or coerced.
"""

from __future__ import annotations

from pathlib import Path

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.protocol import Query
from rankeval_tui.core.files.protocol_files import (
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
    return path / PROTOCOL_FILE if path.is_dir() else path


def read_tables(path: Path, name: str) -> dict[str, object]:
    data = read_toml(path)
    for key in data:
        if key not in PROTOCOL_TABLES:
            raise ContractError(f"unknown top-level table {key!r} (known: {', '.join(PROTOCOL_TABLES)})", file=path)
    table = data.get(name)
    if not isinstance(table, dict) or not table:
        raise ContractError(f"no [{name}] tables to add", file=path)
    return table


def read_documents(path: Path) -> dict[str, str]:
    """``[documents.ID] text = ...`` in file order."""
    path = source_file(path)
    documents = {}
    for doc, table in read_tables(path, "documents").items():
        where = f"[documents.{doc}]"
        check_id("document", doc, file=path, where=where)
        checked = check_table(table, DOCUMENT_REQUIRED, {}, file=path, where=where)
        assert checked is not None  # check_table raises by default
        documents[doc] = checked["text"]
    return documents


def read_queries(path: Path) -> dict[str, Query]:
    """``[queries.ID] text = ..., split = ..., need = ...`` in file order."""
    path = source_file(path)
    queries = {}
    for query, table in read_tables(path, "queries").items():
        where = f"[queries.{query}]"
        check_id("query", query, file=path, where=where)
        meta = check_table(table, QUERY_REQUIRED, QUERY_OPTIONAL, file=path, where=where)
        assert meta is not None
        queries[query] = Query(text=meta["text"], split=meta["split"], need=meta.get("need"))
    return queries
