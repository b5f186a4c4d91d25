"""Pools of the pooled protocol kind, checked: each query's pool, and qrels that cover exactly it.

Apart from protocol.py (which calls these from ``ProtocolDefinition`` and ``check_qrels``) so the
protocol module stays readable; they take the pools, not the definition, to import nothing back.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from itertools import chain, repeat
from operator import eq, methodcaller
from pathlib import Path
from types import MappingProxyType

from rankeval_tui.core.errors import ContractError, describe_id, quote


class DistinctIds(tuple[str, ...]):
    """A pool whose IDs are distinct strings by how it was made: the keys of a qrels row, taken
    as the pool when the ``[pools]`` string lists exactly them (``files.pools.read_pools``).
    ``check_pools`` takes it without building a set of it (a million pooled IDs hashed into sets
    was a visible part of every pooled ``score``); any other tuple is checked as before."""

    __slots__ = ()


def check_pools(
    pools: Mapping[str, tuple[str, ...]], queries: Collection[str], *, file: str | Path | None = None
) -> dict[str, frozenset[str]]:
    """A pool per query of the protocol and none for another; each a tuple of distinct IDs.

    Returns the sets the distinctness test built (``ProtocolDefinition.pool_sets`` keeps them
    when there is one per pool: building them twice is paid per pooled ID); a
    ``DistinctIds`` pool needs none."""
    for query in queries:
        if query not in pools:
            raise ContractError("pooled protocol: a query without a pool", file=file, where=describe_id("query", query))
    pool_sets: dict[str, frozenset[str]] = {}
    for query, pool in pools.items():
        where = describe_id("query", query)
        if query not in queries:
            raise ContractError("pool of an unknown query", file=file, where=where)
        if type(pool) is DistinctIds:
            continue
        if type(pool) is not tuple or not set(map(type, pool)) <= {str}:
            raise ContractError("a pool must be a tuple of document IDs", file=file, where=where)
        pool_sets[query] = members = frozenset(pool)
        if len(members) != len(pool):
            seen: set[str] = set()
            twice = next(doc for doc in pool if doc in seen or seen.add(doc))  # type: ignore[func-returns-value]
            raise ContractError(
                "document listed twice in one pool", file=file, where=f"{where}, {describe_id('document', twice)}"
            )
    return pool_sets


def rows_list_pools(pools: Mapping[str, tuple[str, ...]], rows: Mapping[str, Mapping[str, object]]) -> bool:
    """Whether the rows' queries are the pools' (an empty pool may have no row) and each row's
    keys are its pool in pool order: decided in C by comparing tuples, whose items are the same
    string objects when the pools were taken from these rows (``DistinctIds``), so no pool set
    is built; False says only "compare as sets" (a row in another order, a partial row)."""
    return rows.keys() <= pools.keys() and all(
        map(eq, map(tuple, map(rows.get, pools, repeat(EMPTY_ROW))), pools.values())
    )


def all_binary(qrels: Mapping[str, Mapping[str, object]], top: int = 1) -> bool:
    """Whether every label of every row is an int from 0 to ``top`` (1: the binary scale; a
    graded protocol's highest grade), in two passes in C over all labels (``check_binary_row``
    per row was 100,000 calls on a tall protocol); False says only "look row by row"
    (``check_binary_row`` names the first bad label)."""
    labels = list(chain.from_iterable(map(methodcaller("values"), qrels.values())))
    return set(map(type, labels)) <= {int} and set(labels) <= set(range(top + 1))


def label_rule(top: int) -> str:
    """The rule a label breaks, in words: the seed's for the binary scale."""
    return "qrels labels must be integer 0 or 1" if top == 1 else f"qrels labels must be an integer grade 0 to {top}"


def check_binary_row(query: str, row: Mapping[str, object], file: str | Path | None, top: int = 1) -> None:
    """Every label of a row an int from 0 to ``top`` (0 or 1 by default): at C speed when valid;
    else the first bad one named."""
    grades = range(top + 1)
    if set(map(type, row.values())) <= {int} and set(row.values()) <= set(grades):
        return
    for doc, label in row.items():
        if type(label) is not int or label not in grades:
            where = f"{describe_id('query', query)}, {describe_id('document', doc)}"
            raise ContractError(f"{label_rule(top)}, got {quote(label)}", file=file, where=where)


OUTSIDE_THE_POOL = (
    "label outside the query's pool: a pooled protocol judges each query's pool only; "
    "add the pair to the pool or remove the label"
)


def pool_violation(
    pools: Mapping[str, frozenset[str]], qrels: Mapping[str, Mapping[str, object]], *, file: str | Path | None = None
) -> ContractError | None:
    """The first label of pooled qrels that lies outside the protocol's queries or a query's pool
    (a pair nobody was asked to judge cannot be part of the protocol), or None."""
    for query, row in qrels.items():
        if query not in pools:
            return ContractError("qrels name an unknown query", file=file, where=describe_id("query", query))
        if not pools[query].issuperset(row):
            outside = next(doc for doc in row if doc not in pools[query])
            return ContractError(
                OUTSIDE_THE_POOL,
                file=file,
                where=f"{describe_id('query', query)}, {describe_id('document', outside)}",
            )
    return None


def check_pooled_qrels(
    pools: Mapping[str, tuple[str, ...]],
    pool_sets: Mapping[str, frozenset[str]],
    qrels: Mapping[str, Mapping[str, object]],
    *,
    file: str | Path | None = None,
    top: int = 1,
    unlisted_as_zero: bool = False,
) -> None:
    """Pooled qrels: every pair of every pool an explicit label from 0 to ``top`` (0/1 unless the
    protocol declares a scale), nothing outside the pools; with ``unlisted_as_zero`` a pool pair
    may be unlisted (labelled 0 by the collection's declaration, never a hole).

    The common case is decided in C: the rows' queries are the pools' (an empty pool may have
    none) and each row's documents are exactly its pool; else the checks below name the first
    problem."""
    if (
        qrels.keys() <= pool_sets.keys()
        and all(map(eq, map(methodcaller("keys"), map(qrels.get, pool_sets, repeat(EMPTY_ROW))), pool_sets.values()))
        and all_binary(qrels, top)
    ):
        return
    violation = pool_violation(pool_sets, qrels, file=file)
    if violation is not None:
        raise violation
    for query, pool in pools.items():
        row = qrels.get(query, {})
        if len(row) != len(pool) and not unlisted_as_zero:
            unjudged = [doc for doc in pool if doc not in row]
            more = f" ({len(unjudged)} unjudged in this query)" if len(unjudged) > 1 else ""
            raise ContractError(
                f"unjudged pool pair: every pair of a query's pool must be judged; pair is unjudged{more}",
                file=file,
                where=f"{describe_id('query', query)}, {describe_id('document', unjudged[0])}",
            )
        check_binary_row(query, row, file, top)


EMPTY_ROW: Mapping[str, object] = MappingProxyType({})
"""The row of a query with no labels: an empty pool's, when its query has no row."""


def documents_without_text(pools: Mapping[str, Sequence[str]] | None, documents: Mapping[str, str]) -> list[str]:
    """The pooled documents the protocol has no text for, sorted: a pooled protocol scores
    without texts, but an annotator judging one sees only a placeholder (``grow --corpus``)."""
    if pools is None:
        return []
    return sorted({doc for pool in pools.values() for doc in pool if doc not in documents})
