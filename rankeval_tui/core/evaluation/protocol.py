"""The evaluation protocol: corpus, queries, 0/1 qrels, split and k, of one of two kinds.

``exhaustive`` (the default, the seed's): every query is judged against every document.
``pooled``: every query is judged against its own pool, the documents that must carry an
explicit 0/1 for it (TREC's unit of judgment); a pair outside a query's pool is never asked for
and never read as 0, so a run whose top k leaves the pool is refused (or bounded) when scored.

A ``Protocol`` is validated when it is built, so every object of this type is one the evaluator
may score runs against. ``ProtocolDefinition`` is the part without labels (what the judging
screen needs before the qrels exist).
"""

from __future__ import annotations

import copy
import hashlib
from collections import deque
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import compress, repeat
from operator import attrgetter, eq, is_
from pathlib import Path

from rankeval_tui.core.errors import ContractError, describe_id, quote
from rankeval_tui.core.evaluation.canonical import canonical_json, canonical_parts
from rankeval_tui.core.evaluation.pools import (
    all_binary,
    check_binary_row,
    check_pooled_qrels,
    check_pools,
    rows_list_pools,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

NO_QUERY_TEXT = "(no query text in this protocol: add it with rankeval-tui grow PROTOCOL --queries FILE)"


@dataclass(frozen=True)
class Query:
    """One query: its text, the split it belongs to, and an optional information-need narrative."""

    text: str | None
    """None only in a pooled protocol made without a queries file (scoring needs no text)."""
    split: str
    need: str | None = None

    @property
    def shown_text(self) -> str:
        """The text screens show: a pooled protocol made without a queries file has none, said so."""
        return self.text if self.text is not None else NO_QUERY_TEXT

    @classmethod
    def adopting(cls, tables: Iterable[dict[str, Any]]) -> list[Query]:
        """Queries whose attributes are ``tables`` themselves: each ``{"text": str, "split": str}``
        with an optional ``"need": str`` and no other key (protocol.toml's ``[queries.ID]``
        tables of an exhaustive protocol, as ``valid_entries`` checked them). Each table becomes
        its query's ``__dict__`` (an absent ``need`` reads the field's default, None), where
        building each query field by field (``dataclass`` sets each through ``object.__setattr__``)
        costs more on a tall protocol. Nothing may use the tables afterwards."""
        tables = list(tables)
        queries = list(map(object.__new__, repeat(cls, len(tables))))
        list(map(object.__setattr__, queries, repeat("__dict__"), tables))
        return queries

    def canonical(self) -> dict[str, str]:
        """The query as the protocol hash sees it (``need`` only where given, as the seed; ``text``
        only where known, which it always is in an exhaustive protocol)."""
        data = {"text": self.text, "split": self.split} if self.text is not None else {"split": self.split}
        if self.need is not None:
            data["need"] = self.need
        return data


Kind: TypeAlias = "Literal['exhaustive', 'pooled']"
KINDS: tuple[Kind, ...] = ("exhaustive", "pooled")
TieOrder: TypeAlias = "Literal['rank', 'score']"
TIE_ORDERS: tuple[TieOrder, ...] = ("rank", "score")
"""How a TREC run's lines are ordered: by its rank column (the default) or as trec_eval orders
them (score descending, then document ID descending)."""


@dataclass(frozen=True)
class LabelScale:
    """A graded scale declared by the protocol: grade ``g`` is ``words[g]`` (0 to ``top``), and
    the binary measures (Recall, RR, P, Success, AP) count a document relevant at a grade of at
    least ``relevant_from`` (trec_eval's ``-l``); nDCG takes the grade itself as gain."""

    words: tuple[str, ...]
    relevant_from: int

    def __post_init__(self) -> None:
        if type(self.words) is not tuple or len(self.words) < 2 or not set(map(type, self.words)) <= {str}:
            raise ContractError("a scale needs a word for each grade from 0, at least two grades")
        if type(self.relevant_from) is not int or not 1 <= self.relevant_from <= self.top:
            raise ContractError(
                f"relevant_from must be an integer grade from 1 to {self.top}, got {quote(self.relevant_from)}"
            )

    @property
    def top(self) -> int:
        """The highest grade."""
        return len(self.words) - 1

    def canonical(self) -> str:
        """The scale's part of the protocol hash, between the queries and the split (sorted keys)."""
        return f',"relevant_from":{self.relevant_from},"scale":{canonical_json(list(self.words))}'


def check_k(k: object, *, file: str | Path | None = None) -> int:
    """k must be a positive int; ``True`` is an int in Python but is not a cutoff."""
    if type(k) is not int or k < 1:
        raise ContractError(f"k must be a positive integer, got {quote(k)}", file=file)
    return k


@dataclass(frozen=True)
class ProtocolDefinition:
    """Everything of a protocol except its labels."""

    name: str
    k: int
    split: str
    relevance: str
    documents: Mapping[str, str]
    queries: Mapping[str, Query]
    description: str | None = None
    source: Path | None = field(default=None, compare=False)
    titles: Mapping[str, str] = field(default_factory=dict)
    """Document titles where the source had one (shown above the text; hashed only where given)."""
    provenance: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """How the protocol was made (source files, sample, corpus selection): recorded, never hashed."""
    pools: Mapping[str, tuple[str, ...]] | None = None
    """None: the exhaustive kind. Else the pooled kind: per query, the documents that must carry an
    explicit 0/1 for it (distinct, in the order written); every query has an entry, maybe empty.
    ``documents`` then holds the texts known, which may be none: scoring needs no text."""
    pool_rule: str | None = None
    """How the pools were made, in words (pooled kind only; shown beside every pooled score)."""
    scale: LabelScale | None = None
    """None: the binary scale 0/1 (the seed's). Else the declared grades (hashed only when given)."""
    unlisted_as_zero: bool = False
    """The collection declares every pair its qrels do not list non-relevant: such a pair is
    labelled 0 by that declaration (counted as "unlisted" in every report), never a hole.
    Hashed only when set."""
    tie_order: TieOrder = "rank"
    """How TREC runs are ordered when scored under this protocol (not hashed: runs are not)."""

    def __post_init__(self) -> None:
        check_k(self.k, file=self.source)
        if self.tie_order not in TIE_ORDERS:
            raise ContractError(f"tie_order must be rank or score, got {quote(self.tie_order)}", file=self.source)
        if self.pools is None:
            if self.pool_rule is not None:
                raise ContractError("pool_rule is for a pooled protocol only", file=self.source)
            if not self.documents:
                raise ContractError("nonempty corpus required: no [documents]", file=self.source)
            texts = map(attrgetter("text"), self.queries.values())
            untold = next(compress(self.queries, map(is_, texts, repeat(None))), None)  # in C: 100,000 queries
            if untold is not None:
                raise ContractError(
                    "query text required in an exhaustive protocol",
                    file=self.source,
                    where=describe_id("query", untold),
                )
        else:  # the sets the check built, one per pool, are the cached ``pool_sets`` (the dataclass's own dict)
            pool_sets = check_pools(self.pools, self.queries, file=self.source)
            if len(pool_sets) == len(self.pools):
                self.__dict__["pool_sets"] = pool_sets
        if not self.queries:
            raise ContractError("nonempty queries required: no [queries]", file=self.source)
        if not self.selected_queries:
            raise ContractError(f"split has no queries: split {quote(self.split)}", file=self.source)
        for doc in self.titles:
            if doc not in self.documents:
                raise ContractError(f"title of an unknown document {quote(doc)}", file=self.source)

    @cached_property
    def selected_queries(self) -> tuple[str, ...]:
        """The fixed denominator: query IDs of the split, in protocol order."""
        splits = map(attrgetter("split"), self.queries.values())
        return tuple(compress(self.queries, map(eq, splits, repeat(self.split))))

    @property
    def kind(self) -> Kind:
        return "exhaustive" if self.pools is None else "pooled"

    @property
    def top_grade(self) -> int:
        """The highest label: 1 on the binary scale."""
        return 1 if self.scale is None else self.scale.top

    @property
    def relevant_from(self) -> int:
        """The lowest label the binary measures count as relevant: 1 on the binary scale."""
        return 1 if self.scale is None else self.scale.relevant_from

    @cached_property
    def document_ids(self) -> frozenset[str]:
        """Every document of the protocol: the corpus, and for the pooled kind every pooled
        document too (texts are optional there)."""
        if self.pools is None:
            return frozenset(self.documents)
        return frozenset(self.documents).union(*self.pools.values())

    def documents_of(self, query: str) -> tuple[str, ...]:
        """The documents ``query`` must be judged against: its pool, or the whole corpus."""
        if self.pools is None:
            return self.corpus_order
        return self.pools[query]

    @cached_property
    def corpus_order(self) -> tuple[str, ...]:
        return tuple(self.documents)

    @cached_property
    def pool_sets(self) -> dict[str, frozenset[str]]:
        """Each query's pool as a set (pooled kind; empty for the exhaustive kind), built when first
        needed unless ``check_pools`` built them (``DistinctIds`` pools need none to be checked)."""
        return {query: frozenset(pool) for query, pool in (self.pools or {}).items()}

    def canonical_corpus(self) -> dict[str, object]:
        """The corpus as the protocol hash sees it: ``{doc: text}`` as the seed, and
        ``{doc: {"text", "title"}}`` only for a document with a title (as ``need`` for queries),
        so a protocol without titles keeps the seed's hash."""
        if not self.titles:
            return dict(self.documents)
        titles = self.titles
        return {
            doc: {"text": text, "title": titles[doc]} if doc in titles else text for doc, text in self.documents.items()
        }

    @property
    def pair_count(self) -> int:
        """Pairs an annotator must judge: every query of every split times every document, or
        for the pooled kind the pools' pairs."""
        if self.pools is not None:
            return sum(map(len, self.pools.values()))
        return len(self.queries) * len(self.documents)

    def with_k(self, k: int) -> ProtocolDefinition:
        return replace(self, k=k)

    def with_split(self, split: str) -> ProtocolDefinition:
        return replace(self, split=split)

    def with_queries(self, queries: Collection[str]) -> ProtocolDefinition:
        """Only ``queries`` (protocol order) and their pools: the protocol as one annotator of a
        team judges it, or the queries two annotators share. The split is kept when one of the
        queries is in it, else the first query's split is used: judging and agreement count
        every split, but a definition must select some query."""
        wanted = set(queries)
        chosen = {q: meta for q, meta in self.queries.items() if q in wanted}
        if not chosen:
            raise ContractError("no queries to judge or compare", file=self.source)
        split = self.split
        if all(meta.split != split for meta in chosen.values()):
            split = next(iter(chosen.values())).split
        pools = None if self.pools is None else {q: self.pools[q] for q in chosen}
        return replace(self, queries=chosen, pools=pools, split=split)


def check_qrels(
    definition: ProtocolDefinition, qrels: Mapping[str, Mapping[str, object]], *, file: str | Path | None = None
) -> None:
    """Exhaustive binary qrels: every query, every document, an explicit integer 0 or 1 (pooled
    kind: every document of the query's pool, none outside it).

    A missing pair is unjudged, never an implicit 0; ``True``/``False`` are refused although
    Python would add them up as 1 and 0. A graded protocol takes its grades 0 to its top one; a
    protocol that declares unlisted pairs 0 (``unlisted_as_zero``) takes rows that list some of
    the pairs only.
    """
    top = definition.top_grade
    if definition.pools is not None:  # rows in pool order: no pool set built (``rows_list_pools``)
        if not (rows_list_pools(definition.pools, qrels) and all_binary(qrels, top)):
            check_pooled_qrels(
                definition.pools,
                definition.pool_sets,
                qrels,
                file=file,
                top=top,
                unlisted_as_zero=definition.unlisted_as_zero,
            )
        return
    if definition.unlisted_as_zero:
        check_listed_qrels(definition, qrels, file=file)
        return
    corpus = definition.document_ids
    # The common case in C: every query has a row, every row's documents are the corpus, every
    # label 0 or 1 (a Python step per row is slow on a tall protocol); else the loop names
    # the first problem.
    if (
        qrels.keys() == definition.queries.keys()
        and rows_within(qrels.values(), corpus, whole=True)
        and all_binary(qrels, top)
    ):
        return
    if set(qrels) != set(definition.queries):
        absent = [q for q in definition.queries if q not in qrels]
        extra = [q for q in qrels if q not in definition.queries]
        where = describe_id("query", (absent or extra)[0])
        rule = "qrels must cover every query" if absent else "qrels name an unknown query"
        raise ContractError(rule, file=file, where=where)
    for query in definition.queries:
        row = qrels[query]
        if row.keys() != corpus:
            unjudged = sorted(corpus - row.keys())
            unknown = sorted(row.keys() - corpus)
            if unjudged:
                where = f"{describe_id('query', query)}, {describe_id('document', unjudged[0])}"
                more = f" ({len(unjudged)} unjudged in this query)" if len(unjudged) > 1 else ""
                raise ContractError(
                    f"unjudged or unknown documents: exhaustive qrels required; pair is unjudged{more}",
                    file=file,
                    where=where,
                )
            where = f"{describe_id('query', query)}, {describe_id('document', unknown[0])}"
            raise ContractError(
                "unjudged or unknown documents: exhaustive qrels required; document is not in the corpus",
                file=file,
                where=where,
            )
        check_binary_row(query, row, file, top)


def check_listed_qrels(
    definition: ProtocolDefinition, qrels: Mapping[str, Mapping[str, object]], *, file: str | Path | None = None
) -> None:
    """Exhaustive qrels of a collection that declares its unlisted pairs 0: each row lists some
    documents of the corpus, each with a label on the scale; a query may have no row."""
    for query, row in qrels.items():
        if query not in definition.queries:
            raise ContractError("qrels name an unknown query", file=file, where=describe_id("query", query))
        if not row.keys() <= definition.document_ids:
            unknown = next(doc for doc in row if doc not in definition.document_ids)
            raise ContractError(
                "unknown document: not in the corpus",
                file=file,
                where=f"{describe_id('query', query)}, {describe_id('document', unknown)}",
            )
        check_binary_row(query, row, file, definition.top_grade)


def rows_within(rows: Iterable[Mapping[str, object]], documents: frozenset[str], *, whole: bool = False) -> bool:
    """Whether the keys of every row lie in ``documents`` (``whole``: are exactly them), decided
    once per distinct sequence of keys: the rows of one qrels file list their documents in one
    order (a tall file's 100,000 rows, a wide one's 10 of 100,000), so they are a few sequences,
    each compared with the set once, where a comparison per row was a look-up per pair."""
    shapes = set(map(tuple, rows))
    if whole:
        return all(len(shape) == len(documents) and documents.issuperset(shape) for shape in shapes)
    return all(map(documents.issuperset, shapes))


@dataclass(frozen=True)
class Protocol:
    """A protocol definition with its exhaustive qrels, validated on construction."""

    definition: ProtocolDefinition
    qrels: Mapping[str, Mapping[str, int]]
    qrels_source: Path | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        check_qrels(self.definition, self.qrels, file=self.qrels_source)

    @property
    def kind(self) -> Kind:
        return self.definition.kind

    # Convenience views, so callers rarely need ``.definition``.
    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def k(self) -> int:
        return self.definition.k

    @property
    def split(self) -> str:
        return self.definition.split

    @property
    def documents(self) -> Mapping[str, str]:
        return self.definition.documents

    @property
    def queries(self) -> Mapping[str, Query]:
        return self.definition.queries

    @property
    def selected_queries(self) -> tuple[str, ...]:
        return self.definition.selected_queries

    @cached_property
    def relevant(self) -> dict[str, frozenset[str]]:
        """Relevant documents per query, computed once and shared by every run scored.

        ``compress`` keeps the documents whose label is truthy, at C speed: the same set as
        ``label == 1`` because ``check_qrels`` (on construction) allows only the ints 0 and 1.
        """
        definition = self.definition
        if definition.scale is None:
            relevant = {q: frozenset(compress(row, row.values())) for q, row in self.qrels.items()}
        else:
            lowest = definition.scale.relevant_from
            relevant = {
                q: frozenset(doc for doc, grade in row.items() if grade >= lowest) for q, row in self.qrels.items()
            }
        if definition.pools is not None or definition.unlisted_as_zero:  # a query may have no row
            empty: frozenset[str] = frozenset()
            return {q: relevant.get(q, empty) for q in self.queries}
        return relevant

    @cached_property
    def gains(self) -> dict[str, dict[str, int]] | None:
        """Per query, each document's grade where above 0 (nDCG's gains, as trec_eval's
        ndcg_cut takes the label as gain); None on the binary scale, whose gain is 1 per
        relevant document."""
        if self.definition.scale is None:
            return None
        return {q: {doc: grade for doc, grade in self.qrels.get(q, {}).items() if grade > 0} for q in self.queries}

    def gains_of(self, query: str) -> Mapping[str, int] | None:
        """``gains`` of one query (None on the binary scale)."""
        gains = self.gains
        return None if gains is None else gains[query]

    @cached_property
    def protocol_sha256(self) -> str:
        """sha256 of the seed's canonical JSON of corpus, queries, qrels, split and k.

        The run is deliberately not part of it: two runs scored under one hash are comparable.
        A pooled protocol adds ``"kind":"pooled"`` (so the exhaustive kind's text, and hash, is
        the seed's): its qrels are exactly its pools' pairs (``check_pooled_qrels``), so hashing
        the qrels hashes the pools, every query's row written, ``{}`` for an empty pool. A graded
        scale adds ``"relevant_from"`` and ``"scale"`` (its words), a declaration of unlisted
        pairs ``"unlisted_as_zero":true``: a protocol without them keeps its hash. The text
        is byte for byte ``json.dumps({corpus, queries, qrels, split, k}, sort_keys=True,
        ensure_ascii=False, separators=(",", ":"))``, built part by part from whole-list pieces
        (core/evaluation/canonical.py), because one ``json.dumps`` of it was a large share of every
        ``score`` (``benchmarks/bench_hash.py`` measures the hash).
        """
        digest, middle = self._hash_parts
        digest = digest.copy()
        digest.update(canonical_json(self.k).encode("utf-8"))
        deque(map(digest.update, middle), maxlen=0)  # in C: the qrels come in a piece per key and row
        unlisted = ',"unlisted_as_zero":true' if self.definition.unlisted_as_zero else ""
        digest.update((',"split":' + canonical_json(self.split) + unlisted + "}").encode("utf-8"))
        return digest.hexdigest()

    @cached_property
    def _hash_parts(self) -> tuple[hashlib._Hash, tuple[bytes | bytearray, ...]]:
        """The canonical text's parts that k and split leave unchanged: the sha256 state after
        ``{"corpus":...,"k":`` and the parts from ``,"kind":"pooled"`` or ``,"qrels":`` to the
        queries' text, each as it was built (no joined copy). Shared by ``with_k`` /
        ``with_split`` copies, so a k change hashes the bytes again instead of building the qrels'
        text again (``benchmarks/bench_scoring.py`` measures a k change)."""
        definition = self.definition
        plain = definition.scale is None and not definition.unlisted_as_zero
        corpus, middle = canonical_parts(definition, self.qrels, self.relevant, plain=plain)
        if definition.scale is not None:
            middle = (*middle, definition.scale.canonical().encode("utf-8"))
        digest = hashlib.sha256(b'{"corpus":')
        digest.update(corpus)
        digest.update(b',"k":')
        return digest, middle

    def with_k(self, k: int) -> Protocol:
        """The same labels under another cutoff (a new protocol hash)."""
        return self._with_definition(self.definition.with_k(check_k(k)))

    def with_split(self, split: str) -> Protocol:
        """The same labels scored on another split (a new protocol hash)."""
        return self._with_definition(self.definition.with_split(split))

    def _with_definition(self, definition: ProtocolDefinition) -> Protocol:
        """This protocol's labels under another k or split. The labels were checked when this
        object was built and do not depend on k or split, so they are not checked again, and the
        relevant sets and the hash's fixed parts are shared (a k change on a large protocol
        re-checked and re-encoded them otherwise)."""
        twin = copy.copy(self)  # the dataclass fields and the cached properties computed so far
        object.__setattr__(twin, "definition", definition)
        twin.__dict__.pop("protocol_sha256", None)
        return twin

    def with_overrides(self, k: int | None = None, split: str | None = None) -> Protocol:
        """``with_k`` and ``with_split`` for the options that were given (``--k``, ``--split``)."""
        protocol = self if k is None else self.with_k(k)
        return protocol if split is None else protocol.with_split(split)
