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
"""A light English stemmer: the first suffix that leaves at least three letters is cut, and the
rest is matched as a prefix (``configure`` -> ``configur``: configure, configured, configuration)."""

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
            return word[: len(word) - len(suffix)] + replacement
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
            parts += [self.alternation(cjk)] if cjk else []
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
            start = hit.start()
            line = bisect_right(starts, start) - 1
            base = starts[line]
            found.append(Match(line, start - base, hit.end() - base, group_terms[hit.lastindex or 0]))
        return found

    def find_in_line(self, number: int, line: str) -> list[Match]:
        """Matches in one line whose folded form differs in length: offsets mapped back."""
        assert self.pattern is not None
        folded_parts = [fold_char(c) for c in line]
        origin = [i for i, part in enumerate(folded_parts) for _ in part]
        origin.append(len(line))
        folded = "".join(folded_parts)
        return [
            Match(number, origin[hit.start()], origin[hit.end() - 1] + 1, self.group_terms[hit.lastindex or 0])
            for hit in self.pattern.finditer(folded)
            if hit.end() > hit.start()
        ]


def term_weights(matches: list[Match], lines: int) -> dict[int, float]:
    """How much finding each term says, in this document: log((lines + 1) / (lines with it + 1)).

    Why: on real manuals a common term (``set`` in ``setTimeout``, ``size`` in every table)
    fills the link lists at a page's end, and counting distinct terms alone opened ``buffer.md``
    there; a term on few lines (``readline``, ``history``) is where the evidence is."""
    seen: dict[int, set[int]] = {}
    for match in matches:
        seen.setdefault(match.term, set()).add(match.line)
    return {term: math.log((lines + 1) / (len(found) + 1)) + 0.01 for term, found in seen.items()}


def best_passage(matches: list[Match], window: int, lines: int) -> tuple[int, float] | None:
    """The first line of the ``window``-line stretch whose distinct terms weigh most (then with
    the most matches; the earliest on a tie) and that weight; None without matches. O(matches)."""
    weights = term_weights(matches, lines)
    best: tuple[float, int, int] | None = None  # (weight, count, -line)
    counts: dict[int, int] = {}
    weight = 0.0
    low = 0
    for high, match in enumerate(matches):
        if not counts.get(match.term):
            weight += weights[match.term]
        counts[match.term] = counts.get(match.term, 0) + 1
        while matches[low].line <= match.line - window:
            gone = matches[low].term
            counts[gone] -= 1
            if not counts[gone]:
                weight -= weights[gone]
            low += 1
        score = (round(weight, 9), high - low + 1, -matches[low].line)
        if best is None or score > best:
            best = score
    if best is None:
        return None
    return -best[2], best[0]


def passage_weight(matches: list[Match], first: int, last: int, lines: int) -> float:
    """The weight ``best_passage`` gives lines ``first``..``last`` (inclusive)."""
    weights = term_weights(matches, lines)
    return round(sum(weights[t] for t in {m.term for m in matches if first <= m.line <= last}), 9)
