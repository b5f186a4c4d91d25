"""One annotator's labels from a file made elsewhere (a model, a colleague): TREC qrels or
UMBRELA-style JSONL, into a labels file of their own, with where they came from.

Why a file of its own: a model's labels are measured against people (``agree``), never mixed into
the protocol's ``qrels.toml``. Why partial: a model (or a person) often labels only some pairs; a
partial file holds exactly the pairs it lists, none filled in, and says so (``partial = true``).
Why the provenance: two label files can only be compared, or trusted, when each says who made it
and from what: the annotator, the input file's sha256, and what the user states about the run
(model, prompt sha256, temperature, date), recorded as stated, not checked.

JSONL records (one object a line)::

    {"qid": "q1", "docid": "d3", "judgment": 2, "reasoning": "..."}   reasoning optional

IDs are strings and judgments integers (``true`` or ``"2"`` refused, never coerced). A record's
reasoning becomes the pair's note (``[notes]``), beside the label.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.files.annotator_kind import MODEL_PREFIX, is_model
from rankeval_tui.core.files.annotator_kind import annotator_words as annotator_words  # its home was here
from rankeval_tui.core.files.protocol_files import QrelsFile
from rankeval_tui.core.files.tomlio import utf8_text
from rankeval_tui.core.files.trec import JudgmentRecord, judgments_to_qrels, parse_trec_qrels

JSONL_KEYS = ("qid", "docid", "judgment")
JSONL_OPTIONAL = ("reasoning",)
STATED_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
STATED_TABLE = "stated"
"""``[provenance.stated]``: what the user said about how the labels were made (--provenance)."""


def check_annotator(annotator: str) -> None:
    """A name that can be shown and compared: printable, no surrounding blanks, and a model's
    name says which model (``model:`` alone is no name)."""
    if not annotator or annotator != annotator.strip() or not annotator.isprintable():
        raise ContractError(f"--annotator must be a printable name without surrounding blanks, got {quote(annotator)}")
    if annotator == MODEL_PREFIX:
        raise ContractError(f"--annotator {MODEL_PREFIX}NAME names the model, got {quote(annotator)}")


def stated_provenance(items: Sequence[str]) -> dict[str, str]:
    """``--provenance KEY=VALUE`` (repeatable) -> ``{KEY: VALUE}``; a key given twice, or not a
    plain word, is refused (a TOML key the reader would otherwise have to guess at)."""
    stated: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not STATED_KEY.fullmatch(key):
            raise ContractError(
                f"--provenance takes KEY=VALUE with KEY a word (letters, digits, _ -), got {quote(item)}"
            )
        if key in stated:
            raise ContractError(f"--provenance {key} given twice ({quote(stated[key])} and {quote(value)})")
        if not value.isprintable():
            raise ContractError(f"--provenance {key}: the value must be printable, got {quote(value)}")
        stated[key] = value
    return stated


def looks_like_jsonl(text: str) -> bool:
    """JSONL starts with ``{``; a TREC qrels line never does (its first field is a query ID,
    and no ID holds ``{``... or if one does, its line has 4 fields, which JSON's never splits to)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    return first.lstrip().startswith("{")


def parse_jsonl_judgments(text: str, file: Path | None) -> list[JudgmentRecord]:
    """UMBRELA-style JSONL -> records, each checked for its keys and their types."""
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            record = json.loads(line)
        except ValueError as error:
            raise ContractError(f"not a JSON object: {error}", file=file, where=where) from None
        if not isinstance(record, dict):
            raise ContractError(f"a label record is a JSON object, got {type(record).__name__}", file=file, where=where)
        missing = [key for key in JSONL_KEYS if key not in record]
        unknown = sorted(set(record) - set(JSONL_KEYS) - set(JSONL_OPTIONAL))
        if missing or unknown:
            problem = f"missing {', '.join(missing)}" if missing else f"unknown key {', '.join(map(quote, unknown))}"
            raise ContractError(
                f"{problem}: a label record holds qid, docid, judgment and optionally reasoning", file=file, where=where
            )
        for key in ("qid", "docid"):
            if type(record[key]) is not str:
                raise ContractError(f"{key} must be a string, got {quote(record[key])}", file=file, where=where)
        judgment, reasoning = record["judgment"], record.get("reasoning")
        if type(judgment) is not int:
            raise ContractError(f"judgment must be an integer, got {quote(judgment)}", file=file, where=where)
        if reasoning is not None and type(reasoning) is not str:
            raise ContractError(f"reasoning must be a string, got {quote(reasoning)}", file=file, where=where)
        records.append(JudgmentRecord(number, record["qid"], record["docid"], str(judgment), reasoning or None))
    return records


def import_labels(
    raw: bytes,
    definition: ProtocolDefinition,
    *,
    path: Path,
    threshold: int | None = None,
    partial: bool = False,
    annotator: str | None = None,
    stated: dict[str, str] | None = None,
) -> QrelsFile:
    """A label file (TREC qrels or JSONL, told by content) -> an annotator's ``QrelsFile``.

    Without ``partial``, ``annotator`` or ``stated`` this is exactly what ``qrels import`` always
    wrote for TREC qrels (the same provenance, byte for byte)."""
    text = utf8_text(raw, path)
    if looks_like_jsonl(text):
        records = parse_jsonl_judgments(text, path)
        qrels = judgments_to_qrels(records, definition, "jsonl", file=path, threshold=threshold, partial=partial)
    else:
        qrels = parse_trec_qrels(text, definition, path=path, threshold=threshold, partial=partial)
    if partial or annotator is not None or stated:
        add_annotator_provenance(qrels.provenance, raw, annotator=annotator, partial=partial, stated=stated or {})
    return qrels


def add_annotator_provenance(
    provenance: dict[str, Any], raw: bytes, *, annotator: str | None, partial: bool, stated: dict[str, str]
) -> None:
    """Who labeled, whether a model, whether partial, the input's sha256, and what was stated."""
    if annotator is not None:
        check_annotator(annotator)
        provenance["annotator"] = annotator
        provenance["annotator_kind"] = "model" if is_model(annotator) else "person"
    provenance["partial"] = partial
    provenance["input_sha256"] = hashlib.sha256(raw).hexdigest()
    if stated:
        provenance[STATED_TABLE] = stated


def file_is_partial(qrels: QrelsFile) -> bool:
    """Whether a labels file says it holds only some pairs (``[provenance] partial = true``)."""
    return qrels.provenance.get("partial") is True
