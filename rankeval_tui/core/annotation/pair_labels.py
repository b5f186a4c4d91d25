"""What an annotator has recorded about the pairs of one protocol: labels, notes and dispute
flags, which labels are imported, and the counts that make progress O(1).

This is judging's state without the cursor, the undo history or any file: every write goes
through ``set``, which keeps the counters right, so nothing is ever recounted.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from rankeval_tui.core.annotation.imported import ImportedLabels
from rankeval_tui.core.errors import ContractError, describe_id, quote
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition

# Labels, notes and dispute flags are the three things an annotator records about a pair.
Kind = Literal["label", "note", "disputed"]
V = TypeVar("V")


class PairLabels:
    """The labels, notes and dispute flags of one protocol's pairs, with judged counts kept."""

    def __init__(self, definition: ProtocolDefinition) -> None:
        self.definition = definition
        self.labels: dict[str, dict[str, int]] = {}
        self.notes: dict[str, dict[str, str]] = {}
        self.disputed: dict[str, dict[str, bool]] = {}
        self.judged_in: dict[str, int] = {query: 0 for query in definition.queries}
        """Labels per query: a query's progress, and finished queries skipped without a scan."""
        self.judged = 0
        self.imported = ImportedLabels()
        self.base_provenance: dict[str, Any] = {}
        self.dirty = False
        """Changed since the qrels file was last loaded or written."""
        self.review = False
        """The session started from a complete qrels file: reviewing, not judging."""

    @property
    def total(self) -> int:
        return self.definition.pair_count

    @property
    def remaining(self) -> int:
        return self.total - self.judged

    @property
    def complete(self) -> bool:
        """Every pair has a label: judged, or (``unlisted_as_zero``) 0 by the collection's
        declaration until an annotator judges it, so the qrels can be written at any point."""
        return self.judged == self.total or self.definition.unlisted_as_zero

    def label_of(self, query: str, doc: str) -> int | None:
        return self.labels.get(query, {}).get(doc)

    def note_of(self, query: str, doc: str) -> str | None:
        return self.notes.get(query, {}).get(doc)

    def is_disputed(self, query: str, doc: str) -> bool:
        return self.disputed.get(query, {}).get(doc, False)

    def is_imported(self, query: str, doc: str) -> bool:
        """The label came from an import and the annotator has not recorded one on it."""
        return self.imported.is_imported(query, doc)

    def value_of(self, kind: Kind, query: str, doc: str) -> Any:
        """The current label, note or dispute flag of a pair: the ``before`` of a change."""
        if kind == "label":
            return self.label_of(query, doc)
        return self.note_of(query, doc) if kind == "note" else self.is_disputed(query, doc)

    def set(self, kind: Kind, query: str, doc: str, value: Any) -> None:
        """Set one value and keep the counters right; ``None`` / ``False`` removes it."""
        if kind == "label":
            row = self.labels.get(query)
            if row is None:  # not setdefault(query, {}): a new dict per call, a million on a resume
                row = self.labels[query] = {}
            had = doc in row
            if value is None:
                row.pop(doc, None)
            else:
                row[doc] = value
            delta = (value is not None) - had
            self.judged_in[query] += delta
            self.judged += delta
        else:
            table = self.notes if kind == "note" else self.disputed
            extras: dict[str, Any] = table.setdefault(query, {})
            if value is None or value is False:
                extras.pop(doc, None)
            else:
                extras[doc] = value
        self.dirty = True

    def check_pair(self, query: object, doc: object) -> tuple[str, str]:
        """Reject a pair the protocol does not have; return it typed as the IDs it now is."""
        if not isinstance(query, str) or query not in self.definition.queries:
            raise ContractError(f"unknown {describe_id('query', query)}")
        if not isinstance(doc, str) or doc not in self.definition.documents:
            pools = self.definition.pool_sets
            if not (pools and isinstance(doc, str) and doc in pools[query]):  # pooled: a text is optional
                raise ContractError(f"unknown {describe_id('document', doc)}")
        return query, doc

    def load_base(self, base: dict[str, Any]) -> None:
        """Load the labels a session starts from (an existing qrels file, as the journal holds it)."""
        self.base_provenance = dict(base.get("provenance", {}))
        for query, row in base["labels"].items():
            for doc, value in row.items():
                self.check_pair(query, doc)
                self.set("label", query, doc, checked_label(value, self.definition.top_grade))
        for query, row in base.get("notes", {}).items():
            for doc, text in row.items():
                self.check_pair(query, doc)
                self.set("note", query, doc, text)
        for query, row in base.get("disputed", {}).items():
            for doc, flag in row.items():
                self.check_pair(query, doc)
                self.set("disputed", query, doc, bool(flag))
        self.imported.load(self.base_provenance, self.labels)
        self.dirty = False  # what was loaded is what is on disk


def nonempty_rows(table: dict[str, dict[str, V]]) -> dict[str, dict[str, V]]:
    """A copy of a per-query table without its empty rows (an emptied row is not written)."""
    return {query: dict(row) for query, row in table.items() if row}


def checked_label(value: object, top: int = 1) -> int:
    """Only the integers 0 to ``top`` are labels: 0 and 1 on the binary scale, a graded
    protocol's grades otherwise (``True`` is not a label)."""
    if type(value) is not int or not 0 <= value <= top:
        rule = "integer 0 or 1" if top == 1 else f"an integer grade 0 to {top}"
        raise ContractError(f"labels must be {rule}, got {quote(value)}")
    return value
