"""Judging: the session an annotator works in, backed by the journal (``journal.py``) and the
writer lock (``lock.py``).

Every judgment, change, undo, redo, note and dispute flag is appended to the journal and fsynced
*before* the screen shows it as recorded; replaying the journal on start rebuilds the exact state
(cursor included), so ``kill -9`` loses nothing the screen had shown. The exhaustive qrels.toml is
written (atomically, by ``core.files.write_qrels``) only when every pair is judged.

``JudgingSession`` is ``judging_state.JudgingState`` (the labels, the cursor and the change log
composed) with its files: it opens or resumes the journal under the lock and writes the qrels at
the end. ``Change`` and ``document_order`` are re-exported from their modules for callers.

Rules kept here, not in the screen:
- no default label: a pair is unjudged until ``label(0|1)`` is called for it;
- the document order is corpus order or a per-query shuffle reproducible from a seed;
- one writer per qrels file (``lock.Lock``).

This module never imports textual.
"""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import Any, TypeVar

from rankeval_tui.core.annotation.binding import binding_fields, check_binding, check_same_criterion
from rankeval_tui.core.annotation.change_log import Change
from rankeval_tui.core.annotation.journal import (
    A_JOURNAL,
    JOURNAL_VERSION,
    Journal,
    JournalContents,
    journal_exists,
    journal_of,
    replay_entries,
)
from rankeval_tui.core.annotation.judging_state import JudgingState
from rankeval_tui.core.annotation.lock import LOCK_SUFFIX, Lock
from rankeval_tui.core.annotation.pair_cursor import Order, document_order
from rankeval_tui.core.annotation.pair_labels import checked_label
from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.files import QrelsFile, read_qrels_file, write_qrels
from rankeval_tui.core.files.demo import refuse_writes_into_demo
from rankeval_tui.core.files.outputs import refuse_files_being_written
from rankeval_tui.core.files.safe_read import read_input_bytes
from rankeval_tui.core.wording import pairs_unjudged

S = TypeVar("S", bound=JudgingState)

__all__ = ["Change", "JudgingSession", "Order", "QrelsFile", "checked_label", "default_annotator", "document_order"]


class JudgingSession(JudgingState):
    """A judging state with its files: the lock held while it is open, the journal it resumes
    or starts, and the qrels written when every pair is judged."""

    def __init__(
        self, definition: ProtocolDefinition, qrels_path: Path, *, order: Order, seed: int | None, annotator: str
    ) -> None:
        super().__init__(definition, qrels_path, order=order, seed=seed, annotator=annotator)
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
        refuse_files_being_written(qrels_path, resumes="judging")  # an adjudication writing it ends later
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
        journal_path = journal_of(qrels_path)
        dropped: list[str] = []
        if journal_exists(journal_path):
            raw = read_input_bytes(journal_path, link=A_JOURNAL)
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
            session.marks.review = session.marks.complete
        session.journal = Journal(journal_path)
        try:
            session.journal.open_for_append()
            session.clock.started(session.journal.append(journal_header(definition, order, seed, session.annotator)))
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
        session = replayed(cls, definition, qrels_path, journal_path, contents)
        session.warnings.extend(contents.notices(journal_path))
        session.journal = Journal(journal_path)
        session.journal.open_for_append(truncate_to=contents.good_length if contents.torn else None)
        return session

    # ------------------------------------------------------------ files

    def write_qrels(self, snapshot: QrelsFile | None = None) -> None:
        """Write the exhaustive qrels atomically. ``write_qrels`` refuses incomplete labels, so an
        incomplete state can never overwrite a complete file."""
        if not self.marks.complete and snapshot is None:
            raise ContractError(
                f"{pairs_unjudged(self.marks.remaining)}; qrels are only written when complete",
                file=self.qrels_path,
            )
        write_qrels(self.qrels_path, snapshot or self.snapshot(), self.definition)
        self.written = True

    def follow(self) -> str | None:
        """Called after each recorded change, off the key's path: a session whose file follows
        the judging (``AnnotatorSession``) writes it and returns why its last write failed, if
        it did; the protocol's qrels wait for the last pair."""
        return None

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
        if not self.marks.complete:
            return (
                f"{self.marks.remaining} of {self.marks.total} pairs remain unjudged; progress is kept in "
                f"{self.journal_path}; run judge again to continue"
            )
        if self.marks.dirty or not self.qrels_path.exists():
            self.write_qrels()
            message = f"wrote {self.qrels_path}: all {self.marks.total} pairs judged"
        else:
            message = f"no changes; {self.qrels_path} is complete ({self.marks.total} pairs)"
        if self.journal is not None:
            self.journal.remove()
            self.journal = None
        return message

    def close(self) -> None:
        """Close the journal and release the lock (the journal file stays)."""
        if self.journal is not None:
            self.journal.close()
        if self.lock is not None:
            self.lock.release()

    def abandon(self) -> None:
        """Close without having judged (the app could not start): a journal this process
        started and that records nothing but its start is removed, so nothing is left behind."""
        if self.journal is not None and self.journal.created and not self.changes.undo_stack:
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


def journal_progress(definition: ProtocolDefinition, qrels_path: Path) -> JudgingState | None:
    """The labels an open judging journal beside ``qrels_path`` holds, replayed exactly as
    ``judge`` resumes it (binding checked, entries replayed) but read only: no lock is taken and
    nothing is written, so ``validate`` can say how far judging got while qrels.toml is not yet
    written. ``None`` when there is no journal or it recorded nothing (no complete line)."""
    journal_path = journal_of(qrels_path)
    if not journal_exists(journal_path) or b"\n" not in read_input_bytes(journal_path, link=A_JOURNAL):
        return None
    contents = Journal.read(journal_path)
    check_binding(contents.header, definition, journal_path)
    return replayed(JudgingState, definition, qrels_path, journal_path, contents)


def replayed(
    kind: type[S], definition: ProtocolDefinition, qrels_path: Path, journal_path: Path, contents: JournalContents
) -> S:
    """A state (or session) started as the journal's header says, with every entry replayed."""
    header = contents.header
    state = kind(
        definition,
        qrels_path,
        order=header["order"],
        seed=header.get("seed"),
        annotator=header.get("annotator", ""),
    )
    try:
        state.clock.replayed(header)  # the start: the first label's time counts from it
    except ContractError as error:
        raise error.located(file=journal_path, where="line 1") from None

    def replay(entry: dict[str, Any]) -> None:
        state.changes.replay(entry)
        state.clock.replayed(entry)

    replay_entries(contents, journal_path, replay)
    state.resumed = True
    return state


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
