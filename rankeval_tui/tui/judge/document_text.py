"""The judged document as the screen lays it out: display lines, wrapped rows, moves by rows,
and the documents prepared ahead. No widget here (``document_view`` draws), so it is tested alone.

Why rows are counted from a top line and never for the whole document: wrapping every line of a
long manual page kept every key waiting (``benchmarks/bench_judging_latency.py``); here only the
rows a move crosses or the box shows are wrapped (and kept, per line, until the width changes).
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rich.cells import cell_len, get_character_cell_size

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.annotation.term_match import CorpusTerms, Match, Matcher, best_passage
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.terminal_text import printable

PASSAGE_LINES = 10
"""The stretch of source lines a best passage is scored over (a screenful at 80x24)."""
CONTEXT = 2
"""Rows shown above a passage jumped to, so the sentence leading into it is in view."""
Row = tuple[int, int, int]
"""One screen row: (display line, start, end) characters of that line."""
Spans = dict[int, list[tuple[int, int, str]]]
"""Per display line, the (start, end, component class) spans to paint."""


@dataclass(frozen=True)
class PreparedDocument:
    """A document split into display lines with its query matches found: everything about it
    that costs time in proportion to its length, done once (and ahead of time for the pairs
    next to the current one, while the annotator reads), so showing it costs only a screenful."""

    lines: list[str]
    head: int  # display lines before the body: the title's lines and a blank one
    query_matches: list[Match]  # in the body, numbered as display lines
    spans: Spans  # the title's and the body's query matches, painted
    best: tuple[int, float] | None  # best_passage of query_matches: (display line, weight)


def prepare(
    text: str, title: str | None, matcher: Matcher, weights: Mapping[int, float] | None = None
) -> PreparedDocument:
    """Split ``text`` (tabs expanded, control characters made visible by ``printable``, the one
    terminal-safe form every screen uses: ``\\x1b``, bidi controls and lone surrogates too) under
    its ``title`` and find ``matcher``'s terms in both; ``weights`` (the corpus's IDF,
    ``CorpusTerms``; else every term alike) choose the best passage."""
    body = printable(text.replace("\r\n", "\n").expandtabs(4), multiline=True).split("\n")
    heading = printable(title, multiline=True).split("\n") + [""] if title else []
    head = len(heading)
    title_matches = matcher.find(heading[:-1]) if heading else []
    query_matches = [Match(m.line + head, m.start, m.end, m.term) for m in matcher.find(body)]
    spans = painted(title_matches + query_matches, "document--match")
    lines = heading + body
    weights = weights if weights is not None else dict.fromkeys(range(len(matcher.terms)), 1.0)
    return PreparedDocument(
        lines, head, query_matches, spans, best_passage(query_matches, PASSAGE_LINES, weights, lines)
    )


def opening_top(document: PreparedDocument, rows: Rows, height: int, width: int) -> tuple[int, int]:
    """Where a document opens in a box ``height`` rows high: at its start when it fits in about
    three screens (the annotator reads it whole, its NAME line first) or when its best passage
    is on the first screen; else with the best passage ``CONTEXT`` rows below the top."""
    if document.best is None or len(rows.rows_from((0, 0), 3 * height + 1, width)) <= 3 * height:
        return (0, 0)
    line = document.best[0]
    first_screen = rows.rows_from((0, 0), height, width)
    if first_screen and line <= first_screen[-1][0]:
        return (0, 0)
    return min(rows.moved((line, 0), -CONTEXT, width), rows.last_top(height, width))


def painted(matches: list[Match], kind: str) -> Spans:
    """``matches`` as spans of component class ``kind``, per display line; overlapping ones (a
    Chinese query's bigrams: 重新, 新下, 下载) joined into one, so a run is painted whole."""
    spans: Spans = {}
    for match in matches:
        line = spans.setdefault(match.line, [])
        if line and match.start < line[-1][1] and match.start >= line[-1][0]:
            line[-1] = (line[-1][0], max(line[-1][1], match.end), kind)
        else:
            line.append((match.start, match.end, kind))
    return spans


def wrap(line: str, width: int) -> list[tuple[int, int]]:
    """The (start, end) characters of each row ``line`` takes at ``width`` cells: broken after the
    last space that fits, or inside a word (or a CJK run) longer than the width. Never empty."""
    if len(line) <= width and (line.isascii() or cell_len(line) <= width):
        return [(0, len(line))]
    width = max(1, width)
    rows: list[tuple[int, int]] = []
    position, size, ascii_only = 0, len(line), line.isascii()
    while position < size:
        if ascii_only:
            end = min(size, position + width)
        else:
            cells, end = 0, position
            while end < size and cells + (step := get_character_cell_size(line[end])) <= width:
                cells, end = cells + step, end + 1
            end = max(end, position + 1)  # a character wider than the box still takes a row
        if end < size:
            space = line.rfind(" ", position, end + 1)
            if space > position:
                rows.append((position, space))
                position = space + 1
                continue
        rows.append((position, end))
        position = end
    return rows or [(0, 0)]


class Rows:
    """A document's display lines wrapped at one width, one line at a time as they are needed.

    A place in the document is (display line, wrapped row of it); moving by screen rows wraps only
    the lines crossed."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.width = 0
        self._wraps: dict[int, list[tuple[int, int]]] = {}

    def wrapped(self, line: int, width: int) -> list[tuple[int, int]]:
        if width != self.width:
            self._wraps.clear()
            self.width = width
        rows = self._wraps.get(line)
        if rows is None:
            rows = self._wraps[line] = wrap(self.lines[line], width)
        return rows

    def rows_from(self, top: tuple[int, int], count: int, width: int) -> list[Row]:
        """Up to ``count`` screen rows from ``top`` down."""
        rows: list[Row] = []
        line, row = top
        while len(rows) < count and line < len(self.lines):
            for start, end in self.wrapped(line, width)[row:]:
                rows.append((line, start, end))
                if len(rows) == count:
                    break
            line, row = line + 1, 0
        return rows

    def moved(self, place: tuple[int, int], rows: int, width: int) -> tuple[int, int]:
        """``place`` moved by ``rows`` screen rows (negative: up), stopping at either end."""
        line, row = place
        while rows > 0:
            if row + 1 < len(self.wrapped(line, width)):
                row += 1
            elif line + 1 < len(self.lines):
                line, row = line + 1, 0
            else:
                break
            rows -= 1
        while rows < 0:
            if row > 0:
                row -= 1
            elif line > 0:
                line -= 1
                row = len(self.wrapped(line, width)) - 1
            else:
                break
            rows += 1
        return line, row

    def last_top(self, height: int, width: int) -> tuple[int, int]:
        """The top that puts the last row at the bottom of a box ``height`` rows high (or (0, 0))."""
        if not self.lines:
            return (0, 0)
        last = (len(self.lines) - 1, len(self.wrapped(len(self.lines) - 1, width)) - 1)
        return max((0, 0), self.moved(last, -(max(1, height) - 1), width))


def position_caption(rows: list[Row], lines: list[str], head: int) -> str:
    """``line 1,173 of 6,810 · 17%``: the body line at the top of ``rows`` (the view's rows), and
    how far down the bottom is; ``55 lines · all`` when the whole body is in view."""
    total = len(lines) - head
    if not rows or total <= 0:
        return ""
    top = max(0, rows[0][0] - head) + 1
    bottom = max(0, rows[-1][0] - head) + 1
    if top == 1 and bottom >= total and rows[-1][2] >= len(lines[-1]):
        return f"{total:,} line{'s' if total != 1 else ''} · all"
    return f"line {top:,} of {total:,} · {100 * bottom // total}%"


class MatchCursor:
    """What ``m``/``M`` step through: the query's matches, or those of a text searched with ``/``
    (display lines, reading order), and which one the view was last taken to."""

    def __init__(self, query_matches: list[Match]) -> None:
        self.query_matches = query_matches
        self.found: list[Match] = []
        self.searched: str | None = None
        self.current: int | None = None

    @property
    def targets(self) -> list[Match]:
        return self.found if self.searched is not None else self.query_matches

    def current_match(self) -> Match | None:
        return self.targets[self.current] if self.current is not None else None

    def search(self, text: str, lines: list[str], head: int) -> int:
        """Search ``text`` in the body (``lines`` after the first ``head``); an empty text goes
        back to the query's matches. Returns how many matches there are now."""
        self.current = None
        if not text.strip():
            self.searched, self.found = None, []
            return len(self.query_matches)
        self.searched = text.strip()
        found = Matcher.for_text(text).find(lines[head:])
        self.found = [Match(m.line + head, m.start, m.end, 0) for m in found]
        return len(self.found)

    def step(self, direction: int, from_line: int) -> tuple[int, bool] | None:
        """The display line of the next (1) or previous (-1) match on another line than the
        current match (else than ``from_line``), and whether that wrapped round the end."""
        targets = self.targets
        if not targets:
            return None
        if self.current is not None:
            from_line = targets[self.current].line
        lines = [m.line for m in targets]
        if direction > 0:
            index = bisect_left(lines, from_line + 1)
            wrapped = index == len(targets)
            index = 0 if wrapped else index
        else:
            index = bisect_left(lines, from_line) - 1
            wrapped = index < 0
            index = len(targets) - 1 if wrapped else bisect_left(lines, lines[index])
        self.current = index
        return targets[index].line, wrapped

    def caption(self) -> str:
        """``query terms: 3 of 12 · m/M · / find``: what ``m`` steps through, and where it is."""
        targets = self.targets
        what = f"“{self.searched}”" if self.searched is not None else "query terms"
        if not targets:
            return f"no match for {what} · / find" if self.searched is not None else "no query term here · / find"
        where = f"{self.current + 1:,} of {len(targets):,}" if self.current is not None else f"{len(targets):,}"
        return f"{what}: {where} · m/M · / find"


MISSING_TEXT = "(no text for this document in the protocol: add it with rankeval-tui grow PROTOCOL --corpus FILE)"
"""Shown instead of a pooled document's text when the protocol has none (never an empty page)."""

PREPARED_KEPT = 4
"""Documents kept prepared: the current pair, the next, the previous, and the one just left."""


class PreparedDocuments:
    """A protocol's documents, prepared for one query each on first need and kept for the pairs
    around the current one (a label shows the next one, undo and ← the previous). Shared by the
    judging, adjudication and drill-down screens: ``around`` says which pairs are next to the
    one shown. ``get`` may be called from a worker thread preparing ahead and from the UI
    thread at once: a document is prepared once, and a second caller waits for the first."""

    def __init__(
        self, definition: ProtocolDefinition, around: Callable[[], list[tuple[str, str]]], kept: int = PREPARED_KEPT
    ) -> None:
        self.definition = definition
        self.around = around
        self.kept = kept
        self.corpus = CorpusTerms(definition.documents.values())
        self._matcher: tuple[str | None, Matcher, dict[int, float]] = (None, Matcher((), prefix=True), {})
        self._matcher_lock = threading.Lock()
        self._kept: dict[tuple[str, str], PreparedDocument] = {}
        self._underway: dict[tuple[str, str], threading.Event] = {}
        self._lock = threading.Lock()  # guards _kept and _underway (held briefly, never while preparing)
        self.ahead = True
        """Whether the pairs around the current one are prepared ahead (off only to benchmark the cold path)."""

    def get(self, query: str, doc: str) -> PreparedDocument:
        """``doc`` prepared for ``query``: kept from before, else waited for while another thread
        prepares it, else prepared now (and kept, the least recently used one leaving)."""
        pair = (query, doc)
        while True:
            with self._lock:
                found = self._kept.pop(pair, None)
                if found is not None:
                    self._kept[pair] = found  # now the most recently used
                    return found
                underway = self._underway.get(pair)
                if underway is None:
                    underway = self._underway[pair] = threading.Event()
                    break
            underway.wait()  # kept when it is set (or prepared here if that failed)
        try:
            found = self._prepare(query, doc)
            with self._lock:
                self._kept[pair] = found
                while len(self._kept) > self.kept:
                    del self._kept[next(iter(self._kept))]
        finally:
            with self._lock:
                del self._underway[pair]
            underway.set()
        return found

    def _prepare(self, query: str, doc: str) -> PreparedDocument:
        definition = self.definition
        with self._matcher_lock:
            if self._matcher[0] != query:  # most moves stay within one query
                matcher = Matcher.for_query(definition.queries[query].text or "")
                self._matcher = (query, matcher, self.corpus.weights(matcher))
            _, matcher, weights = self._matcher
        text = definition.documents.get(doc)
        if text is None:  # a pooled protocol scores without texts; an annotator needs them
            text = MISSING_TEXT
        return prepare(text, definition.titles.get(doc), matcher, weights)

    def prepare_ahead(self, pairs: list[tuple[str, str]], cancelled: Callable[[], bool] = lambda: False) -> None:
        """Prepare ``pairs`` in order, stopping early once ``cancelled`` (a worker thread's
        check: the reader moved on and other pairs are next now)."""
        for pair in pairs if self.ahead else ():
            if cancelled():
                return
            self.get(*pair)

    def prepare_neighbours(self) -> None:
        self.prepare_ahead(self.around())


def neighbours(session: JudgingSession) -> list[tuple[str, str]]:
    """The pairs just after and just before the current one in display order (a label moves to
    the next; with ``--holes-first`` it may jump elsewhere, and that pair is prepared when shown)."""
    found = []
    query, docs = session.cursor.current[0], session.cursor.docs_of[session.cursor.current[0]]
    qi, di = session.cursor.query_index, session.cursor.doc_index
    ids, docs_of = session.cursor.query_ids, session.cursor.docs_of
    if di + 1 < len(docs):
        found.append((query, docs[di + 1]))
    elif qi + 1 < len(ids) and docs_of[ids[qi + 1]]:  # a pooled query's pool may be empty
        found.append((ids[qi + 1], docs_of[ids[qi + 1]][0]))
    if di > 0:
        found.append((query, docs[di - 1]))
    elif qi > 0 and docs_of[ids[qi - 1]]:
        found.append((ids[qi - 1], docs_of[ids[qi - 1]][-1]))
    return found
