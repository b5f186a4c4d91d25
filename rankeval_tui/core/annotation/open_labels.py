"""The labels of a pooled protocol judged part of the way: ``score --bounds`` after an annotator
stopped ``judge --decide A B`` ("decided after 23 of 61 pairs") with holes left.

``judge`` writes qrels.toml only when every pair is judged; until then the labels live in the
journal beside it (fsynced, the one record). So the labels judged so far are the journal's,
replayed read only exactly as ``judge`` resumes it (``journal_progress``: no lock, nothing
written; a torn last line is left out as a resume would), else the qrels file's. The protocol
bounded is the judged part (each pool cut to its judged pairs: its hash is that part's), and
the rest of each pool are holes: unjudged pairs bounded with the runs' gaps, never read as 0.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from rankeval_tui.core.annotation.journal import journal_of
from rankeval_tui.core.annotation.judging import journal_progress
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition
from rankeval_tui.core.files import QRELS_FILE, load_definition, read_qrels_file
from rankeval_tui.core.wording import counted


@dataclass(frozen=True)
class JudgedSoFar:
    """The judged part of a pooled protocol, its holes, and where its labels came from."""

    protocol: Protocol
    """The pools cut to their judged pairs, with those labels."""
    definition: ProtocolDefinition
    """The whole protocol (its pools as written)."""
    holes: dict[str, tuple[str, ...]]
    """Per query, the pool's unjudged pairs, in pool order."""
    qrels_path: Path
    from_qrels: int
    from_session: int
    """Labels the open judging session holds that the qrels file does not (new or changed)."""
    journal: Path | None

    @property
    def hole_count(self) -> int:
        return sum(map(len, self.holes.values()))

    def source_line(self) -> str:
        """``labels: 4 from qrels.toml and 2 from the open judging session (...journal, read only); ...``"""
        session = (
            f" and {self.from_session} from the open judging session ({self.journal}, read only)"
            if self.journal is not None
            else ""
        )
        return (
            f"labels: {self.from_qrels} from {self.qrels_path.name}{session}; "
            f"{counted(self.hole_count, 'pool pair')} not judged yet, bounded, never read as 0 "
            "(sha256: the judged part's)"
        )

    def json(self) -> dict[str, object]:
        return {
            "from_qrels": self.from_qrels,
            "from_open_judging_session": self.from_session,
            "journal": None if self.journal is None else str(self.journal),
            "unjudged_pool_pairs": self.hole_count,
        }


def judged_so_far(directory: Path, qrels_path: Path | None = None) -> JudgedSoFar | None:
    """The labels of a pooled protocol whose qrels leave pool pairs unjudged, with those of an
    open judging journal beside them; None for a protocol this does not apply to (exhaustive,
    or no hole in its qrels: its load failed for another reason)."""
    definition = load_definition(directory)
    path = qrels_path if qrels_path is not None else directory / QRELS_FILE
    if definition.pools is None or (qrels_path is not None and not path.exists()):
        return None
    written = read_qrels_file(path, definition, exhaustive=False).labels if path.exists() else {}
    if all(len(written.get(q, {})) == len(pool) for q, pool in definition.pools.items()):
        return None
    state = journal_progress(definition, path)
    labels = written if state is None else state.marks.labels
    pools = {q: tuple(doc for doc in pool if doc in labels.get(q, {})) for q, pool in definition.pools.items()}
    judged = {q: {doc: labels[q][doc] for doc in pool} for q, pool in pools.items()}
    from_session = sum(
        1 for q, row in judged.items() for doc, label in row.items() if written.get(q, {}).get(doc) != label
    )
    return JudgedSoFar(
        protocol=Protocol(replace(definition, pools=pools), judged, qrels_source=path),
        definition=definition,
        holes={q: tuple(doc for doc in pool if doc not in judged[q]) for q, pool in definition.pools.items()},
        qrels_path=path,
        from_qrels=sum(map(len, judged.values())) - from_session,
        from_session=from_session,
        journal=None if state is None else journal_of(path),
    )
