"""Agreement between two annotators of one protocol: Cohen's kappa for binary labels.

Why exact: kappa is a ratio of small integer counts, so it is a ``Fraction`` here and "p/q" at
the JSON edge, with a decimal only beside it for reading; two machines can never disagree on it.

Why kappa can be ``None``: when the expected chance agreement is 1 (both annotators gave one
and the same label to every pair), kappa is 0/0. That is not 0 and not 1, so it is reported as
undefined with the reason, never filled in. Per query this is common (a query where both
annotators marked every document 0), which is exactly what a reviewer needs to see.

Both files are read against the same ``ProtocolDefinition`` (so the corpus and queries are the
same by construction). Two complete files must judge the same pairs: a coverage difference is a
ContractError that names the pairs, before any number is computed. A file that says it is partial
(``[provenance] partial = true``: a model's labels, a sample) is compared on the overlap, the
pairs both judged, and the output says how many pairs that is and how many each judged alone.

On a graded scale (``grades.Scale``) binary kappa is at ``relevant_from``, and the grade-by-grade
matrix and weighted kappas stand beside it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from rankeval_tui.core.annotation.audit import audit_seed, bootstrap_intervals
from rankeval_tui.core.annotation.binding import check_same_criterion
from rankeval_tui.core.annotation.grades import BINARY, GradeCounts, Scale
from rankeval_tui.core.annotation.pace import Pace
from rankeval_tui.core.errors import ContractError, describe_id
from rankeval_tui.core.evaluation.evaluate import fraction_text
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition, check_qrels
from rankeval_tui.core.files import QrelsFile, read_qrels_file
from rankeval_tui.core.files.annotator_kind import is_model
from rankeval_tui.core.files.filling import named_annotator
from rankeval_tui.core.files.label_import import file_is_partial

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

    @classmethod
    def at_threshold(cls, grades: GradeCounts) -> Confusion:
        """Binary counts from a grade matrix: relevant is grade >= the scale's ``relevant_from``."""
        counts = {(1, 1): 0, (1, 0): 0, (0, 1): 0, (0, 0): 0}
        relevant = grades.scale.relevant
        for a, row in enumerate(grades.counts):
            for b, count in enumerate(row):
                counts[relevant(a), relevant(b)] += count
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
class Coverage:
    """Which pairs each file judged, when at least one is partial: the overlap is what is compared."""

    overlap: int
    only: tuple[int, int]
    """Pairs judged in A only, in B only (not compared)."""
    partial: tuple[bool, bool]
    protocol_pairs: int

    def to_json(self) -> dict[str, Any]:
        return {
            "overlap": self.overlap,
            "only_a": self.only[0],
            "only_b": self.only[1],
            "partial": list(self.partial),
            "protocol_pairs": self.protocol_pairs,
        }


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
    scale: Scale = BINARY
    grades: GradeCounts | None = None
    """The grade-by-grade matrix over every compared pair (None only when built by hand)."""
    per_query_grades: Mapping[str, GradeCounts] | None = None
    coverage: Coverage | None = None
    """None when both files are complete (every pair compared)."""
    bootstrap: Mapping[str, Any] | None = None
    """When one file is an audit sample: kappa's percentile bootstrap intervals (``audit.bootstrap_intervals``)."""

    @property
    def models(self) -> tuple[bool, bool]:
        return is_model(self.annotators[0]), is_model(self.annotators[1])

    @property
    def extended(self) -> bool:
        """Whether there is more to say than binary kappa on two complete files by people: a graded
        scale, a partial file, a model. Without it, the output is the one this command always gave."""
        return self.scale.graded or self.coverage is not None or any(self.models)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"annotators": list(self.annotators), "files": list(self.sources)}
        data["pace"] = [None if p is None else p.as_provenance() for p in self.paces]
        if self.extended:
            data["annotator_kinds"] = ["model" if model else "person" for model in self.models]
            data["scale"] = self.scale.to_json()
            data["coverage"] = None if self.coverage is None else self.coverage.to_json()
            data["grades"] = None if self.grades is None else self.grades.to_json()
            if self.bootstrap is not None:
                data["bootstrap"] = dict(self.bootstrap)
        data.update(kappa_json(self.overall))
        data["disagreements"] = [d.to_json() for d in self.disagreements]
        data["per_query"] = {q: kappa_json(c) for q, c in self.per_query.items()}
        if self.extended and self.per_query_grades is not None:
            for query, grades in self.per_query_grades.items():
                data["per_query"][query]["grades"] = grades.to_json()
        return data


def annotator_name(qrels: QrelsFile, fallback: str) -> str:
    """``[provenance] annotators = ["alice"]`` (one name) or ``annotator = "alice"``; else the
    fallback (the file name), so the output always says whose labels are whose."""
    return named_annotator(qrels.provenance) or fallback


def agreement(
    definition: ProtocolDefinition,
    a: QrelsFile,
    b: QrelsFile,
    annotators: tuple[str, str] = ("A", "B"),
    sources: tuple[str | None, str | None] = (None, None),
    scale: Scale = BINARY,
) -> Agreement:
    """Compare two qrels of ``definition``: every pair when both are complete (coverage checked),
    the overlap when either says it is partial. Every query of every split counts, because labels
    are a property of the pair, not of the split being scored."""
    partial = (file_is_partial(a), file_is_partial(b))
    names = (sources[0] or annotators[0], sources[1] or annotators[1])
    if not any(partial):
        check_same_coverage(definition, [(names[0], a), (names[1], b)])
        for source, qrels in ((sources[0], a), (sources[1], b)):
            if not scale.graded:  # the 0/1 check, worded as every reader of binary qrels words it
                check_qrels(definition, qrels.labels, file=source)
    for name, qrels in zip(names, (a, b), strict=True):
        check_grades(qrels, scale, name)
    per_query: dict[str, GradeCounts] = {}
    disagreements: list[Disagreement] = []
    only = [0, 0]
    for query in definition.queries:
        row_a, row_b = a.labels.get(query, {}), b.labels.get(query, {})  # pooled: an empty pool has no row
        documents = [doc for doc in definition.documents_of(query) if doc in row_a and doc in row_b]
        only[0] += len(row_a) - len(documents)
        only[1] += len(row_b) - len(documents)
        if documents or not any(partial):
            per_query[query] = GradeCounts.of(scale, ((row_a[doc], row_b[doc]) for doc in documents))
        for doc in documents:
            if row_a[doc] != row_b[doc]:
                notes = (a.notes.get(query, {}).get(doc), b.notes.get(query, {}).get(doc))
                disagreements.append(Disagreement(query, doc, (row_a[doc], row_b[doc]), notes))
    overall = GradeCounts.total(scale, per_query.values())
    coverage = None
    if any(partial):
        if not overall.pairs:
            raise ContractError(
                f"no pair is judged in both files ({names[0]}: {only[0]} pairs, {names[1]}: {only[1]} pairs): "
                "agreement needs an overlap"
            )
        coverage = Coverage(overall.pairs, (only[0], only[1]), partial, definition.pair_count)
    return Agreement(
        annotators,
        Confusion.at_threshold(overall),
        {query: Confusion.at_threshold(grades) for query, grades in per_query.items()},
        tuple(disagreements),
        sources,
        scale=scale,
        grades=overall,
        per_query_grades=per_query,
        coverage=coverage,
    )


def check_grades(qrels: QrelsFile, scale: Scale, file: str) -> None:
    """Every label an integer grade of ``scale``: else one error naming the file and the pair."""
    grades = set(scale.grades)
    for query, row in qrels.labels.items():
        for doc, label in row.items():
            if type(label) is not int or label not in grades:
                raise ContractError(
                    f"label {label!r} is not a grade of the scale 0..{scale.top}",
                    file=file,
                    where=f"{describe_id('query', query)}, {describe_id('document', doc)}",
                )


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
    definition: ProtocolDefinition, path_a: str | Path, path_b: str | Path, *, overlap: bool = False
) -> tuple[QrelsFile, QrelsFile]:
    """Read two annotators' files against one definition, coverage checked together (so the
    error names the differing pairs instead of the first gap of the first file). With ``overlap``
    (``agree``), a file that says it is partial is not checked for coverage: it is compared on the
    overlap. Adjudication keeps the check: its output is exhaustive qrels."""
    if Path(path_a).exists() and Path(path_a).resolve() == Path(path_b).resolve():
        raise ContractError("the same file is given for both annotators", file=path_a)
    a = read_qrels_file(path_a, definition, exhaustive=False)
    b = read_qrels_file(path_b, definition, exhaustive=False)
    for path, qrels in ((path_a, a), (path_b, b)):  # agreement between two criteria means nothing
        check_same_criterion(qrels.provenance, definition, Path(path))
    if not (overlap and (file_is_partial(a) or file_is_partial(b))):
        check_same_coverage(definition, [(str(path_a), a), (str(path_b), b)])
    return a, b


def agreement_of_files(
    definition: ProtocolDefinition, path_a: str | Path, path_b: str | Path, scale: Scale | None = None
) -> Agreement:
    """``agree``'s core: two qrels files of one protocol -> ``Agreement``, on the protocol's own
    scale unless ``scale`` is given."""
    scale = scale or Scale(definition.top_grade, definition.relevant_from)
    a, b = read_pair(definition, path_a, path_b, overlap=True)
    names = (annotator_name(a, Path(path_a).stem), annotator_name(b, Path(path_b).stem))
    if names[0] == names[1]:
        names = (f"{names[0]} ({Path(path_a).name})", f"{names[1]} ({Path(path_b).name})")
    paces = (Pace.from_provenance(a.provenance.get("pace")), Pace.from_provenance(b.provenance.get("pace")))
    result = replace(agreement(definition, a, b, names, (str(path_a), str(path_b)), scale), paces=paces)
    seed = audit_seed(a.provenance, b.provenance)
    if seed is None or result.grades is None:
        return result
    return replace(result, bootstrap=bootstrap_intervals(result.grades, seed))
