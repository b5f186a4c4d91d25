"""Holes: query-document pairs a qrels file does not judge.

Imported or partly judged labels are a starting point, never a fill: a missing pair is a hole,
to be judged, and is never read as 0. Scoring refuses while there are holes and names the
command that fills them; ``validate`` counts them per query.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rankeval_tui.core.errors import ContractError, describe_id
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition

QRELS_NAME = "qrels.toml"


def holes_per_query(definition: ProtocolDefinition, labels: Mapping[str, Mapping[str, object]]) -> dict[str, int]:
    """Unjudged pairs per query with any, in protocol order. ``labels`` must name only corpus
    documents (pooled kind: documents of the query's pool; the qrels readers check it), so a
    count per row is enough: O(queries)."""
    if definition.pools is not None:
        pools = definition.pools
        counts = {query: len(pools[query]) - len(labels.get(query, {})) for query in definition.queries}
        return {query: count for query, count in counts.items() if count}
    size = len(definition.documents)
    counts = {query: size - len(labels.get(query, {})) for query in definition.queries}
    return {query: count for query, count in counts.items() if count}


def judge_command(directory: str | Path, qrels_path: str | Path | None = None) -> str:
    """The command that opens judging on the holes (``--qrels`` only when it is not the default)."""
    import shlex  # messages only: not a cost of every start-up

    command = f"rankeval-tui judge {shlex.quote(str(directory))}"
    if qrels_path is not None and Path(qrels_path) != Path(directory) / QRELS_NAME:
        command += f" --qrels {shlex.quote(str(qrels_path))}"
    return command


def refuse_holes(
    definition: ProtocolDefinition,
    labels: Mapping[str, Mapping[str, object]],
    qrels_path: Path,
    directory: str | Path,
) -> None:
    """Raise the seed's unjudged-pair rejection with the hole count and the next command.

    A qrels file that does not exist yet (a fresh ``init`` without ``--qrels``, or judging still
    in its journal) judges nothing: every pair is a hole, said the same way, never 'file not found'."""
    holes = holes_per_query(definition, labels)
    if not holes:
        return
    first_query = next(iter(holes))
    judged = labels.get(first_query, {})
    first_doc = next(doc for doc in definition.documents_of(first_query) if doc not in judged)
    total = sum(holes.values())
    missing = "" if qrels_path.exists() else "no qrels file yet; "
    required = "every pair of every pool judged" if definition.pools is not None else "exhaustive qrels required"
    raise ContractError(
        f"unjudged or unknown documents: {required}; {missing}"
        f"{total} of {definition.pair_count} pairs are unjudged (holes in {len(holes)} of "
        f"{len(definition.queries)} queries), never read as 0; judge them with: "
        f"{judge_command(directory, qrels_path)}",
        file=qrels_path,
        where=f"first hole: {describe_id('query', first_query)}, {describe_id('document', first_doc)}",
    )
