"""Adjudication: a third person decides the pairs two annotators labeled differently.

Why a queue of only the disagreeing pairs: the agreed pairs need no one's time, and showing
them would bury the few decisions that matter. Each decision is a final 0/1 *with a reason*
(no reason, no decision: the reason is what a later reader audits), and it is appended to a
journal and fsynced before the screen shows it, reusing ``core.annotation``'s ``Journal`` and
``Lock`` (one journal format, one lock rule per qrels file).

The output is an exhaustive qrels file: agreed pairs keep their common label, disagreeing
pairs get the adjudicator's final label, and ``[adjudication.Q] D = {labels = [a, b], final,
reason, adjudicator}`` records every decision beside the labels, never inside them. Provenance
names both annotators, the adjudicator and the measured agreement.

Two partial files (a model's labels and a person's audit sample, two annotators' overlap from
``assign``) are adjudicated on their overlap: the disputes are the overlap's pairs labeled
differently. A pair only one file labels is no dispute, and it is not written either: the output
holds only pairs two people (or a person and a model) labeled alike or an adjudicator decided,
so it is itself partial (``partial = true``) and says how many pairs each file labeled alone.

This module never imports textual.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from rankeval_tui.core.annotation.adjudication_journal import (
    Decision,
    Pair,
    checked_reason,
    open_adjudication_journal,
)
from rankeval_tui.core.annotation.agreement import (
    Agreement,
    Coverage,
    Disagreement,
    agreement,
    annotator_name,
    read_pair,
)
from rankeval_tui.core.annotation.binding import binding_fields
from rankeval_tui.core.annotation.journal import Journal
from rankeval_tui.core.annotation.judging import checked_label
from rankeval_tui.core.annotation.lock import LOCK_SUFFIX, Lock
from rankeval_tui.core.errors import ContractError, describe_id
from rankeval_tui.core.evaluation.evaluate import fraction_text
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.files import QrelsFile, qrels_to_toml, write_qrels
from rankeval_tui.core.files.annotator_kind import annotator_words
from rankeval_tui.core.files.atomic import atomic_write_text
from rankeval_tui.core.files.demo import refuse_writes_into_demo
from rankeval_tui.core.files.journal_names import ADJUDICATION_JOURNAL_SUFFIX
from rankeval_tui.core.files.outputs import refuse_files_being_written
from rankeval_tui.core.files.safe_read import read_input_bytes
from rankeval_tui.core.wording import counted

JOURNAL_SUFFIX = ADJUDICATION_JOURNAL_SUFFIX
TOOL = "rankeval-tui adjudicate"


def adjudicated_qrels(
    definition: ProtocolDefinition,
    result: Agreement,
    a: QrelsFile,
    b: QrelsFile,
    decisions: Mapping[Pair, Decision],
    adjudicator: str,
    extra_provenance: Mapping[str, Any] | None = None,
) -> QrelsFile:
    """The exhaustive qrels: agreed labels plus the final label of every disagreement.

    Refuses (ContractError naming the pairs) while any disagreement is undecided, and refuses
    decisions for pairs that were never in disagreement, so nothing is filled or overridden.
    """
    queued = {(d.query, d.document): d for d in result.disagreements}
    stray = [pair for pair in decisions if pair not in queued]
    if stray:
        q, d = stray[0]
        raise ContractError(
            "decision for a pair the annotators agree on",
            where=f"{describe_id('query', q)}, {describe_id('document', d)}",
        )
    undecided = [pair for pair in queued if pair not in decisions]
    if undecided:
        shown = "; ".join(f"{q}/{d}" for q, d in undecided)
        raise ContractError(f"{len(undecided)} disagreeing pairs are not adjudicated yet: {shown}")
    labels = compared_labels(a, b) if result.coverage is not None else {q: dict(row) for q, row in a.labels.items()}
    adjudication: dict[str, dict[str, Any]] = {}
    for pair, item in queued.items():
        decision = decisions[pair]
        labels[item.query][item.document] = decision.final
        adjudication.setdefault(item.query, {})[item.document] = {
            "labels": list(item.labels),
            "final": decision.final,
            "reason": decision.reason,
            "adjudicator": adjudicator,
        }
    notes: dict[str, dict[str, str]] = {}
    for query in definition.queries:
        row = labels.get(query, {})
        for doc in definition.documents_of(query):
            if doc not in row:
                continue
            written = [
                (name, f.notes[query][doc])
                for name, f in zip(result.annotators, (a, b))
                if doc in f.notes.get(query, {})
            ]
            if written:
                notes.setdefault(query, {})[doc] = " | ".join(f"{name}: {text}" for name, text in written)
    disputed = {
        q: {
            d: True
            for d in definition.documents_of(q)
            if d in labels.get(q, {}) and (a.disputed.get(q, {}).get(d) or b.disputed.get(q, {}).get(d))
        }
        for q in definition.queries
    }
    provenance = {
        "annotators": list(result.annotators),
        "adjudicator": adjudicator,
        "adjudicated_from": [s for s in result.sources if s is not None],
        "kappa": fraction_text(result.overall.kappa),
        "observed_agreement": fraction_text(result.overall.observed_agreement),
        "disagreements": len(result.disagreements),
        **binding_fields(definition),
        "tool": TOOL,
        **(extra_provenance or {}),
        **(partial_provenance(result.coverage) if result.coverage is not None else {}),
    }
    return QrelsFile(
        labels=labels,
        notes=notes,
        disputed={q: r for q, r in disputed.items() if r},
        provenance=provenance,
        adjudication=adjudication,
    )


def compared_labels(a: QrelsFile, b: QrelsFile) -> dict[str, dict[str, int]]:
    """A's labels of the pairs both files label (the overlap): the agreed ones stay, the disputed
    ones are then replaced by the decisions."""
    labels = {}
    for query, row in a.labels.items():
        other = b.labels.get(query, {})
        both = {doc: label for doc, label in row.items() if doc in other}
        if both:
            labels[query] = both
    return labels


def partial_provenance(coverage: Coverage) -> dict[str, Any]:
    """What a partial adjudication says of itself: partial, and the pairs left out, per file."""
    return {
        "partial": True,
        "compared_pairs": coverage.overlap,
        "pairs_only_in": [coverage.only[0], coverage.only[1]],
    }


def overlap_words(coverage: Coverage) -> str:
    """``12 pairs in both files (3 only in A, 40 only in B: no disputes, not written)``."""
    only_a, only_b = coverage.only
    return (
        f"{counted(coverage.overlap, 'pair')} in both files ({only_a} only in A, {only_b} only in B: "
        "no disputes, not written)"
    )


def file_sha256(path: Path) -> str:
    return hashlib.sha256(read_input_bytes(path)).hexdigest()


def check_output(output: Path, annotator_files: tuple[Path, Path]) -> None:
    """Refuse an output that would destroy an input (an annotator's file, the demo) or that has
    no directory to go in, before any lock or journal is made."""
    refuse_writes_into_demo(output, "adjudicating")
    for path in annotator_files:
        if path.exists() and output.exists() and path.resolve() == output.resolve():
            raise ContractError(
                "the output is one of the annotators' files; write the result to a new file", file=output
            )
    if not output.parent.is_dir():
        raise ContractError("directory of the output file does not exist", file=output)


@dataclass(frozen=True)
class AdjudicationSnapshot:
    """The adjudicated qrels at one moment, with the decisions they were built from."""

    qrels: QrelsFile
    decisions: dict[Pair, Decision]


def check_chosen(pair: Pair | None, item: Disagreement) -> None:
    """Refuse a decision chosen for ``pair`` when ``item`` is the current one: a screen passes the
    pair whose document it showed, so keys typed ahead of a redraw never decide another pair."""
    if pair is not None and pair != (item.query, item.document):
        raise ContractError(
            f"decision NOT recorded: it was chosen for {pair[0]}/{pair[1]}, but the current pair is "
            f"{item.query}/{item.document}; choose again"
        )


@dataclass
class AdjudicationSession:
    """The queue of disagreeing pairs and the decisions taken, backed by a journal.

    Like ``JudgingSession``: every decision is journaled (fsync) first and applied in memory
    second, so the screen never shows an unrecorded decision; a restart replays the journal.
    """

    definition: ProtocolDefinition
    output: Path
    a: QrelsFile
    b: QrelsFile
    result: Agreement
    adjudicator: str
    inputs: list[dict[str, str]] = field(default_factory=list)
    decisions: dict[Pair, Decision] = field(default_factory=dict)
    index: int = 0
    journal: Journal | None = None
    lock: Lock | None = None
    warnings: list[str] = field(default_factory=list)
    written_decisions: dict[Pair, Decision] | None = None
    """The decisions the output file on disk holds (None: not written by this session)."""

    # ------------------------------------------------------------ opening

    @classmethod
    def open(
        cls,
        definition: ProtocolDefinition,
        path_a: str | Path,
        path_b: str | Path,
        output: str | Path,
        *,
        adjudicator: str | None = None,
        break_lock: bool = False,
        lock: bool = True,
    ) -> AdjudicationSession:
        """Read both files (same coverage when both are complete; a partial file is compared on
        the overlap), take the output's lock, and resume the journal beside the output if there
        is one. Bad input leaves no lock and no journal."""
        path_a, path_b, output = Path(path_a), Path(path_b), Path(output)
        check_output(output, (path_a, path_b))
        refuse_files_being_written(output, resumes="adjudication")  # judging would write it when it ends
        a, b = read_pair(definition, path_a, path_b, overlap=True)
        names = (annotator_name(a, path_a.stem), annotator_name(b, path_b.stem))
        if names[0] == names[1]:
            names = (f"{names[0]} ({path_a.name})", f"{names[1]} ({path_b.name})")
        result = agreement(definition, a, b, names, (str(path_a), str(path_b)))
        inputs = [{"file": str(p), "sha256": file_sha256(p)} for p in (path_a, path_b)]
        the_lock = Lock(output.with_name(output.name + LOCK_SUFFIX), command="adjudicate") if lock else None
        if the_lock is not None:
            the_lock.acquire(break_lock=break_lock)
        try:
            session = cls(definition, output, a, b, result, adjudicator or "", inputs)
            session._open_journal(adjudicator)
        except BaseException:
            if the_lock is not None:
                the_lock.release()
            raise
        session.lock = the_lock
        session.index = session.first_undecided() or 0
        return session

    @property
    def journal_path(self) -> Path:
        return self.output.with_name(self.output.name + JOURNAL_SUFFIX)

    def _open_journal(self, adjudicator: str | None) -> None:
        opened = open_adjudication_journal(self.journal_path, self.definition, self.inputs, adjudicator, self.positions)
        self.journal, self.adjudicator = opened.journal, opened.adjudicator
        self.decisions.update(opened.decisions)
        self.warnings.extend(opened.warnings)

    # ------------------------------------------------------------ reading

    @property
    def items(self) -> tuple[Disagreement, ...]:
        """The queue: only the pairs the two annotators labeled differently, in protocol order."""
        return self.result.disagreements

    @cached_property
    def positions(self) -> dict[Pair, int]:
        return {(d.query, d.document): i for i, d in enumerate(self.items)}

    @property
    def current(self) -> Disagreement | None:
        return self.items[self.index] if self.items else None

    def decision_of(self, item: Disagreement) -> Decision | None:
        return self.decisions.get((item.query, item.document))

    @property
    def decided(self) -> int:
        return len(self.decisions)

    @property
    def complete(self) -> bool:
        return self.decided == len(self.items)

    def first_undecided(self, start: int = 0) -> int | None:
        """Index of the first undecided item at or after ``start``, wrapping; None when all are decided."""
        n = len(self.items)
        for offset in range(n):
            i = (start + offset) % n
            if self.decision_of(self.items[i]) is None:
                return i
        return None

    # ------------------------------------------------------------ recording

    def select(self, index: int) -> None:
        if not 0 <= index < len(self.items):
            raise IndexError(index)
        self.index = index

    def decide(self, final: int, reason: str, *, pair: Pair | None = None) -> Decision:
        """Record the current pair's final label and reason (journal first; ``pair``: see
        ``check_chosen``), then move to the next undecided pair. A second decision replaces it."""
        item = self.current
        if item is None:
            raise ContractError("nothing to adjudicate: the annotators agree on every pair")
        check_chosen(pair, item)
        decision = Decision(checked_label(final, self.definition.top_grade), checked_reason(reason))
        if self.journal is not None:
            self.journal.append(
                {
                    "op": "decide",
                    "q": item.query,
                    "d": item.document,
                    "final": decision.final,
                    "reason": decision.reason,
                }
            )
        self.decisions[(item.query, item.document)] = decision
        following = self.first_undecided(self.index + 1 if self.items else 0)
        if following is not None:
            self.index = following
        return decision

    # ------------------------------------------------------------ output

    @property
    def written(self) -> bool:
        """The output file holds every current decision (a decision changed after the write
        makes this False again until the next write; the journal has it meanwhile)."""
        return self.written_decisions == self.decisions

    def snapshot(self) -> AdjudicationSnapshot:
        """The qrels to write and the decisions they hold, taken now (the write may run in a
        worker while the adjudicator changes a decision; that change is written next time)."""
        return AdjudicationSnapshot(self.qrels(), dict(self.decisions))

    def qrels(self) -> QrelsFile:
        return adjudicated_qrels(
            self.definition,
            self.result,
            self.a,
            self.b,
            self.decisions,
            self.adjudicator,
            {"input_sha256": [i["sha256"] for i in self.inputs]},
        )

    @property
    def coverage(self) -> Coverage | None:
        """Which pairs were compared, when a file is partial (None: both complete, every pair)."""
        return self.result.coverage

    def write(self, snapshot: AdjudicationSnapshot | None = None) -> str:
        """Write the adjudicated qrels atomically (``snapshot``, or one taken now): exhaustive, or
        of two partial files the overlap, marked partial.

        The journal stays until ``close``: a decision changed after this write is journaled
        like any other, and ``close`` drops the journal only when the file holds every decision."""
        taken = snapshot or self.snapshot()  # raises while anything is undecided
        adjudicated = f"{len(self.items)} adjudicated by {annotator_words(self.adjudicator)}"
        if self.coverage is None:
            write_qrels(self.output, taken.qrels, self.definition)
            self.written_decisions = taken.decisions
            return f"wrote {self.output}: {counted(self.definition.pair_count, 'pair')}, {adjudicated}"
        atomic_write_text(self.output, qrels_to_toml(taken.qrels, self.definition))
        self.written_decisions = taken.decisions
        return f"wrote {self.output}: partial, {overlap_words(self.coverage)}, {adjudicated}"

    def close(self) -> None:
        """Close the journal and release the lock. The journal is removed when the output holds
        every decision; otherwise (unfinished, or changed since the write) it stays for the next run."""
        if self.journal is not None:
            if self.written:
                self.journal.remove()
            else:
                self.journal.close()
            self.journal = None
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def abandon(self) -> None:
        """Close without having adjudicated (the app could not start): a journal this process
        started and that records no decision is removed, so nothing is left behind."""
        if self.journal is not None and self.journal.created and not self.decisions:
            self.journal.remove()
            self.journal = None
        self.close()
