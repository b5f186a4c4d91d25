"""protocol.toml and qrels.toml -> core objects, and qrels -> qrels.toml (atomic, tomli-w).

Layout of a protocol directory::

    protocol.toml   [protocol] name, k, split, relevance; [documents.ID] text, title; [queries.ID] text, split,
                    need; optional [provenance] (how it was made: source files, sample, corpus selection)
    qrels.toml      [qrels.QUERY] DOC = 0 | 1 for every pair; optional [provenance], [notes], [disputed]
    runs/           run files by extension (RUN_SUFFIXES): JSON {"q": ["d", ...]}, TREC
                    "qid Q0 docid rank score tag" or MS MARCO "qid<TAB>docid<TAB>rank"; other files are
                    not runs (``runs.skipped_run_files`` lists them for validate's notice)
    chunks/         optional: chunk_map.toml ([chunk_to_doc] chunk = "doc") and chunk runs

Every loader validates the whole file and raises ``ContractError`` naming the file, the place
and the rule; nothing is dropped, filled or coerced.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import repeat
from operator import eq, itemgetter, le
from pathlib import Path

from rankeval_tui.core.errors import ContractError, Reporter, brief, describe_id, quote, raise_problem
from rankeval_tui.core.evaluation.pools import OUTSIDE_THE_POOL, label_rule, pool_violation
from rankeval_tui.core.evaluation.protocol import (
    LabelScale,
    Protocol,
    ProtocolDefinition,
    Query,
    check_qrels,
    rows_within,
)
from rankeval_tui.core.files.atomic import atomic_write_text
from rankeval_tui.core.files.entries import check_table as check_table  # re-exported: additions reads entries
from rankeval_tui.core.files.entries import valid_entries
from rankeval_tui.core.files.holes import QRELS_NAME, refuse_holes
from rankeval_tui.core.files.ids import QUERY_OPTIONAL as QUERY_OPTIONAL
from rankeval_tui.core.files.ids import QUERY_REQUIRED as QUERY_REQUIRED
from rankeval_tui.core.files.ids import check_id as check_id  # re-exported: readers import it from here
from rankeval_tui.core.files.pools import POOLS_TABLE, pooled_parts, pools_table
from rankeval_tui.core.files.tomlio import dump_toml, looks_like_trec_qrels, parse_toml, read_toml, read_utf8
from rankeval_tui.core.wording import counted

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any

PROTOCOL_FILE = "protocol.toml"
QRELS_FILE = QRELS_NAME
RUNS_DIR = "runs"
RUN_SUFFIXES = (".json", ".trec", ".run", ".tsv")
"""Which files in runs/ are runs. Not ``.txt``: a ``notes.txt`` beside the runs is common and
must not make every score fail; a TREC run named ``*.txt`` is scored with ``--run PATH``."""

PROTOCOL_REQUIRED = {"name": str, "k": int, "split": str, "relevance": str}
PROTOCOL_OPTIONAL = {
    "description": str,
    "kind": str,
    "pool_rule": str,
    "grades": list,
    "relevant_from": int,
    "unlisted_as_zero": bool,
    "tie_order": str,
}
"""``grades`` (a word per grade from 0) and ``relevant_from`` declare a graded scale;
``unlisted_as_zero`` the collection's own rule that a pair its qrels do not list is 0;
``tie_order`` (``rank`` or ``score``) how TREC runs are ordered. Each absent: the seed's meaning."""
DOCUMENT_REQUIRED = {"text": str}
DOCUMENT_OPTIONAL = {"title": str}
PROTOCOL_TABLES = ("protocol", "documents", "queries", "provenance", POOLS_TABLE)
"""``provenance`` (how the protocol was made and grown: ``grow`` appends to it) is not hashed."""
QRELS_TABLES = ("qrels", "provenance", "notes", "disputed", "adjudication")


def load_definition(
    directory: str | Path, *, report: Reporter = raise_problem, qrels_rows: Mapping[str, object] | None = None
) -> ProtocolDefinition:
    """Read ``protocol.toml`` of a protocol directory.

    With a collecting ``report`` (``validate``), every problem of the file is reported and the
    definition is only built if there was none (else ``ContractError`` for the count).
    ``qrels_rows``: the ``[qrels]`` table read beside it, whose rows a pool may be taken from
    (``pools.listed_pool``: the same pools, without splitting a million IDs out of their strings)."""
    directory = Path(directory)
    if directory.is_file():
        hint = f": pass {directory.parent}" if directory.name == PROTOCOL_FILE else ""
        raise ContractError(f"is a file; a protocol is the directory that holds {PROTOCOL_FILE}{hint}", file=directory)
    if not directory.is_dir():
        raise ContractError("protocol directory not found", file=directory)
    path = directory / PROTOCOL_FILE
    data = read_toml(path)
    problems: list[ContractError] = []

    def collect(problem: ContractError) -> None:
        problems.append(problem)
        report(problem)

    for key in data:
        if key not in PROTOCOL_TABLES:
            collect(
                ContractError(f"unknown top-level table {quote(key)} (known: {', '.join(PROTOCOL_TABLES)})", file=path)
            )
    provenance = data.get("provenance", {})
    if not isinstance(provenance, dict):
        collect(ContractError("[provenance] must be a table", file=path))
    elif not isinstance(growth := provenance.get("growth", []), list) or not all(
        isinstance(item, dict) for item in growth
    ):
        # grow appends its record to this array: a string would be extended letter by letter
        collect(
            ContractError(f"[provenance] growth must be [[provenance.growth]] tables, got {quote(growth)}", file=path)
        )
    header = None
    if "protocol" not in data:
        collect(ContractError("missing [protocol] table", file=path))
    else:
        header = check_table(
            data["protocol"], PROTOCOL_REQUIRED, PROTOCOL_OPTIONAL, file=path, where="[protocol]", report=collect
        )
    documents_table = data.get("documents", {})
    queries_table = data.get("queries", {})
    if not isinstance(documents_table, dict) or not isinstance(queries_table, dict):
        collect(ContractError("[documents] and [queries] must be tables", file=path))
        documents_table = queries_table = {}
    # Column by column (``map`` in C): a Python step per entry was most of a wide protocol's load.
    entries = valid_entries(documents_table, "document", DOCUMENT_REQUIRED, DOCUMENT_OPTIONAL, path, collect)
    documents = dict(zip(entries, map(itemgetter("text"), entries.values())))
    titles = {doc: entry["title"] for doc, entry in entries.items() if "title" in entry}
    pools, required, optional = pooled_parts(header, data, path, collect, qrels_rows)
    entries = valid_entries(queries_table, "query", required, optional, path, collect)
    metas = entries.values()
    if pools is None:  # every table is text, split and maybe need (QUERY_REQUIRED, QUERY_OPTIONAL)
        queries = dict(zip(entries, Query.adopting(metas)))
    else:  # a pooled query's text is optional
        texts, splits, needs = (
            map(dict.get, metas, repeat("text")),
            map(itemgetter("split"), metas),
            map(dict.get, metas, repeat("need")),
        )
        queries = dict(zip(entries, map(Query, texts, splits, needs)))
    scale = None if header is None else header_scale(header, path, collect)
    if problems or header is None:
        raise ContractError(f"{counted(len(problems), 'problem')} in protocol.toml", file=path)
    return ProtocolDefinition(
        name=header["name"],
        k=header["k"],
        split=header["split"],
        relevance=header["relevance"],
        documents=documents,
        queries=queries,
        description=header.get("description"),
        source=path,
        titles=titles,
        provenance=provenance,
        pools=pools,
        pool_rule=header.get("pool_rule"),
        scale=scale,
        unlisted_as_zero=header.get("unlisted_as_zero", False),
        tie_order=header.get("tie_order", "rank"),
    )


def header_scale(header: Mapping[str, Any], path: Path, report: Reporter) -> LabelScale | None:
    """The graded scale ``[protocol]`` declares (``grades``, ``relevant_from``), or None: binary."""
    if "grades" not in header:
        if "relevant_from" in header:
            report(ContractError("relevant_from needs grades: the words of the scale", file=path, where="[protocol]"))
        return None
    try:
        return LabelScale(tuple(header["grades"]), header.get("relevant_from", 1))
    except ContractError as error:
        report(ContractError(error.rule, file=path, where="[protocol]"))
        return None


def definition_to_toml(definition: ProtocolDefinition) -> str:
    """protocol.toml text that ``load_definition`` reads back to an equal definition.

    tomli-w quotes every key that is not bare (``[queries."q:1001"]``,
    ``[documents."docs/export.md"]``), so IDs with dots, colons, slashes, ``#`` or unicode
    round-trip; keys in corpus and query order, as the file is meant to be read.
    """
    header: dict[str, Any] = {
        "name": definition.name,
        "k": definition.k,
        "split": definition.split,
        "relevance": definition.relevance,
    }
    if definition.description is not None:
        header["description"] = definition.description
    if definition.pools is not None:
        header["kind"] = "pooled"
        if definition.pool_rule is not None:
            header["pool_rule"] = definition.pool_rule
    if definition.scale is not None:
        header["grades"] = list(definition.scale.words)
        header["relevant_from"] = definition.scale.relevant_from
    if definition.unlisted_as_zero:
        header["unlisted_as_zero"] = True
    if definition.tie_order != "rank":
        header["tie_order"] = definition.tie_order
    data: dict[str, Any] = {"protocol": header}
    if definition.provenance:
        data["provenance"] = dict(definition.provenance)
    titles = definition.titles
    data["queries"] = {q: meta.canonical() for q, meta in definition.queries.items()}
    data["documents"] = {
        doc: {"title": titles[doc], "text": text} if doc in titles else {"text": text}
        for doc, text in definition.documents.items()
    }
    if definition.pools is not None:
        data[POOLS_TABLE] = pools_table(definition)
    return dump_toml(data)


@dataclass
class QrelsFile:
    """The contents of a qrels.toml: labels plus what annotators recorded beside them.

    ``labels`` may be partial here (a judging session in progress); ``Protocol`` is where
    exhaustiveness is enforced. Notes and disputes live in their own tables, never mixed into
    the label values.
    """

    labels: dict[str, dict[str, int]]
    notes: dict[str, dict[str, str]] = field(default_factory=dict)
    disputed: dict[str, dict[str, bool]] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    adjudication: dict[str, Any] = field(default_factory=dict)


def read_qrels_file(path: str | Path, definition: ProtocolDefinition, *, exhaustive: bool = True) -> QrelsFile:
    """Read qrels.toml; with ``exhaustive`` (the default) every pair must be judged."""
    path = Path(path)
    qrels = read_qrels_tables(path, definition)
    if definition.pools is not None and (outside := pool_violation(definition.pool_sets, qrels.labels, file=path)):
        raise outside  # a label nobody was asked for is an error, never dropped (merge, agree, judge)
    if exhaustive:
        check_qrels(definition, qrels.labels, file=path)
    else:
        check_labels_only(qrels.labels, path, top=definition.top_grade)
    return qrels


def read_qrels_tables(
    path: Path, definition: ProtocolDefinition, *, report: Reporter = raise_problem, data: dict[str, Any] | None = None
) -> QrelsFile:
    """Every check of ``read_qrels_file`` except the last one on the labels (exhaustive 0/1,
    or 0/1 only): the caller runs that one, so ``load_protocol`` can leave it to ``Protocol()``
    instead of checking a million pairs twice. ``data``: the file already parsed.

    With a collecting ``report`` (``validate``) every problem is reported and what is wrong is
    left out of the result (an unknown document's label, a bad note), never fixed."""
    if data is None:
        text = read_utf8(path)
        try:
            data = parse_toml(text, path)
        except ContractError as error:
            if looks_like_trec_qrels(text):
                raise ContractError(
                    f"{error.rule}; this looks like TREC qrels ('qid 0 docid rel'): convert it with "
                    f"`rankeval-tui qrels import PROTOCOL {path} -o qrels.toml`",
                    file=path,
                ) from None
            raise
    for key in data:
        if key not in QRELS_TABLES:
            report(ContractError(f"unknown top-level table {quote(key)} (known: {', '.join(QRELS_TABLES)})", file=path))
    if "qrels" not in data:
        report(ContractError("missing [qrels] table", file=path))
    labels = pair_tables(data.get("qrels", {}), "qrels", definition, path, report=report)
    notes = pair_tables(data.get("notes", {}), "notes", definition, path, report=report)
    disputed = pair_tables(data.get("disputed", {}), "disputed", definition, path, report=report)
    for kind, table, value_type in (("notes", notes, str), ("disputed", disputed, bool)):
        for query, row in table.items():
            for doc, value in list(row.items()):
                if type(value) is not value_type:
                    report(
                        ContractError(
                            f"[{kind}] values must be {value_type.__name__}, got {quote(value)}",
                            file=path,
                            where=f"{describe_id('query', query)}, {describe_id('document', doc)}",
                        )
                    )
                    del row[doc]
    provenance = data.get("provenance", {})
    adjudication = data.get("adjudication", {})
    for name, table in (("provenance", provenance), ("adjudication", adjudication)):
        if not isinstance(table, dict):
            report(ContractError(f"[{name}] must be a table", file=path))
    return QrelsFile(
        labels=labels,
        notes=notes,
        disputed=disputed,
        provenance=provenance if isinstance(provenance, dict) else {},
        adjudication=adjudication if isinstance(adjudication, dict) else {},
    )


def check_labels_only(
    labels: Mapping[str, Mapping[str, object]], path: Path, *, report: Reporter = raise_problem, top: int = 1
) -> None:
    """Every label an int from 0 to ``top`` (the protocol's highest grade; 1 on the binary scale)."""
    grades = set(range(top + 1))
    for query, row in labels.items():
        if set(map(type, row.values())) <= {int} and set(row.values()) <= grades:
            continue  # at C speed; the loop below names each bad label
        for doc, label in row.items():
            if type(label) is not int or label not in grades:
                report(
                    ContractError(
                        f"{label_rule(top)}, got {quote(label)}",
                        file=path,
                        where=f"{describe_id('query', query)}, {describe_id('document', doc)}",
                    )
                )


def pair_tables(
    table: object, name: str, definition: ProtocolDefinition, path: Path, *, report: Reporter = raise_problem
) -> dict[str, dict[str, Any]]:
    """``[name.QUERY] DOC = value`` tables, restricted to the protocol's queries and documents."""
    if not isinstance(table, dict):
        report(ContractError(f"[{name}] must be a table of per-query tables", file=path))
        return {}
    if within_protocol(table, definition):
        return dict(table)  # tables of their own, fresh from the parser
    result: dict[str, dict[str, Any]] = {}
    queries, corpus = definition.queries, definition.document_ids
    for query, row in table.items():
        if query in queries and type(row) is dict and row.keys() <= corpus:
            result[query] = row
            continue
        where = f"[{name}.{brief(query)}]"
        if query not in queries:
            report(ContractError(f"unknown query {quote(query)}: not in the protocol", file=path, where=where))
            continue
        if not isinstance(row, dict):
            report(
                ContractError(f"must be a table of document = value, got {type(row).__name__}", file=path, where=where)
            )
            continue
        if not row.keys() <= corpus:  # the loop names each unknown one
            # a pooled corpus is its pools' union: an emptied pool's label is outside it, not a typo of an ID
            emptied = definition.pools is not None and not definition.pools.get(query)
            unknown = OUTSIDE_THE_POOL if emptied else "not in the corpus"
            for doc in row:
                if doc not in corpus:
                    report(ContractError(f"unknown document {quote(doc)}: {unknown}", file=path, where=where))
            row = {doc: value for doc, value in row.items() if doc in corpus}
        result[query] = dict(row)
    return result


def within_protocol(table: dict[Any, Any], definition: ProtocolDefinition) -> bool:
    """Whether every row of a ``[name.QUERY]`` table is a table of the protocol's documents for
    one of its queries, decided per table in C (a Python step per row is slow on a tall
    protocol); False says only "look row by row". A pooled row is looked up in its query's pool,
    a set of ~100, inside the corpus (the pools' union, costly on a large pooled protocol, is not
    built at all then)."""
    rows = table.values()
    if not set(map(type, rows)) <= {dict}:
        return False
    if definition.pools is not None:
        pools = definition.pools  # first: each row its query's pool in pool order (qrels), no set built
        if table.keys() <= pools.keys() and all(map(eq, map(tuple, rows), map(pools.__getitem__, table))):
            return True
        pool_sets = definition.pool_sets
        return table.keys() <= pool_sets.keys() and all(
            map(le, map(dict.keys, rows), map(pool_sets.__getitem__, table))
        )
    return table.keys() <= definition.queries.keys() and rows_within(rows, definition.document_ids)


def qrels_to_toml(qrels: QrelsFile, definition: ProtocolDefinition) -> str:
    """Serialise in protocol order (queries, then corpus order, or pool order for the pooled kind)
    so diffs stay readable."""

    documents = definition.documents
    corpus_order = list(documents)
    pools = definition.pools
    position: dict[str, int] = {}

    def in_corpus_order(row: Mapping[str, Any]) -> dict[str, Any]:
        """A full row as it is when already in corpus order (judged in order: compared at C
        speed), else in one pass over the corpus; a partial row (imported labels, notes) by
        sorting its own keys, so writing 10 labels per query costs O(10), not O(corpus)."""
        if len(row) == len(documents):
            if isinstance(row, dict) and list(row) == corpus_order:
                return row
            return dict(zip(corpus_order, map(row.__getitem__, corpus_order)))
        if not position:
            position.update(zip(corpus_order, range(len(corpus_order))))
        return {d: row[d] for d in sorted(row, key=position.__getitem__)}

    def ordered(table: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
        if pools is not None:  # pools are small: one pass over each; a key outside is kept, last
            return {
                q: {**{d: table[q][d] for d in pools[q] if d in table[q]}, **table[q]}
                for q in definition.queries
                if table.get(q)
            }
        return {q: in_corpus_order(table[q]) for q in definition.queries if table.get(q)}

    data: dict[str, Any] = {}
    if qrels.provenance:
        data["provenance"] = qrels.provenance
    data["qrels"] = ordered(qrels.labels)
    for name in ("notes", "disputed"):
        table = ordered(getattr(qrels, name))
        if table:
            data[name] = table
    if qrels.adjudication:
        data["adjudication"] = qrels.adjudication
    return dump_toml(data)


def write_qrels(path: str | Path, qrels: QrelsFile, definition: ProtocolDefinition) -> None:
    """Write exhaustive qrels atomically. Refuses incomplete labels: they would lose pairs."""
    check_qrels(definition, qrels.labels, file=path)
    atomic_write_text(path, qrels_to_toml(qrels, definition))


def load_protocol(directory: str | Path, qrels_path: str | Path | None = None) -> Protocol:
    """protocol.toml + exhaustive qrels.toml -> a validated ``Protocol`` (a missing or partial
    qrels file is refused with its hole count and the judge command)."""
    return load_protocol_and_qrels(directory, qrels_path)[0]


def load_protocol_and_qrels(directory: str | Path, qrels_path: str | Path | None = None) -> tuple[Protocol, QrelsFile]:
    """``load_protocol`` plus the ``QrelsFile`` it was built from (provenance, adjudication), so
    views that report what stands beside the labels need not read the qrels file a second time."""
    path = Path(qrels_path) if qrels_path is not None else Path(directory) / QRELS_FILE
    # The protocol's own qrels.toml not written yet: nothing judged, every pair a hole (refused
    # below with the judge command). A qrels path the user named must exist: a typo is not holes.
    fresh = qrels_path is None and not path.exists()
    data = None if fresh else parsed_or_none(path)  # read first: a pool may be taken from its row
    rows = data.get("qrels") if data is not None else None
    definition = load_definition(directory, qrels_rows=rows if type(rows) is dict else None)
    qrels = QrelsFile(labels={}) if fresh else read_qrels_tables(path, definition, data=data)
    try:
        # Protocol() runs check_qrels(definition, labels, file=path): read_qrels_file's own last
        # check, which no pool violation or hole passes; tried first, so the checks that name
        # those two the user's way run only when there is a problem to name.
        return Protocol(definition, qrels.labels, qrels_source=path), qrels
    except ContractError:
        if definition.pools is not None and (outside := pool_violation(definition.pool_sets, qrels.labels, file=path)):
            raise outside from None  # before the hole count, which counts labels of the pools only
        refuse_holes(definition, qrels.labels, path, directory)
        raise


def parsed_or_none(path: Path) -> dict[str, Any] | None:
    """qrels.toml parsed, or None when it cannot be: ``read_qrels_tables`` then reads it again
    and raises its error, after protocol.toml's (the order the user fixes them in)."""
    try:
        return parse_toml(read_utf8(path), path)
    except ContractError:
        return None
