"""The judging session's parts without files: the cursor, the labels and the change log work on
their own (no lock, no journal on disk), and replaying what the change log wrote rebuilds the
state it wrote it from, cursor included."""

from __future__ import annotations

from typing import Any

from rankeval_tui.core.annotation.change_log import Change, ChangeLog
from rankeval_tui.core.annotation.pair_cursor import PairCursor
from rankeval_tui.core.annotation.pair_labels import PairLabels
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition, Query

DOCS = ("docs/export.md", "msmarco_v2.1_doc_00_12345", "faq#3")
QUERIES = ("q:1001", "q:1002")


def definition() -> ProtocolDefinition:
    return ProtocolDefinition(
        name="help-docs",
        k=2,
        split="dev",
        relevance="1 if the document answers the question, else 0",
        documents={doc: f"text of {doc}" for doc in DOCS},
        queries={query: Query(text=f"need {query}", split="dev") for query in QUERIES},
    )


def parts(journal: list[dict[str, Any]]) -> tuple[PairLabels, PairCursor, ChangeLog]:
    marks = PairLabels(definition())
    cursor = PairCursor(marks.definition, "corpus", None, marks)
    return marks, cursor, ChangeLog(marks, cursor, journal.append)


def test_the_cursor_crosses_query_boundaries_and_stops_at_the_ends() -> None:
    _, cursor, _ = parts([])
    cursor.step(4)
    assert cursor.current == ("q:1002", "msmarco_v2.1_doc_00_12345")
    cursor.step(10)
    assert cursor.current == ("q:1002", "faq#3")
    cursor.step(-10)
    assert cursor.current == ("q:1001", "docs/export.md")


def test_next_unjudged_skips_judged_pairs_and_wraps() -> None:
    marks, cursor, _ = parts([])
    for doc in DOCS:
        marks.set("label", "q:1001", doc, 0)
    marks.set("label", "q:1002", "docs/export.md", 1)
    cursor.goto_pair("q:1002", "faq#3")
    assert cursor.next_unjudged()
    assert cursor.current == ("q:1002", "msmarco_v2.1_doc_00_12345")
    marks.set("label", "q:1002", "msmarco_v2.1_doc_00_12345", 0)
    marks.set("label", "q:1002", "faq#3", 1)
    assert marks.complete and not cursor.next_unjudged()


def test_undo_and_redo_keep_the_counts_and_journal_each_step_first() -> None:
    journal: list[dict[str, Any]] = []
    marks, cursor, changes = parts(journal)
    changes.record(Change("label", "q:1001", "faq#3", None, 1))
    assert (marks.judged, marks.judged_in["q:1001"]) == (1, 1)
    assert changes.undo() == Change("label", "q:1001", "faq#3", None, 1)
    assert (marks.judged, marks.label_of("q:1001", "faq#3")) == (0, None)
    assert changes.redo() is not None and marks.label_of("q:1001", "faq#3") == 1
    assert changes.redo() is None  # nothing left to redo: nothing journaled either
    assert [entry["op"] for entry in journal] == ["label", "undo", "redo"]


def test_replaying_the_journal_rebuilds_labels_notes_disputes_stacks_and_cursor() -> None:
    journal: list[dict[str, Any]] = []
    marks, cursor, changes = parts(journal)
    changes.record(Change("label", "q:1001", "docs/export.md", None, 1))
    changes.record(Change("note", "q:1001", "docs/export.md", None, "the export steps"))
    changes.record(Change("disputed", "q:1002", "faq#3", False, True))
    changes.record(Change("label", "q:1002", "faq#3", None, 0))
    changes.undo()
    again_marks, again_cursor, again = parts([])
    for entry in journal:
        again.replay(entry)
    assert (again_marks.labels, again_marks.notes, again_marks.disputed) == (marks.labels, marks.notes, marks.disputed)
    assert (again_marks.judged, again.undo_stack, again.redo_stack) == (
        1,
        changes.undo_stack,
        changes.redo_stack,
    )
    assert again_cursor.current == cursor.current == ("q:1002", "faq#3")
