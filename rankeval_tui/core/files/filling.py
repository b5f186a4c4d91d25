"""``score --fill-from LABELS.toml``: the protocol's own labels, with only the pairs they leave
unjudged taken from another annotator's file (a model's, usually), every such pair remembered.

Why only when asked and always marked: a model's label read as if a person had given it is the
silent mixing this project refuses. So a pair the protocol's qrels judge is never replaced, the
fill file's provenance (who, which file) travels with the scores, and every output counts, per run
and per query, the top-k pairs whose label came from the fill, so a reader sees how much of a
number rests on them. Pairs neither file judges are still holes, refused as always.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.evaluate import Run
from rankeval_tui.core.evaluation.pools import pool_violation
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.files.annotator_kind import annotator_words, kind_field
from rankeval_tui.core.files.holes import refuse_holes
from rankeval_tui.core.files.protocol_files import (
    QRELS_FILE,
    QrelsFile,
    check_labels_only,
    load_definition,
    parsed_or_none,
    read_qrels_file,
    read_qrels_tables,
)


@dataclass(frozen=True)
class Filling:
    """Where the filled labels came from and which pairs they are."""

    source: Path
    annotator: str | None
    pairs: Mapping[str, frozenset[str]]
    """Per query with any, the documents whose label was taken from ``source``."""

    @property
    def count(self) -> int:
        return sum(map(len, self.pairs.values()))

    def who(self) -> str:
        """``model.toml (model:umbrela (a model))``: the file and, when it says, its annotator."""
        return f"{self.source}" + ("" if self.annotator is None else f" ({annotator_words(self.annotator)})")

    def top_k(self, run: Run, k: int, queries: Collection[str]) -> dict[str, int]:
        """Per query of ``queries`` with any, the run's top-k pairs whose label was filled."""
        counts = {}
        for query in queries:
            filled = self.pairs.get(query)
            if filled:
                count = sum(doc in filled for doc in run.rankings.get(query, ())[:k])
                if count:
                    counts[query] = count
        return counts

    def to_json(self, per_run: Mapping[str, Mapping[str, int]], k: int) -> dict[str, Any]:
        return {
            "source": str(self.source),
            "annotator": self.annotator,
            **kind_field(self.annotator),
            "filled_pairs": self.count,
            "k": k,
            "runs": {
                run: {"top_k_pairs": sum(counts.values()), "per_query": dict(counts)} for run, counts in per_run.items()
            },
        }


def load_filled_protocol(
    directory: str | Path, qrels_path: str | Path | None, fill_path: str | Path
) -> tuple[Protocol, QrelsFile, Filling]:
    """The protocol with its own labels (which may leave pairs unjudged) and ``fill_path``'s labels
    for exactly those pairs; pairs judged in neither are refused as holes, as ``load_protocol`` does."""
    path = Path(qrels_path) if qrels_path is not None else Path(directory) / QRELS_FILE
    fill_path = Path(fill_path)
    if fill_path.exists() and path.exists() and fill_path.resolve() == path.resolve():
        raise ContractError("--fill-from names the protocol's own qrels: nothing to fill from", file=fill_path)
    fresh = qrels_path is None and not path.exists()
    data = None if fresh else parsed_or_none(path)
    rows = data.get("qrels") if data is not None else None
    definition = load_definition(directory, qrels_rows=rows if type(rows) is dict else None)
    own = QrelsFile(labels={}) if fresh else read_qrels_tables(path, definition, data=data)
    check_labels_only(own.labels, path)
    if definition.pools is not None and (outside := pool_violation(definition.pool_sets, own.labels, file=path)):
        raise outside
    fill = read_qrels_file(fill_path, definition, exhaustive=False)
    labels: dict[str, dict[str, int]] = {}
    filled: dict[str, frozenset[str]] = {}
    for query in definition.queries:
        mine, theirs = own.labels.get(query, {}), fill.labels.get(query, {})
        taken = [doc for doc in definition.documents_of(query) if doc not in mine and doc in theirs]
        row = {
            doc: mine[doc] if doc in mine else theirs[doc]
            for doc in definition.documents_of(query)
            if doc in mine or doc in theirs
        }
        if row:
            labels[query] = row
        if taken:
            filled[query] = frozenset(taken)
    refuse_holes(definition, labels, path, directory)
    filling = Filling(fill_path, named_annotator(fill.provenance), filled)
    return Protocol(definition, labels, qrels_source=path), own, filling


def named_annotator(provenance: Mapping[str, Any]) -> str | None:
    """``annotator = "model:x"`` or ``annotators = ["alice", "bob"]`` as one name; None if neither."""
    single = provenance.get("annotator")
    if isinstance(single, str) and single:
        return single
    names = provenance.get("annotators")
    if isinstance(names, list) and names and all(isinstance(n, str) for n in names):
        return ", ".join(names)
    return None
