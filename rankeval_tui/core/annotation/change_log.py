"""The change log of a judging session: every edit of a pair, journal first, with undo and redo
across restarts, and the replay that rebuilds the state from the journal's entries.

The entries written here (``label``/``note``/``disputed``, ``undo``, ``redo``) and the ones the
session writes (``goto``, ``base``, ``written``) are read back by ``replay``, one place that
knows the journal's vocabulary in both directions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from rankeval_tui.core.annotation.pair_cursor import PairCursor
from rankeval_tui.core.annotation.pair_labels import Kind, PairLabels, checked_label
from rankeval_tui.core.errors import ContractError, quote


class Change(NamedTuple):
    """One undoable edit of one pair: the value before and after.

    A named tuple, not a frozen dataclass: a resume makes one per journal entry and keeps them
    all (the undo history), and a frozen dataclass costs several times as much to make, which
    adds up at a million judgments (``benchmarks/bench_resume.py``)."""

    kind: Kind
    query: str
    doc: str
    before: Any
    after: Any


class ChangeLog:
    """Applies changes to the labels, keeps the undo and redo stacks, and writes each step to
    the journal (through ``append``) before memory changes, so nothing unrecorded is shown."""

    def __init__(self, marks: PairLabels, cursor: PairCursor, append: Callable[[dict[str, Any]], None]) -> None:
        self.marks = marks
        self.cursor = cursor
        self.append = append
        self.undo_stack: list[Change] = []
        self.redo_stack: list[Change] = []

    def record(self, change: Change) -> Change:
        self.append({"op": change.kind, "q": change.query, "d": change.doc, "v": change.after})
        self._apply(change)
        return change

    def undo(self) -> Change | None:
        """Revert the last change of the whole session (across restarts) and go to its pair."""
        if not self.undo_stack:
            return None
        self.append({"op": "undo"})
        return self._revert()

    def redo(self) -> Change | None:
        if not self.redo_stack:
            return None
        self.append({"op": "redo"})
        return self._reapply()

    def standing_labels(self) -> int:
        """Pairs this session's journal labelled whose label stands: each pair once however
        often it was relabelled, none whose label was undone (those changes are on the redo
        stack, and a label the journal did not make, preloaded or imported, is on neither)."""
        return len({(change.query, change.doc) for change in self.undo_stack if change.kind == "label"})

    def _put(self, change: Change, value: Any, records: int) -> None:
        """Put one side of a change into the labels; a label record counts on its imported mark."""
        self.marks.set(change.kind, change.query, change.doc, value)
        if change.kind == "label":
            self.marks.imported.edited(change.query, change.doc, records)

    def _apply(self, change: Change) -> None:
        self._put(change, change.after, 1)
        self.undo_stack.append(change)
        self.redo_stack.clear()

    def _revert(self) -> Change:
        if not self.undo_stack:
            raise ContractError("undo with nothing to undo")
        change = self.undo_stack.pop()
        self._put(change, change.before, -1)
        if change.kind == "label" and self.cursor.hole_queue is not None:
            self.cursor.hole_queue.reopened()
        self.redo_stack.append(change)
        self.cursor.goto_pair(change.query, change.doc)
        return change

    def _reapply(self) -> Change:
        """Redo the last undone change, then go where the visit went on: to the pair of the
        next change to redo (so redo walks back through the pairs in the order they were
        changed, not in display order), after the last one past a label's pair, as a label does
        (with holes first, ``JudgingState.redo`` journals the next hole instead)."""
        if not self.redo_stack:
            raise ContractError("redo with nothing to redo")
        change = self.redo_stack.pop()
        self._put(change, change.after, 1)
        self.undo_stack.append(change)
        if self.redo_stack:
            self.cursor.goto_pair(self.redo_stack[-1].query, self.redo_stack[-1].doc)
        else:
            self.cursor.goto_pair(change.query, change.doc)
            if change.kind == "label":
                self.cursor.step(1)
        return change

    def replay(self, entry: dict[str, Any]) -> None:
        """Apply one journal entry as it was applied when it was written (no journaling)."""
        op = entry["op"]
        if op in ("label", "note", "disputed"):
            query, doc = self.marks.check_pair(entry.get("q"), entry.get("d"))
            value = entry.get("v")
            if op == "label":
                value = checked_label(value, self.marks.definition.top_grade)
            elif op == "note" and value is not None and type(value) is not str:
                raise ContractError(f"note must be a string or null, got {quote(value)}")
            elif op == "disputed" and type(value) is not bool:
                raise ContractError(f"disputed must be true or false, got {quote(value)}")
            before = self.marks.value_of(op, query, doc)
            self.cursor.goto_pair(query, doc)
            self._apply(Change(op, query, doc, before, value))
            if op == "label":
                self.cursor.step(1)
        elif op == "undo":
            self._revert()
        elif op == "redo":
            self._reapply()
        elif op == "goto":
            self.cursor.goto_pair(*self.marks.check_pair(entry.get("q"), entry.get("d")))
        elif op == "base":
            self.marks.load_base(entry)
            self.marks.review = self.marks.complete
            self.cursor.move_to_first_unjudged()
        elif op == "written":
            self.marks.dirty = False
        else:
            raise ContractError(f"unknown journal entry {quote(op)}")
