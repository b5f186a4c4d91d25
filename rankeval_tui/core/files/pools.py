"""The ``[pools]`` table of a pooled protocol.toml: each query's pool, in a compact form.

A pool is written as one TOML string per query, its document IDs separated by single spaces
(``"q:1001" = "docs/a.md docs/b.md"``). IDs never hold whitespace (``check_id``), so the split
is exact; one string per query parses at the speed of the file's bytes, where an array of a
million strings costs a parser a value each (many queries x ~100-document pools).

``[protocol] kind = "pooled"`` says the table is there, ``pool_rule`` says in words how the
pools were made; the exhaustive kind has neither key, so its file stays the seed's.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import repeat
from operator import contains
from pathlib import Path

from rankeval_tui.core.errors import ContractError, Reporter, brief, quote
from rankeval_tui.core.evaluation.pools import DistinctIds
from rankeval_tui.core.evaluation.protocol import KINDS, ProtocolDefinition
from rankeval_tui.core.files.ids import NOT_IN_AN_ID, QUERY_OPTIONAL, QUERY_REQUIRED, check_id, only_id_characters

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any

POOLS_TABLE = "pools"
POOLED_QUERY_REQUIRED = {"split": str}
POOLED_QUERY_OPTIONAL = {"text": str, "need": str}
"""A pooled protocol scores without query texts (``init`` from a qrels file and runs)."""


def pooled_parts(
    header: Mapping[str, Any] | None,
    data: Mapping[str, Any],
    path: Path,
    report: Reporter,
    rows: Mapping[str, object] | None = None,
) -> tuple[dict[str, tuple[str, ...]] | None, Mapping[str, type], Mapping[str, type]]:
    """(pools or None for the exhaustive kind, the required and optional keys of a query);
    ``rows``: the qrels rows a pool may be taken from (``read_pools``)."""
    pooled = header is not None and header_kind(header, path, report) == "pooled"
    if not pooled:
        if POOLS_TABLE in data:
            report(ContractError('[pools] is for a pooled protocol: [protocol] kind = "pooled"', file=path))
        return None, QUERY_REQUIRED, QUERY_OPTIONAL
    return read_pools(data.get(POOLS_TABLE, {}), path, report, rows), POOLED_QUERY_REQUIRED, POOLED_QUERY_OPTIONAL


def header_kind(header: Mapping[str, Any], path: Path, report: Reporter) -> str:
    """``kind`` of ``[protocol]``: absent is the exhaustive kind; anything else but the two is refused."""
    kind = header.get("kind", "exhaustive")
    if kind not in KINDS:
        report(
            ContractError(
                f"unknown protocol kind {quote(kind)} (known: {', '.join(KINDS)})", file=path, where="[protocol]"
            )
        )
    return str(kind)


def read_pools(
    table: object, path: Path, report: Reporter, rows: Mapping[str, object] | None = None
) -> dict[str, tuple[str, ...]]:
    """``[pools]`` -> {query: (doc, ...)}; each ID checked, a bad entry reported and left out.

    ``rows``: the qrels rows of the protocol's qrels.toml, when read beside it: a query's pool is
    its row's keys when its string lists exactly them (``listed_pool``)."""
    if not isinstance(table, dict):
        report(ContractError('[pools] must be a table of query = "DOC DOC ..."', file=path))
        return {}
    if plain_pools(table):
        if rows:
            pools = {query: listed_pool(text, rows.get(query)) for query, text in table.items()}
        else:
            pools = {query: tuple(text.split(" ")) if text else () for query, text in table.items()}
        if not any(map(contains, pools.values(), repeat(""))):  # an empty ID: two spaces, or one at an end
            return pools
    pools = {}
    for query, text in table.items():
        where = f"[pools] {brief(query)}"
        if type(text) is not str:
            report(
                ContractError(
                    f"a pool is one string of document IDs separated by spaces, got {quote(text)}",
                    file=path,
                    where=where,
                )
            )
            continue
        pool = tuple(text.split(" ")) if text else ()
        # One search over the whole string (its IDs are valid iff it holds no whitespace or control
        # character but single spaces between IDs): per ID, the regex was most of reading 1M IDs.
        if NOT_IN_AN_ID.search(text.replace(" ", "")) or "" in pool:
            bad = next(doc for doc in pool if not doc or NOT_IN_AN_ID.search(doc))
            report(
                ContractError(
                    f"pool IDs are separated by single spaces; got {quote(bad)} (empty, or a control character)",
                    file=path,
                    where=where,
                )
            )
            continue
        try:
            check_id("query", query, file=path, where=where)
        except ContractError as problem:
            report(problem)
            continue
        pools[query] = pool
    return pools


def listed_pool(text: str, row: object) -> tuple[str, ...]:
    """The pool ``text`` lists: the keys of ``row`` when ``text`` is they, joined by single spaces
    in their order (as ``init`` writes a pool and its qrels row), else ``text`` split.

    Why: one join and a string compare per query instead of a million new strings; the pool's
    IDs are then the very strings the qrels row holds, distinct as a dict's keys are
    (``DistinctIds``: no set built to check them) and compared by identity when the qrels are
    checked against the pools (``rows_list_pools``). The join equals ``text`` with as many spaces
    as it adds only when no key holds a space, so ``text.split(" ")`` is exactly the keys."""
    if type(row) is dict:
        pool = DistinctIds(row)  # (a tuple joins in a quarter of the time of a dict)
        if text == " ".join(pool) and text.count(" ") == len(pool) - 1:
            return pool
    return tuple(text.split(" ")) if text else ()


def plain_pools(table: Mapping[Any, Any]) -> bool:
    """Whether every query ID of ``[pools]`` is valid and every pool a string of ID characters
    and spaces, decided over the whole table at once (``only_id_characters``); False says only
    "look query by query" (``read_pools`` names each problem)."""
    return (
        set(map(type, table)) <= {str}
        and "" not in table
        and only_id_characters("".join(table))
        and set(map(type, table.values())) <= {str}
        and only_id_characters("".join(table.values()), " ")
    )


def pools_table(definition: ProtocolDefinition) -> dict[str, str]:
    """The ``[pools]`` table ``read_pools`` reads back to the same pools (protocol query order)."""
    assert definition.pools is not None
    return {query: " ".join(definition.pools[query]) for query in definition.queries}
