"""Reading a judging journal fast changes nothing it reads (issue 32 item 3).

``journal.decoded`` scans a line with json's C scanner when the line is one JSON value from its
first character to its last, and hands anything else to ``json.loads``: on any line it must give
what ``json.loads`` gives, or raise what it raises. Replay must take fields it does not know
(the ``at`` timestamp the judging screen adds) as it did before, and give the same state whatever
the collector does meanwhile.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval_tui.core.annotation.change_log import Change
from rankeval_tui.core.annotation.journal import Journal, decoded
from rankeval_tui.core.annotation.judging import JudgingSession, journal_progress
from tests.core.test_judging_parts import DOCS, QUERIES, definition, parts

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
edits = st.sampled_from(["", " ", "\t", "\r", ",", "]", "}", "{", '"', "\\", "x", "1", "\ufeff", "\u00e9", "\x00"])


@st.composite
def lines(draw: st.DrawFn) -> bytes:
    """A JSON line as ``append`` writes it, often damaged: text before or after it, a cut, a
    second value, bytes that are not UTF-8."""
    text = json.dumps(draw(json_values), ensure_ascii=draw(st.booleans()), separators=(",", ":"))
    kind = draw(st.sampled_from(["as written", "prefix", "suffix", "cut", "two values", "bytes"]))
    if kind == "prefix":
        text = draw(edits) + text
    elif kind == "suffix":
        text = text + draw(edits)
    elif kind == "cut":
        text = text[: draw(st.integers(0, len(text)))]
    elif kind == "two values":
        text = text + draw(st.sampled_from(["", " ", ","])) + text
    data = text.encode("utf-8")
    if kind == "bytes":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xe2\x80"])) + data[at:]
    return data


def reference(line: bytes) -> tuple[str, Any]:
    try:
        return "value", json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        return type(error).__name__, str(error)


@settings(max_examples=1500, deadline=None)
@given(lines())
def test_decoded_is_json_loads_on_any_line(line: bytes) -> None:
    try:
        ours: tuple[str, Any] = ("value", decoded(line))
    except (UnicodeDecodeError, ValueError) as error:
        ours = (type(error).__name__, str(error))
    assert ours == reference(line)


@pytest.mark.parametrize(
    "line", [b'{"op":"undo"}', b' {"op":"undo"}', b'{"op":"undo"} ', b'{"op":"undo"}{}', b"", b"\xef\xbb\xbf{}", b"nul"]
)
def test_decoded_examples(line: bytes) -> None:
    try:
        ours: tuple[str, Any] = ("value", decoded(line))
    except (UnicodeDecodeError, ValueError) as error:
        ours = (type(error).__name__, str(error))
    assert ours == reference(line)


def journal_of_changes() -> list[dict[str, Any]]:
    """What a session's change log writes for some labels, a note, a dispute, an undo and a redo."""
    journal: list[dict[str, Any]] = []
    _, _, changes = parts(journal)
    for i, (query, doc) in enumerate((q, d) for q in QUERIES for d in DOCS):
        changes.record(Change("label", query, doc, None, i % 2))
    changes.record(Change("note", QUERIES[0], DOCS[1], None, "see §2"))
    changes.record(Change("disputed", QUERIES[1], DOCS[0], False, True))
    changes.undo()
    changes.undo()
    changes.redo()
    return journal


def state_after(entries: list[dict[str, Any]]) -> tuple[Any, ...]:
    marks, cursor, changes = parts([])
    for entry in entries:
        changes.replay(entry)
    return (
        marks.labels,
        marks.notes,
        marks.disputed,
        marks.judged,
        changes.undo_stack,
        changes.redo_stack,
        cursor.current,
    )


def test_replay_takes_an_at_timestamp_on_every_entry_as_before() -> None:
    """The judging screen stamps each entry with ``at`` (unix seconds); replay ignores it."""
    entries = journal_of_changes()
    stamped = [{**entry, "at": 1765000000.125 + i} for i, entry in enumerate(entries)]
    assert state_after(stamped) == state_after(entries)


def write_journal(path: Path, entries: list[dict[str, Any]]) -> None:
    from rankeval_tui.core.annotation.binding import binding_fields
    from rankeval_tui.core.annotation.journal import JOURNAL_VERSION

    header = {
        "op": "start",
        "version": JOURNAL_VERSION,
        "protocol": definition().name,
        **binding_fields(definition()),
        "order": "corpus",
        "seed": None,
        "annotator": "test",
        "pairs": definition().pair_count,
    }
    text = "".join(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n" for entry in [header, *entries])
    path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("collector", ["on", "off"])
def test_a_resumed_session_is_the_replayed_state_and_the_collector_is_restored(tmp_path: Path, collector: str) -> None:
    """Reading and replaying pause the collector (``core.gc_pause``): the state is the same, and
    the collector is back as the caller had it."""
    entries = journal_of_changes()
    write_journal(tmp_path / "qrels.toml.journal", entries)
    (gc.enable if collector == "on" else gc.disable)()
    try:
        session = JudgingSession.open(definition(), tmp_path / "qrels.toml")
        assert gc.isenabled() == (collector == "on")
        try:
            got = (
                session.marks.labels,
                session.marks.notes,
                session.marks.disputed,
                session.marks.judged,
                session.changes.undo_stack,
            )
            want = state_after(entries)
            assert got == want[:5]
            assert session.cursor.current == want[6]
        finally:
            session.close()
        progress = journal_progress(definition(), tmp_path / "qrels.toml")
        assert progress is not None and progress.marks.labels == want[0]
        assert len(Journal.read(tmp_path / "qrels.toml.journal").entries) == len(entries)
    finally:
        gc.enable()
