"""A new protocol directory from a user's corpus, queries, labels and runs (``rankeval-tui init``).

Everything is read and validated in memory first (``plan_protocol``), then written into a
temporary directory beside the target and renamed into place (``write_protocol``): a failure at
any point leaves no half-made protocol behind, and an existing protocol is never overwritten.

Imported labels are a starting point, not a fill: ``qrels.toml`` holds exactly the pairs the
qrels file named; every other pair is a hole for ``rankeval-tui judge``.

Keeping judging human-sized: ``sample_queries`` (with a seed) draws the queries of the split,
``pool_depth`` keeps only the documents in some run's top D for those queries plus every
document with an imported label. Recall@k's denominator is then the relevant documents *within
this protocol's corpus*; the provenance says how the corpus was chosen.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rankeval_tui import __version__
from rankeval_tui.core.errors import ContractError, describe_id, quote
from rankeval_tui.core.evaluation.evaluate import Run, first_duplicate
from rankeval_tui.core.evaluation.protocol import LabelScale, ProtocolDefinition, Query, TieOrder, check_k
from rankeval_tui.core.files.atomic import atomic_write_bytes, atomic_write_text
from rankeval_tui.core.files.importers import (
    ImportedCorpus,
    ImportedLabels,
    read_corpus,
    read_labels,
    read_queries,
    skipped_notices,
)
from rankeval_tui.core.files.init_staging import clean_stale_staging, write_staged
from rankeval_tui.core.files.protocol_files import (
    PROTOCOL_FILE,
    QRELS_FILE,
    RUN_SUFFIXES,
    RUNS_DIR,
    QrelsFile,
    check_id,
    definition_to_toml,
    qrels_to_toml,
)
from rankeval_tui.core.files.runs import entry_line, load_run, run_text_format
from rankeval_tui.core.files.safe_read import read_input_bytes
from rankeval_tui.core.files.tomlio import read_utf8
from rankeval_tui.core.gc_pause import paused_gc
from rankeval_tui.core.wording import counted

DEFAULT_RELEVANCE = "1 = the document directly supports what the query asks (or one of its sub-needs); 0 = it does not"
DEFAULT_GRADED_RELEVANCE = (
    "the grade says how directly the document supports what the query asks (or one of its sub-needs), "
    "in the scale's words; 0 = it does not"
)
"""A graded protocol's default rule: the binary one speaks of 1 and 0, which a scale's grades are not."""


@dataclass(frozen=True)
class InitRequest:
    """What ``rankeval-tui init`` was asked for; paths as the user gave them."""

    directory: Path
    corpus: Path | None
    """None: a pooled protocol (``pooled_init``), its pools from the labels and runs."""
    queries: Path | None
    k: int
    split: str = "test"
    name: str | None = None
    relevance: str | None = None
    """``--relevance``: the judging rule in words (default: ``DEFAULT_RELEVANCE``, or
    ``DEFAULT_GRADED_RELEVANCE`` with ``relevant_from``)."""
    qrels: Path | None = None
    threshold: int | None = None
    runs: Sequence[tuple[str | None, Path]] = ()
    sample_queries: int | None = None
    seed: int | None = None
    pool_depth: int | None = None
    relevant_values: tuple[int, ...] | None = None
    union_pool: bool = False
    """``--union-pool-depth``: ``pool_depth`` chooses an exhaustive protocol's corpus (the union of
    every query's pool, each query judged on all of it) instead of per-query pools."""
    relevant_from: int | None = None
    """``--relevant-from T``: keep the qrels' grades (a graded protocol), relevant from grade T."""
    grade_words: tuple[str, ...] | None = None
    """``--grades``: the words of grades 0, 1, ... (default ``grade 0``, ``grade 1``, ...)."""
    unlisted_as_zero: bool = False
    """``--unlisted-as-zero``: every pair the qrels do not list is 0 by the collection's declaration."""
    tie_order: TieOrder = "rank"
    """``--tie-order``: how TREC runs are ordered when scored under the protocol."""

    @property
    def relevance_rule(self) -> str:
        """The judging rule written to protocol.toml: the one given, or the scale's default."""
        if self.relevance is not None:
            return self.relevance
        return DEFAULT_RELEVANCE if self.relevant_from is None else DEFAULT_GRADED_RELEVANCE


def declared_settings(request: InitRequest, labels: ImportedLabels | None) -> dict[str, Any]:
    """The protocol settings ``init`` was asked to declare, as ``ProtocolDefinition`` keywords:
    the scale, the declaration of unlisted pairs, the tie order."""
    scale = None
    if request.relevant_from is not None:
        graded = labels.labels if labels else {}
        scale = declared_scale(request.relevant_from, request.grade_words, graded, file=request.qrels)
    return {"scale": scale, "unlisted_as_zero": request.unlisted_as_zero, "tie_order": request.tie_order}


def declared_scale(
    relevant_from: int,
    grade_words: tuple[str, ...] | None,
    labels: Mapping[str, Mapping[str, int]],
    *,
    file: Path | None,
) -> LabelScale:
    """``--relevant-from`` and ``--grades`` as a scale: its top grade is the highest of the words
    given and the labels held (default words ``grade 0``, ``grade 1``, ...)."""
    highest = max((max(row.values(), default=0) for row in labels.values()), default=0)
    if grade_words is None:
        grade_words = tuple(f"grade {grade}" for grade in range(max(highest, relevant_from, 1) + 1))
    elif highest > len(grade_words) - 1:
        raise ContractError(
            f"--grades names {len(grade_words)} grades (0 to {len(grade_words) - 1}) but the qrels hold grade {highest}",
            file=file,
        )
    return LabelScale(grade_words, relevant_from)


@dataclass
class PlannedProtocol:
    """A validated protocol directory in memory: what ``write_protocol`` puts on disk."""

    directory: Path
    definition: ProtocolDefinition
    qrels: QrelsFile | None
    run_files: dict[str, bytes]
    """File name in runs/ -> content (a copy of the user's bytes, or a cut JSON run)."""
    notices: list[str] = field(default_factory=list)
    gapped_runs: list[str] = field(default_factory=list)
    """Run files in runs/ with top-k pairs outside the pools (a pooled protocol from labels alone):
    ``score`` refuses them until ``grow --gap`` adds those pairs as holes."""
    warnings: list[str] = field(default_factory=list)
    """What the user should check before trusting the scores (a run's query IDs that miss the qrels')."""

    @property
    def label_count(self) -> int:
        return 0 if self.qrels is None else sum(map(len, self.qrels.labels.values()))

    @property
    def hole_count(self) -> int:
        """Pairs to judge: none under a declaration of unlisted pairs (they are 0 by it)."""
        return 0 if self.definition.unlisted_as_zero else self.definition.pair_count - self.label_count


def check_target(directory: Path) -> None:
    clean_stale_staging(directory.absolute())  # what a killed init of this target left
    if (directory / PROTOCOL_FILE).exists():
        raise ContractError("a protocol already exists here; init never overwrites one", file=directory / PROTOCOL_FILE)
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise ContractError("exists and is not an empty directory; init writes a new directory", file=directory)
    if not directory.absolute().parent.is_dir():
        raise ContractError("parent directory does not exist", file=directory)


def check_declared_options(request: InitRequest) -> None:
    """``--relevant-from``, ``--grades`` and ``--unlisted-as-zero`` given as they can be used."""
    if request.relevant_from is not None and (request.threshold is not None or request.relevant_values is not None):
        raise ContractError(
            "--relevant-from keeps the grades, --threshold and --relevant-values binarize them: give one"
        )
    if request.grade_words is not None and request.relevant_from is None:
        raise ContractError("--grades needs --relevant-from T (the lowest grade the binary measures count relevant)")
    if request.relevant_from is not None and request.relevant_from < 1:
        raise ContractError(f"--relevant-from must be a grade >= 1, got {request.relevant_from}")
    if request.unlisted_as_zero and request.qrels is None:
        raise ContractError("--unlisted-as-zero needs --qrels: it declares what the qrels do not list")


def check_options(request: InitRequest) -> None:
    check_k(request.k)
    if request.threshold is not None and request.qrels is None:
        raise ContractError("--threshold needs --qrels (it maps graded labels to 0/1)")
    if request.relevant_values is not None and request.qrels is None:
        raise ContractError("--relevant-values needs --qrels (it maps labels to 0/1)")
    if request.relevant_values is not None and request.threshold is not None:
        raise ContractError("--threshold and --relevant-values are two rules for one thing: give one")
    check_declared_options(request)
    if request.corpus is None and request.qrels is None and request.pool_depth is None:
        raise ContractError(
            "without --corpus the protocol is pooled: its pools come from --qrels (the documents judged "
            "per query) or --run with --pool-depth D (the runs' top D per query)"
        )
    if request.corpus is not None and request.queries is None:
        raise ContractError("--corpus needs --queries (without both, init makes a pooled protocol from --qrels)")
    if request.sample_queries is not None:
        if request.sample_queries < 1:
            raise ContractError(f"--sample-queries must be >= 1, got {request.sample_queries}")
        if request.seed is None:
            raise ContractError("--sample-queries needs --seed S (recorded, so the same sample can be drawn again)")
    elif request.seed is not None:
        raise ContractError("--seed is used with --sample-queries only")
    if request.pool_depth is not None:
        option = "--union-pool-depth" if request.union_pool else "--pool-depth"
        if not request.runs:
            raise ContractError(f"{option} needs at least one --run (the pool is the runs' top D)")
        if request.pool_depth < request.k:
            raise ContractError(
                f"{option} {request.pool_depth} is below k {request.k}: the top k of every run must be in the pool"
            )


def tie_order_proposals(request: InitRequest, runs: Sequence[Run]) -> list[str]:
    """trec_eval orders a TREC run by score, whatever its rank column says: where a run's rank
    column orders some queries otherwise and the request keeps rank order, say so, and how to
    record trec_eval's order in the protocol."""
    if request.tie_order == "score":
        return []
    return [
        f"run {quote(run.name)}: {counted(len(run.score_order), 'query')} ordered otherwise by trec_eval "
        "(by score, ties by document ID); init --tie-order score records trec_eval's order in the protocol"
        for run in runs
        if run.score_order
    ]


def load_runs(request: InitRequest, queries: dict[str, Any] | None, corpus: dict[str, str] | None) -> list[Run]:
    """The given runs, each checked against the imported queries and corpus (line named; None:
    a pooled protocol without that file, whose runs define them)."""
    runs: list[Run] = []
    for name, path in request.runs:
        run = load_run(path, name)
        check_id("run name", run.name, file=path)
        if "/" in run.name or run.name.startswith("."):
            raise ContractError(
                f"run name {quote(run.name)} cannot be a file name in runs/; name it NAME=PATH", file=path
            )
        if any(r.name == run.name for r in runs):
            raise ContractError(f"two runs are named {quote(run.name)}; name them with NAME=PATH", file=path)
        for query, ranking in run.rankings.items():
            if len(set(ranking)) != len(ranking):  # score would refuse the copied run: say it now
                repeated = first_duplicate(ranking)
                raise ContractError(
                    "duplicate document ID; deduplicate upstream explicitly",
                    file=path,
                    where=located(path, query, repeated),
                )
            if queries is not None and query not in queries:
                raise ContractError(
                    f"unknown query {quote(query)}: not in the queries file {request.queries}",
                    file=path,
                    where=located(path, query, ranking[0] if ranking else None),
                )
            for doc in ranking:
                if corpus is not None and doc not in corpus:
                    raise ContractError(
                        f"unknown document {quote(doc)}: not in the corpus {request.corpus}",
                        file=path,
                        where=located(path, query, doc),
                    )
        runs.append(run)
    return runs


def located(path: Path, query: str, doc: str | None) -> str:
    line = None if doc is None else entry_line(path, query, doc)
    where = describe_id("query", query) + ("" if doc is None else f", {describe_id('document', doc)}")
    return f"line {line}: {where}" if line is not None else where


@paused_gc()
def plan_protocol(request: InitRequest) -> PlannedProtocol:
    """Read, validate, sample and pool everything; raise ``ContractError`` before any write.

    The cyclic collector is paused (``core.gc_pause``): a corpus is hundreds of thousands of
    records, none in a reference cycle, and the collector walked them all again each time they
    grew by a quarter (``benchmarks/bench_init_floor.py`` measures ``init``)."""
    directory = Path(request.directory)
    check_target(directory)
    check_options(request)
    if request.corpus is None or request.queries is None:
        raise ContractError("an exhaustive protocol needs --corpus and --queries (pooled_init plans the other kind)")
    corpus = read_corpus(request.corpus)
    imported = read_queries(request.queries, request.split)
    runs = load_runs(request, imported.queries, corpus.documents)
    labels = (
        None
        if request.qrels is None
        else read_labels(
            request.qrels,
            imported.queries,
            corpus.documents,
            request.threshold,
            request.relevant_values,
            request.relevant_from is not None,
        )
    )
    notices = skipped_notices(request.corpus, corpus)
    queries = chosen_queries(request, dict(imported.queries), file=request.queries)
    kept = kept_labels(labels, queries)
    documents = (
        corpus.documents if request.pool_depth is None else pooled_documents(request, corpus, runs, queries, kept)
    )
    definition = ProtocolDefinition(
        name=request.name or directory.absolute().name,
        k=request.k,
        split=request.split,
        relevance=request.relevance_rule,
        documents=documents,
        queries=queries,
        titles=dict(corpus.titles)
        if documents is corpus.documents
        else {d: t for d, t in corpus.titles.items() if d in documents},
        provenance=provenance(
            request,
            corpus.format,
            imported.format,
            imported.split_from_file,
            labels,
            runs,
            plan_sizes(corpus.documents, imported.queries, documents, queries, corpus.skipped_files),
        ),
        source=directory / PROTOCOL_FILE,
        **declared_settings(request, labels),
    )
    cut = request.sample_queries is not None or request.pool_depth is not None
    if cut and runs:
        notices.append(
            "runs were cut to the protocol's queries"
            + (f" and their top {request.pool_depth}" if request.pool_depth else "")
            + " and written as JSON (the original files are unchanged)"
        )
    files = planned_run_files(runs, queries, cut, request.pool_depth)
    notices += tie_order_proposals(request, runs)
    return PlannedProtocol(directory, definition, planned_qrels(request, labels, kept), files, notices)


def chosen_queries(request: InitRequest, queries: dict[str, Query], *, file: Path | None) -> dict[str, Query]:
    """The protocol's queries: ``queries`` (every split), or with ``--sample-queries`` the seeded
    sample of those of the request's split. ``file``: where the queries came from (None: the IDs
    of the qrels and runs), named when the split has none or too few."""
    in_split = [q for q, meta in queries.items() if meta.split == request.split]
    if not in_split:
        splits = sorted({meta.split for meta in queries.values()})
        holder = "the queries have" if file is None else "the file has"
        raise ContractError(f"no query of split {quote(request.split)} ({holder}: {', '.join(splits)})", file=file)
    if request.sample_queries is None:
        return queries
    if request.sample_queries > len(in_split):
        raise ContractError(
            f"--sample-queries {request.sample_queries} is more than the {len(in_split)} queries of split "
            f"{quote(request.split)}",
            file=file,
        )
    chosen = set(random.Random(request.seed).sample(in_split, request.sample_queries))
    return {q: meta for q, meta in queries.items() if q in chosen}


def kept_labels(labels: ImportedLabels | None, queries: dict[str, Query]) -> dict[str, dict[str, int]]:
    """The imported labels of the protocol's queries (the others are counted in the provenance)."""
    return {q: row for q, row in (labels.labels if labels else {}).items() if q in queries}


def pooled_documents(
    request: InitRequest,
    corpus: ImportedCorpus,
    runs: list[Run],
    queries: dict[str, Query],
    kept: dict[str, dict[str, int]],
) -> dict[str, str]:
    """``--union-pool-depth D``: the documents of the corpus in some run's top D for a kept query,
    or labelled for one; raise when there are none."""
    assert request.pool_depth is not None
    pool = {d for run in runs for q in queries for d in run.rankings.get(q, [])[: request.pool_depth]}
    pool.update(d for row in kept.values() for d in row)
    documents = {d: text for d, text in corpus.documents.items() if d in pool}
    if not documents:
        raise ContractError("the pool is empty: no run ranks a document for the kept queries, and none is labelled")
    return documents


def planned_qrels(
    request: InitRequest, labels: ImportedLabels | None, kept: dict[str, dict[str, int]]
) -> QrelsFile | None:
    """qrels.toml of the new protocol: the kept imported labels, or none without ``--qrels``."""
    if labels is None:
        return None
    return QrelsFile(labels=kept, provenance=qrels_provenance(request, labels, kept))


def planned_run_files(runs: list[Run], queries: dict[str, Query], cut: bool, depth: int | None) -> dict[str, bytes]:
    """runs/ of the new protocol: each run's own bytes, or when ``cut`` the run cut to the
    protocol's queries (and its top ``depth``) as JSON."""
    if cut:
        return {f"{run.name}.json": cut_run(run, queries, depth) for run in runs}
    return {run_file_name(run): raw(run) for run in runs}


def plan_sizes(
    read_documents: dict[str, str],
    read_queries: dict[str, Any],
    documents: dict[str, str],
    queries: dict[str, Any],
    skipped: Sequence[str],
) -> dict[str, int]:
    return {
        "documents_read": len(read_documents),
        "documents": len(documents),
        "queries_read": len(read_queries),
        "queries": len(queries),
        "files_skipped": len(skipped),
    }


def provenance(
    request: InitRequest,
    corpus_format: str,
    queries_format: str,
    split_from_file: bool,
    labels: ImportedLabels | None,
    runs: Sequence[Run],
    sizes: dict[str, int],
) -> dict[str, Any]:
    """``[provenance]`` of protocol.toml: where every part came from and how it was chosen.
    Never part of the protocol hash: two protocols with the same contents compare equal."""
    if request.pool_depth is None:
        selection = "every document of the corpus source"
    else:
        names = ", ".join(run.name for run in runs)
        selection = (
            f"pool: the documents in the top {request.pool_depth} of runs {names} for the protocol's queries, "
            "plus every document with an imported label; Recall@k counts relevant documents of this pool only"
        )
    corpus: dict[str, Any] = {
        "source": str(request.corpus),
        "format": corpus_format,
        "documents_read": sizes["documents_read"],
        "documents": sizes["documents"],
        "selection": selection,
    }
    if sizes["files_skipped"]:
        corpus["files_skipped"] = sizes["files_skipped"]
    if request.pool_depth is not None:
        corpus["pool_depth"] = request.pool_depth
    queries: dict[str, Any] = {
        "source": str(request.queries),
        "format": queries_format,
        "split_from": "the file" if split_from_file else "--split",
        "queries_read": sizes["queries_read"],
        "queries": sizes["queries"],
    }
    if request.sample_queries is not None:
        queries["sample_size"] = request.sample_queries
        queries["seed"] = request.seed
        queries["sample_rule"] = f"random.Random(seed).sample(queries of split {request.split!r} in file order, size)"
    data: dict[str, Any] = {
        "created_by": f"rankeval-tui {__version__} init",
        "created_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "corpus": corpus,
        "queries": queries,
    }
    if labels is not None:
        data["qrels"] = {"source": str(request.qrels), "format": labels.format, "labels_read": labels.count}
        if labels.threshold is not None:
            data["qrels"]["threshold"] = labels.threshold
    if runs:
        data["runs"] = {run.name: str(run.source) for run in runs}
    return data


def qrels_provenance(request: InitRequest, labels: ImportedLabels, kept: dict[str, dict[str, int]]) -> dict[str, Any]:
    """The keys part B's validate/judge read: ``imported_from``, ``imported_labels``, ``threshold``."""
    count = sum(map(len, kept.values()))
    data: dict[str, Any] = {"imported_from": str(request.qrels), "imported_labels": count, "format": labels.format}
    if labels.rule is not None:
        if labels.threshold is not None:
            data["threshold"] = labels.threshold
            data["threshold_rule"] = labels.rule.words()
        else:
            data["relevant_values"] = sorted(labels.rule.relevant_values or ())
            data["label_rule"] = labels.rule.words()
        data["graded_labels"] = labels.graded
        data["labels_mapped"] = labels.mapped
    if count != labels.count:
        data["labels_outside_protocol"] = labels.count - count
    return data


def run_file_name(run: Run) -> str:
    """``NAME`` plus the source's extension when it is a run extension, else the format's."""
    assert run.source is not None
    suffix = run.source.suffix
    if suffix not in RUN_SUFFIXES:
        suffix = ".tsv" if run_text_format(read_utf8(run.source)) == "msmarco" else ".trec"
    return run.name + suffix


def raw(run: Run) -> bytes:
    assert run.source is not None
    return read_input_bytes(run.source)


def cut_run(run: Run, queries: dict[str, Any], depth: int | None) -> bytes:
    rankings = {q: list(r[:depth] if depth else r) for q, r in run.rankings.items() if q in queries}
    return (json.dumps(rankings, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def write_protocol(plan: PlannedProtocol) -> None:
    """Write the planned directory so that it appears only complete (``init_staging``)."""
    target = plan.directory.absolute()
    check_target(target)

    def fill(staging: Path) -> None:
        atomic_write_text(staging / PROTOCOL_FILE, definition_to_toml(plan.definition))
        if plan.qrels is not None:
            atomic_write_text(staging / QRELS_FILE, qrels_to_toml(plan.qrels, plan.definition))
        (staging / RUNS_DIR).mkdir()
        for name, content in plan.run_files.items():
            atomic_write_bytes(staging / RUNS_DIR / name, content)

    write_staged(target, fill)
