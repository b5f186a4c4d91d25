"""JSON Lines records of corpus and query files: read line by line with every check named by its
line, or, when the file is well formed, at C speed with the same result.

Why both: ``init`` at 100,000 documents spent most of its reading in Python per line
(``json.loads``' Python layers and a decoder built per line for the duplicate-key hook, the hook
building each record key by key, the shape, ID, type and duplicate checks;
``benchmarks/bench_init.py`` measures it).
``well_formed_records`` scans every line with json's C scanner and ``record_columns`` runs each
check once over all records (a key union, a type set, one ID regex over the IDs joined). Any
doubt (a blank line, a carriage return, whitespace around a record, a repeated key, a surrogate
escape, a record of another shape, an unknown key, an ID or text of the wrong kind) gives None,
and the line-by-line reader reads the file: every accepted file and every message stay what
they were (tests/core/test_jsonl_records.py compares the two on generated files).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from json.scanner import make_scanner
from operator import itemgetter
from pathlib import Path
from typing import Any

from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.files.ids import NOT_IN_AN_ID, check_id
from rankeval_tui.core.files.unicode_text import has_lone_surrogate, may_hold_lone_surrogates
from rankeval_tui.core.wording import json_error

_STRINGS = {str}


@dataclass(frozen=True)
class RecordShape:
    """One JSONL record layout: the ID key, the text key, and the keys it may also carry."""

    name: str
    id_key: str
    text_key: str
    optional: tuple[str, ...]


def numbered_lines(text: str, path: Path) -> Iterator[tuple[int, str]]:
    """Non-blank lines with their 1-based numbers; lines end at ``\\n`` (``\\r\\n`` too) only,
    as in the run parsers, so a stray U+2028 inside a text does not shift line numbers."""
    for number, line in enumerate(text.split("\n"), 1):
        line = line.removesuffix("\r")
        if "\r" in line:
            raise ContractError(
                "carriage return inside a line: lines must end with \\n", file=path, where=f"line {number}"
            )
        if line.strip(" \t"):
            yield number, line


def first_line(text: str, path: Path, kind: str) -> tuple[int, str]:
    for numbered in numbered_lines(text, path):
        return numbered
    raise ContractError(f"empty {kind} file: no records", file=path)


def json_records(text: str, path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    escapes = may_hold_lone_surrogates(text)
    for number, line in numbered_lines(text, path):
        where = f"line {number}"
        try:
            record = json.loads(line, object_pairs_hook=unique_keys(path, where))
        except ContractError:
            raise
        except (json.JSONDecodeError, RecursionError, ValueError) as error:
            if isinstance(error, json.JSONDecodeError):
                reason = json_error(error.msg, None, error.colno)
            else:
                reason = str(error) or "too deeply nested"
            raise ContractError(f"invalid JSON line: {reason}", file=path, where=where) from None
        if not isinstance(record, dict):
            raise ContractError(
                f"a JSONL record must be an object, got {type(record).__name__}", file=path, where=where
            )
        if escapes and has_lone_surrogate(record):
            raise ContractError(
                "the record holds a lone surrogate (a \\ud800-\\udfff escape without its pair): not text "
                "that UTF-8 can store; fix the escape",
                file=path,
                where=where,
            )
        yield number, record


def unique_keys(path: Path, where: str) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                raise ContractError(f"duplicate key {quote(key)} in one record", file=path, where=where)
            result[key] = value
        return result

    return hook


def detect_shape(
    record: dict[str, Any], shapes: tuple[RecordShape, ...], path: Path, where: str, kind: str
) -> RecordShape:
    """The one shape whose ID and text keys the first record has; none or two is an error."""
    fits = [s for s in shapes if s.id_key in record and s.text_key in record]
    known = "; ".join(f"{s.name} {{{s.id_key}, {s.text_key}}}" for s in shapes)
    if not fits:
        raise ContractError(
            f"not a known {kind} record: keys {sorted(record)} (known: {known})", file=path, where=where
        )
    if len(fits) > 1:
        names = " and ".join(f"{s.name} ({s.id_key}, {s.text_key})" for s in fits)
        raise ContractError(
            f"ambiguous {kind} format: the record fits {names}; keep one ID key", file=path, where=where
        )
    return fits[0]


def shaped_records(
    text: str, path: Path, shapes: tuple[RecordShape, ...], kind: str
) -> tuple[RecordShape, list[tuple[int, str, str, dict[str, Any]]]]:
    """(shape, [(line, id, text, record)]) with every record in the first record's shape."""
    shape: RecordShape | None = None
    result: list[tuple[int, str, str, dict[str, Any]]] = []
    for number, record in json_records(text, path):
        where = f"line {number}"
        if shape is None:
            shape = detect_shape(record, shapes, path, where, kind)
        allowed = {shape.id_key, shape.text_key, *shape.optional}
        for key in record:
            if key not in allowed:
                raise ContractError(
                    f"unknown key {quote(key)} for a {shape.name} {kind} (known: {', '.join(sorted(allowed))})",
                    file=path,
                    where=where,
                )
        for key in (shape.id_key, shape.text_key):
            if key not in record:
                raise ContractError(f"missing key {quote(key)} ({shape.name} {kind})", file=path, where=where)
        identifier = check_id(kind, record[shape.id_key], file=path, where=where)
        body = record[shape.text_key]
        if type(body) is not str:
            raise ContractError(
                f"{quote(shape.text_key)} must be a string, got {type(body).__name__}", file=path, where=where
            )
        result.append((number, identifier, body, record))
    if shape is None:
        raise ContractError(f"empty {kind} file: no records", file=path)
    return shape, result


def optional_string(record: dict[str, Any], key: str, path: Path, where: str) -> str | None:
    value = record.get(key)
    if value is not None and type(value) is not str:
        raise ContractError(f"{quote(key)} must be a string, got {type(value).__name__}", file=path, where=where)
    return value


# ---------------------------------------------------------------- at C speed, when well formed


class _RepeatedKey(Exception):
    """A key twice in one object: the line-by-line reader names it and its line."""


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    record = dict(pairs)
    if len(record) != len(pairs):
        raise _RepeatedKey
    return record


def well_formed_records(text: str) -> list[Any] | None:
    """Each line's JSON value, when every line is exactly one value from its first character to
    its last (no blank line, no carriage return, no whitespace around it), no object repeats a
    key and the text spells no surrogate escape; else None."""
    if "\r" in text or may_hold_lone_surrogates(text):
        return None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if not lines:
        return None
    scan = make_scanner(json.JSONDecoder(object_pairs_hook=_unique_pairs))  # type: ignore[arg-type]  # typeshed: a duck-typed context
    try:
        scanned = list(map(scan, lines, repeat(0)))
    except (StopIteration, ValueError, RecursionError, _RepeatedKey):
        return None  # not a value at the first character, not JSON, too deep, a repeated key
    if list(map(itemgetter(1), scanned)) != list(map(len, lines)):
        return None  # something after the value
    return list(map(itemgetter(0), scanned))


def record_columns(
    records: list[Any], shapes: Sequence[RecordShape]
) -> tuple[RecordShape, list[str], list[str]] | None:
    """(shape, IDs, texts) of records that are all objects of the one shape the first record
    fits, with no unknown key, every ID a nonempty string free of whitespace and control
    characters (``check_id``'s rule) and every text a string; else None."""
    if set(map(type, records)) != {dict}:
        return None
    first = records[0]
    fits = [s for s in shapes if s.id_key in first and s.text_key in first]
    if len(fits) != 1:
        return None
    shape = fits[0]
    if not set().union(*records) <= {shape.id_key, shape.text_key, *shape.optional}:
        return None
    try:
        ids = list(map(itemgetter(shape.id_key), records))
        texts = list(map(itemgetter(shape.text_key), records))
    except KeyError:
        return None
    if set(map(type, ids)) != _STRINGS or not all(ids) or NOT_IN_AN_ID.search("".join(ids)):
        return None
    if set(map(type, texts)) != _STRINGS:
        return None
    return shape, ids, texts


def optional_strings(records: list[dict[str, Any]], key: str) -> list[str | None] | None:
    """Every record's ``key`` (None where absent), when each is a string or absent or null (as
    ``optional_string`` takes it); else None."""
    values = list(map(dict.get, records, repeat(key)))
    return values if set(map(type, values)) <= {str, type(None)} else None
