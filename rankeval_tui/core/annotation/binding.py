"""What a label means, as hashes: the binding of a journal (and of written qrels) to a protocol.

A 0/1 label answers "is this document relevant to this query under this criterion?". So a
journal may only be replayed, and a qrels file only be extended, under the same documents, the
same queries, the same relevance criterion and the same label scale. Each of the four is hashed
on its own and stored (journal header, qrels provenance), so a mismatch can say *which* changed
instead of "another version of protocol.toml".

``check_binding`` is the one test used on resume (judging and adjudication); ``rebind_journal``
moves an open journal to a grown protocol (new documents or queries: the labels keep their
meaning), and refuses when the criterion or the scale changed (they would not).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

from rankeval_tui.core.annotation.journal import A_JOURNAL, Journal
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.files.atomic import atomic_write_bytes
from rankeval_tui.core.files.safe_read import read_input_bytes

LABEL_SCALE = (0, 1)
"""The values a judgment takes on the binary scale; a graded protocol's scale is its grades'
words, hashed so a graded scale can never replay a 0/1 journal (nor another graded one's)."""

PARTS = ("documents", "queries", "relevance", "labels")
"""Everything that changes what a label means. k and split are not here: they change no pair."""

MEANING_PARTS = ("relevance", "labels")
"""The parts a grown protocol must keep: new documents or queries add pairs, these change every label."""

PART_NAMES = {
    "documents": "the documents",
    "queries": "the queries",
    "relevance": "the relevance criterion",
    "labels": "the label scale",
}


def sha256_json(value: object) -> str:
    canonical = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def definition_parts(definition: ProtocolDefinition) -> dict[str, str]:
    """sha256 of each part that gives a label its meaning, by part name (``PARTS``)."""
    documents: object = dict(definition.documents)
    if definition.pools is not None:  # a pooled protocol's pairs are its pools (texts optional)
        documents = {"texts": documents, "pools": {q: list(pool) for q, pool in definition.pools.items()}}
    return {
        "documents": sha256_json(documents),
        "queries": sha256_json({q: meta.canonical() for q, meta in definition.queries.items()}),
        "relevance": sha256_json(definition.relevance),
        "labels": sha256_json(list(LABEL_SCALE) if definition.scale is None else {"grades": definition.scale.words}),
    }


def definition_sha256(definition: ProtocolDefinition) -> str:
    """One hash of all the parts: what a journal and a judged qrels file are bound to."""
    return sha256_json(definition_parts(definition))


def binding_fields(definition: ProtocolDefinition) -> dict[str, Any]:
    """The fields a journal header (and judged qrels' provenance) records: the hash and its parts."""
    return {"definition_sha256": definition_sha256(definition), "binding": definition_parts(definition)}


def changed_parts(recorded: object, definition: ProtocolDefinition, parts: tuple[str, ...] = PARTS) -> list[str]:
    """The parts (of ``parts``) whose recorded hash differs from ``definition``'s; all if unreadable."""
    current = definition_parts(definition)
    if not isinstance(recorded, dict):
        return list(parts)
    return [part for part in parts if recorded.get(part) != current[part]]


def describe_changes(changed: list[str]) -> str:
    """``the relevance criterion and the label scale changed``."""
    names = [PART_NAMES[part] for part in changed]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{listed} changed"


def check_binding(header: dict[str, Any], definition: ProtocolDefinition, path: Path) -> None:
    """Refuse to replay a journal recorded for another meaning of its labels, naming what changed.

    Version-1 journals recorded only documents and queries: whether the criterion changed since
    cannot be known, so they are refused rather than replayed under a criterion they may not
    have been judged under.
    """
    if header.get("version") == 1:
        raise ContractError(
            "journal version 1 (from an older rankeval-tui) does not record the relevance criterion "
            "or the label scale, so resuming it could mix two criteria in one qrels file; finish it "
            "with the version that started it, or move it away to start over",
            file=path,
            where="line 1",
        )
    changed = changed_parts(header.get("binding"), definition)
    bound = header.get("definition_sha256")
    if not set(changed) & set(MEANING_PARTS) and (
        bound in growth_ancestors(definition) or header.get("grown_from") == definition_sha256(definition)
    ):
        raise ContractError(
            "a `rankeval-tui grow` was interrupted before it finished moving this journal to the grown "
            "protocol.toml; run the same grow again to finish it (every label in the journal is kept; "
            "do not move the journal away)",
            file=path,
        )
    if changed or bound != definition_sha256(definition):
        raise ContractError(
            f"journal was recorded for another version of protocol.toml: {describe_changes(changed or list(PARTS))}; "
            "its labels would mean something else now; restore protocol.toml or move the journal away",
            file=path,
        )


def check_same_criterion(provenance: dict[str, Any], definition: ProtocolDefinition, path: Path) -> None:
    """Refuse qrels judged under another criterion or label scale: one file, one criterion
    (judging extends them, merge and adjudication combine them, agreement compares them).

    Qrels without a recorded binding (imported, merged, hand-written, older versions) cannot be
    checked and are accepted, as before.
    """
    recorded = provenance.get("binding")
    if recorded is None:
        return
    changed = changed_parts(recorded, definition, MEANING_PARTS)
    if changed:
        raise ContractError(
            f"these qrels were judged under another protocol.toml: {describe_changes(changed)}; using "
            "them now would mix two criteria (judging, merging, agreement, adjudication); restore "
            "protocol.toml, or judge into a new file with --qrels",
            file=path,
        )


def growth_ancestors(definition: ProtocolDefinition) -> set[str]:
    """The definition hashes protocol.toml records having grown from into ``definition``.

    Each ``[[provenance.growth]]`` entry records the hash before and after one grow; walking them
    back from the current hash gives every earlier definition whose labels still mean the same
    (grow only adds pairs). A journal bound to one of them was left behind by an interrupted
    grow: the same grow again moves it, and ``judge`` says so instead of "move the journal away".
    """
    records = definition.provenance.get("growth") if isinstance(definition.provenance, dict) else None
    back: dict[object, object] = {}
    for record in records if isinstance(records, list) else []:
        if isinstance(record, dict):
            back[record.get("definition_sha256_after")] = record.get("definition_sha256_before")
    ancestors: set[str] = set()
    current: object = definition_sha256(definition)
    while current in back and isinstance(back[current], str) and back[current] not in ancestors:
        current = back[current]
        ancestors.add(str(current))
    return ancestors


def needs_rebinding(path: Path, definition: ProtocolDefinition, ancestors: Collection[str] | None = None) -> bool:
    """Whether the journal at ``path`` must be rebound to ``definition``; raises when it may not be.

    A changed criterion or label scale is refused (those labels would mean something else); with
    ``ancestors`` (the hashes it may have been recorded for: the definitions the protocol grew
    from), a journal bound to none of them nor to ``definition`` is refused. Nothing is written,
    so ``grow`` checks every journal before its first write."""
    header = Journal.read(path).header  # a damaged journal is refused here, as on resume
    if header.get("version") == 1:
        check_binding(header, definition, path)  # raises the version-1 refusal
    changed = changed_parts(header.get("binding"), definition, MEANING_PARTS)
    if changed:
        raise ContractError(
            f"cannot move the journal to the new protocol.toml: {describe_changes(changed)}; its labels "
            "would mean something else",
            file=path,
        )
    bound = header.get("definition_sha256")
    if bound == definition_sha256(definition):
        return False  # already bound (an interrupted grow moved it)
    if ancestors is not None and bound not in ancestors:
        raise ContractError(
            "journal was recorded for another version of protocol.toml; grow only migrates the "
            "journal of the protocol as it is now",
            file=path,
        )
    return True


def rebind_journal(path: Path, definition: ProtocolDefinition, ancestors: Collection[str] | None = None) -> bool:
    """Bind an open journal to ``definition`` (a grown protocol), keeping every entry byte for byte.

    For ``grow``: new documents or queries keep the meaning of every recorded label, so the
    header's hashes are replaced (atomically: the old journal or the new one, never a mix).
    Refused as ``needs_rebinding`` says. Returns whether the journal was rewritten. The caller
    holds the writer lock.
    """
    if not needs_rebinding(path, definition, ancestors):
        return False
    header = Journal.read(path).header
    raw = read_input_bytes(path, link=A_JOURNAL)
    lines = raw.split(b"\n")
    first = next(i for i, line in enumerate(lines) if line.strip())  # blank lines before it are harmless
    header.update(binding_fields(definition), grown_from=header.get("definition_sha256"))
    if "pairs" in header:
        header["pairs"] = definition.pair_count
    lines[first] = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    atomic_write_bytes(path, b"\n".join(lines))
    return True
