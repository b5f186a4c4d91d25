"""The protocol hash's canonical text, part by part: the seed's ``json.dumps(value,
sort_keys=True, ensure_ascii=False, separators=(",", ":"))``, byte for byte, built from pieces.

Why: the hash is recomputed on every ``score``; ``json.dumps`` of the queries first needs a dict
per query, and of pooled qrels sorts every row's items as (key, value) tuples. Here each part is
a few whole-list operations in C: keys sorted once, every string through the standard library's
own C escaper (``encode_basestring``, what ``json.dumps`` ends in), and the text one join of the
pieces interleaved. Measured (CPU, best of 5): queries 0.16 -> 0.09 s at 100,000; pooled qrels
0.30 -> 0.20 s at 1M labels; exhaustive qrels 0.125 -> 0.087 s at 10 x 100,000 (0.15 s both ways
at 100,000 x 10). The corpus stays with ``json.dumps`` (its encoder beat a template there), and
whatever these paths do not cover (titles, query needs, a pooled ID that would need escaping)
goes to ``canonical_json`` itself, so the text is the seed's for every protocol.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from itertools import accumulate, chain, islice, repeat
from json.encoder import encode_basestring
from operator import attrgetter

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~3 ms of every start-up, issue 32)
if TYPE_CHECKING:
    from typing import Protocol

    class Query(Protocol):
        """What the hash reads of a query (protocol.py's ``Query``, which imports this module)."""

        @property
        def text(self) -> str | None: ...
        @property
        def split(self) -> str: ...
        @property
        def need(self) -> str | None: ...
        def canonical(self) -> dict[str, str]: ...


def canonical_json(value: object) -> str:
    """The seed's canonical JSON encoding (sorted keys, UTF-8 as is, no spaces). A string, the
    common call (every query and document ID of the hash), goes straight to the C escaper that
    ``json.dumps`` would end in, without building an encoder each time (0.3 s at 100,000 IDs)."""
    if type(value) is str:
        return encode_basestring(value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


STR_ONLY = frozenset({str})


def _all_str(values: Iterable[object]) -> bool:
    """Every value an exact ``str`` (what the templates escape), checked in C."""
    return set(map(type, values)) <= STR_ONLY


def _object_text(columns: tuple[Iterable[str], ...], end: str) -> str:
    """``{`` + each entry's pieces (taken one from each column) + ``end``, entries comma-separated,
    + ``}``: one join of the pieces interleaved in C (``str.format`` per entry took 1.7x as long)."""
    pieces = islice(chain.from_iterable(zip(repeat(","), *columns, repeat(end))), 1, None)  # no comma first
    return "".join(chain("{", pieces, "}"))  # one copy of the text: a wide table's is 30 MB


def canonical_queries(queries: Mapping[str, Query]) -> str:
    """``canonical_json({q: meta.canonical() ...})`` from the queries' columns when no query has a
    need and every query has text (or none has: a pooled protocol made without a queries file);
    anything else through ``canonical_json``."""
    keys = list(queries)
    if _all_str(keys):
        keys.sort()
        metas = list(map(queries.__getitem__, keys))
        texts = list(map(attrgetter("text"), metas))
        splits = list(map(attrgetter("split"), metas))
        needs = list(map(attrgetter("need"), metas))
        if _all_str(splits) and needs.count(None) == len(needs):
            escaped = {split: encode_basestring(split) for split in set(splits)}
            names = map(encode_basestring, keys)
            split_texts = map(escaped.__getitem__, splits)
            if _all_str(texts):
                pieces = (names, repeat(':{"split":'), split_texts, repeat(',"text":'), map(encode_basestring, texts))
                return _object_text(pieces, "}")
            if texts.count(None) == len(texts):
                return _object_text((names, repeat(':{"split":'), split_texts), "}")
    return canonical_json({q: meta.canonical() for q, meta in queries.items()})


def canonical_qrels_json(
    qrels: Mapping[str, Mapping[str, int]], corpus: frozenset[str], relevant: Mapping[str, frozenset[str]]
) -> bytes:
    """``canonical_json(qrels).encode("utf-8")`` for validated exhaustive qrels, built from the
    relevant sets.

    Every row has exactly the corpus as keys and the int 0 or 1 as values (``check_qrels``), so
    a row's text is the all-zero row's with a ``1`` at the byte of each relevant document, and
    queries with the same relevant set share one text: a tall protocol (100,000 queries of 10
    documents) has at most 1,024 distinct rows, a wide one a few huge ones. The all-zero row and
    the byte of each document's label come from whole-list operations; per query there is one
    lookup, and the table is one join in C.
    """
    documents = sorted(corpus)
    names = list(map(encode_basestring, documents))
    zero_text = "{" + ":0,".join(names) + ":0}" if names else "{}"
    zero = zero_text.encode("utf-8")
    sizes = map(len, names) if len(zero) == len(zero_text) else map(len, map(str.encode, names))
    # The label of the i-th document is 3 * i + 2 bytes past the end of the names before it and
    # its own ("{" and ":" before it, ":0," after each earlier one).
    at = dict(zip(documents, map(int.__add__, accumulate(sizes), range(2, 3 * len(names) + 2, 3))))
    rows: dict[frozenset[str], str] = {}
    for labelled in set(map(relevant.__getitem__, qrels)):
        row = bytearray(zero)
        for document in labelled:
            row[at[document]] = 0x31  # b"1"
        rows[labelled] = row.decode("utf-8")
    queries = sorted(qrels)
    texts = map(rows.__getitem__, map(relevant.__getitem__, queries))
    return _object_text((map(encode_basestring, queries), repeat(":"), texts), "").encode("utf-8")


_LABEL_SUFFIX = ('":0', '":1')
_NOT_PLAIN = bytes(range(0x22)) + b"\\"
"""Bytes no document ID of the pooled fast path may hold: those ``json`` escapes (with the quote,
counted apart), and the two below the quote (space and ``!``), so an ID followed by its
suffix sorts as the ID alone."""


def canonical_pooled_qrels(qrels: Mapping[str, Mapping[str, int]], queries: Iterable[str]) -> bytes:
    """``canonical_json({q: qrels.get(q, {}) for q in queries}).encode("utf-8")`` for validated
    pooled qrels (each row a query's pool, every label the int 0 or 1: ``check_pooled_qrels``).

    Each pair's text ``"ID":0`` is the ID joined to its label's suffix in C and each row one sort
    of those texts, which is the order of the IDs alone when no ID holds a byte of ``_NOT_PLAIN``
    (every byte there sorts below the quote that starts the suffix). That, and that no ID needed
    escaping, is checked on the finished text: it holds no byte of ``_NOT_PLAIN`` and exactly
    two quotes per key. Otherwise ``canonical_json`` encodes the table.
    """
    keys = sorted(queries)
    empty: Mapping[str, int] = {}
    table = list(map(qrels.get, keys, [empty] * len(keys)))
    texts = []
    for row in table:
        items = list(map(str.__add__, row, map(_LABEL_SUFFIX.__getitem__, row.values())))
        items.sort()
        texts.append('{"' + ',"'.join(items) + "}" if items else "{}")
    text = _object_text((map(encode_basestring, keys), repeat(":"), texts), "").encode("utf-8")
    quotes = 2 * (len(keys) + sum(map(len, table)))
    if len(text.translate(None, _NOT_PLAIN)) == len(text) and text.count(b'"') == quotes:
        return text
    return canonical_json(dict(zip(keys, table))).encode("utf-8")
