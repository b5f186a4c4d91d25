"""A team on one protocol: which annotator judges which queries, and each one's labels file.

Why queries, not pairs: an annotator who reads a query's need once judges its documents faster
and more consistently than one who meets it again later, so a query is never split.

Why balanced by pairs: queries differ in size (pools), and an annotator's work is the pairs.
The greedy rule (largest query first, to whoever has the fewest pairs so far) is deterministic
given the seed, which only orders queries of equal size and picks the overlap.

Why an overlap: the queries judged by two annotators are where ``agree`` measures agreement;
``merge`` later refuses their pairs if the two labels differ (adjudicate them first).

The assignment is ``assignments.toml`` in the protocol directory, written atomically with the
seed and overlap that made it; each annotator writes ``labels/NAME.toml`` (partial until the
whole protocol is merged) beside its journal and lock.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rankeval_tui.core.annotation.journal import journal_exists, journal_of
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.annotation.labels_file import FollowingWriter, LabelsSnapshot
from rankeval_tui.core.errors import ContractError, describe_os_error, quote
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.files import QrelsFile, read_qrels_file
from rankeval_tui.core.files.annotator_kind import annotator_words
from rankeval_tui.core.files.atomic import atomic_write_text
from rankeval_tui.core.files.ids import check_id
from rankeval_tui.core.files.protocol_files import qrels_to_toml
from rankeval_tui.core.files.safe_read import entry_exists, read_input_bytes
from rankeval_tui.core.files.tomlio import dump_toml, parse_toml, utf8_text

ASSIGNMENTS_FILE = "assignments.toml"
LABELS_DIRECTORY = "labels"
TOOL = "rankeval-tui assign"


@dataclass(frozen=True)
class Assignment:
    """Each annotator's queries (protocol order), and how they were drawn."""

    seed: int
    overlap: float
    queries: Mapping[str, tuple[str, ...]]
    """Annotator name -> the queries they judge, in protocol order (annotators in the order given)."""
    overlap_queries: tuple[str, ...]
    """The queries two annotators judge (protocol order)."""

    @property
    def annotators(self) -> tuple[str, ...]:
        return tuple(self.queries)

    def queries_of(self, annotator: str, file: Path) -> tuple[str, ...]:
        if annotator not in self.queries:
            raise ContractError(
                f"annotator {quote(annotator)} has no assignment (assigned: {', '.join(self.annotators)})", file=file
            )
        if not self.queries[annotator]:
            raise ContractError(f"annotator {quote(annotator)} has no queries in this assignment", file=file)
        return self.queries[annotator]

    def to_toml(self, definition: ProtocolDefinition) -> str:
        data: dict[str, Any] = {
            "assignment": {
                "tool": TOOL,
                "protocol": definition.name,
                "seed": self.seed,
                "overlap": self.overlap,
                "annotators": list(self.annotators),
                "overlap_queries": list(self.overlap_queries),
            },
            "annotators": {
                name: {"pairs": pair_total(definition, queries), "queries": list(queries)}
                for name, queries in self.queries.items()
            },
        }
        return dump_toml(data)


def check_annotator_name(name: object, *, file: Path | None = None) -> str:
    """An annotator name is an ID (one line, no whitespace or control characters) that is also a
    plain file name: it names ``labels/NAME.toml``, which must stay inside the protocol."""
    check_id("annotator", name, file=file)
    assert isinstance(name, str)
    if "/" in name or "\\" in name or name.startswith("."):
        raise ContractError(
            f"annotator name {quote(name)} must be a plain file name (no '/', '\\', no leading '.')", file=file
        )
    return name


def parse_annotators(text: str) -> list[str]:
    """``alice,bob,carol`` -> the names, each checked, none twice."""
    names = [check_annotator_name(name) for name in text.split(",")]
    for name in names:
        if names.count(name) > 1:
            raise ContractError(f"annotator {quote(name)} is given twice in --annotators")
    return names


def pair_total(definition: ProtocolDefinition, queries: Sequence[str]) -> int:
    return sum(len(definition.documents_of(q)) for q in queries)


def plan_assignment(definition: ProtocolDefinition, annotators: Sequence[str], overlap: float, seed: int) -> Assignment:
    """Every query of the protocol (every split: judging covers them all) to one annotator, and
    ``overlap`` of them (rounded, at least one when overlap > 0) to a second one as well."""
    if not annotators:
        raise ContractError("--annotators needs at least one name")
    if not 0 <= overlap <= 1 or math.isnan(overlap):
        raise ContractError(f"--overlap is a fraction of the queries, from 0 to 1, got {overlap}")
    queries = list(definition.queries)
    shared_count = max(1, round(overlap * len(queries))) if overlap > 0 else 0
    if shared_count and len(annotators) < 2:
        raise ContractError("--overlap needs at least two annotators (an overlap query is judged by two)")
    rng = random.Random(seed)
    shared = set(rng.sample(queries, shared_count))
    shuffled = rng.sample(queries, len(queries))  # the seed orders queries of equal size
    # Shared queries first (they cost two annotators), then the rest; each largest first.
    visiting = sorted(shuffled, key=lambda q: (q not in shared, -len(definition.documents_of(q))))
    load = {name: 0 for name in annotators}
    given: dict[str, set[str]] = {name: set() for name in annotators}
    for query in visiting:
        takers = sorted(annotators, key=lambda name: (load[name], annotators.index(name)))
        for name in takers[: 2 if query in shared else 1]:
            given[name].add(query)
            load[name] += len(definition.documents_of(query))
    return Assignment(
        seed=seed,
        overlap=overlap,
        queries={name: tuple(q for q in queries if q in given[name]) for name in annotators},
        overlap_queries=tuple(q for q in queries if q in shared),
    )


def assignment_path(protocol_dir: Path) -> Path:
    return protocol_dir / ASSIGNMENTS_FILE


def labels_path(protocol_dir: Path, annotator: str) -> Path:
    return protocol_dir / LABELS_DIRECTORY / f"{annotator}.toml"


def read_assignment(protocol_dir: Path, definition: ProtocolDefinition) -> Assignment | None:
    """``assignments.toml`` checked against the protocol; None when there is none."""
    path = assignment_path(protocol_dir)
    if not entry_exists(path, "assignment file"):
        return None
    data = parse_toml(utf8_text(read_input_bytes(path, link="assignment file"), path), path)
    head = data.get("assignment")
    table = data.get("annotators")
    if not isinstance(head, dict) or not isinstance(table, dict):
        raise ContractError("needs an [assignment] table and [annotators.NAME] tables", file=path)
    seed, overlap = head.get("seed"), head.get("overlap")
    if type(seed) is not int or not isinstance(overlap, (int, float)) or isinstance(overlap, bool):
        raise ContractError("[assignment] needs an integer seed and a number overlap", file=path)
    queries: dict[str, tuple[str, ...]] = {}
    for name, row in table.items():
        check_annotator_name(name, file=path)
        listed = row.get("queries") if isinstance(row, dict) else None
        if not isinstance(listed, list) or not all(isinstance(q, str) for q in listed):
            raise ContractError(f"annotators.{name}.queries must be a list of query IDs", file=path)
        unknown = [q for q in listed if q not in definition.queries]
        if unknown:
            raise ContractError(f"annotator {quote(name)}: unknown query {quote(unknown[0])}", file=path)
        queries[name] = tuple(q for q in definition.queries if q in listed)
    shared = head.get("overlap_queries", [])
    if not isinstance(shared, list) or any(q not in definition.queries for q in shared):
        raise ContractError("[assignment] overlap_queries must list query IDs of the protocol", file=path)
    return Assignment(seed, float(overlap), queries, tuple(q for q in definition.queries if q in shared))


def write_assignment(protocol_dir: Path, definition: ProtocolDefinition, assignment: Assignment) -> None:
    atomic_write_text(assignment_path(protocol_dir), assignment.to_toml(definition))


def write_partial_labels(path: Path, qrels: QrelsFile, definition: ProtocolDefinition, annotator: str) -> None:
    """An annotator's labels so far, written atomically: a partial qrels file (``merge`` and
    ``agree`` read it), marked ``partial = true`` with its annotator in its provenance."""
    provenance = {**qrels.provenance, "partial": True, "annotator": annotator}
    atomic_write_text(path, qrels_to_toml(replace(qrels, provenance=provenance), definition))


def labels_taken_away(
    protocol_dir: Path, definition: ProtocolDefinition, old: Assignment, new: Assignment
) -> str | None:
    """Why replacing ``old`` by ``new`` would strand labels, or None. A labels file keeps its
    labels whatever the assignment says, but an annotator whose labels (file or open journal)
    cover a query the new assignment takes from them could no longer open their file; and an
    open journal is bound to its annotator's exact query set."""
    for name, queries in old.queries.items():
        kept = new.queries.get(name, ())
        path = labels_path(protocol_dir, name)
        journal = journal_of(path)
        if journal_exists(journal) and set(kept) != set(queries):
            return f"{journal}: {name}'s judging is in progress on the current queries; finish it first"
        if entry_exists(path, "labels file"):
            labelled = read_qrels_file(path, definition, exhaustive=False).labels
            lost = [q for q in definition.queries if labelled.get(q) and q not in kept]
            if lost:
                return f"{path}: {name} has labels for {quote(lost[0])}, which the new assignment gives to others"
    return None


class AnnotatorSession(JudgingSession):
    """One assigned annotator's judging: the session over their queries only, writing their
    labels file. The file is partial for the protocol (``merge`` completes it), so it says so.
    It follows the judging: after each recorded change (``follow``) a thread rewrites it whole
    (``labels_file``), so it holds her labels so far while the journal resumes the session."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.snapshots_taken = 0
        self.labels_writer = FollowingWriter(self._write_labels)

    def provenance(self) -> dict[str, Any]:
        return {**super().provenance(), "partial": True}

    def snapshot(self) -> LabelsSnapshot:
        self.snapshots_taken += 1
        return LabelsSnapshot(**vars(super().snapshot()), taken=self.snapshots_taken)

    def follow(self) -> str | None:
        """Have the labels file rewritten with the state now (in the writer's thread): called
        after a change is recorded, off the key's path. Before anything is judged there is no
        file to write. Returns why the previous write failed, if it did."""
        failed = self.labels_writer.failure
        if self.marks.judged or self.qrels_path.exists():
            self.labels_writer.submit(self.snapshot())
        if failed is None:
            return None
        reason = failed.one_line() if isinstance(failed, ContractError) else describe_os_error(failed)
        return f"{self.qrels_path} NOT updated: {reason}; every label is safe in {self.journal_path}"

    def _write_labels(self, snapshot: QrelsFile) -> None:
        write_partial_labels(self.qrels_path, snapshot, self.definition, self.annotator)

    def write_qrels(self, snapshot: QrelsFile | None = None) -> None:
        """Every assigned pair judged: the file written through the same ordered writer, so a
        follow write taken earlier never lands after it."""
        if not self.marks.complete and snapshot is None:
            super().write_qrels()  # refuses, saying how many pairs are left
        taken = snapshot if isinstance(snapshot, LabelsSnapshot) else self.snapshot()
        self.labels_writer.write(taken)
        self.written = True

    def _finish(self) -> str:
        self.labels_writer.close()  # the thread's last write lands before the final one
        if self.marks.complete:
            return super()._finish()
        judged = self.marks.total - self.marks.remaining
        if judged or self.qrels_path.exists():
            self.labels_writer.write(self.snapshot())
        return (
            f"{annotator_words(self.annotator)}: {judged} of {self.marks.total} assigned pairs judged"
            + (f", written to {self.qrels_path} (partial)" if judged else "")
            + f"; progress is kept in {self.journal_path}; run judge again to continue"
        )

    def close(self) -> None:
        """Stop the writer's thread before the lock goes: no write after it is released."""
        self.labels_writer.close()
        super().close()
