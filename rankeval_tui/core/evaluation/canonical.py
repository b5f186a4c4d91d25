"""The protocol hash's canonical text, part by part: the seed's ``json.dumps(value,
sort_keys=True, ensure_ascii=False, separators=(",", ":"))``, byte for byte, built from pieces.

Why: the hash is recomputed on every ``score``. ``json.dumps`` of the whole needs a dict per
query and sorts every table as (key, value) tuples; here each part is a few whole-list
operations in C, and what is done per entry is what the text fundamentally needs:

- each ID list (queries, documents) is sorted once and shared by the parts that name it (the
  corpus and exhaustive qrels share the documents, the qrels and queries share the query IDs);
- an ID or query text goes into the text as it is, its quotes written by the separators, when
  no string of its list needs escaping (one ``translate`` of their concatenation in C:
  ``json_strings``); else each goes through the C escaper ``json.dumps`` ends in;
- pieces are interleaved by extended-slice assignment, each key's piece cut from one join;
- exhaustive qrels rows are the all-zero row with the relevant documents' labels patched, one
  per distinct relevant set; a pooled row is one sort of its IDs, joined between its relevant
  documents, the table checked by one ``translate`` per row;
- the qrels go to sha256 as pieces (key, row), never copied into one text: joining the tall
  qrels' 31 MB into a fresh buffer costs its first touch of that memory, more than hashing the
  pieces one by one.

Measured by benchmarks/bench_hash.py (the first hash of a fresh process, CPU time and peak memory,
beside another commit's code) on the pooled, tall, wide and square shapes: this is faster on
each and needs a fraction of the memory. Pooled's floor here is its row sorts, one per query
(a million string comparisons; timsort is linear on rows already in order).

Whatever these paths do not cover (titles, query needs, an ID that is not a ``str``, a pooled ID
that would need escaping) goes to ``canonical_json`` itself, so the text is the seed's for every
protocol (tests/core/test_canonical.py: each part against ``json.dumps``).
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from itertools import accumulate, repeat
from json.encoder import encode_basestring
from operator import attrgetter

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Protocol, TypeVar

    P = TypeVar("P")

    class Query(Protocol):
        """What the hash reads of a query (protocol.py's ``Query``, which imports this module)."""

        @property
        def text(self) -> str | None: ...
        @property
        def split(self) -> str: ...
        @property
        def need(self) -> str | None: ...
        def canonical(self) -> dict[str, str]: ...

    class Definition(Protocol):
        """What the hash reads of a protocol definition (protocol.py's ``ProtocolDefinition``)."""

        @property
        def documents(self) -> Mapping[str, str]: ...
        @property
        def titles(self) -> Mapping[str, str]: ...
        @property
        def queries(self) -> Mapping[str, Query]: ...
        @property
        def pools(self) -> Mapping[str, tuple[str, ...]] | None: ...
        def canonical_corpus(self) -> dict[str, object]: ...


def canonical_json(value: object) -> str:
    """The seed's canonical JSON encoding (sorted keys, UTF-8 as is, no spaces). A string goes
    straight to the C escaper that ``json.dumps`` would end in, without building an encoder."""
    if type(value) is str:
        return encode_basestring(value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


ESCAPED = bytes(range(0x20)) + b'"\\'
"""The bytes ``json.dumps`` escapes with ``ensure_ascii=False``: C0 controls, the quote and the
backslash. Every byte of any other character's UTF-8 goes into the text as it is."""


def holds_only_quotes(text: bytes, quotes: int) -> bool:
    """``text`` has exactly ``quotes`` quotes and no other byte of ``ESCAPED``: one C pass."""
    return len(text.translate(None, ESCAPED)) == len(text) - quotes


def json_strings(values: list[str]) -> tuple[list[str], str]:
    """``values`` as JSON strings, and the quote the caller's separators must put around each:
    the values themselves and ``"`` when none needs escaping (no string built per value), else
    each escaped with its quotes (``encode_basestring``) and ``""``. TypeError when one is not a
    ``str`` (the callers then take ``json.dumps``, which writes it as it does)."""
    try:
        joined = "".join(values).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escaped as json.dumps keeps it (the text's encode fails)
        joined = b"\\"
    if holds_only_quotes(joined, 0):
        return values, '"'
    return list(map(encode_basestring, values)), ""


class Names:
    """One ID list sorted (``ids``), as it goes into the text (``text``, between ``quote``s), and
    ``keys``: each name between its quotes with a colon after it and a comma before it (``{``
    before the first), the names apart by NULs (none holds one: escaped or checked by
    ``json_strings``), so one split gives a piece per key (no string built per name); one text
    shared by the tables the IDs key (the qrels' and queries' both split it)."""

    __slots__ = ("ids", "text", "quote", "keys")

    def __init__(self, ids: list[str]) -> None:
        self.ids = ids
        self.text, quote = json_strings(ids)
        self.quote = quote
        self.keys = "{" + quote + f"{quote}:\x00,{quote}".join(self.text) + quote + ":"


def sorted_names(ids: Iterable[str]) -> Names | None:
    """The IDs sorted as ``sort_keys`` sorts them (a ``str`` subclass as well: its own order, its
    characters), or None when one is not a ``str`` (sorting or joining them raised TypeError:
    no pass of its own over the IDs)."""
    keys = list(ids)
    try:
        keys.sort()
        return Names(keys)
    except TypeError:
        return None


def _interleave(columns: tuple[Sequence[P], ...], last: P) -> list[P]:
    """The columns' items interleaved (each column's first, then each one's second...) then
    ``last``: one extended-slice assignment per column, in C, which is faster than building
    the same pieces with ``zip`` and ``chain`` and joining them."""
    width = len(columns)
    size = width * len(columns[0])
    pieces = [last] * (size + 1)
    for at, column in enumerate(columns):
        pieces[at:size:width] = column
    return pieces


def _object_text(names: Names, columns: tuple[list[str], ...]) -> bytes:
    """``{`` + each entry (its key, then its pieces taken one from each column), + ``}``, UTF-8:
    one join."""
    if not names.text:
        return b"{}"
    return "".join(_interleave((names.keys.split("\x00"), *columns), "}")).encode("utf-8")


def canonical_corpus(definition: Definition, documents: Names | None) -> bytes:
    """``canonical_json(definition.canonical_corpus())`` from the sorted documents, their texts
    escaped (a document's text usually needs it: it has lines); titles through ``canonical_json``."""
    if documents is not None and not definition.titles:
        try:  # TypeError: a text that is not a str
            texts = list(map(encode_basestring, map(definition.documents.__getitem__, documents.ids)))
            return _object_text(documents, (texts,))
        except TypeError:
            pass
    return canonical_json(definition.canonical_corpus()).encode("utf-8")


def _column(heads: dict[str, str], splits: list[str]) -> list[str]:
    """Each query's text before its own (by its split): one list repeated when there is one split."""
    if len(heads) == 1:
        return [*heads.values()] * len(splits)
    return list(map(heads.__getitem__, splits))


def canonical_queries(queries: Mapping[str, Query], names: Names | None) -> bytes:
    """``canonical_json({q: meta.canonical() ...})`` from the queries' columns when no query has a
    need and every query has text (or none has: a pooled protocol made without a queries file);
    anything else through ``canonical_json``."""
    if names is not None:
        metas = list(map(queries.__getitem__, names.ids))
        texts = list(map(attrgetter("text"), metas))
        splits = list(map(attrgetter("split"), metas))
        if list(map(attrgetter("need"), metas)).count(None) == len(metas):
            try:  # TypeError: a split or a text that is not a str (or texts for some queries only)
                escaped = {split: encode_basestring(split) for split in set(splits)}
                if texts.count(None) == len(texts):
                    heads = {split: '{"split":' + text + "}" for split, text in escaped.items()}
                    return _object_text(names, (_column(heads, splits),))
                values, quote = json_strings(texts)
                heads = {split: '{"split":' + text + ',"text":' + quote for split, text in escaped.items()}
                return _object_text(names, (_column(heads, splits), values, [quote + "}"] * len(values)))
            except TypeError:
                pass
    return canonical_json({q: meta.canonical() for q, meta in queries.items()}).encode("utf-8")


def canonical_qrels_json(
    qrels: Mapping[str, Mapping[str, int]],
    documents: Names,
    queries: Names,
    relevant: Mapping[str, frozenset[str]],
) -> list[bytes | bytearray]:
    """``canonical_json(qrels).encode("utf-8")`` for validated exhaustive qrels, in pieces (their
    concatenation), built from the relevant sets (``documents`` and ``queries`` the corpus's and
    the qrels' IDs, sorted).

    Every row has exactly the corpus as keys and the int 0 or 1 as values (``check_qrels``), so
    a row's text is the all-zero row's with a ``1`` at the byte of each relevant document, and
    queries with the same relevant set share one text: a tall protocol (100,000 queries of 10
    documents) has at most 1,024 distinct rows, a wide one a few huge ones. The pieces are each
    query's key and its row's shared text, never copied into one text (sha256 takes them one by
    one: 30 MB less to allocate and copy).
    """
    quote = documents.quote
    zero_text = "{" + quote + f"{quote}:0,{quote}".join(documents.text) + quote + ":0}"
    zero = zero_text.encode("utf-8")
    sizes = map(len, documents.text) if len(zero) == len(zero_text) else map(len, map(str.encode, documents.text))
    ends = list(accumulate(sizes))  # bytes of the names up to each one's end
    labelled_sets = list(map(relevant.__getitem__, queries.ids))
    distinct: dict[frozenset[str], frozenset[str]] = {}
    # Equal sets become one object, so the rows' lookups below match by identity, not element by element.
    labelled_sets = list(map(distinct.setdefault, labelled_sets, labelled_sets))
    # The i-th label is that many bytes past the end of the names up to its own: "{", a quote
    # and ":" before it, and the quotes, ":0," of each earlier one. Found (bisect in the sorted
    # IDs) for the documents relevant somewhere only: a wide corpus's 100,000 are mostly not.
    step, first = 2 * len(quote) + 3, 2 * len(quote) + 2
    ones = frozenset().union(*distinct)
    at = {doc: ends[i] + step * i + first for doc, i in zip(ones, map(bisect_left, repeat(documents.ids), ones))}
    rows: dict[frozenset[str], bytes | bytearray] = {}
    for labelled in distinct:
        row = bytearray(zero)
        for document in labelled:
            row[at[document]] = 0x31  # b"1"
        rows[labelled] = row
    keys = queries.keys.encode("utf-8").split(b"\x00")
    return _interleave((keys, list(map(rows.__getitem__, labelled_sets))), b"}")


_ZERO, _ONE = '":0,"'.join, '":1,"'.join


def canonical_pooled_qrels(
    qrels: Mapping[str, Mapping[str, int]], queries: Names, relevant: Mapping[str, frozenset[str]]
) -> list[bytes] | None:
    """``canonical_json({q: qrels.get(q, {}) for q in queries}).encode("utf-8")`` in pieces for
    validated pooled qrels (each row a query's pool, every label the int 0 or 1:
    ``check_pooled_qrels``, ``relevant`` the documents labelled 1), or None when a document ID
    would need escaping.

    A row is one sort of its IDs (the order of ``sort_keys``), joined with ``":0,"`` in the runs
    between its relevant documents and with ``":1,"`` after each of them: no string per pair,
    and each row encoded as it is made (its text's memory then serves the next). That no ID
    needed escaping is checked on the rows: exactly two quotes per pair.
    """
    rows = []
    empty: Mapping[str, int] = {}
    for row, ones in zip(map(qrels.get, queries.ids, repeat(empty)), map(relevant.__getitem__, queries.ids)):
        ids = sorted(row)
        if not ones:
            rows.append(('{"' + _ZERO(ids) + '":0}' if ids else "{}").encode("utf-8"))
            continue
        cuts = sorted(map(bisect_right, repeat(ids), ones))  # each run of the row ends at a relevant document
        last = cuts[-1] == len(ids)  # the row's last document is relevant: no run after it
        runs = map(ids.__getitem__, map(slice, [0, *cuts], cuts if last else [*cuts, None]))
        rows.append(('{"' + _ONE(map(_ZERO, runs)) + ('":1}' if last else '":0}')).encode("utf-8"))
    pairs = sum(map(len, map(qrels.get, queries.ids, repeat(empty))))
    size = sum(map(len, rows))
    if sum(map(len, map(bytes.translate, rows, repeat(None), repeat(ESCAPED)))) != size - 2 * pairs:
        return None
    return _interleave((queries.keys.encode("utf-8").split(b"\x00"), rows), b"}")


def canonical_parts(
    definition: Definition,
    qrels: Mapping[str, Mapping[str, int]],
    relevant: Mapping[str, frozenset[str]],
    *,
    plain: bool = True,
) -> tuple[bytes, tuple[bytes | bytearray, ...]]:
    """The protocol's canonical text without k and split, UTF-8: the corpus's text, and the
    pieces between ``"k":K`` and ``,"split":S`` (``,"kind":"pooled"`` for that kind, the qrels'
    and queries' texts with their keys) in order, each handed to sha256 as it is.

    ``plain``: every label 0 or 1 and every row whole, as the fast paths assume; a graded scale
    or unlisted pairs go to ``canonical_json`` itself."""
    queries = sorted_names(definition.queries)
    documents = sorted_names(definition.documents)
    table: list[bytes | bytearray] | list[bytes] | None = None
    if plain and queries is not None and definition.pools is not None:
        table = canonical_pooled_qrels(qrels, queries, relevant)
    elif plain and queries is not None and documents is not None:
        table = canonical_qrels_json(qrels, documents, queries, relevant)
    if table is None:
        empty: Mapping[str, int] = {}
        table = [canonical_json({q: dict(qrels.get(q, empty)) for q in definition.queries}).encode("utf-8")]
    kind = b"" if definition.pools is None else b',"kind":"pooled"'
    queries_text = canonical_queries(definition.queries, queries)
    return canonical_corpus(definition, documents), (kind, b',"qrels":', *table, b',"queries":', queries_text)
