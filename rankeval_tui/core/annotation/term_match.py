"""Where a query's terms (or a searched text) occur in a document: the judging screen's reading
aid, pure and without a terminal.

Why here and not in the widget: what counts as a match (folding, stemming, Chinese bigrams) is a
rule annotators rely on, so it is tested without Textual, and the screen only paints the spans.
A reading aid only: nothing here is ever used to order, filter or label pairs (blind judging).

The rules (docs/judging.md):
- Text is folded one character at a time: NFKC (full-width ``ＰＤＦ`` reads ``PDF``) then casefold
  (``Straße`` reads ``strasse``). Per character, so an offset in the folded text maps back to the
  character it came from; a combining accent written as its own character stays its own.
- A query word in a spaced script matches any document word that starts with its stem
  (``exporting`` -> ``export``: export, exports, exported); very common English words
  (``how``, ``the``) are not terms.
- Chinese and Japanese have no spaces: each run of their characters in the query gives its
  character bigrams (``重新下载`` -> 重新, 新下, 下载), a single character standing alone gives itself.
- A whole document is matched with one regular expression over its folded text (C speed), so
  a long document costs one search in C, not a Python step per word.
"""

from __future__ import annotations

import math
import re
import unicodedata
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import accumulate
from typing import NamedTuple

STOPWORDS = frozenset(
    "a an and are as at be by can do does for from how i if in into is it its me my of on or so "
    "that the their then there these this to was what when where which who why will with you your".split()
)
"""English words too common to point at evidence; a query of only these keeps them all."""

CJK_FUNCTION_CHARACTERS = frozenset("的了吗呢么怎样如何什我你")
"""Chinese characters that mostly build questions and grammar (怎样, 的): a bigram holding one
points at no evidence (``怎样重新下载`` keeps 重新, 新下, 下载)."""

SUFFIXES = (
    ("ations", ""),
    ("ation", ""),
    ("ings", ""),
    ("ing", ""),
    ("ies", ""),
    ("ied", ""),
    ("sses", "ss"),
    ("xes", "x"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("ed", ""),
    ("ly", ""),
    ("ss", "ss"),
    ("s", ""),
    ("y", ""),
    ("e", ""),
)
"""A light English stemmer: the first suffix that leaves at least three letters is cut, then a
final ``e`` (so a plural and its singular agree: ``panes``, ``pane`` -> ``pan``), and the rest is
matched as a prefix (``configure`` -> ``configur``: configure, configured, configuration)."""

CJK = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
"""Han, Hiragana, Katakana (full-width forms fold to these): scripts written without spaces."""
SEGMENT = re.compile(rf"[{CJK}]+|[^\W_{CJK}]+")
LATIN = "0-9a-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff"
"""Letters that continue a word (Latin, Greek, Cyrillic): a Chinese character right after an
English term is not part of it (``PDF文件``: ``pdf`` matches ``pdf`` only)."""


def is_cjk(text: str) -> bool:
    """Whether ``text`` starts with a character of a script written without spaces."""
    return bool(re.match(rf"[{CJK}]", text))


@lru_cache(maxsize=65536)
def fold_char(char: str) -> str:
    """One character as matching sees it: NFKC, then casefold (may be longer than one)."""
    return unicodedata.normalize("NFKC", char).casefold()


def fold(text: str) -> str:
    """``text`` folded character by character (see the module's rules)."""
    if text.isascii():
        return text.lower()
    return text.translate({ord(c): fold_char(c) for c in set(text)})


def stem(word: str) -> str:
    """``word`` (folded) without its English inflection, for prefix matching."""
    if len(word) <= 3 or not word.isascii():
        return word
    for suffix, replacement in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) + len(replacement) >= 3:
            word = word[: len(word) - len(suffix)] + replacement
            break
    if word.endswith("e") and len(word) > 3:  # a plural and its singular: panes, pane -> pan
        word = word[:-1]
    return word


def query_terms(query: str) -> tuple[str, ...]:
    """The terms of ``query`` to look for: stems of its words, bigrams of its CJK runs.

    Folded, without duplicates, in the query's order; stopwords only when nothing else is left."""
    terms: list[str] = []
    for segment in SEGMENT.findall(fold(query)):
        if is_cjk(segment):
            grams = [segment[i : i + 2] for i in range(len(segment) - 1)] if len(segment) > 1 else [segment]
            terms += [g for g in grams if not CJK_FUNCTION_CHARACTERS & set(g)] or grams
        else:
            terms.append(segment)
    content = [t for t in terms if is_cjk(t) or t not in STOPWORDS] or terms
    return tuple(dict.fromkeys(t if is_cjk(t) else stem(t) for t in content))


class Match(NamedTuple):
    """One occurrence: ``line`` (0-based), the characters ``start:end`` of that line, and which
    term (its index in the matcher's terms; 0 for a searched text)."""

    line: int
    start: int
    end: int
    term: int


class Matcher:
    """Finds terms in text, as one regular expression over the folded text."""

    def __init__(self, terms: tuple[str, ...], *, prefix: bool) -> None:
        self.terms = terms
        self.index = {term: i for i, term in enumerate(terms)}
        self.pattern: re.Pattern[str] | None = None
        self.group_terms: list[int] = [0]  # the term each capturing group of ``pattern`` matches
        if prefix:  # words from a word's start: long stems as prefixes, short words whole; CJK anywhere
            stems = [t for t in terms if not is_cjk(t) and len(t) >= 3]
            short = [t for t in terms if not is_cjk(t) and len(t) < 3]
            cjk = [t for t in terms if is_cjk(t)]
            parts = [rf"(?<![{LATIN}])(?:{self.alternation(stems)})[{LATIN}]*"] if stems else []
            parts += [rf"(?<![{LATIN}])(?:{self.alternation(short)})(?![{LATIN}])"] if short else []
            parts += [f"(?=(?:{self.alternation(cjk)}))"] if cjk else []  # zero-width: bigrams overlap
            pattern = "|".join(parts)
        else:
            pattern = self.alternation(list(terms))
        if pattern:
            self.pattern = re.compile(pattern)

    def alternation(self, terms: list[str]) -> str:
        """Any of ``terms``, longest first (so the longest one wins), each its own group so a
        match says which term it is (``lastindex``) without comparing strings."""
        ordered = sorted(terms, key=len, reverse=True)
        self.group_terms += [self.index[t] for t in ordered]
        return "|".join(f"({re.escape(t)})" for t in ordered)

    @classmethod
    def for_query(cls, query: str) -> Matcher:
        return cls(query_terms(query), prefix=True)

    @classmethod
    def for_text(cls, text: str) -> Matcher:
        """A literal search (``/``): the folded text anywhere, inside words too."""
        needle = fold(text.strip())
        return cls((needle,) if needle else (), prefix=False)

    def find(self, lines: list[str]) -> list[Match]:
        """Every match in ``lines`` (a document split at newlines), in reading order."""
        if self.pattern is None or not lines:
            return []
        text = "\n".join(lines)
        folded = fold(text)
        starts = list(accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
        if len(folded) != len(text):  # a character folded to several: match line by line, mapped
            return [m for number, line in enumerate(lines) for m in self.find_in_line(number, line)]
        found = []
        group_terms = self.group_terms
        for hit in self.pattern.finditer(folded):
            start, end = hit.span() if hit.end() > hit.start() else hit.span(hit.lastindex or 0)
            if end == start:
                continue
            line = bisect_right(starts, start) - 1
            base = starts[line]
            found.append(Match(line, start - base, end - base, group_terms[hit.lastindex or 0]))
        return found

    def find_in_line(self, number: int, line: str) -> list[Match]:
        """Matches in one line whose folded form differs in length: offsets mapped back."""
        assert self.pattern is not None
        folded_parts = [fold_char(c) for c in line]
        origin = [i for i, part in enumerate(folded_parts) for _ in part]
        origin.append(len(line))
        folded = "".join(folded_parts)
        spans = [
            (hit.span() if hit.end() > hit.start() else hit.span(hit.lastindex or 0), hit.lastindex or 0)
            for hit in self.pattern.finditer(folded)
        ]
        return [
            Match(number, origin[start], origin[end - 1] + 1, self.group_terms[group])
            for (start, end), group in spans
            if end > start
        ]


class CorpusTerms:
    """How many of a protocol's documents hold each query term: the inverse document frequency
    that weighs a passage.

    Why over the corpus and not within the document: within one manual, a term on few lines
    (``side``, ``instead``) looked rare and won the opening passage, while the query's point
    (``expandtab``, ``history``) is common in its own page and rare across pages (measured in
    docs/benchmarks.md). The documents are folded and joined once, on the first query; each
    query's terms are then counted with its matcher in one pass over them."""

    def __init__(self, texts: Iterable[str]) -> None:
        self._texts = list(texts)
        self._joined: tuple[str, list[int]] | None = None
        self._frequency: dict[str, int] = {}

    def joined(self) -> tuple[str, list[int]]:
        if self._joined is None:
            folded = [fold(text) for text in self._texts]
            self._joined = ("\x00".join(folded), list(accumulate((len(t) + 1 for t in folded[:-1]), initial=0)))
        return self._joined

    def weights(self, matcher: Matcher) -> dict[int, float]:
        """Each term's IDF, by its index in ``matcher.terms``: log(1 + (N - n + 0.5) / (n + 0.5))."""
        unknown = [term for term in matcher.terms if term not in self._frequency]
        if unknown and matcher.pattern is not None:
            text, starts = self.joined()
            holding: dict[int, set[int]] = {}
            for hit in matcher.pattern.finditer(text):
                holding.setdefault(matcher.group_terms[hit.lastindex or 0], set()).add(
                    bisect_right(starts, hit.start())
                )
            for term in unknown:
                self._frequency[term] = len(holding.get(matcher.index[term], ()))
        total = len(self._texts)
        return {
            i: math.log(1 + (total - self._frequency.get(term, 0) + 0.5) / (self._frequency.get(term, 0) + 0.5))
            for i, term in enumerate(matcher.terms)
        }


WORD = re.compile(r"[^\W\d_]{2,}")
"""A word: a term with none before it on its line starts the line (after an indent, quotes,
dashes or a short option: ``-e, --expandtab``, ``'expandtab'``, ``11. Patents``)."""
HEADING_CELLS = 40
"""A line this short (without its indent) may be a heading or an option's name."""


def is_heading(lines: Sequence[str], number: int) -> bool:
    """Whether line ``number`` introduces what follows: short, or indented less than the next
    non-blank line (``-v, --invert-match``, ``HISTORY EXPANSION``, ``'expandtab' 'et'``)."""
    return len(lines[number].strip()) <= HEADING_CELLS or body_follows(lines, number)


def body_follows(lines: Sequence[str], number: int) -> bool:
    """Whether the next non-blank line (of the next three) is indented more than line ``number``."""
    following = next((lines[i] for i in range(number + 1, min(len(lines), number + 4)) if lines[i].strip()), "")
    return bool(following) and indentation(following) > indentation(lines[number])


def line_bonus(matches: list[Match], lines: Sequence[str], number: int, weights: Mapping[int, float]) -> float:
    """What one line's matches say beyond their count: a heading or an option's name that starts
    with a query term counts its terms again."""
    if any(not WORD.search(lines[number], 0, m.start) for m in matches) and is_heading(lines, number):
        return sum(weights[term] for term in {m.term for m in matches})
    return 0.0


def phrases(matches: list[Match], terms: int) -> list[int]:
    """The query's phrases on one line: for each two of its ``terms`` written side by side in the
    query's order (``history expansion``; a Chinese query's overlapping bigrams), the first
    one's index plus ``terms``, so a phrase counts apart from the terms."""
    ordered = sorted(matches, key=lambda m: m.start)
    return [
        terms + left.term
        for left, right in zip(ordered, ordered[1:])
        if right.term == left.term + 1 and right.start - left.end <= 2
    ]


K1 = 0.5
"""BM25's term-frequency saturation: a term's second occurrence in a window adds less than its first."""
B = 0.25
"""BM25's length normalisation: a window of long lines needs more occurrences than a short one."""


def best_passage(
    matches: list[Match], window: int, weights: Mapping[int, float], lines: Sequence[str]
) -> tuple[int, float] | None:
    """Where to open a document for a query: the window of ``window`` lines that scores most,
    opened on its best line when that line has a bonus (a heading), else on its first line (read
    from the heading above it, ``section_start``), and its score; None without matches.

    The windows overlap (one starts at every line holding a match) and are scored like documents
    by BM25: each query term adds its ``weights`` (the corpus's IDF, ``CorpusTerms``) times
    ``tf (K1 + 1) / (tf + K1 (1 - B + B len / avglen))``, its count in the window saturated and
    the window's length (characters) against the document's average window. So a term rare in
    the corpus weighs most, all of the query's terms together beat one of them repeated, and a
    window of a few short lines (a definition) beats a long paragraph that mentions them. Then
    its best line's ``line_bonus`` (once: a table whose every line starts with a term is not ten
    definitions): a heading or an option's name starting with a query term, terms side by side.
    A term once in a window of average length adds exactly its weight. The earliest window wins
    a tie. O(lines + matches x terms)."""
    if not matches:
        return None
    by_line: dict[int, list[Match]] = {}
    for match in matches:
        by_line.setdefault(match.line, []).append(match)
    bonus = {number: line_bonus(found, lines, number, weights) for number, found in by_line.items()}
    terms = len(weights)  # a phrase starting with term t counts as term ``terms + t``
    counted_of = {number: [m.term for m in found] + phrases(found, terms) for number, found in by_line.items()}
    weight = [weights[t] for t in range(terms)] + [(weights[t] + weights.get(t + 1, 0.0)) / 2 for t in range(terms)]
    lengths = list(accumulate(map(len, lines), initial=0))  # characters before each line
    average = max(1.0, lengths[-1] * min(window, len(lines)) / max(1, len(lines)))
    matched = sorted(by_line)
    best: tuple[float, int, int] | None = None  # (score, -first line, the line to open on)
    tf = [0] * len(weight)
    peaks: deque[int] = deque()  # lines with a bonus in the window, bonuses non-increasing: the first is its peak
    high = 0
    for first in matched:
        while high < len(matched) and matched[high] < first + window:
            number = matched[high]
            for term in counted_of[number]:
                tf[term] += 1
            if bonus[number] > 0:
                while peaks and bonus[peaks[-1]] < bonus[number]:
                    peaks.pop()
                peaks.append(number)
            high += 1
        norm = K1 * (1 - B + B * (lengths[min(len(lines), first + window)] - lengths[first]) / average)
        score = sum(w * n * (K1 + 1) / (n + norm) for w, n in zip(weight, tf) if n)
        peak = peaks[0] if peaks else first
        candidate = (round(score + (bonus[peak] if peaks else 0.0), 9), -first, peak)
        if best is None or candidate[:2] > best[:2]:
            best = candidate
        for term in counted_of[first]:
            tf[term] -= 1
        if peaks and peaks[0] == first:
            peaks.popleft()
    assert best is not None
    return section_start(lines, best[2], window), best[0]


def section_start(lines: Sequence[str], line: int, reach: int) -> int:
    """The heading a passage at ``line`` belongs to, if one is at most ``reach`` lines above
    (a line indented less than the passage and ``is_heading``: an option's name, a numbered
    clause); else ``line``. A passage is read from its heading down, and a heading of several
    lines (an option's forms, one a line: ``-L port:host:hostport``, ``-L local_socket:...``)
    from its first."""
    indent = indentation(lines[line])
    start = line
    for number in range(line - 1, max(-1, line - reach - 1), -1):
        text = lines[number]
        if text.strip() and indentation(text) < indent:
            start = number if is_heading(lines, number) else line
            break
    if body_follows(lines, start):  # the heading's last line: its first may be above
        while start > max(0, line - reach) and same_heading(lines[start - 1], lines[start]):
            start -= 1
    return start


def same_heading(above: str, line: str) -> bool:
    """Whether ``above`` is another line of the heading ``line`` ends: short and indented alike."""
    return bool(above.strip()) and len(above.strip()) <= HEADING_CELLS and indentation(above) == indentation(line)


def indentation(line: str) -> int:
    return len(line) - len(line.lstrip())
