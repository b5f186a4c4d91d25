"""A run (a ranking per query) and the rules it must follow before any number is computed.

Apart from evaluate.py so the evaluator stays readable; ``evaluate``, ``validate``, ``judge``,
``grow`` and the TREC export all check runs with ``check_run``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from rankeval_tui.core.errors import ContractError, Reporter, describe_id, quote, raise_problem
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition


@dataclass(frozen=True)
class Run:
    """A named document ranking per query, as read from a file (or built in memory)."""

    name: str
    rankings: Mapping[str, Sequence[str]]
    source: Path | None = None
    adapter_sha256: str | None = None
    warnings: tuple[str, ...] = ()
    """Things worth telling the user that do not invalidate the run."""
    score_order: Mapping[str, Sequence[str]] = field(default_factory=dict, compare=False, repr=False)
    """A TREC run's queries whose rank order differs from trec_eval's score order, with that
    order (``core.evaluation.tie_order`` summarises what it changes)."""
    distinct_str_entries: bool = field(default=False, compare=False)
    """Every ranking is known to be a list of distinct ``str``: the run file's reader checked it
    where it had a core to spare (``core.preread``), so ``check_run`` checks the corpus only."""


def in_tie_order(definition: ProtocolDefinition, run: Run) -> Run:
    """``run`` ordered as the protocol's ``tie_order`` says: under ``score`` each query whose rank
    order differs from trec_eval's takes trec_eval's (the order its reader kept beside it), so a
    protocol that records the setting is scored so by every command, the app and the API alike."""
    if definition.tie_order != "score" or not run.score_order:
        return run
    return replace(run, rankings={**run.rankings, **run.score_order}, score_order={})


def sample_hint(definition: ProtocolDefinition) -> str:
    """For a protocol that keeps a sample of the queries (``init --sample-queries``): how to cut a
    full run to it, as init cut the runs it was given; else nothing."""
    made = definition.provenance.get("queries")
    size = made.get("sample_size") if isinstance(made, dict) else None
    if not isinstance(size, int):
        return ""
    return (
        f"; this protocol keeps a sample of {size} queries (init --sample-queries, [provenance.queries] in "
        "protocol.toml): give the run's rankings of those queries only, as init cut the runs it was given "
        "(runs/*.json)"
    )


def check_run(definition: ProtocolDefinition, run: Run, *, report: Reporter = raise_problem) -> None:
    """Validate the whole run before any number is computed (the seed's rule).

    Every ranking is checked in full, past k too: a duplicate at rank 90 rejects the run,
    because silently cutting it off would hide dirty upstream data. It needs the definition
    only (no labels), so ``validate`` checks runs of a protocol that still has holes; with a
    collecting ``report`` it lists every bad query of the run, not only the first.
    """
    if not isinstance(run.rankings, Mapping):
        report(ContractError("a run must map query IDs to rankings", file=run.source))
        return
    selected = set(definition.selected_queries)
    for query in run.rankings:
        if query not in selected:
            where = describe_id("query", query)
            if query in definition.queries:
                rule = (
                    f"unknown or wrong-split query: it belongs to split "
                    f"{quote(definition.queries[query].split)}, not {quote(definition.split)}"
                )
            else:
                rule = "unknown or wrong-split query: not in the protocol" + sample_hint(definition)
            report(ContractError(rule, file=run.source, where=where))
    # A pooled protocol has no closed corpus: a document outside every pool is unjudged, which
    # matters only in the top k (``gaps``), not unknown.
    corpus = definition.document_ids if definition.pools is None else None
    if run.distinct_str_entries:  # the rest was checked by the reader: ~1/5 of the time
        for query, ranking in run.rankings.items():
            if corpus is not None and not corpus.issuperset(ranking):
                report(unknown_document(definition, run, query, ranking))
        return
    for query, ranking in run.rankings.items():
        # ``set(map(type, ...))`` is the same exact-type test as ``all(type(d) is str ...)`` but
        # runs in C; per entry it was most of the evaluator's time at 1M run entries.
        if not isinstance(ranking, list) or not set(map(type, ranking)) <= ONLY_STR:
            report(
                ContractError(
                    "ranking must be a list of document IDs", file=run.source, where=describe_id("query", query)
                )
            )
            continue
        seen = set(ranking)
        if len(seen) != len(ranking):
            duplicate = first_duplicate(ranking)
            report(
                ContractError(
                    "duplicate document ID; deduplicate upstream explicitly",
                    file=run.source,
                    where=f"{describe_id('query', query)}, {describe_id('document', duplicate)}",
                )
            )
        if corpus is not None and not seen <= corpus:
            report(unknown_document(definition, run, query, ranking))


def unknown_document(definition: ProtocolDefinition, run: Run, query: str, ranking: Sequence[str]) -> ContractError:
    corpus = definition.document_ids
    unknown = next(d for d in ranking if d not in corpus)
    return ContractError(
        f"unknown document ID: not in the corpus; {grow_hint(definition, run)}",
        file=run.source,
        where=f"{describe_id('query', query)}, {describe_id('document', unknown)}",
    )


def grow_hint(definition: ProtocolDefinition, run: Run) -> str:
    """The command that adds a run's unknown documents to the protocol (as holes to judge)."""
    import shlex  # for an error's hint only: start-up

    directory = shlex.quote(str(definition.source.parent)) if definition.source is not None else "PROTOCOL"
    run_file = shlex.quote(str(run.source)) if run.source is not None else "RUN"
    return f"to add the run's new documents: rankeval-tui grow {directory} --run {run_file} --corpus CORPUS"


ONLY_STR = frozenset({str})


def first_duplicate(ranking: Sequence[str]) -> str:
    seen: set[str] = set()
    for doc in ranking:
        if doc in seen:
            return doc
        seen.add(doc)
    raise ValueError("no duplicate")


def query_id_mismatch(run_name: str, run_queries: Collection[str], judged: Collection[str]) -> str | None:
    """A warning when at most half of a run's query IDs are among the judged queries' (the
    qrels'): ``01`` against ``1``, ``q1`` against ``1``, a run of another collection. Such a
    run scores 0 on every judged query it lacks and nothing on its own, row after row, with no
    error; the warning names an ID of each side so the mismatch shows. None when most match."""
    if not run_queries or not judged:
        return None
    known = set(judged)
    matching = sum(map(known.__contains__, run_queries))
    if matching * 2 > len(run_queries):
        return None
    theirs = next(query for query in run_queries if query not in known)
    ours = next(iter(judged))
    return (
        f"run {quote(run_name)}: {matching} of its {len(run_queries)} query IDs are among the {len(known)} "
        f"judged queries' (the run has {quote(theirs)}, the qrels {quote(ours)}): check the IDs "
        "(leading zeros, prefixes) before reading its scores"
    )
