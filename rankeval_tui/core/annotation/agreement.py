"""Agreement between two annotators of one protocol: Cohen's kappa for binary labels.

Why exact: kappa is a ratio of small integer counts, so it is a ``Fraction`` here and "p/q" at
the JSON edge, with a decimal only beside it for reading; two machines can never disagree on it.

Why kappa can be ``None``: when the expected chance agreement is 1 (both annotators gave one
and the same label to every pair), kappa is 0/0. That is not 0 and not 1, so it is reported as
undefined with the reason, never filled in. Per query this is common (a query where both
annotators marked every document 0), which is exactly what a reviewer needs to see.

Both files are read against the same ``ProtocolDefinition`` (so the corpus and queries are the
same by construction) and must judge the same pairs: a coverage difference is a ContractError
that names the pairs, before any number is computed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from rankeval_tui.core.annotation.binding import check_same_criterion
from rankeval_tui.core.annotation.pace import Pace
from rankeval_tui.core.errors import ContractError, describe_id
from rankeval_tui.core.evaluation.evaluate import fraction_text
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition, check_qrels
from rankeval_tui.core.files import QrelsFile, read_qrels_file

Pair = tuple[str, str]
"""(query ID, document ID)."""

UNDEFINED_REASON = (
    "expected chance agreement is 1: both annotators gave the single label {label} to all {n} pairs, so kappa is 0/0"
)


# ---------------------------------------------------------------- pairs


def iter_pairs(definition: ProtocolDefinition) -> Iterator[Pair]:
    """Every (query, document) pair in protocol order: queries, then corpus (or pool) order."""
    for query in definition.queries:
        for doc in definition.documents_of(query):
            yield query, doc


def describe_pairs(pairs: Iterable[Pair], definition: ProtocolDefinition) -> str:
    """Pairs named in full but compactly, grouped by query: ``query 'q1': d3, d4; query 'q2':
    all 6 documents``. Why grouped: a shard that misses whole queries would otherwise be
    thousands of pairs long, while the grouping loses nothing."""
    by_query: dict[str, list[str]] = {}
    for query, doc in pairs:
        by_query.setdefault(query, []).append(doc)
    parts = []
    for query, docs in by_query.items():
        if len(docs) == len(definition.documents_of(query)) and len(docs) > 1:
            parts.append(f"{describe_id('query', query)}: all {len(docs)} documents")
        else:
            parts.append(f"{describe_id('query', query)}: " + ", ".join(repr(d) for d in docs))
    return "; ".join(parts)


def judged(qrels: QrelsFile, pair: Pair) -> bool:
    query, doc = pair
    return doc in qrels.labels.get(query, {})


# ---------------------------------------------------------------- kappa


@dataclass(frozen=True)
class Confusion:
    """Counts of label pairs (annotator A's label, annotator B's label)."""

    a1_b1: int = 0
    a1_b0: int = 0
    a0_b1: int = 0
    a0_b0: int = 0

    @classmethod
    def of(cls, labels: Iterable[tuple[int, int]]) -> Confusion:
        counts = {(1, 1): 0, (1, 0): 0, (0, 1): 0, (0, 0): 0}
        for pair in labels:
            counts[pair] += 1
        return cls(counts[1, 1], counts[1, 0], counts[0, 1], counts[0, 0])

    @property
    def pairs(self) -> int:
        return self.a1_b1 + self.a1_b0 + self.a0_b1 + self.a0_b0

    @property
    def agreements(self) -> int:
        return self.a1_b1 + self.a0_b0

    @property
    def observed_agreement(self) -> Fraction | None:
        """p_o: the share of pairs both annotators labeled the same; None for no pairs."""
        return Fraction(self.agreements, self.pairs) if self.pairs else None

    @property
    def expected_agreement(self) -> Fraction | None:
        """p_e: the agreement two annotators with these label rates would reach by chance."""
        n = self.pairs
        if not n:
            return None
        a1, b1 = self.a1_b1 + self.a1_b0, self.a1_b1 + self.a0_b1
        return Fraction(a1 * b1 + (n - a1) * (n - b1), n * n)

    @property
    def kappa(self) -> Fraction | None:
        """Cohen's kappa (p_o - p_e) / (1 - p_e); None where p_e = 1 (see ``undefined_reason``)."""
        po, pe = self.observed_agreement, self.expected_agreement
        if po is None or pe is None or pe == 1:  # pe == 1 exactly when uniform_label is set
            return None
        return (po - pe) / (1 - pe)

    @property
    def uniform_label(self) -> int | None:
        """The one label both annotators gave to every pair, if that is what happened (p_e = 1)."""
        if self.pairs and self.a1_b1 == self.pairs:
            return 1
        if self.pairs and self.a0_b0 == self.pairs:
            return 0
        return None

    @property
    def undefined_reason(self) -> str | None:
        if not self.pairs:
            return "no pairs"
        if self.uniform_label is not None:
            return UNDEFINED_REASON.format(label=self.uniform_label, n=self.pairs)
        return None

    def to_json(self) -> dict[str, int]:
        return {"a1_b1": self.a1_b1, "a1_b0": self.a1_b0, "a0_b1": self.a0_b1, "a0_b0": self.a0_b0}


def decimal(value: Fraction | None) -> float | None:
    """The decimal shown beside an exact value, for reading only."""
    return None if value is None else float(value)


def kappa_json(confusion: Confusion) -> dict[str, Any]:
    """The kappa block shared by the overall and the per-query JSON."""
    return {
        "pairs": confusion.pairs,
        "agreements": confusion.agreements,
        "observed_agreement": fraction_text(confusion.observed_agreement),
        "observed_agreement_decimal": decimal(confusion.observed_agreement),
        "expected_agreement": fraction_text(confusion.expected_agreement),
        "kappa": fraction_text(confusion.kappa),
        "kappa_decimal": decimal(confusion.kappa),
        "kappa_undefined_reason": confusion.undefined_reason,
        "confusion": confusion.to_json(),
    }


# ---------------------------------------------------------------- agreement of two files


@dataclass(frozen=True)
class Disagreement:
    """One pair the two annotators labeled differently, with what each wrote beside it."""

    query: str
    document: str
    labels: tuple[int, int]
    notes: tuple[str | None, str | None]

    def to_json(self) -> dict[str, Any]:
        return {"query": self.query, "document": self.document, "labels": list(self.labels), "notes": list(self.notes)}


@dataclass(frozen=True)
class Agreement:
    """Two annotators' labels compared pair by pair, overall and per query."""

    annotators: tuple[str, str]
    overall: Confusion
    per_query: Mapping[str, Confusion]
    disagreements: tuple[Disagreement, ...]
    sources: tuple[str | None, str | None] = (None, None)
    paces: tuple[Pace | None, Pace | None] = (None, None)
    """Each annotator's pace as their judged qrels record it (``[provenance.pace]``), if they do."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"annotators": list(self.annotators), "files": list(self.sources)}
        data["pace"] = [None if p is None else p.as_provenance() for p in self.paces]
        data.update(kappa_json(self.overall))
        data["disagreements"] = [d.to_json() for d in self.disagreements]
        data["per_query"] = {q: kappa_json(c) for q, c in self.per_query.items()}
        return data


def annotator_name(qrels: QrelsFile, fallback: str) -> str:
    """``[provenance] annotators = ["alice"]`` (one name) or ``annotator = "alice"``; else the
    fallback (the file name), so the output always says whose labels are whose."""
    provenance = qrels.provenance
    single = provenance.get("annotator")
    if isinstance(single, str) and single:
        return single
    names = provenance.get("annotators")
    if isinstance(names, list) and names and all(isinstance(n, str) for n in names):
        return ", ".join(names)
    return fallback


def agreement(
    definition: ProtocolDefinition,
    a: QrelsFile,
    b: QrelsFile,
    annotators: tuple[str, str] = ("A", "B"),
    sources: tuple[str | None, str | None] = (None, None),
) -> Agreement:
    """Compare two exhaustive qrels of ``definition``; every query of every split counts,
    because labels are a property of the pair, not of the split being scored."""
    check_same_coverage(definition, [(sources[0] or annotators[0], a), (sources[1] or annotators[1], b)])
    for source, qrels in ((sources[0], a), (sources[1], b)):
        check_qrels(definition, qrels.labels, file=source)
    per_query: dict[str, Confusion] = {}
    disagreements: list[Disagreement] = []
    for query in definition.queries:
        row_a, row_b = a.labels.get(query, {}), b.labels.get(query, {})  # pooled: an empty pool has no row
        documents = definition.documents_of(query)
        pairs = [(row_a[doc], row_b[doc]) for doc in documents]
        per_query[query] = Confusion.of(pairs)
        for doc in documents:
            if row_a[doc] != row_b[doc]:
                notes = (a.notes.get(query, {}).get(doc), b.notes.get(query, {}).get(doc))
                disagreements.append(Disagreement(query, doc, (row_a[doc], row_b[doc]), notes))
    overall = Confusion(*(sum(getattr(c, f) for c in per_query.values()) for f in ("a1_b1", "a1_b0", "a0_b1", "a0_b0")))
    return Agreement(annotators, overall, per_query, tuple(disagreements), sources)


def check_same_coverage(definition: ProtocolDefinition, files: Sequence[tuple[str, QrelsFile]]) -> None:
    """Every pair judged in all files: else one error naming the pairs judged only in some
    files and the pairs judged in none, so the annotators know exactly what to finish."""
    partial: dict[str, list[Pair]] = {}
    nowhere: list[Pair] = []
    for pair in iter_pairs(definition):
        covered = [name for name, qrels in files if judged(qrels, pair)]
        if not covered:
            nowhere.append(pair)
        elif len(covered) < len(files):
            partial.setdefault(", ".join(covered), []).append(pair)
    if not partial and not nowhere:
        return
    parts = []
    count = len(nowhere) + sum(len(p) for p in partial.values())
    for names, pairs in partial.items():
        parts.append(f"judged only in {names}: {describe_pairs(pairs, definition)}")
    if nowhere:
        parts.append(f"judged in none: {describe_pairs(nowhere, definition)}")
    raise ContractError(
        f"the files differ in coverage ({count} pairs): both must be exhaustive for the "
        "same protocol; " + " | ".join(parts)
    )


def read_pair(
    definition: ProtocolDefinition, path_a: str | Path, path_b: str | Path, *, shared_only: bool = False
) -> tuple[QrelsFile, QrelsFile]:
    """Read two annotators' files against one definition, coverage checked together (so the
    error names the differing pairs instead of the first gap of the first file). ``shared_only``:
    only the queries both label count (``shared_queries`` gives that definition)."""
    if Path(path_a).exists() and Path(path_a).resolve() == Path(path_b).resolve():
        raise ContractError("the same file is given for both annotators", file=path_a)
    a = read_qrels_file(path_a, definition, exhaustive=False)
    b = read_qrels_file(path_b, definition, exhaustive=False)
    for path, qrels in ((path_a, a), (path_b, b)):  # agreement between two criteria means nothing
        check_same_criterion(qrels.provenance, definition, Path(path))
    scope = definition
    if shared_only:
        scope = shared_queries(definition, a, b)
        both = scope.queries
        a, b = (
            replace(
                qrels, **{name: {q: row for q, row in getattr(qrels, name).items() if q in both} for name in TABLES}
            )
            for qrels in (a, b)
        )
    check_same_coverage(scope, [(str(path_a), a), (str(path_b), b)])
    return a, b


TABLES = ("labels", "notes", "disputed")
"""The per-pair tables of a qrels file, cut to the shared queries by ``shared_only``."""


def shared_queries(definition: ProtocolDefinition, a: QrelsFile, b: QrelsFile) -> ProtocolDefinition:
    """The protocol cut to the queries both files label (an assignment's overlap: each annotator's
    labels file holds their own queries); the comparison then requires both to be complete there."""
    both = [q for q in definition.queries if a.labels.get(q) and b.labels.get(q)]
    if not both:
        raise ContractError("no query is labeled in both files: nothing to compare")
    return definition.with_queries(both)


def agreement_of_files(
    definition: ProtocolDefinition, path_a: str | Path, path_b: str | Path, *, shared_only: bool = False
) -> Agreement:
    """``agree``'s core: two qrels files of one protocol -> ``Agreement``; ``shared_only``: on the
    queries both label (``shared_queries``)."""
    a, b = read_pair(definition, path_a, path_b, shared_only=shared_only)
    if shared_only:
        definition = shared_queries(definition, a, b)
    names = (annotator_name(a, Path(path_a).stem), annotator_name(b, Path(path_b).stem))
    if names[0] == names[1]:
        names = (f"{names[0]} ({Path(path_a).name})", f"{names[1]} ({Path(path_b).name})")
    paces = (Pace.from_provenance(a.provenance.get("pace")), Pace.from_provenance(b.provenance.get("pace")))
    return replace(agreement(definition, a, b, names, (str(path_a), str(path_b))), paces=paces)
