"""TREC interop: qrels and runs in the formats trec_eval reads, and TREC qrels back to exhaustive TOML.

Teams already hold TREC files and trust trec_eval. Export lets them run ``trec_eval -c -M k`` on
the same data; import turns their qrels into this project's exhaustive 0/1 qrels, or says
exactly why it cannot (unjudged pairs, graded labels without an explicit threshold): a TREC
qrels file treats an absent pair as non-relevant, this project never does.

Formats::

    qrels   qid 0 docid rel              one line per judged pair (rel an integer)
    run     qid Q0 docid rank score tag  one line per ranked document
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rankeval_tui.core.errors import ContractError, brief, describe_id, quote
from rankeval_tui.core.evaluation.evaluate import Run, check_run
from rankeval_tui.core.evaluation.pools import pool_violation
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition, check_qrels
from rankeval_tui.core.files.protocol_files import QrelsFile, check_id
from rankeval_tui.core.files.runs import parse_integer_field

UNJUDGED_SHOWN = 5
"""How many unjudged pairs an import error names (the count is always given in full)."""


# ---------------------------------------------------------------- qrels export


def qrels_to_trec(protocol: Protocol, *, split_only: bool = False) -> str:
    """Every judged pair, zeros included, in protocol order (queries, then corpus or pool order).

    Zeros are written on purpose: they say "judged non-relevant", which is what makes the file
    exhaustive and the import an identity. ``split_only`` keeps the queries of the protocol's
    split, so ``trec_eval -c`` averages over the same queries as this project (less the ones
    without a relevant document, which trec_eval and this project treat differently).
    """
    queries = protocol.selected_queries if split_only else tuple(protocol.queries)
    documents_of = protocol.definition.documents_of  # a pooled protocol: each query's pool
    rows = protocol.qrels
    if protocol.definition.unlisted_as_zero:  # the listed pairs: TREC reads the others as 0, as declared
        lines = [
            f"{q} 0 {doc} {rows[q][doc]}" for q in queries if q in rows for doc in documents_of(q) if doc in rows[q]
        ]
    else:
        lines = [f"{query} 0 {doc} {rows[query][doc]}" for query in queries for doc in documents_of(query)]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- qrels import


def parse_trec_qrels(
    text: str,
    definition: ProtocolDefinition,
    *,
    path: str | Path | None = None,
    threshold: int | None = None,
    partial: bool = False,
) -> QrelsFile:
    """TREC qrels -> exhaustive 0/1 ``QrelsFile``, or a ``ContractError``.

    Refused: a line without 4 fields, a non-integer or negative label, an unknown query or
    document, the same pair twice, a label above 1 without ``threshold`` (then every label
    ``rel >= threshold`` becomes 1 and the rest 0, and the threshold is recorded in
    ``[provenance]``), and any pair of the protocol left unjudged (the count and the first few),
    unless ``partial``: then the pairs the file lists are all it holds, none filled in.
    """
    file = None if path is None else Path(path)
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 4:
            raise ContractError(
                f"a TREC qrels line has 4 fields 'qid iter docid rel', got {len(fields)}",
                file=file,
                where=f"line {number}",
            )
        query, _, doc, rel_text = fields
        records.append(JudgmentRecord(number, query, doc, rel_text))
    return judgments_to_qrels(records, definition, "trec", file=file, threshold=threshold, partial=partial)


@dataclass(frozen=True)
class JudgmentRecord:
    """One judged pair as a label file states it: where (line), which pair, the label as written."""

    line: int
    query: str
    document: str
    label_text: str
    reasoning: str | None = None


def judgments_to_qrels(
    records: Sequence[JudgmentRecord],
    definition: ProtocolDefinition,
    label_format: str,
    *,
    file: Path | None,
    threshold: int | None,
    partial: bool,
) -> QrelsFile:
    """The checks every imported label file passes (IDs of the protocol, no pair twice, integer
    labels, graded ones only with a threshold), then exhaustive unless ``partial``. A record's
    reasoning becomes the pair's note: beside the label, never in it. ``label_format`` is recorded."""
    if threshold is not None and (type(threshold) is not int or threshold < 1):
        raise ContractError(f"--threshold must be an integer >= 1, got {quote(threshold)}", file=file)
    labels: dict[str, dict[str, int]] = {}
    notes: dict[str, dict[str, str]] = {}
    line_of: dict[tuple[str, str], int] = {}
    graded = 0
    graded_scale = definition.scale is not None and threshold is None  # the protocol's grades, kept
    known = (definition.queries, "the protocol")
    for record in records:
        query, doc = record.query, record.document
        rel = checked_judgment(
            query,
            doc,
            record.label_text,
            known,
            definition.document_ids,
            line_of,
            record.line,
            file,
            threshold,
            None,
            graded_scale,
        )
        graded += rel > 1
        labels.setdefault(query, {})[doc] = rel if threshold is None else int(rel >= threshold)
        if record.reasoning:
            notes.setdefault(query, {})[doc] = record.reasoning
    if definition.pools is not None and (outside := pool_violation(definition.pool_sets, labels, file=file)):
        raise outside  # the rows below are built from the pools: a label outside would be dropped
    unjudged = [(q, d) for q in definition.queries for d in definition.documents_of(q) if d not in labels.get(q, {})]
    if partial or definition.unlisted_as_zero:  # under the declaration, an unlisted pair is 0 by it
        ordered = {
            q: {d: labels[q][d] for d in definition.documents_of(q) if d in labels[q]}
            for q in definition.queries
            if q in labels
        }
        if definition.unlisted_as_zero:  # a protocol's own qrels: labels on its scale
            check_qrels(definition, ordered, file=file)
        provenance: dict[str, Any] = {"imported_from": "" if file is None else file.name, "format": label_format}
        add_threshold(provenance, threshold, graded)
        return QrelsFile(labels=ordered, notes=notes, provenance=provenance)
    if unjudged:
        shown = ", ".join(f"{brief(q)}/{brief(d)}" for q, d in unjudged[:UNJUDGED_SHOWN])
        more = ", ..." if len(unjudged) > UNJUDGED_SHOWN else ""
        raise ContractError(
            f"not exhaustive: {len(unjudged)} of {definition.pair_count} pairs unjudged "
            f"(first: {shown}{more}); TREC treats an absent pair as non-relevant, "
            "this protocol requires every pair judged",
            file=file,
        )
    ordered = {q: {d: labels[q][d] for d in definition.documents_of(q)} for q in definition.queries}
    check_qrels(definition, ordered, file=file)
    provenance = {"imported_from": "" if file is None else file.name, "format": label_format}
    add_threshold(provenance, threshold, graded)
    return QrelsFile(labels=ordered, notes=notes, provenance=provenance)


def add_threshold(provenance: dict[str, Any], threshold: int | None, graded: int) -> None:
    """The binarizing rule, recorded beside the labels it made."""
    if threshold is not None:
        provenance["threshold"] = threshold
        provenance["threshold_rule"] = f"rel >= {threshold} -> 1, otherwise 0"
        provenance["graded_labels"] = graded


@dataclass(frozen=True)
class LabelRule:
    """How labels on another scale become 0/1, explicitly: ``rel >= threshold`` is 1, or ``rel``
    in ``relevant_values`` is 1 (scales like Cranfield's, 1 best ... 4, and -1); every other label,
    negatives included, is 0 (trec_eval reads ``rel <= 0`` as judged not relevant). Recorded in
    the provenance; without a rule only 0 and 1 are accepted."""

    threshold: int | None = None
    relevant_values: frozenset[int] | None = None

    def __post_init__(self) -> None:
        if (self.threshold is None) == (self.relevant_values is None):
            raise ContractError("a label rule is --threshold T or --relevant-values V,V,...: exactly one")
        if self.threshold is not None and (type(self.threshold) is not int or self.threshold < 1):
            raise ContractError(f"--threshold must be an integer >= 1, got {quote(self.threshold)}")
        if self.relevant_values is not None and not self.relevant_values:
            raise ContractError("--relevant-values needs at least one value")

    def binary(self, rel: int) -> int:
        if self.threshold is not None:
            return int(rel >= self.threshold)
        assert self.relevant_values is not None
        return int(rel in self.relevant_values)

    def words(self) -> str:
        """``rel >= 2 -> 1, otherwise 0 (negatives too)``: the rule as the provenance records it."""
        if self.threshold is not None:
            return f"rel >= {self.threshold} -> 1, otherwise 0"
        values = ", ".join(map(str, sorted(self.relevant_values or ())))
        return f"rel in {{{values}}} -> 1, otherwise 0"


def checked_judgment(
    query: str,
    doc: str,
    rel_text: str,
    queries: tuple[Collection[str], str] | None,
    documents: Collection[str] | None,
    line_of: dict[tuple[str, str], int],
    number: int,
    file: Path | None,
    threshold: int | None,
    rule: LabelRule | None = None,
    graded: bool = False,
) -> int:
    """The relevance of one qrels line (``queries``: the known IDs and where they come from; None,
    like ``documents`` None, when the qrels file is what defines them), its line recorded in
    ``line_of``: IDs known, the pair not judged before, an integer >= 0 and above 1 only with a
    ``threshold`` to map it, any integer >= 0 when ``graded`` (grades kept: ``--relevant-from``),
    or any integer with a ``rule`` (the caller maps)."""
    where = f"line {number}"
    check_id("query", query, file=file, where=where)
    check_id("document", doc, file=file, where=where)
    if queries is not None:
        known_queries, queries_from = queries
        if query not in known_queries:
            raise ContractError(f"unknown query {quote(query)}: not in {queries_from}", file=file, where=where)
    if documents is not None and doc not in documents:
        raise ContractError(f"unknown document {quote(doc)}: not in the corpus", file=file, where=where)
    rel = parse_integer_field("relevance", rel_text, file=file, where=where)
    if rel < 0 and rule is None:
        raise ContractError(
            f"negative relevance {rel} is not a judgment; remove the line or judge the pair "
            "(init: --threshold 1 reads it as trec_eval does, judged not relevant)",
            file=file,
            where=where,
        )
    if (query, doc) in line_of:
        raise ContractError(
            f"pair judged twice: {describe_id('query', query)}, {describe_id('document', doc)} "
            f"already at line {line_of[query, doc]}",
            file=file,
            where=where,
        )
    line_of[query, doc] = number
    if rel > 1 and threshold is None and rule is None and not graded:
        raise ContractError(
            f"graded label {rel}: binary labels required; pass --threshold T to map rel >= T to 1 "
            "and the rest to 0 explicitly, or --relevant-from T to keep the grades",
            file=file,
            where=where,
        )
    return rel


# ---------------------------------------------------------------- run export


def run_to_trec(protocol: Protocol, run: Run, *, tag: str | None = None) -> tuple[str, list[str]]:
    """A validated run as TREC lines, and warnings about what TREC cannot express.

    The score is ``len(ranking) - rank + 1``: distinct and decreasing, so trec_eval's order
    (score descending) is exactly the rank order this project scores. Queries with an empty
    ranking have no line: TREC reads them as missing, which scores 0 either way but shows as
    "missing" when the file is read back.
    """
    check_run(protocol.definition, run)
    tag = tag if tag is not None else run.name
    check_id("run tag", tag, file=run.source)
    lines: list[str] = []
    warnings: list[str] = []
    for query in protocol.selected_queries:
        if query not in run.rankings:
            continue
        ranking = run.rankings[query]
        if not ranking:
            warnings.append(
                f"{describe_id('query', query)} has an empty ranking: TREC has no line for it, "
                "so it reads back as missing (scored 0 either way)"
            )
        depth = len(ranking)
        lines += [f"{query} Q0 {doc} {rank} {depth - rank + 1} {tag}" for rank, doc in enumerate(ranking, 1)]
    if not lines:
        raise ContractError(
            "run ranks no document: a TREC run without lines cannot be read back; keep it as JSON", file=run.source
        )
    return "\n".join(lines) + "\n", warnings
