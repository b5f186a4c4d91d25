"""The adjudication journal: resume the one beside the output, or start a new one.

Split out of ``AdjudicationSession`` so the session keeps the queue and the
decisions while this module owns the journal's header rules: which file it was recorded for,
by whom, and how its entries replay. It reuses ``Journal`` (one journal format for judging and
adjudication) and never imports textual.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rankeval_tui.core.annotation.binding import binding_fields, check_binding
from rankeval_tui.core.annotation.journal import A_JOURNAL, JOURNAL_VERSION, Journal, journal_exists, replay_entries
from rankeval_tui.core.annotation.judging import checked_label, default_annotator
from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.files.safe_read import read_input_bytes

Pair = tuple[str, str]


@dataclass(frozen=True)
class Decision:
    """The adjudicator's final label for one disagreeing pair, and why."""

    final: int
    reason: str


def checked_reason(reason: object) -> str:
    """The stripped reason; refuses a missing or blank one, since the reason is what is audited."""
    if type(reason) is not str or not reason.strip():
        raise ContractError("a decision needs a reason (what made this pair relevant or not)")
    return reason.strip()


@dataclass
class OpenedJournal:
    """A journal open for appending, with what resuming it recovered."""

    journal: Journal
    adjudicator: str
    decisions: dict[Pair, Decision] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def open_adjudication_journal(
    path: Path,
    definition: ProtocolDefinition,
    inputs: list[dict[str, str]],
    adjudicator: str | None,
    queue: Mapping[Pair, int],
) -> OpenedJournal:
    """Resume the journal at ``path`` (replaying its decisions for pairs in ``queue``) or start one.

    A resumed journal must be an adjudication journal bound to the same protocol, the same
    annotator files (by sha256) and, when ``adjudicator`` is given, the same adjudicator.
    """
    if journal_exists(path) and b"\n" in read_input_bytes(path, link=A_JOURNAL):
        return _resume(path, definition, inputs, adjudicator, queue)
    warnings = []
    if os.path.lexists(path):
        warnings.append(f"{path}: journal had no complete line; nothing had been recorded; starting over")
        path.unlink()
    name = adjudicator or default_annotator()
    journal = Journal(path)
    header = {
        "op": "start",
        "version": JOURNAL_VERSION,
        "kind": "adjudication",
        "protocol": definition.name,
        **binding_fields(definition),
        "inputs": inputs,
        "adjudicator": name,
        "disagreements": len(queue),
    }
    try:
        journal.open_for_append()
        journal.append(header)
    except OSError as error:  # disk full or read-only at the start: nothing was recorded yet
        journal.remove()
        raise ContractError(f"cannot start the journal: {error.strerror}", file=path) from None
    return OpenedJournal(journal, name, warnings=warnings)


def _resume(
    path: Path,
    definition: ProtocolDefinition,
    inputs: list[dict[str, str]],
    adjudicator: str | None,
    queue: Mapping[Pair, int],
) -> OpenedJournal:
    contents = Journal.read(path)
    header = contents.header
    if header.get("kind") != "adjudication":
        raise ContractError("not an adjudication journal", file=path, where="line 1")
    check_binding(header, definition, path)
    if [i.get("sha256") for i in header.get("inputs", [])] != [i["sha256"] for i in inputs]:
        raise ContractError(
            "journal was recorded for other annotator files (their contents or names "
            "changed, so the disagreements may differ); move it away to start over",
            file=path,
        )
    if adjudicator is not None and adjudicator != header.get("adjudicator"):
        raise ContractError(
            f"journal was started by adjudicator {quote(header.get('adjudicator'))}, not "
            f"{quote(adjudicator)}; resume without --adjudicator or move it away",
            file=path,
        )
    decisions: dict[Pair, Decision] = {}

    def replay(entry: dict[str, Any]) -> None:
        if entry.get("op") != "decide":
            raise ContractError(f"unknown adjudication journal entry {quote(entry.get('op'))}")
        query: Any = entry.get("q")  # checked by membership in the queue just below
        document: Any = entry.get("d")
        pair = (query, document)
        if pair not in queue:
            raise ContractError(f"decision for a pair not in the queue: {quote(pair)}")
        decisions[pair] = Decision(
            checked_label(entry.get("final"), definition.top_grade), checked_reason(entry.get("reason"))
        )

    replay_entries(contents, path, replay)
    journal = Journal(path)
    journal.open_for_append(truncate_to=contents.good_length if contents.torn else None)
    return OpenedJournal(journal, str(header.get("adjudicator", "")), decisions, contents.notices(path))
