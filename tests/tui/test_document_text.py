"""How the judged document is laid out: rows wrapped per line as needed, moves by rows, the
documents prepared ahead, and control characters made visible (no terminal needed)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from rankeval_tui.core.annotation.term_match import Matcher
from rankeval_tui.core.files import load_definition
from rankeval_tui.tui.judge import document_text
from rankeval_tui.tui.judge.document_text import MatchCursor, PreparedDocuments, Rows, prepare, wrap


def rows_of(line: str, width: int) -> list[str]:
    return [line[start:end] for start, end in wrap(line, width)]


def test_wrap_breaks_after_the_last_space_that_fits() -> None:
    assert rows_of("export your settings to PDF", 12) == ["export your", "settings to", "PDF"]
    assert rows_of("short", 12) == ["short"]
    assert rows_of("", 12) == [""]


def test_wrap_breaks_inside_a_word_longer_than_the_width() -> None:
    assert rows_of("msmarco_v2.1_doc_00_12345 x", 10) == ["msmarco_v2", ".1_doc_00_", "12345 x"]


def test_wrap_counts_wide_characters_as_two_cells() -> None:
    assert rows_of("下载操作指南：在设置的下载目录", 10) == ["下载操作指", "南：在设置", "的下载目录"]
    assert rows_of("ab下载", 3) == ["ab", "下", "载"]


def test_rows_move_across_wrapped_lines_and_stop_at_the_ends() -> None:
    rows = Rows(["one two three", "four", "five six seven"])
    assert rows.rows_from((0, 0), 3, 8) == [(0, 0, 7), (0, 8, 13), (1, 0, 4)]
    assert rows.moved((0, 0), 3, 8) == (2, 0)
    assert rows.moved((2, 1), -2, 8) == (1, 0)
    assert rows.moved((0, 1), -5, 8) == (0, 0)
    assert rows.moved((2, 0), 9, 8) == (2, 1)
    assert rows.last_top(3, 8) == (1, 0)  # four, five six, seven: the last row at the bottom
    assert rows.last_top(10, 8) == (0, 0)


def test_only_the_rows_asked_for_are_wrapped() -> None:
    rows = Rows(["word " * 40] * 10_000)
    rows.rows_from((5_000, 0), 20, 80)
    assert len(rows._wraps) == 7  # 200 characters wrap to 3 rows at 80: 7 lines fill 20 rows


def test_prepare_makes_control_characters_visible_and_expands_tabs() -> None:
    document = prepare("a\tb\x1b[31m red\x07\r\nnext", "Ti\x1btle", Matcher.for_query("red"))
    # printable's form (the one every screen and the CLI use): the escape repr shows
    assert document.lines == ["Ti\\x1btle", "", "a   b\\x1b[31m red\\x07", "next"]
    assert document.head == 2
    assert [(m.line, m.start, m.end) for m in document.query_matches] == [(2, 14, 17)]


def test_prepare_shows_bidi_controls_separators_and_lone_surrogates() -> None:
    """Beyond C0/C1: a bidi override reorders what the annotator reads ("Trojan Source"), a line
    separator breaks a line the layout does not know of, and a lone surrogate cannot be written
    to the terminal at all (issue 30 B)."""
    document = prepare("paid\u202e01$ \u2028x\ud800", "T\u2066i", Matcher.for_query("paid"))
    assert document.lines == ["T\\u2066i", "", "paid\\u202e01$ \\u2028x\\ud800"]


def test_match_cursor_steps_by_line_and_wraps() -> None:
    document = prepare("export\nx\nexport export\nx\nexport", None, Matcher.for_query("export"))
    cursor = MatchCursor(document.query_matches)
    assert cursor.step(1, -1) == (0, False)
    assert cursor.step(1, 0) == (2, False)  # the second export on line 2 is the same passage
    assert cursor.step(1, 0) == (4, False)
    assert cursor.step(1, 0) == (0, True)
    assert cursor.step(-1, 0) == (4, True)
    assert cursor.step(-1, 0) == (2, False)
    assert cursor.current == 1  # the first match of line 2
    assert cursor.search("X", document.lines, document.head) == 6  # found anywhere: in export too
    assert cursor.caption() == "“X”: 6 · m/M · / find"
    assert cursor.search("", document.lines, document.head) == 4
    assert cursor.caption() == "query terms: 4 · m/M · / find"


def test_a_document_of_three_screens_opens_at_its_start_a_longer_one_on_its_passage() -> None:
    """The judging box at 80x24 is 78x13: 39 rows fit in three screens. A 39-line page opens on
    its first line (its NAME) though its best passage is further down; at 120 lines it jumps."""
    from rankeval_tui.core.annotation.term_match import Matcher
    from rankeval_tui.tui.judge.document_text import Rows, opening_top, prepare

    def opening(lines: int) -> tuple[int, int]:
        text = ["filler"] * lines
        text[lines // 2] = "Exporting settings to PDF"
        document = prepare("\n".join(text), None, Matcher.for_query("export settings pdf"))
        return opening_top(document, Rows(document.lines), 13, 78)

    assert opening(39) == (0, 0)
    assert opening(120) == (58, 0)  # line 60 (0-based) two rows below the top


def test_a_document_a_worker_is_preparing_is_waited_for_not_prepared_twice(
    seed_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The drill-down prepares neighbours in a worker thread; a key that shows one of them
    meanwhile waits for that preparation instead of doing it again on the UI thread."""
    definition = load_definition(seed_dir)
    documents = PreparedDocuments(definition, lambda: [])
    started, release = threading.Event(), threading.Event()
    preparers: list[str] = []
    real_prepare = document_text.prepare

    def slow_prepare(*args, **kwargs):
        preparers.append(threading.current_thread().name)
        started.set()
        release.wait(10)
        return real_prepare(*args, **kwargs)

    monkeypatch.setattr(document_text, "prepare", slow_prepare)
    pair = (next(iter(definition.queries)), next(iter(definition.documents)))
    ahead = threading.Thread(target=documents.get, args=pair, name="ahead")  # as a worker preparing ahead
    ahead.start()
    assert started.wait(10)
    shown: list[object] = []
    reader = threading.Thread(target=lambda: shown.append(documents.get(*pair)), name="reader")
    reader.start()
    reader.join(0.5)  # the reader has asked for the document by now, and waits
    assert reader.is_alive() and preparers == ["ahead"]
    release.set()
    ahead.join(10)
    reader.join(10)
    assert preparers == ["ahead"] and shown == [documents.get(*pair)]


def test_neighbours_skip_a_query_whose_pool_is_empty() -> None:
    """A pooled protocol may give a query an empty pool: the pair before or after the current one
    is then in no document of that query (it raised IndexError)."""
    from types import SimpleNamespace

    from rankeval_tui.tui.judge.document_text import neighbours

    docs_of = {"q:1": ["d1"], "q:2": [], "q:3": ["d3", "d4"]}
    cursor = SimpleNamespace(
        current=("q:1", "d1"), docs_of=docs_of, query_ids=["q:1", "q:2", "q:3"], query_index=0, doc_index=0
    )
    assert neighbours(SimpleNamespace(cursor=cursor)) == []  # type: ignore[arg-type]
    cursor.current, cursor.query_index = ("q:3", "d3"), 2
    assert neighbours(SimpleNamespace(cursor=cursor)) == [("q:3", "d4")]  # type: ignore[arg-type]
