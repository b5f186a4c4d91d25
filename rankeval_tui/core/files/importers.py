"""Corpora, queries and qrels in the formats the field uses -> plain dictionaries, validated.

``rankeval-tui init`` (and ``grow``) read a user's own data through these readers. The format
is told from the content, never from the file name, and a file that fits two formats, or none,
is refused with the line that decided it. Every record is checked (IDs as ``check_id``, text a
string, no duplicate ID, no unknown key): nothing is dropped, filled or coerced.

The formats accepted are listed once, in ``input_formats.INPUT_FORMATS``.

An empty BEIR ``title`` is no title (BEIR writes ``""`` for documents without one).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path

from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.evaluation.protocol import Query
from rankeval_tui.core.files.folder_walk import walk_folder
from rankeval_tui.core.files.ids import NOT_IN_AN_ID
from rankeval_tui.core.files.jsonl_records import (
    RecordShape,
    first_line,
    numbered_lines,
    optional_string,
    optional_strings,
    record_columns,
    shaped_records,
    well_formed_records,
)
from rankeval_tui.core.files.protocol_files import check_id
from rankeval_tui.core.files.runs import tab_fields
from rankeval_tui.core.files.tomlio import read_utf8
from rankeval_tui.core.files.topics import is_trec_topics, read_trec_topics
from rankeval_tui.core.files.trec import LabelRule, checked_judgment
from rankeval_tui.core.files.trec_qrels_fast import read_binary_qrels

DIRECTORY_SUFFIXES = (".md", ".txt")
HEADER_IDS = {"id", "_id", "qid", "query-id", "query_id", "docid", "doc_id", "doc-id", "pid", "corpus-id"}
HEADER_TEXTS = {"text", "query", "contents", "passage", "title", "body", "question"}
TREC_FIELDS = re.compile(r"[ \t]+")
BEIR_QRELS_HEADER = ["query-id", "corpus-id", "score"]

CORPUS_SHAPES = (
    RecordShape("beir-jsonl", "_id", "text", ("title", "metadata")),
    RecordShape("pyserini-jsonl", "id", "contents", ()),
    RecordShape("jsonl", "id", "text", ("title",)),
)
QUERY_SHAPES = (
    RecordShape("beir-jsonl", "_id", "text", ("metadata", "split")),
    RecordShape("jsonl", "id", "text", ("split", "need")),
)


@dataclass(frozen=True)
class ImportedCorpus:
    documents: dict[str, str]
    titles: dict[str, str]
    format: str
    skipped_files: tuple[str, ...] = ()
    """Directory corpora: what was not read (other files, hidden ones, unreadable folders ...),
    by display name, reported, never read."""
    skip_reasons: dict[str, str] = field(default_factory=dict)
    """Why each of ``skipped_files`` was not read."""


@dataclass(frozen=True)
class ImportedQueries:
    queries: dict[str, Query]
    format: str
    split_from_file: bool


@dataclass(frozen=True)
class ImportedLabels:
    labels: dict[str, dict[str, int]]
    format: str
    count: int
    threshold: int | None = None
    graded: int = 0
    rule: LabelRule | None = None
    """The explicit rule that made the labels 0/1 (``threshold`` is its threshold, if it has one)."""
    mapped: int = 0
    """Labels the rule changed (anything but a 0 or 1 that stayed itself): negatives, grades."""


# ---------------------------------------------------------------- TSV records


def tsv_records(text: str, path: Path, kind: str) -> Iterator[tuple[int, str, str]]:
    """``id<TAB>text`` lines; a header line (``id<TAB>text``) is refused, not guessed away."""
    for number, line in numbered_lines(text, path):
        where = f"line {number}"
        identifier, body = tab_fields(line, f"a {kind} TSV", "id text", path, where)
        if identifier.lower() in HEADER_IDS and body.strip().lower() in HEADER_TEXTS:
            raise ContractError(
                f"looks like a header line ({quote(line)}), not a record: remove it", file=path, where=where
            )
        yield number, check_id(kind, identifier, file=path, where=where), body


def is_jsonl(text: str, path: Path, kind: str) -> bool:
    """JSONL when the first record starts with ``{``, TSV when it has a tab; else refused."""
    number, line = first_line(text, path, kind)
    if line.lstrip(" \t").startswith("{"):
        return True
    if "\t" in line:
        return False
    raise ContractError(
        f"cannot tell the {kind} format: the first record is neither a JSON object nor 'id<TAB>text'",
        file=path,
        where=f"line {number}",
    )


def unique(kind: str, identifier: str, seen: dict[str, int], number: int, path: Path) -> None:
    if identifier in seen:
        raise ContractError(
            f"duplicate {kind} ID {quote(identifier)}, already at line {seen[identifier]}",
            file=path,
            where=f"line {number}",
        )
    seen[identifier] = number


# ---------------------------------------------------------------- corpus


def read_corpus(path: Path) -> ImportedCorpus:
    """A corpus file (JSONL or TSV) or a directory of .md/.txt files."""
    if path.is_dir():
        return read_corpus_directory(path)
    text = read_utf8(path)
    return well_formed_corpus(text, path) or corpus_line_by_line(text, path)


def well_formed_corpus(text: str, path: Path) -> ImportedCorpus | None:
    """The corpus read with each check run once over all records (``jsonl_records``,
    ``well_formed_tsv``), when there is nothing to refuse and no line to name; else None."""
    if not is_jsonl(text, path, "document"):
        columns = well_formed_tsv(text)
        return None if columns is None else distinct_documents(*columns, {}, "tsv")
    records = well_formed_records(text)
    shaped = None if records is None else record_columns(records, CORPUS_SHAPES)
    titles = None if records is None or shaped is None else optional_strings(records, "title")
    if shaped is None or titles is None:
        return None
    shape, ids, texts = shaped
    kept = {doc: title for doc, title in zip(ids, titles) if title}  # an empty title is no title
    return distinct_documents(ids, texts, kept, shape.name)


def distinct_documents(ids: list[str], texts: list[str], titles: dict[str, str], name: str) -> ImportedCorpus | None:
    """The corpus, or None when an ID is repeated (the line-by-line reader names both lines)."""
    documents = dict(zip(ids, texts))
    return ImportedCorpus(documents, titles, name) if len(documents) == len(ids) else None


def well_formed_tsv(text: str) -> tuple[list[str], list[str]] | None:
    """[IDs, texts] of ``id<TAB>text`` lines when every line has one tab, a valid ID and no
    header look, and there is no blank line or carriage return; else None."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if "\r" in text or not lines or text.count("\t") != len(lines):
        return None
    fields = list(map(str.partition, lines, ["\t"] * len(lines)))
    ids = list(map(itemgetter(0), fields))
    if not all(map(itemgetter(1), fields)) or not all(ids) or NOT_IN_AN_ID.search("".join(ids)):
        return None
    if not HEADER_IDS.isdisjoint(map(str.lower, ids)):
        return None  # maybe a header line: the reader below tells
    return ids, list(map(itemgetter(2), fields))


def corpus_line_by_line(text: str, path: Path) -> ImportedCorpus:
    """The corpus file read record by record: every refusal names its line."""
    documents: dict[str, str] = {}
    titles: dict[str, str] = {}
    seen: dict[str, int] = {}
    if not is_jsonl(text, path, "document"):
        for number, doc, body in tsv_records(text, path, "document"):
            unique("document", doc, seen, number, path)
            documents[doc] = body
        return ImportedCorpus(documents, titles, "tsv")
    shape, records = shaped_records(text, path, CORPUS_SHAPES, "document")
    for number, doc, body, record in records:
        unique("document", doc, seen, number, path)
        documents[doc] = body
        title = optional_string(record, "title", path, f"line {number}")
        if title:
            titles[doc] = title
    return ImportedCorpus(documents, titles, shape.name)


def read_corpus_directory(directory: Path) -> ImportedCorpus:
    """Every ``.md``/``.txt`` file below ``directory`` (hidden ones aside), in path order.

    The ID is the path relative to the directory with ``/`` on every system, so it is the same
    ID a retriever indexing the folder reports. Everything else is listed with the reason
    (``folder_walk``), not silently ignored.
    """
    entries = walk_folder(directory, DIRECTORY_SUFFIXES)
    documents: dict[str, str] = {}
    for relative, path in entries.files:
        check_id("document", relative, file=path, where="the path relative to the corpus directory")
        documents[relative] = read_utf8(path)
    skipped = tuple(name for name, _ in entries.skipped)
    if not documents:
        corpus_files = [name for name in skipped if "/" not in name and name.startswith("corpus.")]
        hint = f"; a corpus file is there: pass --corpus {directory / corpus_files[0]}" if corpus_files else ""
        raise ContractError(f"no {' or '.join(DIRECTORY_SUFFIXES)} files in the corpus directory{hint}", file=directory)
    return ImportedCorpus(documents, {}, "directory", skipped, dict(entries.skipped))


def skipped_notices(source: Path, corpus: ImportedCorpus) -> list[str]:
    """One notice per file of a folder corpus that was not read, with the reason (init, grow)."""
    return [f"corpus {source}: skipped {name} ({corpus.skip_reasons[name]})" for name in corpus.skipped_files]


# ---------------------------------------------------------------- queries


def read_queries(path: Path, split: str) -> ImportedQueries:
    """Queries; each gets ``split`` unless the JSONL records carry a ``split`` (then all must)."""
    text = read_utf8(path)
    if is_trec_topics(text):
        return ImportedQueries(read_trec_topics(text, path, split), "trec-topics", split_from_file=False)
    queries: dict[str, Query] = {}
    seen: dict[str, int] = {}
    if not is_jsonl(text, path, "query"):
        for number, query, body in tsv_records(text, path, "query"):
            unique("query", query, seen, number, path)
            queries[query] = Query(text=body, split=split)
        return ImportedQueries(queries, "tsv", split_from_file=False)
    shape, records = shaped_records(text, path, QUERY_SHAPES, "query")
    carries_split = "split" in records[0][3]
    for number, query, body, record in records:
        where = f"line {number}"
        unique("query", query, seen, number, path)
        own_split = optional_string(record, "split", path, where)
        if (own_split is not None) != carries_split:
            raise ContractError(
                "'split' must be given on every query or on none (line 1 decides)", file=path, where=where
            )
        queries[query] = Query(
            text=body,
            split=own_split if own_split is not None else split,
            need=optional_string(record, "need", path, where),
        )
    return ImportedQueries(queries, shape.name, split_from_file=carries_split)


# ---------------------------------------------------------------- qrels


def read_labels(
    path: Path,
    queries: Collection[str] | None,
    documents: Collection[str] | None,
    threshold: int | None = None,
    relevant_values: Collection[int] | None = None,
    keep_grades: bool = False,
) -> ImportedLabels:
    """TREC or BEIR qrels -> explicit 0/1 labels of the pairs the file names, nothing else.

    Pairs the file does not name stay unjudged (holes), never 0. Labels other than 0 and 1 need
    an explicit rule, ``threshold`` (``rel >= threshold`` is 1) or ``relevant_values``, and then
    negatives are 0 as trec_eval reads them; without a rule an unknown query or document, a pair
    given twice, a negative, graded or non-integer label is refused with its line. ``queries`` or
    ``documents`` None: the file defines them (a pooled protocol made from qrels), only IDs checked.
    ``keep_grades``: labels are grades, kept as they are (integers >= 0; ``--relevant-from``).
    """
    if threshold is not None and (type(threshold) is not int or threshold < 1):
        raise ContractError(f"--threshold must be an integer >= 1, got {quote(threshold)}", file=path)
    rule = None
    if threshold is not None or relevant_values is not None:
        rule = LabelRule(threshold, None if relevant_values is None else frozenset(relevant_values))
    text = read_utf8(path)
    fast = None if rule is not None or keep_grades else read_binary_qrels(text, queries, documents)
    if fast is not None:
        return ImportedLabels(fast, "trec", sum(map(len, fast.values())))
    header_number, line = first_line(text, path, "qrels")
    beir = line.split("\t") == BEIR_QRELS_HEADER
    labels: dict[str, dict[str, int]] = {}
    line_of: dict[tuple[str, str], int] = {}
    graded = mapped = 0
    known = None if queries is None else (queries, "the queries file")
    for number, line in numbered_lines(text, path):
        where = f"line {number}"
        if beir:
            if number == header_number:
                continue
            query, doc, rel_text = tab_fields(line, "a BEIR qrels", "query-id corpus-id score", path, where)
        else:
            fields = TREC_FIELDS.split(line.strip(" \t"))
            if len(fields) != 4:
                raise ContractError(
                    f"a TREC qrels line has 4 fields 'qid 0 docid rel' (or use a BEIR TSV with the header "
                    f"'query-id<TAB>corpus-id<TAB>score'), got {len(fields)}",
                    file=path,
                    where=where,
                )
            query, _, doc, rel_text = fields
        rel = checked_judgment(
            query, doc, rel_text, known, documents, line_of, number, path, threshold, rule, keep_grades
        )
        graded += rel > 1
        label = rel if rule is None else rule.binary(rel)
        mapped += label != rel
        labels.setdefault(query, {})[doc] = label
    return ImportedLabels(labels, "beir-tsv" if beir else "trec", len(line_of), threshold, graded, rule, mapped)
