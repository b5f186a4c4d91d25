"""Files on disk -> core objects, and core objects -> files (atomic, tomli-w).

Layout of a protocol directory::

    protocol.toml   [protocol] name, k, split, relevance; [documents.ID] text; [queries.ID] text, split, need
    qrels.toml      [qrels.QUERY] DOC = 0 | 1 for every pair; optional [provenance], [notes], [disputed]
    runs/           run files: JSON {"q": ["d", ...]} or TREC "qid Q0 docid rank score tag"
    chunks/         optional: chunk_map.toml ([chunk_to_doc] chunk = "doc") and chunk runs

Every loader validates the whole file and raises ``ContractError`` naming the file, the place
and the rule; nothing is dropped, filled or coerced.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from rankeval_tui.core.atomic import atomic_write_text
from rankeval_tui.core.errors import ContractError, describe_id
from rankeval_tui.core.evaluate import Run
from rankeval_tui.core.protocol import Protocol, ProtocolDefinition, Query, check_qrels
from rankeval_tui.core.tomlio import dump_toml, read_toml, read_utf8

PROTOCOL_FILE = "protocol.toml"
QRELS_FILE = "qrels.toml"
RUNS_DIR = "runs"
RUN_SUFFIXES = (".json", ".trec", ".run", ".txt", ".tsv")

PROTOCOL_REQUIRED = {"name": str, "k": int, "split": str, "relevance": str}
PROTOCOL_OPTIONAL = {"description": str}
QUERY_REQUIRED = {"text": str, "split": str}
QUERY_OPTIONAL = {"need": str}
DOCUMENT_REQUIRED = {"text": str}
QRELS_TABLES = ("qrels", "provenance", "notes", "disputed", "adjudication")


def check_id(kind: str, value: object, *, file: Path | None, where: str | None = None) -> str:
    """IDs are nonempty strings without whitespace or control characters.

    Whitespace would not survive the TREC formats users exchange runs in; control characters
    make error messages and screens lie about what the ID is.
    """
    if type(value) is not str or not value:
        raise ContractError(f"{kind} ID must be a nonempty string, got {value!r}", file=file, where=where)
    if any(ch.isspace() or ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in value):  # C0, DEL, C1
        raise ContractError(f"{kind} ID {value!r} contains whitespace or a control character",
                            file=file, where=where)
    return value


def check_table(table: object, required: Mapping[str, type], optional: Mapping[str, type],
                *, file: Path, where: str) -> dict[str, Any]:
    """A TOML table with exactly the known keys, each of its exact type (bool is not int)."""
    if not isinstance(table, dict):
        raise ContractError(f"must be a table, got {type(table).__name__}", file=file, where=where)
    for key in table:
        if key not in required and key not in optional:
            known = ", ".join([*required, *optional])
            raise ContractError(f"unknown key {key!r} (known: {known})", file=file, where=where)
    for key, kind in required.items():
        if key not in table:
            raise ContractError(f"missing required key {key!r}", file=file, where=where)
    for key, value in table.items():
        kind = required.get(key) or optional[key]
        if type(value) is not kind:
            raise ContractError(f"key {key!r} must be {kind.__name__}, got {type(value).__name__} {value!r}",
                                file=file, where=where)
    return table


def load_definition(directory: str | Path) -> ProtocolDefinition:
    """Read ``protocol.toml`` of a protocol directory."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ContractError("protocol directory not found", file=directory)
    path = directory / PROTOCOL_FILE
    data = read_toml(path)
    for key in data:
        if key not in ("protocol", "documents", "queries"):
            raise ContractError(f"unknown top-level table {key!r} (known: protocol, documents, queries)",
                                file=path)
    if "protocol" not in data:
        raise ContractError("missing [protocol] table", file=path)
    header = check_table(data["protocol"], PROTOCOL_REQUIRED, PROTOCOL_OPTIONAL, file=path, where="[protocol]")
    documents_table = data.get("documents", {})
    queries_table = data.get("queries", {})
    if not isinstance(documents_table, dict) or not isinstance(queries_table, dict):
        raise ContractError("[documents] and [queries] must be tables", file=path)
    documents: dict[str, str] = {}
    for doc, table in documents_table.items():
        where = f"[documents.{doc}]"
        check_id("document", doc, file=path, where=where)
        documents[doc] = check_table(table, DOCUMENT_REQUIRED, {}, file=path, where=where)["text"]
    queries: dict[str, Query] = {}
    for query, table in queries_table.items():
        where = f"[queries.{query}]"
        check_id("query", query, file=path, where=where)
        meta = check_table(table, QUERY_REQUIRED, QUERY_OPTIONAL, file=path, where=where)
        queries[query] = Query(text=meta["text"], split=meta["split"], need=meta.get("need"))
    return ProtocolDefinition(
        name=header["name"], k=header["k"], split=header["split"], relevance=header["relevance"],
        documents=documents, queries=queries, description=header.get("description"), source=path,
    )


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

    def is_complete(self, definition: ProtocolDefinition) -> bool:
        return all(len(self.labels.get(q, {})) == len(definition.documents) for q in definition.queries)


def read_qrels_file(path: str | Path, definition: ProtocolDefinition, *, exhaustive: bool = True) -> QrelsFile:
    """Read qrels.toml; with ``exhaustive`` (the default) every pair must be judged."""
    path = Path(path)
    qrels = read_qrels_tables(path, definition)
    if exhaustive:
        check_qrels(definition, qrels.labels, file=path)
    else:
        check_labels_only(qrels.labels, path)
    return qrels


def read_qrels_tables(path: Path, definition: ProtocolDefinition) -> QrelsFile:
    """Every check of ``read_qrels_file`` except the last one on the labels (exhaustive 0/1,
    or 0/1 only): the caller runs that one, so ``load_protocol`` can leave it to ``Protocol()``
    instead of checking a million pairs twice."""
    data = read_toml(path)
    for key in data:
        if key not in QRELS_TABLES:
            raise ContractError(f"unknown top-level table {key!r} (known: {', '.join(QRELS_TABLES)})",
                                file=path)
    if "qrels" not in data:
        raise ContractError("missing [qrels] table", file=path)
    labels = pair_tables(data["qrels"], "qrels", definition, path)
    notes = pair_tables(data.get("notes", {}), "notes", definition, path)
    disputed = pair_tables(data.get("disputed", {}), "disputed", definition, path)
    for kind, table, value_type in (("notes", notes, str), ("disputed", disputed, bool)):
        for query, row in table.items():
            for doc, value in row.items():
                if type(value) is not value_type:
                    raise ContractError(f"[{kind}] values must be {value_type.__name__}, got {value!r}",
                                        file=path, where=f"{describe_id('query', query)}, {describe_id('document', doc)}")
    provenance = data.get("provenance", {})
    adjudication = data.get("adjudication", {})
    for name, table in (("provenance", provenance), ("adjudication", adjudication)):
        if not isinstance(table, dict):
            raise ContractError(f"[{name}] must be a table", file=path)
    return QrelsFile(labels=labels, notes=notes, disputed=disputed, provenance=provenance,
                     adjudication=adjudication)


def check_labels_only(labels: Mapping[str, Mapping[str, object]], path: Path) -> None:
    for query, row in labels.items():
        for doc, label in row.items():
            if type(label) is not int or label not in (0, 1):
                raise ContractError(f"qrels labels must be integer 0 or 1, got {label!r}", file=path,
                                    where=f"{describe_id('query', query)}, {describe_id('document', doc)}")


def pair_tables(table: object, name: str, definition: ProtocolDefinition, path: Path) -> dict[str, dict[str, Any]]:
    """``[name.QUERY] DOC = value`` tables, restricted to the protocol's queries and documents."""
    if not isinstance(table, dict):
        raise ContractError(f"[{name}] must be a table of per-query tables", file=path)
    result: dict[str, dict[str, Any]] = {}
    for query, row in table.items():
        where = f"[{name}.{query}]"
        if query not in definition.queries:
            raise ContractError(f"unknown query {query!r}: not in the protocol", file=path, where=where)
        if not isinstance(row, dict):
            raise ContractError(f"must be a table of document = value, got {type(row).__name__}",
                                file=path, where=where)
        if not row.keys() <= definition.document_ids:  # at C speed; the loop names the first
            for doc in row:
                if doc not in definition.documents:
                    raise ContractError(f"unknown document {doc!r}: not in the corpus", file=path, where=where)
        result[query] = dict(row)
    return result


def qrels_to_toml(qrels: QrelsFile, definition: ProtocolDefinition) -> str:
    """Serialise in protocol order (queries, then corpus order) so diffs stay readable."""
    def ordered(table: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
        return {q: {d: table[q][d] for d in definition.documents if d in table[q]}
                for q in definition.queries if table.get(q)}

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
    """protocol.toml + exhaustive qrels.toml -> a validated ``Protocol``."""
    return load_protocol_and_qrels(directory, qrels_path)[0]


def load_protocol_and_qrels(directory: str | Path, qrels_path: str | Path | None = None) -> tuple[Protocol, QrelsFile]:
    """``load_protocol`` plus the ``QrelsFile`` it was built from (provenance, adjudication), so
    views that report what stands beside the labels need not read the qrels file a second time."""
    definition = load_definition(directory)
    path = Path(qrels_path) if qrels_path is not None else Path(directory) / QRELS_FILE
    qrels = read_qrels_tables(path, definition)
    # Protocol() runs check_qrels(definition, labels, file=path): read_qrels_file's own last check
    return Protocol(definition, qrels.labels, qrels_source=path), qrels


# ---------------------------------------------------------------- runs


def run_files(directory: str | Path) -> list[Path]:
    """The run files of a protocol's ``runs/`` directory, sorted by name."""
    runs = Path(directory) / RUNS_DIR
    if not runs.is_dir():
        return []
    return sorted(p for p in runs.iterdir() if p.is_file() and p.suffix in RUN_SUFFIXES)


def load_run(path: str | Path, name: str | None = None) -> Run:
    """A JSON run (``.json``) or a TREC run (anything else), named by its stem unless given."""
    path = Path(path)
    name = name or path.stem
    text = read_utf8(path)
    if path.suffix == ".json":
        return Run(name=name, rankings=parse_json_run(text, path), source=path)
    rankings, warnings = parse_trec_run(text, path)
    return Run(name=name, rankings=rankings, source=path, warnings=warnings)


def reject_duplicate_keys(path: Path):
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                raise ContractError("duplicate key in JSON object", file=path, where=describe_id("query", key))
            result[key] = value
        return result
    return hook


def parse_json_run(text: str, path: Path) -> dict[str, list[str]]:
    try:
        data = json.loads(text, object_pairs_hook=reject_duplicate_keys(path))
    except ContractError:
        raise
    except json.JSONDecodeError as error:
        raise ContractError(f"invalid JSON: {error.msg} at line {error.lineno} column {error.colno}",
                            file=path) from None
    except RecursionError:
        raise ContractError("invalid JSON: arrays or objects nested too deeply", file=path) from None
    except ValueError as error:
        # e.g. an integer of more than 4300 digits (int_max_str_digits): not a JSONDecodeError
        raise ContractError(f"invalid JSON: {error}", file=path) from None
    if not isinstance(data, dict):
        raise ContractError(f"a JSON run must be an object of query -> [document IDs], got {type(data).__name__}",
                            file=path)
    # A run repeats a few thousand document IDs up to millions of times; checking each distinct
    # ID once is the same rule (check_id depends on the value only) and was most of the load time
    # of a 1M-entry run. Non-strings are never in ``valid``, so they still reach check_id.
    valid: set[str] = set()
    for query, ranking in data.items():
        check_id("query", query, file=path)
        where = describe_id("query", query)
        if not isinstance(ranking, list):
            raise ContractError(f"ranking must be a list of document IDs, got {type(ranking).__name__}",
                                file=path, where=where)
        for doc in ranking:
            if type(doc) is not str or doc not in valid:
                valid.add(check_id("document", doc, file=path, where=where))
    return data


TREC_FIELD_SEPARATOR = re.compile(r"[ \t]+")
TREC_RANK = re.compile(r"-?[0-9]+")
TREC_SCORE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def parse_trec_run(text: str, path: Path) -> tuple[dict[str, list[str]], tuple[str, ...]]:
    """``qid Q0 docid rank score tag``, ordered by the rank column (not by score as trec_eval).

    A rank clash or a malformed line names the line. Where the rank order and trec_eval's order
    (score descending, then doc ID descending) disagree, a warning says so: trec_eval users
    would get other numbers from the same file.
    """
    entries: dict[str, dict[int, tuple[str, float]]] = {}
    lines_of: dict[str, dict[str, int]] = {}
    # Lines end at "\n" only and fields are split on spaces and tabs only: str.splitlines() and
    # str.split() also break on \x0b, \x1c-\x1e, U+2028 ..., which would shift line numbers and
    # silently split an ID in two instead of rejecting it.
    for number, line in enumerate(text.split("\n"), 1):
        line = line.removesuffix("\r")
        if not line.strip(" \t"):
            continue
        if "\r" in line:
            raise ContractError("carriage return inside a line (old Mac line endings?): lines must end "
                                "with \\n or \\r\\n", file=path, where=f"line {number}")
        fields = TREC_FIELD_SEPARATOR.split(line.strip(" \t"))
        where = f"line {number}"
        if len(fields) != 6:
            raise ContractError(f"a TREC run line has 6 fields 'qid Q0 docid rank score tag', got {len(fields)}",
                                file=path, where=where)
        query, _, doc, rank_text, score_text, _ = fields
        check_id("query", query, file=path, where=where)
        check_id("document", doc, file=path, where=where)
        # int() and float() would accept "1_000", " 3", "\u0663" (Arabic-Indic 3): coercion, not parsing
        if not TREC_RANK.fullmatch(rank_text):
            raise ContractError(f"rank must be an integer, got {rank_text!r}", file=path, where=where)
        try:
            rank = int(rank_text)
        except ValueError:
            raise ContractError(f"rank must be an integer, got {rank_text!r}", file=path, where=where) from None
        if not TREC_SCORE.fullmatch(score_text):
            raise ContractError(f"score must be a number, got {score_text!r}", file=path, where=where)
        score = float(score_text)
        if not math.isfinite(score):
            raise ContractError(f"score must be finite, got {score_text!r}", file=path, where=where)
        if rank < 0:
            raise ContractError(f"rank must be >= 0, got {rank}", file=path, where=where)
        ranks = entries.setdefault(query, {})
        if rank in ranks:
            raise ContractError(f"rank clash: rank {rank} of query {query!r} already given to "
                                f"document {ranks[rank][0]!r}", file=path, where=where)
        seen = lines_of.setdefault(query, {})
        if doc in seen:
            raise ContractError(f"duplicate document ID; deduplicate upstream explicitly: {doc!r} already "
                                f"at line {seen[doc]}", file=path, where=where)
        seen[doc] = number
        ranks[rank] = (doc, score)
    if not entries:
        raise ContractError("empty TREC run: no lines (write a JSON run {} for a run with no queries)", file=path)
    rankings: dict[str, list[str]] = {}
    warnings: list[str] = []
    for query, ranks in entries.items():
        ordered = [ranks[r] for r in sorted(ranks)]
        rankings[query] = [doc for doc, _ in ordered]
        by_score = [doc for doc, _ in sorted(ordered, key=lambda e: (e[1], e[0]), reverse=True)]
        if by_score != rankings[query]:
            warnings.append(f"{path}: query {query!r}: rank order differs from score order; "
                            "trec_eval orders by score and would score this query differently")
    return rankings, tuple(warnings)


def parse_run_argument(argument: str, protocol_dir: Path | None) -> tuple[str | None, Path]:
    """``NAME=PATH`` or ``PATH``; a relative path not found in the working directory is looked
    up in the protocol directory, so ``--run runs/A.json`` works from anywhere."""
    name, sep, rest = argument.partition("=")
    if sep and name and "/" not in name and rest:
        path = Path(rest)
    else:
        name, path = None, Path(argument)  # type: ignore[assignment]
    if not path.is_absolute() and not path.exists() and protocol_dir is not None:
        candidate = protocol_dir / path
        if candidate.exists():
            path = candidate
    return name or None, path


def load_chunk_map(path: str | Path) -> dict[str, str]:
    """``[chunk_to_doc]`` with ``chunk = "doc"`` string pairs, nothing else."""
    path = Path(path)
    data = read_toml(path)
    for key in data:
        if key != "chunk_to_doc":
            raise ContractError(f"unknown top-level table {key!r} (known: chunk_to_doc)", file=path)
    table = data.get("chunk_to_doc")
    if not isinstance(table, dict):
        raise ContractError("missing [chunk_to_doc] table", file=path)
    for chunk, doc in table.items():
        check_id("chunk", chunk, file=path, where="[chunk_to_doc]")
        check_id("document", doc, file=path, where=f"[chunk_to_doc] {chunk!r}")
    return table
