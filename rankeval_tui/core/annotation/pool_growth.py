"""Growing a pooled protocol's pools: the gap of a new run becomes holes (``grow --gap RUN``).

A pooled protocol refuses a run whose top k leaves a query's pool (``evaluation.gaps``). The
gap is exactly those pairs: added to the pools, they are holes that ``judge`` asks (and nothing
else is), every existing label is kept, and once judged the run scores. Texts of pooled documents
may come with it (``--corpus``): a pooled protocol scores without them, an annotator needs them.

protocol.toml is written whole (``definition_to_toml``: a pool is one string, it cannot be
appended to), with the provenance kept and a ``[[provenance.growth]]`` entry added; under the
``growth.growing`` locks, written first, then every open journal is moved (``growth.write_grown``,
as ``growth.apply_growth`` does: an interrupted grow is finished by the same grow again).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from rankeval_tui.core.annotation.binding import definition_sha256
from rankeval_tui.core.annotation.growth import Growth, write_grown
from rankeval_tui.core.errors import ContractError, describe_id
from rankeval_tui.core.evaluation.evaluate import Run, check_run
from rankeval_tui.core.evaluation.gaps import run_gap
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition, Query
from rankeval_tui.core.files import PROTOCOL_FILE, QRELS_FILE
from rankeval_tui.core.files.demo import refuse_writes_into_demo
from rankeval_tui.core.files.protocol_files import definition_to_toml


def plan_gap(
    definition: ProtocolDefinition,
    runs: Sequence[Run],
    k: int,
    texts: Mapping[str, str] | None = None,
    sources: Mapping[str, list[str]] | None = None,
    queries: Mapping[str, Query] | None = None,
) -> tuple[Growth, int]:
    """(the growth, pairs added): each run's gap at depth ``k`` appended to the pools, the texts
    of ``texts`` for pooled documents that have none yet, and of ``queries`` for queries without
    one (a query the protocol lacks, or one whose text or split differs, is refused: grow adds)."""
    if definition.pools is None:
        raise ContractError(
            "--gap is for a pooled protocol; an exhaustive protocol judges every document of its corpus: "
            "add a run's new documents with grow PROTOCOL --run RUN --corpus CORPUS",
            file=definition.source,
        )
    pools = {query: list(pool) for query, pool in definition.pools.items()}
    added = 0
    for run in runs:
        check_run(definition, run)
        current = replace(definition, pools={q: tuple(pool) for q, pool in pools.items()})
        for query, docs in run_gap(current, run.rankings, k).items():
            pools[query].extend(docs)
            added += len(docs)
    pooled = {doc for pool in pools.values() for doc in pool}
    new_texts = {doc: text for doc, text in (texts or {}).items() if doc in pooled and doc not in definition.documents}
    for doc, text in (texts or {}).items():
        if doc in definition.documents and definition.documents[doc] != text:
            raise ContractError(
                "document is already in the protocol with another text; grow only adds",
                file=(sources or {}).get("corpus", [None])[0],
                where=f"document {doc!r}",
            )
    texted = query_texts(definition, queries or {}, (sources or {}).get("queries", [None])[0])
    after = replace(
        definition,
        documents={**definition.documents, **new_texts},
        queries={**definition.queries, **texted},
        pools={q: tuple(pool) for q, pool in pools.items()},
    )
    return Growth(definition, after, new_texts, texted, dict(sources or {})), added


def query_texts(definition: ProtocolDefinition, queries: Mapping[str, Query], source: str | None) -> dict[str, Query]:
    """The queries of ``queries`` that give a text to one of the protocol's queries without one."""
    texted: dict[str, Query] = {}
    for query, meta in queries.items():
        where = describe_id("query", query)
        if query not in definition.queries:
            raise ContractError(
                "query not in the protocol: a pooled protocol's queries come with their pools (init)",
                file=source,
                where=where,
            )
        known = definition.queries[query]
        if known.text is None and meta.split == known.split:
            texted[query] = replace(known, text=meta.text, need=meta.need if known.need is None else known.need)
        elif known != meta:
            raise ContractError(
                "query is already in the protocol with another text, split or need; grow only adds",
                file=source,
                where=where,
            )
    return texted


def apply_gap(directory: Path, growth: Growth, added: int, *, qrels_path: Path | None = None) -> list[Path]:
    """Write the grown pools (protocol.toml first, then every open journal moved); returns the
    journals carried over. The caller holds ``growth.growing`` and planned from protocol.toml as
    read under it."""
    qrels_path = qrels_path if qrels_path is not None else directory / QRELS_FILE
    protocol_path = directory / PROTOCOL_FILE
    refuse_writes_into_demo(protocol_path, "growing")
    record = {
        "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "added_pool_pairs": added,
        "added_texts": list(growth.documents),
        "added_query_texts": list(growth.queries),
        "from": {kind: files for kind, files in growth.sources.items() if files},
        "definition_sha256_before": definition_sha256(growth.before),
        "definition_sha256_after": definition_sha256(growth.after),
        "tool": "rankeval-tui grow --gap",
    }
    provenance = dict(growth.after.provenance)
    provenance["growth"] = [*provenance.get("growth", []), record]
    text = definition_to_toml(replace(growth.after, provenance=provenance))
    return write_grown(directory, growth, text, qrels_path)
