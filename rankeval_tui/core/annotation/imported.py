"""Which labels of a judging session are imported, not yet judged by the annotator.

Labels that ``init`` / ``qrels import`` brought in (their qrels provenance names the source with
``imported_from``) are explicit judgments, kept and scored, but someone else's: the judging
screen marks them so they can be reviewed. A label stays *imported* until the annotator records
a label on that pair (undoing that record makes it imported again). The written qrels keep the
source (``imported_from``, ``imported_labels``) and list the still-unreviewed pairs in
``imported_unreviewed``, so reopening the file shows the same marks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

UNREVIEWED_KEY = "imported_unreviewed"
SOURCE_KEY = "imported_from"


class ImportedLabels:
    """Pairs whose label came from an import and that no annotator has re-recorded."""

    def __init__(self) -> None:
        self.pairs: set[tuple[str, str]] = set()
        self.source: str | None = None
        self.edits: Counter[tuple[str, str]] = Counter()
        """Label records currently applied per pair (undo takes one away)."""

    def load(self, provenance: Mapping[str, Any], labels: Mapping[str, Mapping[str, int]]) -> None:
        """Mark the base labels of an imported file: every label, or the listed unreviewed ones."""
        source = provenance.get(SOURCE_KEY)
        if not isinstance(source, str):
            return
        self.source = source
        listed = provenance.get(UNREVIEWED_KEY)
        if isinstance(listed, dict):
            self.pairs = {
                (query, doc)
                for query, docs in listed.items()
                if isinstance(docs, list)
                for doc in docs
                if doc in labels.get(query, {})
            }
        else:
            self.pairs = {(query, doc) for query, row in labels.items() for doc in row}

    def is_imported(self, query: str, doc: str) -> bool:
        return (query, doc) in self.pairs and not self.edits[(query, doc)]

    def edited(self, query: str, doc: str, delta: int) -> None:
        if (query, doc) in self.pairs:
            self.edits[(query, doc)] += delta

    @property
    def unreviewed(self) -> int:
        return sum(1 for pair in self.pairs if not self.edits[pair])

    def provenance(self, data: dict[str, Any], query_order: Mapping[str, object]) -> None:
        """Record the still-unreviewed pairs beside the import's source (in protocol order)."""
        if self.source is None:
            return
        position = {query: i for i, query in enumerate(query_order)}
        table: dict[str, list[str]] = {}
        for query, doc in sorted(
            (pair for pair in self.pairs if not self.edits[pair]), key=lambda p: (position[p[0]], p[1])
        ):
            table.setdefault(query, []).append(doc)
        data[UNREVIEWED_KEY] = table
