"""Judging: the session an annotator works in, backed by the journal (``journal.py``) and the
writer lock (``lock.py``).

Every judgment, change, undo, redo, note and dispute flag is appended to the journal and fsynced
*before* the screen shows it as recorded; replaying the journal on start rebuilds the exact state
(cursor included), so ``kill -9`` loses nothing the screen had shown. The exhaustive qrels.toml is
written (atomically, by ``core.files.write_qrels``) only when every pair is judged.

Rules kept here, not in the screen:
- no default label: a pair is unjudged until ``label(0|1)`` is called for it;
- the document order is corpus order or a per-query shuffle reproducible from a seed;
- one writer per qrels file (``lock.Lock``).

This module never imports textual.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from rankeval_tui.core.annotation.hole_order import HoleQueue
from rankeval_tui.core.annotation.imported import ImportedLabels
from rankeval_tui.core.annotation.journal import (
    JOURNAL_SUFFIX,
    JOURNAL_VERSION,
    Journal,
    replay_entries,
)
from rankeval_tui.core.annotation.lock import LOCK_SUFFIX, Lock
from rankeval_tui.core.errors import ContractError, describe_id
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.files import QrelsFile, read_qrels_file, write_qrels
from rankeval_tui.core.files.demo import refuse_writes_into_demo

Order = Literal["corpus", "shuffled"]
# Labels, notes and dispute flags are the three things an annotator records about a pair.
Kind = Literal["label", "note", "disputed"]
V = TypeVar("V")


def definition_sha256(definition: ProtocolDefinition) -> str:
    """Hash of what is judged (corpus and every query), so a journal is never replayed
    against an edited protocol. k and split are left out: they do not change the pairs."""
    canonical = json.dumps(
        {
            "corpus": dict(definition.documents),
            "queries": {q: meta.canonical() for q, meta in definition.queries.items()},
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def document_order(definition: ProtocolDefinition, order: Order, seed: int | None) -> dict[str, tuple[str, ...]]:
    """Documents per query, in the order the annotator sees them.

    The shuffle is seeded per query (``"{seed}:{query}"``) so it is reproducible from the seed
    recorded in provenance and independent of query order; it hides any system's ranking order.
    """
    corpus = tuple(definition.documents)
    if order == "corpus":
        return {q: corpus for q in definition.queries}
    if order != "shuffled" or type(seed) is not int:
        raise ContractError(f"order must be 'corpus' or 'shuffled' with an integer seed, got {order!r} seed {seed!r}")
    result = {}
    for query in definition.queries:
        docs = list(corpus)
        random.Random(f"{seed}:{query}").shuffle(docs)
        result[query] = tuple(docs)
    return result


@dataclass(frozen=True)
class Change:
    """One undoable edit of one pair: the value before and after."""

    kind: Kind
    query: str
    doc: str
    before: Any
    after: Any


@dataclass
class JudgingSession:
    """The state of one annotator's judging of one protocol, backed by a journal.

    Every mutating method appends to the journal first and changes memory second, so the
    screen (which reads memory after the call returns) never shows an unrecorded judgment.
    All updates are O(1) in the number of pairs: counters are kept, nothing is recounted.
    """

    definition: ProtocolDefinition
    qrels_path: Path
    order: Order = "corpus"
    seed: int | None = None
    annotator: str = ""
    docs_of: dict[str, tuple[str, ...]] = field(default_factory=dict)
    labels: dict[str, dict[str, int]] = field(default_factory=dict)
    notes: dict[str, dict[str, str]] = field(default_factory=dict)
    disputed: dict[str, dict[str, bool]] = field(default_factory=dict)
    base_provenance: dict[str, Any] = field(default_factory=dict)
    journal: Journal | None = None
    lock: Lock | None = None
    query_index: int = 0
    doc_index: int = 0
    judged_in: dict[str, int] = field(default_factory=dict)
    judged: int = 0
    undo_stack: list[Change] = field(default_factory=list)
    redo_stack: list[Change] = field(default_factory=list)
    dirty: bool = False
    review: bool = False
    warnings: list[str] = field(default_factory=list)
    written: bool = False
    finished_message: str | None = None
    imported: ImportedLabels = field(default_factory=ImportedLabels)
    hole_queue: HoleQueue | None = None
    """With ``judge --holes-first``: the holes to visit first (see ``hole_order``)."""
    _doc_positions: dict[str, dict[str, int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.query_ids: tuple[str, ...] = tuple(self.definition.queries)
        self.query_position = {q: i for i, q in enumerate(self.query_ids)}

    # ------------------------------------------------------------ opening

    @classmethod
    def open(
        cls,
        definition: ProtocolDefinition,
        qrels_path: Path,
        *,
        order: Order | None = None,
        seed: int | None = None,
        annotator: str | None = None,
        break_lock: bool = False,
        lock: bool = True,
    ) -> JudgingSession:
        """Resume the journal beside ``qrels_path`` if there is one, else start a new session
        (preloaded from an existing qrels file: review and correction).

        Everything is validated before the lock is kept, so bad input leaves nothing behind.
        """
        qrels_path = Path(qrels_path)
        refuse_writes_into_demo(qrels_path, "judging")
        if not qrels_path.parent.is_dir():
            raise ContractError("directory of the qrels file does not exist", file=qrels_path)
        the_lock = Lock(qrels_path.with_name(qrels_path.name + LOCK_SUFFIX)) if lock else None
        if the_lock is not None:
            the_lock.acquire(break_lock=break_lock)
        try:
            session = cls._open_locked(definition, qrels_path, order, seed, annotator)
        except BaseException:
            if the_lock is not None:
                the_lock.release()
            raise
        session.lock = the_lock
        if the_lock is not None and the_lock.recovered:
            session.warnings.append(f"{the_lock.path}: {the_lock.recovered}")
        return session

    @classmethod
    def _open_locked(
        cls,
        definition: ProtocolDefinition,
        qrels_path: Path,
        order: Order | None,
        seed: int | None,
        annotator: str | None,
    ) -> JudgingSession:
        journal_path = qrels_path.with_name(qrels_path.name + JOURNAL_SUFFIX)
        dropped: list[str] = []
        if journal_path.exists():
            raw = journal_path.read_bytes()
            if b"\n" in raw:
                return cls._resume(definition, qrels_path, journal_path, order, seed, annotator)
            # Killed before the header line was complete: nothing was ever recorded.
            dropped.append(
                f"{journal_path}: journal had no complete line ({len(raw)} bytes, killed while "
                "starting); nothing had been recorded; starting over"
            )
            journal_path.unlink()
        order = order or "corpus"
        if order == "shuffled" and seed is None:
            raise ContractError("--order shuffled needs --seed N (the shuffle must be reproducible)")
        if order == "corpus" and seed is not None:
            raise ContractError("--seed only applies to --order shuffled")
        session = cls(
            definition,
            qrels_path,
            order=order,
            seed=seed,
            annotator=annotator or default_annotator(),
            docs_of=document_order(definition, order, seed),
        )
        session._reset_counts()
        session.warnings.extend(dropped)
        base: dict[str, Any] | None = None
        if qrels_path.exists():
            existing = read_qrels_file(qrels_path, definition, exhaustive=False)
            base = {
                "labels": existing.labels,
                "notes": existing.notes,
                "disputed": existing.disputed,
                "provenance": existing.provenance,
            }
            session._load_base(base)
            session.review = existing.is_complete(definition)
        header = {
            "op": "start",
            "version": JOURNAL_VERSION,
            "protocol": definition.name,
            "definition_sha256": definition_sha256(definition),
            "order": order,
            "seed": seed,
            "annotator": session.annotator,
            "pairs": definition.pair_count,
        }
        session.journal = Journal(journal_path)
        session.journal.open_for_append()
        session.journal.append(header)
        if base is not None:
            # The starting labels go into the journal, so replay never depends on a file
            # that this session may itself rewrite.
            session.journal.append({"op": "base", **base})
        session._move_to_first_unjudged()
        return session

    @classmethod
    def _resume(
        cls,
        definition: ProtocolDefinition,
        qrels_path: Path,
        journal_path: Path,
        order: Order | None,
        seed: int | None,
        annotator: str | None,
    ) -> JudgingSession:
        contents = Journal.read(journal_path)
        header = contents.header
        if header.get("definition_sha256") != definition_sha256(definition):
            raise ContractError(
                "journal was recorded for another version of protocol.toml (documents or queries "
                "changed); move the journal away or restore the protocol",
                file=journal_path,
            )
        for name, given in (("order", order), ("seed", seed), ("annotator", annotator)):
            if given is not None and given != header.get(name):
                raise ContractError(
                    f"journal was started with --{name} {header.get(name)!r}, not {given!r}; "
                    f"resume without --{name} or move the journal away",
                    file=journal_path,
                )
        session = cls(
            definition,
            qrels_path,
            order=header["order"],
            seed=header.get("seed"),
            annotator=header.get("annotator", ""),
            docs_of=document_order(definition, header["order"], header.get("seed")),
        )
        session._reset_counts()
        replay_entries(contents, journal_path, session._replay)
        if contents.torn:
            shown = contents.torn[:60].decode("utf-8", "replace")
            session.warnings.append(
                f"{journal_path}: the last journal line was torn (an unfinished write, {len(contents.torn)} bytes: "
                f"{shown!r}); it was never shown as recorded and was dropped, not read as a judgment"
            )
        session.journal = Journal(journal_path)
        session.journal.open_for_append(truncate_to=contents.good_length if contents.torn else None)
        return session

    def _reset_counts(self) -> None:
        """Counters per query and overall, so progress never needs a recount."""
        self.judged_in = {q: 0 for q in self.definition.queries}
        self.judged = 0

    def _load_base(self, base: dict[str, Any]) -> None:
        self.base_provenance = dict(base.get("provenance", {}))
        for query, row in base["labels"].items():
            for doc, value in row.items():
                self._check_pair(query, doc)
                self._set("label", query, doc, checked_label(value))
        for query, row in base.get("notes", {}).items():
            for doc, text in row.items():
                self._check_pair(query, doc)
                self._set("note", query, doc, text)
        for query, row in base.get("disputed", {}).items():
            for doc, flag in row.items():
                self._check_pair(query, doc)
                self._set("disputed", query, doc, bool(flag))
        self.imported.load(self.base_provenance, self.labels)
        self.dirty = False  # what was loaded is what is on disk

    # ------------------------------------------------------------ reading

    @property
    def total(self) -> int:
        return self.definition.pair_count

    @property
    def remaining(self) -> int:
        return self.total - self.judged

    @property
    def complete(self) -> bool:
        return self.judged == self.total

    @property
    def current(self) -> tuple[str, str]:
        query = self.query_ids[self.query_index]
        return query, self.docs_of[query][self.doc_index]

    def label_of(self, query: str, doc: str) -> int | None:
        return self.labels.get(query, {}).get(doc)

    def note_of(self, query: str, doc: str) -> str | None:
        return self.notes.get(query, {}).get(doc)

    def is_disputed(self, query: str, doc: str) -> bool:
        return self.disputed.get(query, {}).get(doc, False)

    def is_imported(self, query: str, doc: str) -> bool:
        """The label came from an import and the annotator has not recorded one on it."""
        return self.imported.is_imported(query, doc)

    def start_summary(self, *, compact: bool = False) -> str:
        """What the annotator starts from: imported or preloaded labels and the holes left
        (``compact``: one status line of the judging screen, under 80 columns for short paths)."""
        if self.imported.source is not None:
            start = (
                f"{self.imported.unreviewed} imported ({self.imported.source})"
                if compact
                else f"{self.imported.unreviewed} imported labels (from {self.imported.source}, marked "
                "'imported' on screen; review or change them freely)"
            )
        elif self.judged:
            start = (
                f"{self.judged} preloaded" if compact else f"{self.judged} labels preloaded from {self.qrels_path.name}"
            )
        else:
            start = "no labels yet"
        if self.complete:
            return f"{start}; every pair is judged (review)"
        if compact:
            where = "from the first hole" if self.hole_queue is None else "top-k holes first"
            return f"{start} · {self.remaining} of {self.total} to judge · {where}"
        where = "first hole" if self.hole_queue is None else "first hole inside some run's top k"
        return f"{start}; {self.remaining} of {self.total} pairs remain; starting on the {where}"

    def query_progress(self, query: str) -> tuple[int, int]:
        return self.judged_in[query], len(self.docs_of[query])

    # ------------------------------------------------------------ recording

    def label(self, value: int) -> Change:
        """Record 0 or 1 for the current pair, then move to the next pair."""
        query, doc = self.current
        change = self._record(Change("label", query, doc, self.label_of(query, doc), checked_label(value)))
        if self.hole_queue is not None and not self.complete:
            self.next_unjudged()  # journals the position: replay's step(1) is then corrected
        else:
            self.step(1, journal=False)
        return change

    def set_note(self, text: str) -> Change | None:
        """Attach (or with empty text, remove) the note of the current pair."""
        query, doc = self.current
        after = text if text.strip() else None
        before = self.note_of(query, doc)
        if after == before:
            return None
        return self._record(Change("note", query, doc, before, after))

    def toggle_disputed(self) -> Change:
        query, doc = self.current
        flag = self.is_disputed(query, doc)
        return self._record(Change("disputed", query, doc, flag, not flag))

    def undo(self) -> Change | None:
        """Revert the last change of the whole session (across restarts) and go to its pair."""
        if not self.undo_stack:
            return None
        self._append({"op": "undo"})
        return self._undo()

    def redo(self) -> Change | None:
        if not self.redo_stack:
            return None
        self._append({"op": "redo"})
        return self._redo()

    def _record(self, change: Change) -> Change:
        self._append({"op": change.kind, "q": change.query, "d": change.doc, "v": change.after})
        self._apply(change)
        return change

    def _apply(self, change: Change) -> None:
        self._set(change.kind, change.query, change.doc, change.after)
        if change.kind == "label":
            self.imported.edited(change.query, change.doc, 1)
        self.undo_stack.append(change)
        self.redo_stack.clear()

    def _undo(self) -> Change:
        change = self.undo_stack.pop()
        self._set(change.kind, change.query, change.doc, change.before)
        if change.kind == "label":
            self.imported.edited(change.query, change.doc, -1)
            if self.hole_queue is not None:
                self.hole_queue.reopened()
        self.redo_stack.append(change)
        self._goto_pair(change.query, change.doc)
        return change

    def _redo(self) -> Change:
        change = self.redo_stack.pop()
        self._set(change.kind, change.query, change.doc, change.after)
        if change.kind == "label":
            self.imported.edited(change.query, change.doc, 1)
        self.undo_stack.append(change)
        self._goto_pair(change.query, change.doc)
        if change.kind == "label":
            self.step(1, journal=False)
        return change

    def _set(self, kind: Kind, query: str, doc: str, value: Any) -> None:
        """Set one value and keep the counters right; ``None`` / ``False`` removes it."""
        if kind == "label":
            row = self.labels.setdefault(query, {})
            had = doc in row
            if value is None:
                row.pop(doc, None)
            else:
                row[doc] = value
            delta = (value is not None) - had
            self.judged_in[query] += delta
            self.judged += delta
        else:
            table = self.notes if kind == "note" else self.disputed
            extras: dict[str, Any] = table.setdefault(query, {})
            if value is None or value is False:
                extras.pop(doc, None)
            else:
                extras[doc] = value
        self.dirty = True

    def _append(self, entry: dict[str, Any], *, durable: bool = True) -> None:
        if self.journal is not None:
            self.journal.append(entry, durable=durable)

    # ------------------------------------------------------------ replay

    def _check_pair(self, query: object, doc: object) -> tuple[str, str]:
        """Reject a pair the protocol does not have; return it typed as the IDs it now is."""
        if not isinstance(query, str) or query not in self.definition.queries:
            raise ContractError(f"unknown {describe_id('query', query)}")
        if not isinstance(doc, str) or doc not in self.definition.documents:
            raise ContractError(f"unknown {describe_id('document', doc)}")
        return query, doc

    def _replay(self, entry: dict[str, Any]) -> None:
        op = entry["op"]
        if op in ("label", "note", "disputed"):
            query, doc = self._check_pair(entry.get("q"), entry.get("d"))
            value = entry.get("v")
            if op == "label":
                value = checked_label(value)
            elif op == "note" and value is not None and type(value) is not str:
                raise ContractError(f"note must be a string or null, got {value!r}")
            elif op == "disputed" and type(value) is not bool:
                raise ContractError(f"disputed must be true or false, got {value!r}")
            before = {"label": self.label_of, "note": self.note_of, "disputed": self.is_disputed}[op](query, doc)
            self._goto_pair(query, doc)
            self._apply(Change(op, query, doc, before, value))
            if op == "label":
                self.step(1, journal=False)
        elif op == "undo":
            if not self.undo_stack:
                raise ContractError("undo with nothing to undo")
            self._undo()
        elif op == "redo":
            if not self.redo_stack:
                raise ContractError("redo with nothing to redo")
            self._redo()
        elif op == "goto":
            self._check_pair(entry.get("q"), entry.get("d"))
            self._goto_pair(entry["q"], entry["d"])
        elif op == "base":
            self._load_base(entry)
            self.review = all(self.judged_in[q] == len(self.docs_of[q]) for q in self.query_ids)
            self._move_to_first_unjudged()
        elif op == "written":
            self.dirty = False
        else:
            raise ContractError(f"unknown journal entry {op!r}")

    # ------------------------------------------------------------ navigation

    def _goto_pair(self, query: str, doc: str) -> None:
        self.query_index = self.query_position[query]
        positions = self._doc_positions.get(query)
        if positions is None:  # built per query on first use: start-up stays O(queries)
            positions = self._doc_positions[query] = {d: i for i, d in enumerate(self.docs_of[query])}
        self.doc_index = positions[doc]

    def goto(self, query: str, doc: str) -> None:
        """Jump to a pair (the overview's jump); recorded so a restart resumes there."""
        self._check_pair(query, doc)
        self._goto_pair(query, doc)
        self._note_position()

    def _note_position(self) -> None:
        query, doc = self.current
        # Position is convenience, not data: flushed to the OS but not fsynced per key.
        self._append({"op": "goto", "q": query, "d": doc}, durable=False)

    def step(self, delta: int, *, journal: bool = True) -> None:
        """Move ``delta`` pairs forward/back across query boundaries (stops at the ends)."""
        qi, di = self.query_index, self.doc_index + delta
        while di >= len(self.docs_of[self.query_ids[qi]]):
            if qi + 1 >= len(self.query_ids):
                di = len(self.docs_of[self.query_ids[qi]]) - 1
                break
            di -= len(self.docs_of[self.query_ids[qi]])
            qi += 1
        while di < 0:
            if qi == 0:
                di = 0
                break
            qi -= 1
            di += len(self.docs_of[self.query_ids[qi]])
        self.query_index, self.doc_index = qi, di
        if journal:
            self._note_position()

    def step_query(self, delta: int) -> None:
        self.query_index = max(0, min(len(self.query_ids) - 1, self.query_index + delta))
        self.doc_index = 0
        self._note_position()

    def find_unjudged(self, query_index: int, doc_index: int) -> tuple[int, int] | None:
        """Position of the first unjudged pair after (query_index, doc_index), wrapping; None if
        every pair is judged. Finished queries are skipped by their counter, so this stays fast
        at 100k pairs. The overview uses it for its own cursor."""
        if self.complete:
            return None
        n = len(self.query_ids)
        for offset in range(n + 1):
            qi = (query_index + offset) % n
            query = self.query_ids[qi]
            docs = self.docs_of[query]
            if self.judged_in[query] == len(docs):
                continue
            row = self.labels.get(query, {})
            low = doc_index + 1 if offset == 0 else 0
            high = doc_index + 1 if offset == n else len(docs)
            for di in range(low, high):
                if docs[di] not in row:
                    return qi, di
        return None

    def next_unjudged(self) -> bool:
        """Go to the next unjudged pair after the cursor (wrapping), or with a hole order to its
        next hole; False when none is left."""
        first = self.hole_queue.next_hole(self.labels) if self.hole_queue is not None else None
        if first is not None:
            self._goto_pair(*first)
            self._note_position()
            return True
        found = self.find_unjudged(self.query_index, self.doc_index)
        if found is None:
            return False
        self.query_index, self.doc_index = found
        self._note_position()
        return True

    def order_holes(self, pairs: list[tuple[str, str]]) -> int:
        """Visit the holes among ``pairs`` first (``judge --holes-first``), starting now; returns
        how many of them are holes. Only navigation: nothing about labels changes."""
        for query, doc in pairs:
            self._check_pair(query, doc)
        self.hole_queue = HoleQueue(pairs)
        if not self.complete:
            self.next_unjudged()
        return self.hole_queue.remaining(self.labels)

    def _move_to_first_unjudged(self) -> None:
        for qi, query in enumerate(self.query_ids):
            if self.judged_in[query] < len(self.docs_of[query]):
                row = self.labels.get(query, {})
                for di, doc in enumerate(self.docs_of[query]):
                    if doc not in row:
                        self.query_index, self.doc_index = qi, di
                        return
        self.query_index = self.doc_index = 0

    # ------------------------------------------------------------ output

    def provenance(self) -> dict[str, Any]:
        """Who judged, in which order, against which definition: beside the labels, never in them."""
        data = dict(self.base_provenance)
        data.update(
            {
                "annotator": self.annotator,
                "order": self.order,
                "protocol": self.definition.name,
                "definition_sha256": definition_sha256(self.definition),
                "pairs": self.total,
                "tool": "rankeval-tui judge",
            }
        )
        if self.seed is not None:
            data["seed"] = self.seed
        else:
            data.pop("seed", None)
        self.imported.provenance(data, self.definition.queries)
        return data

    def snapshot(self) -> QrelsFile:
        """A copy of the state to write, safe to serialise in another thread."""
        return QrelsFile(
            labels=nonempty_rows(self.labels),
            notes=nonempty_rows(self.notes),
            disputed=nonempty_rows(self.disputed),
            provenance=self.provenance(),
        )

    def write_qrels(self, snapshot: QrelsFile | None = None) -> None:
        """Write the exhaustive qrels atomically. ``write_qrels`` refuses incomplete labels, so an
        incomplete state can never overwrite a complete file."""
        if not self.complete and snapshot is None:
            raise ContractError(
                f"{self.remaining} pairs are unjudged; qrels are only written when complete", file=self.qrels_path
            )
        write_qrels(self.qrels_path, snapshot or self.snapshot(), self.definition)
        self.written = True

    def finish(self) -> str:
        """End the session: write the qrels if complete, keep the journal if not. Returns the
        line to tell the user. Calling it again returns the same line."""
        if self.finished_message is not None:
            return self.finished_message
        self.finished_message = self._finish()
        return self.finished_message

    def _finish(self) -> str:
        try:
            if not self.complete:
                where = self.journal.path if self.journal else self.qrels_path
                return (
                    f"{self.remaining} of {self.total} pairs remain unjudged; progress is kept in {where}; "
                    "run judge again to continue"
                )
            if self.dirty or not self.qrels_path.exists():
                self.write_qrels()
                message = f"wrote {self.qrels_path}: all {self.total} pairs judged"
            else:
                message = f"no changes; {self.qrels_path} is complete ({self.total} pairs)"
            if self.journal is not None:
                self.journal.remove()
                self.journal = None
            return message
        finally:
            self.close()

    def close(self) -> None:
        """Close the journal and release the lock (the journal file stays)."""
        if self.journal is not None:
            self.journal.close()
        if self.lock is not None:
            self.lock.release()


def nonempty_rows(table: dict[str, dict[str, V]]) -> dict[str, dict[str, V]]:
    """A copy of a per-query table without its empty rows (an emptied row is not written)."""
    return {query: dict(row) for query, row in table.items() if row}


def checked_label(value: object) -> int:
    """Only the integers 0 and 1 are labels (``True`` is not)."""
    if type(value) is not int or value not in (0, 1):
        raise ContractError(f"labels must be integer 0 or 1, got {value!r}")
    return value


def default_annotator() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no user name in some containers: say so rather than invent one
        return "unknown"
