"""A judging session's state in memory: the three parts composed, and every edit and move
journaled through ``journal`` before memory changes.

``pair_labels.PairLabels`` holds what is recorded (with the counts), ``pair_cursor.PairCursor``
where the annotator is, ``change_log.ChangeLog`` the edits with undo/redo and the replay.
``JudgingState`` composes them: what a pair holds is read from ``marks``, where the annotator is
from ``cursor``, the undo and redo stacks from ``changes``; every edit and move goes through
``JudgingState``, which journals it. The files (lock, journal start and resume, qrels) are
``judging.JudgingSession``'s, which extends it.

This module never imports textual.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from rankeval_tui.core.annotation.binding import binding_fields
from rankeval_tui.core.annotation.change_log import Change, ChangeLog
from rankeval_tui.core.annotation.hole_order import HoleQueue
from rankeval_tui.core.annotation.journal import Journal, journal_of
from rankeval_tui.core.annotation.pace import Pace, PaceClock
from rankeval_tui.core.annotation.pair_cursor import Order, PairCursor
from rankeval_tui.core.annotation.pair_labels import PairLabels, checked_label, nonempty_rows
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.files import QrelsFile
from rankeval_tui.core.wording import counted


class JudgingState:
    """One annotator's labels, position and changes over one protocol, journaled.

    Every mutating method appends to the journal first and changes memory second, so the
    screen (which reads memory after the call returns) never shows an unrecorded judgment.
    All updates are O(1) in the number of pairs: counters are kept, nothing is recounted.
    """

    def __init__(
        self, definition: ProtocolDefinition, qrels_path: Path, *, order: Order, seed: int | None, annotator: str
    ) -> None:
        self.definition = definition
        self.qrels_path = qrels_path
        self.order: Order = order
        self.seed = seed
        self.annotator = annotator
        self.marks = PairLabels(definition)
        """What is recorded, with the counts: read it here; change it through this class (journaled)."""
        self.cursor = PairCursor(definition, order, seed, self.marks)
        """Where the annotator is: read it here; move it through this class (journaled)."""
        self.changes = ChangeLog(self.marks, self.cursor, self._append)
        self.clock = PaceClock()
        """When each label was made (from the journal's ``at``): the progress line's pace, the reports'."""
        self.journal: Journal | None = None
        self.resumed = False
        """Whether a journal was replayed: the cursor is where the annotator left off (said at start)."""

    @property
    def journal_path(self) -> Path:
        return journal_of(self.qrels_path)

    def start_summary(self, *, compact: bool = False) -> str:
        """What the annotator starts from: imported or preloaded labels and the holes left
        (``compact``: one status line of the judging screen, under 80 columns for short paths)."""
        if self.marks.imported.source is not None:
            start = (
                f"{self.marks.imported.unreviewed} imported ({self.marks.imported.source})"
                if compact
                else f"{counted(self.marks.imported.unreviewed, 'imported label')} (from {self.marks.imported.source}, marked "
                "'imported' on screen; review or change them freely)"
            )
        elif self.marks.judged and self.resumed:  # the journal's labels (a preloaded file's are in it too)
            start = (
                f"{self.marks.judged} resumed"
                if compact
                else f"{counted(self.marks.judged, 'label')} resumed from {self.journal_path.name}"
            )
        elif self.marks.judged:
            start = (
                f"{self.marks.judged} preloaded"
                if compact
                else f"{counted(self.marks.judged, 'label')} preloaded from {self.qrels_path.name}"
            )
        else:
            start = "no labels yet"
        if self.marks.complete:
            return f"{start}; every pair is judged (review)"
        holes_first = self.cursor.hole_queue is not None
        if compact:
            where = "top-k holes first" if holes_first else "from the first hole"
            where = "where you left off" if self.resumed else where  # the long form says what comes next
            return f"{start} · {self.marks.remaining} of {self.marks.total} to judge · {where}"
        where = "first hole inside some run's top k" if holes_first else "first hole"
        if self.resumed:
            where = "pair where you left off (the journal's last position)"
            where += "; each label then goes to the next hole inside some run's top k" if holes_first else ""
        return f"{start}; {self.marks.remaining} of {self.marks.total} pairs remain; starting on the {where}"

    # ------------------------------------------------------------ recording

    def label(self, value: int) -> Change:
        """Record 0 or 1 (a grade on a graded protocol) for the current pair, then move to the next pair."""
        query, doc = self.cursor.current
        label = checked_label(value, self.definition.top_grade)
        change = self.changes.record(Change("label", query, doc, self.marks.label_of(query, doc), label))
        if self.cursor.hole_queue is not None and not self.marks.complete:
            self.next_unjudged()  # journals the position: replay's step(1) is then corrected
        else:
            self.cursor.step(1)
        return change

    def redo(self) -> Change | None:
        """Redo the last undone change (``ChangeLog.redo`` says where the cursor goes); after
        the last one, a label goes on to the next hole as ``label`` does, holes first included."""
        change = self.changes.redo()
        if (
            change is not None
            and change.kind == "label"
            and not self.changes.redo_stack
            and self.cursor.hole_queue is not None
            and not self.marks.complete
        ):
            self.next_unjudged()  # journals the position: replay's step(1) is then corrected
        return change

    def set_note(self, text: str) -> Change | None:
        """Attach (or with empty text, remove) the note of the current pair."""
        query, doc = self.cursor.current
        after = text if text.strip() else None
        before = self.marks.note_of(query, doc)
        if after == before:
            return None
        return self.changes.record(Change("note", query, doc, before, after))

    def toggle_disputed(self) -> Change:
        query, doc = self.cursor.current
        flag = self.marks.is_disputed(query, doc)
        return self.changes.record(Change("disputed", query, doc, flag, not flag))

    def _append(self, entry: dict[str, Any], *, durable: bool = True) -> None:
        at = self.journal.append(entry, durable=durable) if self.journal is not None else round(time.time(), 3)
        if entry["op"] == "label":
            self.clock.labelled(at)

    # ------------------------------------------------------------ navigation (journaled)

    def goto(self, query: str, doc: str) -> None:
        """Jump to a pair (the overview's jump); recorded so a restart resumes there."""
        self.cursor.goto_pair(*self.marks.check_pair(query, doc))
        self._note_position()

    def _note_position(self) -> None:
        query, doc = self.cursor.current
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

    @property
    def top_k_left(self) -> int | None:
        """Holes left in some run's top k (``order_holes``; None in display order): at 0 the scores are determined."""
        return None if self.cursor.hole_queue is None else self.cursor.hole_queue.remaining(self.marks.labels)

    def order_holes(self, pairs: list[tuple[str, str]] | HoleQueue) -> int:
        """Visit the holes of ``pairs`` first (--holes-first; a queue in its order: --decide): from
        the first of them, or on a resumed session from the pair the annotator was on (the next
        label goes on to the next of them). Returns how many of them are holes. Only navigation."""
        queue = pairs if isinstance(pairs, HoleQueue) else HoleQueue(pairs)
        for query, doc in queue.pairs:
            self.marks.check_pair(query, doc)
        self.cursor.hole_queue = queue
        if not self.marks.complete and not self.resumed:
            self.next_unjudged()
        return queue.remaining(self.marks.labels)

    # ------------------------------------------------------------ output

    def pace(self) -> Pace:
        """The clock's pace, its judgments counted as pairs whose label stands (each once)."""
        return replace(self.clock.pace(), judgments=self.changes.standing_labels())

    def provenance(self) -> dict[str, Any]:
        """Who judged, in which order, against which definition: beside the labels, never in them."""
        data = dict(self.marks.base_provenance)
        data.update(
            {
                "annotator": self.annotator,
                "order": self.order,
                "protocol": self.definition.name,
                **binding_fields(self.definition),
                "pairs": self.marks.total,
                "tool": "rankeval-tui judge",
            }
        )
        if self.seed is not None:
            data["seed"] = self.seed
        else:
            data.pop("seed", None)
        pace = self.pace()
        if pace.judgments and pace.median_seconds is not None:  # else an earlier session's pace stays
            data["pace"] = pace.as_provenance()
        self.marks.imported.provenance(data, self.definition.queries)
        return data

    def snapshot(self) -> QrelsFile:
        """A copy of the state to write, safe to serialise in another thread."""
        return QrelsFile(
            labels=nonempty_rows(self.marks.labels),
            notes=nonempty_rows(self.marks.notes),
            disputed=nonempty_rows(self.marks.disputed),
            provenance=self.provenance(),
        )
