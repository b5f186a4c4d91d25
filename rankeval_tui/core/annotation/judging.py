"""Judging: the session an annotator works in, backed by the journal (``journal.py``) and the
writer lock (``lock.py``).

Every judgment, change, undo, redo, note and dispute flag is appended to the journal and fsynced
*before* the screen shows it as recorded; replaying the journal on start rebuilds the exact state
(cursor included), so ``kill -9`` loses nothing the screen had shown. The exhaustive qrels.toml is
written (atomically, by ``core.files.write_qrels``) only when every pair is judged.

The session composes three parts and owns the files: ``pair_labels.PairLabels`` (what is
recorded, with the counts), ``pair_cursor.PairCursor`` (where the annotator is) and
``change_log.ChangeLog`` (edits, undo/redo, replay). It opens and resumes the journal under the
lock, journals the position, and writes the qrels at the end.

Rules kept here, not in the screen:
- no default label: a pair is unjudged until ``label(0|1)`` is called for it;
- the document order is corpus order or a per-query shuffle reproducible from a seed;
- one writer per qrels file (``lock.Lock``).

This module never imports textual.
"""

from __future__ import annotations

import getpass
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar, overload

from rankeval_tui.core.annotation.binding import binding_fields, check_binding, check_same_criterion
from rankeval_tui.core.annotation.change_log import Change, ChangeLog
from rankeval_tui.core.annotation.hole_order import HoleQueue
from rankeval_tui.core.annotation.imported import ImportedLabels
from rankeval_tui.core.annotation.journal import JOURNAL_SUFFIX, JOURNAL_VERSION, Journal, replay_entries
from rankeval_tui.core.annotation.lock import LOCK_SUFFIX, Lock
from rankeval_tui.core.annotation.pair_cursor import Order, PairCursor, document_order
from rankeval_tui.core.annotation.pair_labels import PairLabels, checked_label, nonempty_rows
from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.files import QrelsFile, read_qrels_file, write_qrels
from rankeval_tui.core.files.demo import refuse_writes_into_demo
from rankeval_tui.core.files.safe_read import read_input_bytes

__all__ = ["Change", "JudgingSession", "Order", "checked_label", "default_annotator", "document_order"]

T = TypeVar("T")


class Forward(Generic[T]):
    """A session attribute that lives on one of its parts (``marks``, ``cursor``, ``changes``):
    the screens and tests keep reading ``session.labels`` while each piece of state has one owner."""

    def __init__(self, part: str) -> None:
        self.part = part
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, session: None, owner: type) -> Forward[T]: ...
    @overload
    def __get__(self, session: object, owner: type) -> T: ...
    def __get__(self, session: object | None, owner: type) -> Forward[T] | T:
        if session is None:
            return self
        value: T = getattr(getattr(session, self.part), self.name)
        return value

    def __set__(self, session: object, value: T) -> None:
        setattr(getattr(session, self.part), self.name, value)


class JudgingSession:
    """The state of one annotator's judging of one protocol, backed by a journal.

    Every mutating method appends to the journal first and changes memory second, so the
    screen (which reads memory after the call returns) never shows an unrecorded judgment.
    All updates are O(1) in the number of pairs: counters are kept, nothing is recounted.
    """

    labels = Forward[dict[str, dict[str, int]]]("marks")
    notes = Forward[dict[str, dict[str, str]]]("marks")
    disputed = Forward[dict[str, dict[str, bool]]]("marks")
    judged_in = Forward[dict[str, int]]("marks")
    judged = Forward[int]("marks")
    total = Forward[int]("marks")
    remaining = Forward[int]("marks")
    complete = Forward[bool]("marks")
    imported = Forward[ImportedLabels]("marks")
    dirty = Forward[bool]("marks")
    review = Forward[bool]("marks")
    label_of = Forward[Callable[[str, str], int | None]]("marks")
    note_of = Forward[Callable[[str, str], str | None]]("marks")
    is_disputed = Forward[Callable[[str, str], bool]]("marks")
    is_imported = Forward[Callable[[str, str], bool]]("marks")
    docs_of = Forward[dict[str, tuple[str, ...]]]("cursor")
    query_ids = Forward[tuple[str, ...]]("cursor")
    query_index = Forward[int]("cursor")
    doc_index = Forward[int]("cursor")
    current = Forward[tuple[str, str]]("cursor")
    hole_queue = Forward[HoleQueue | None]("cursor")
    query_progress = Forward[Callable[[str], tuple[int, int]]]("cursor")
    find_unjudged = Forward[Callable[[int, int], tuple[int, int] | None]]("cursor")
    undo_stack = Forward[list[Change]]("changes")
    redo_stack = Forward[list[Change]]("changes")
    undo = Forward[Callable[[], Change | None]]("changes")
    redo = Forward[Callable[[], Change | None]]("changes")

    def __init__(
        self, definition: ProtocolDefinition, qrels_path: Path, *, order: Order, seed: int | None, annotator: str
    ) -> None:
        self.definition = definition
        self.qrels_path = qrels_path
        self.order: Order = order
        self.seed = seed
        self.annotator = annotator
        self.marks = PairLabels(definition)
        self.cursor = PairCursor(definition, order, seed, self.marks)
        self.changes = ChangeLog(self.marks, self.cursor, self._append)
        self.journal: Journal | None = None
        self.lock: Lock | None = None
        self.warnings: list[str] = []
        self.written = False
        self.finished_message: str | None = None

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
        journal_path = qrels_path.with_name(qrels_path.name + JOURNAL_SUFFIX)  # = session.journal_path
        dropped: list[str] = []
        if journal_path.exists():
            raw = read_input_bytes(journal_path)
            if b"\n" in raw:
                return cls._resume(definition, qrels_path, journal_path, order, seed, annotator)
            # Killed before the header line was complete: nothing was ever recorded.
            dropped.append(
                f"{journal_path}: journal had no complete line ({len(raw)} bytes, killed while "
                "starting); nothing had been recorded; starting over"
            )
            journal_path.unlink()
        order = checked_start_order(order, seed)
        session = cls(definition, qrels_path, order=order, seed=seed, annotator=annotator or default_annotator())
        session.warnings.extend(dropped)
        base = read_base(qrels_path, definition)
        if base is not None:
            session.marks.load_base(base)
            session.review = session.complete
        session.journal = Journal(journal_path)
        try:
            session.journal.open_for_append()
            session.journal.append(journal_header(definition, order, seed, session.annotator))
            if base is not None:
                # The starting labels go into the journal, so replay never depends on a file
                # that this session may itself rewrite.
                session.journal.append({"op": "base", **base})
        except OSError as error:  # disk full or read-only at the start: nothing was recorded yet
            session.journal.remove()
            raise ContractError(f"cannot start the journal: {error.strerror}", file=journal_path) from None
        session.cursor.move_to_first_unjudged()
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
        check_binding(header, definition, journal_path)
        for name, given in (("order", order), ("seed", seed), ("annotator", annotator)):
            if given is not None and given != header.get(name):
                raise ContractError(
                    f"journal was started with --{name} {quote(header.get(name))}, not {quote(given)}; "
                    f"resume without --{name} or move the journal away",
                    file=journal_path,
                )
        session = cls(
            definition,
            qrels_path,
            order=header["order"],
            seed=header.get("seed"),
            annotator=header.get("annotator", ""),
        )
        replay_entries(contents, journal_path, session.changes.replay)
        session.warnings.extend(contents.notices(journal_path))
        session.journal = Journal(journal_path)
        session.journal.open_for_append(truncate_to=contents.good_length if contents.torn else None)
        return session

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

    # ------------------------------------------------------------ recording

    def label(self, value: int) -> Change:
        """Record 0 or 1 for the current pair, then move to the next pair."""
        query, doc = self.current
        change = self.changes.record(Change("label", query, doc, self.label_of(query, doc), checked_label(value)))
        if self.hole_queue is not None and not self.complete:
            self.next_unjudged()  # journals the position: replay's step(1) is then corrected
        else:
            self.cursor.step(1)
        return change

    def set_note(self, text: str) -> Change | None:
        """Attach (or with empty text, remove) the note of the current pair."""
        query, doc = self.current
        after = text if text.strip() else None
        before = self.note_of(query, doc)
        if after == before:
            return None
        return self.changes.record(Change("note", query, doc, before, after))

    def toggle_disputed(self) -> Change:
        query, doc = self.current
        flag = self.is_disputed(query, doc)
        return self.changes.record(Change("disputed", query, doc, flag, not flag))

    def _append(self, entry: dict[str, Any], *, durable: bool = True) -> None:
        if self.journal is not None:
            self.journal.append(entry, durable=durable)

    # ------------------------------------------------------------ navigation (journaled)

    def goto(self, query: str, doc: str) -> None:
        """Jump to a pair (the overview's jump); recorded so a restart resumes there."""
        self.cursor.goto_pair(*self.marks.check_pair(query, doc))
        self._note_position()

    def _note_position(self) -> None:
        query, doc = self.current
        # Position is convenience, not data: flushed to the OS but not fsynced per key.
        self._append({"op": "goto", "q": query, "d": doc}, durable=False)

    def step(self, delta: int, *, journal: bool = True) -> None:
        """Move ``delta`` pairs forward/back across query boundaries (stops at the ends)."""
        self.cursor.step(delta)
        if journal:
            self._note_position()

    def step_query(self, delta: int) -> None:
        self.cursor.step_query(delta)
        self._note_position()

    def next_unjudged(self) -> bool:
        """Go to the next unjudged pair after the cursor (wrapping), or with a hole order to its
        next hole; False when none is left."""
        if not self.cursor.next_unjudged():
            return False
        self._note_position()
        return True

    def order_holes(self, pairs: list[tuple[str, str]]) -> int:
        """Visit the holes among ``pairs`` first (``judge --holes-first``), starting now; returns
        how many of them are holes. Only navigation: nothing about labels changes."""
        for query, doc in pairs:
            self.marks.check_pair(query, doc)
        self.cursor.hole_queue = HoleQueue(pairs)
        if not self.complete:
            self.next_unjudged()
        return self.cursor.hole_queue.remaining(self.labels)

    # ------------------------------------------------------------ output

    def provenance(self) -> dict[str, Any]:
        """Who judged, in which order, against which definition: beside the labels, never in them."""
        data = dict(self.marks.base_provenance)
        data.update(
            {
                "annotator": self.annotator,
                "order": self.order,
                "protocol": self.definition.name,
                **binding_fields(self.definition),
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
        line to tell the user. Calling it again returns the same line.

        The lock is held until the qrels are written and the journal removed. If that fails
        (disk full, read-only), the error propagates and the session stays open and locked: the
        screen can keep going or retry, the CLI closes it (``close``); the journal keeps every label.
        """
        if self.finished_message is not None:
            return self.finished_message
        self.finished_message = self._finish()
        self.close()
        return self.finished_message

    def _finish(self) -> str:
        if not self.complete:
            return (
                f"{self.remaining} of {self.total} pairs remain unjudged; progress is kept in "
                f"{self.journal_path}; run judge again to continue"
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

    @property
    def journal_path(self) -> Path:
        return self.qrels_path.with_name(self.qrels_path.name + JOURNAL_SUFFIX)

    def close(self) -> None:
        """Close the journal and release the lock (the journal file stays)."""
        if self.journal is not None:
            self.journal.close()
        if self.lock is not None:
            self.lock.release()

    def abandon(self) -> None:
        """Close without having judged (the app could not start): a journal this process
        started and that records nothing but its start is removed, so nothing is left behind."""
        if self.journal is not None and self.journal.created and not self.undo_stack:
            self.journal.remove()
            self.journal = None
        self.close()


def checked_start_order(order: Order | None, seed: int | None) -> Order:
    """The order of a new session (corpus unless told), refusing a seed it would ignore."""
    order = order or "corpus"
    if order == "shuffled" and seed is None:
        raise ContractError("--order shuffled needs --seed N (the shuffle must be reproducible)")
    if order == "corpus" and seed is not None:
        raise ContractError("--seed only applies to --order shuffled")
    return order


def read_base(qrels_path: Path, definition: ProtocolDefinition) -> dict[str, Any] | None:
    """An existing qrels file as the labels a new session starts from (review and correction)."""
    if not qrels_path.exists():
        return None
    existing = read_qrels_file(qrels_path, definition, exhaustive=False)
    check_same_criterion(existing.provenance, definition, qrels_path)
    return {
        "labels": existing.labels,
        "notes": existing.notes,
        "disputed": existing.disputed,
        "provenance": existing.provenance,
    }


def journal_header(definition: ProtocolDefinition, order: Order, seed: int | None, annotator: str) -> dict[str, Any]:
    """The journal's first line: what its labels are bound to, and how the session was started."""
    return {
        "op": "start",
        "version": JOURNAL_VERSION,
        "protocol": definition.name,
        **binding_fields(definition),
        "order": order,
        "seed": seed,
        "annotator": annotator,
        "pairs": definition.pair_count,
    }


def default_annotator() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no user name in some containers: say so rather than invent one
        return "unknown"
