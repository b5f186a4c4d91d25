"""Merge qrels shards judged by different annotators into one exhaustive qrels.

Why this is strict: a merged qrels file becomes the protocol's ground truth and enters its hash.
Two shards that label one pair differently are a *conflict*: the merge lists every conflict
(both labels, both files) and writes nothing; picking either label would silently decide an
adjudication nobody made (``judge --adjudicate`` is where that decision belongs). A pair no
shard judged is *missing*: it is listed, never filled with 0. Overlapping pairs that agree are
fine (a query judged twice by accident, or a calibration query every annotator labeled).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rankeval_tui.core.annotation.agreement import Pair, describe_pairs, iter_pairs
from rankeval_tui.core.annotation.binding import check_same_criterion
from rankeval_tui.core.errors import ContractError, describe_id
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition, check_qrels
from rankeval_tui.core.files import QrelsFile, read_qrels_file
from rankeval_tui.core.wording import counted


@dataclass(frozen=True)
class Shard:
    """One annotator's (partial) qrels file and where it came from."""

    name: str
    qrels: QrelsFile


@dataclass(frozen=True)
class Conflict:
    """A pair two or more shards labeled (or adjudicated) differently: every shard's value is kept."""

    query: str
    document: str
    labels: tuple[tuple[str, Any], ...]
    """(shard, label) for every shard that judged the pair."""
    kind: str = "label"
    """"label", or "adjudication" when two shards carry different adjudication records."""

    def describe(self) -> str:
        if self.kind == "label":
            given = ", ".join(f"{label} in {name}" for name, label in self.labels)
        else:
            given = "different adjudication records in " + ", ".join(name for name, _ in self.labels)
        return f"{describe_id('query', self.query)}, {describe_id('document', self.document)}: {given}"


@dataclass(frozen=True)
class MergeResult:
    """What merging found: the merged file (labels may be partial), conflicts, missing pairs."""

    merged: QrelsFile
    conflicts: tuple[Conflict, ...]
    missing: tuple[Pair, ...]

    @property
    def ok(self) -> bool:
        return not self.conflicts and not self.missing

    def problem(self, definition: ProtocolDefinition) -> str | None:
        """Every conflict and every missing pair, on one line (the CLI's one error line)."""
        parts = []
        if self.conflicts:
            parts.append(
                f"{counted(len(self.conflicts), 'conflicting pair')} (labels differ; adjudicate them, "
                "the merge never picks one): " + "; ".join(c.describe() for c in self.conflicts)
            )
        if self.missing:
            parts.append(
                f"{counted(len(self.missing), 'pair')} judged in no shard: " + describe_pairs(self.missing, definition)
            )
        return " | ".join(parts) or None


def merge_shards(definition: ProtocolDefinition, shards: Sequence[Shard]) -> MergeResult:
    """Union the shards' labels pair by pair; collect (not raise on) conflicts and gaps, so the
    user gets the whole list at once instead of one problem per attempt."""
    labels: dict[str, dict[str, int]] = {}
    notes: dict[str, dict[str, str]] = {}
    disputed: dict[str, dict[str, bool]] = {}
    conflicts: list[Conflict] = []
    missing: list[Pair] = []
    for query, doc in iter_pairs(definition):
        given = [(s.name, s.qrels.labels[query][doc]) for s in shards if doc in s.qrels.labels.get(query, {})]
        if not given:
            missing.append((query, doc))
            continue
        if len({label for _, label in given}) > 1:
            conflicts.append(Conflict(query, doc, tuple(given)))
            continue
        labels.setdefault(query, {})[doc] = given[0][1]
        written = [(s.name, s.qrels.notes[query][doc]) for s in shards if doc in s.qrels.notes.get(query, {})]
        if written:
            distinct = list(dict.fromkeys(note for _, note in written))
            # Notes are free text: several annotators' notes are all kept, each attributed.
            notes.setdefault(query, {})[doc] = (
                distinct[0] if len(distinct) == 1 else " | ".join(f"{name}: {note}" for name, note in written)
            )
        if any(s.qrels.disputed.get(query, {}).get(doc) for s in shards):
            disputed.setdefault(query, {})[doc] = True
    adjudication = merge_adjudication(shards, conflicts)
    merged = QrelsFile(
        labels=labels,
        notes=notes,
        disputed=disputed,
        provenance=merged_provenance(definition, shards),
        adjudication=adjudication,
    )
    return MergeResult(merged, tuple(conflicts), tuple(missing))


def merge_adjudication(shards: Sequence[Shard], conflicts: list[Conflict]) -> dict[str, Any]:
    """Adjudication records of adjudicated shards survive the merge; two different records for
    one pair are a conflict like two different labels."""
    result: dict[str, dict[str, Any]] = {}
    owner: dict[Pair, str] = {}
    for shard in shards:
        for query, row in shard.qrels.adjudication.items():
            if not isinstance(row, dict):
                result[query] = row  # not a per-pair table; kept as written
                continue
            for doc, record in row.items():
                previous = result.setdefault(query, {}).get(doc)
                if previous is not None and previous != record:
                    conflicts.append(
                        Conflict(query, doc, ((owner[query, doc], previous), (shard.name, record)), kind="adjudication")
                    )
                    continue
                result[query][doc] = record
                owner[query, doc] = shard.name
    return result


def merged_provenance(definition: ProtocolDefinition, shards: Sequence[Shard]) -> dict[str, Any]:
    """Who labeled what: the union of annotators, and per shard its file, annotators, queries."""
    annotators: list[str] = []
    sources = []
    for shard in shards:
        names = shard.qrels.provenance.get("annotators")
        names = names if isinstance(names, list) else []
        single = shard.qrels.provenance.get("annotator")
        if isinstance(single, str):
            names = [*names, single]
        annotators += [n for n in names if isinstance(n, str) and n not in annotators]
        queries = [q for q in definition.queries if shard.qrels.labels.get(q)]
        sources.append({"file": shard.name, "annotators": [n for n in names if isinstance(n, str)], "queries": queries})
    return {"annotators": annotators, "merged_from": sources}


def read_shards(definition: ProtocolDefinition, paths: Sequence[str | Path]) -> list[Shard]:
    """Shards are partial by nature: read without the exhaustive check (labels still 0/1)."""
    names = [str(p) for p in paths]
    for name in names:
        if names.count(name) > 1:
            raise ContractError("the same shard is given twice", file=name)
    shards = [Shard(str(path), read_qrels_file(path, definition, exhaustive=False)) for path in paths]
    for path, shard in zip(paths, shards):  # one merged file, one criterion
        check_same_criterion(shard.qrels.provenance, definition, Path(path))
    return shards


def merge_files(definition: ProtocolDefinition, paths: Sequence[str | Path]) -> QrelsFile:
    """Shards -> exhaustive merged qrels, or one ContractError listing every conflict and gap."""
    result = merge_shards(definition, read_shards(definition, paths))
    problem = result.problem(definition)
    if problem is not None:
        raise ContractError(f"cannot merge {len(paths)} shards: {problem}")
    check_qrels(definition, result.merged.labels)
    return result.merged
