"""The gap of a run under a pooled protocol: its top-k pairs outside the queries' pools.

A pooled protocol judges each query's pool only; a pair outside it is unjudged, never 0. A run
whose top k reaches outside a pool cannot get one number: ``evaluate`` refuses it with the gap's
size and the command that adds exactly those pairs to the pools as holes (``grow --gap``), and
``score --bounds`` gives the exact range over the gap's 0/1 assignments instead (bounds.py).
Pairs below k change no metric at k, so they are never part of a gap.
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from pathlib import Path

from rankeval_tui.core.errors import ContractError, describe_id
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.wording import counted


def run_gap(
    definition: ProtocolDefinition,
    rankings: Mapping[str, Sequence[str]],
    k: int,
    pools: Mapping[str, Container[str]] | None = None,
) -> dict[str, tuple[str, ...]]:
    """Per query of the split with any, the documents of the run's top ``k`` outside the query's
    pool, in rank order (empty for the exhaustive kind: its pool is the whole corpus).

    ``pools``: each query's pool as a container, by default the definition's ``pool_sets``; a
    ``Protocol``'s qrels rows are its pools exactly (``check_qrels``), so scoring looks the top k
    up in them and builds no set of a million pooled IDs (a query of an empty pool may lack one)."""
    if definition.pools is None:
        return {}
    members = definition.pool_sets if pools is None else pools
    gap: dict[str, tuple[str, ...]] = {}
    for query in definition.selected_queries:
        top = rankings.get(query, ())[:k]
        pool = members.get(query, NO_POOL)
        if not all(map(pool.__contains__, top)):
            gap[query] = tuple(doc for doc in top if doc not in pool)
    return gap


NO_POOL: frozenset[str] = frozenset()


def unlisted_pairs(
    queries: Sequence[str], rankings: Mapping[str, Sequence[str]], k: int, qrels: Mapping[str, Container[str]]
) -> int:
    """The top-``k`` pairs of a run over ``queries`` that the qrels do not list: under a protocol
    that declares unlisted pairs 0 they are labelled 0 by that declaration, not by a judge, and
    every report counts them (the same pairs a pooled protocol without it refuses as its gap)."""
    return sum(
        len(top) - sum(map(row.__contains__, top))
        for top, row in ((rankings.get(query, ())[:k], qrels.get(query, NO_POOL)) for query in queries)
    )


def gap_command(definition: ProtocolDefinition, run_source: Path | None, k: int) -> str:
    """The one command that adds a run's gap to the pools as holes (``judge`` asks them next)."""
    import shlex  # for an error's hint only: start-up

    directory = shlex.quote(str(definition.source.parent)) if definition.source is not None else "PROTOCOL"
    run_file = shlex.quote(str(run_source)) if run_source is not None else "RUN"
    at_k = f" --k {k}" if k != definition.k else ""
    return f"rankeval-tui grow {directory} --gap {run_file}{at_k}"


def refuse_gap(
    definition: ProtocolDefinition,
    run_name: str,
    rankings: Mapping[str, Sequence[str]],
    run_source: Path | None,
    k: int,
    pools: Mapping[str, Container[str]] | None = None,
) -> None:
    """Strict at depth k: one line with the gap's size and the command that closes it (``pools``
    as for ``run_gap``)."""
    gap = run_gap(definition, rankings, k, pools)
    if not gap:
        return
    pairs = sum(map(len, gap.values()))
    first_query, first_docs = next(iter(gap.items()))
    raise ContractError(
        f"run {run_name!r}: {counted(pairs, 'top-' + str(k) + ' pair')} in {counted(len(gap), 'query')} "
        f"outside the pools (unjudged, never read as 0); add them to the pools as holes to judge: "
        f"{gap_command(definition, run_source, k)} (or see the range with score --bounds)",
        file=run_source,
        where=f"first: {describe_id('query', first_query)}, {describe_id('document', first_docs[0])}",
    )
