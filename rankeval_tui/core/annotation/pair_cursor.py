"""Where the annotator is: the documents of each query in the order they are shown, and the
cursor over the pairs (step, jump, next unjudged, holes first).

The cursor only moves; it never records. The session journals the position after a move the
annotator made, so a restart resumes there, and replay moves it without journaling.
"""

from __future__ import annotations

import random
from typing import Literal

from rankeval_tui.core.annotation.hole_order import HoleQueue
from rankeval_tui.core.annotation.pair_labels import PairLabels
from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition

Order = Literal["corpus", "shuffled"]


def document_order(definition: ProtocolDefinition, order: Order, seed: int | None) -> dict[str, tuple[str, ...]]:
    """Documents per query (its pool, for the pooled kind), in the order the annotator sees them.

    The shuffle is seeded per query (``"{seed}:{query}"``) so it is reproducible from the seed
    recorded in provenance and independent of query order; it hides any system's ranking order.
    """
    if order == "corpus":
        return {q: definition.documents_of(q) for q in definition.queries}
    if order != "shuffled" or type(seed) is not int:
        raise ContractError(
            f"order must be 'corpus' or 'shuffled' with an integer seed, got {quote(order)} seed {quote(seed)}"
        )
    result = {}
    for query in definition.queries:
        docs = list(definition.documents_of(query))
        random.Random(f"{seed}:{query}").shuffle(docs)
        result[query] = tuple(docs)
    return result


class PairCursor:
    """A position (query index, document index) over the pairs in display order.

    It reads the labels only to find holes; the judged counts per query let it skip finished
    queries, so every move stays fast at 100k pairs.
    """

    def __init__(self, definition: ProtocolDefinition, order: Order, seed: int | None, marks: PairLabels) -> None:
        self.docs_of = document_order(definition, order, seed)
        self.query_ids: tuple[str, ...] = tuple(definition.queries)
        self.query_position = {q: i for i, q in enumerate(self.query_ids)}
        self.marks = marks
        self.query_index = 0
        self.doc_index = 0
        self.hole_queue: HoleQueue | None = None
        """With ``judge --holes-first``: the holes to visit first (see ``hole_order``)."""
        self._doc_positions: dict[str, dict[str, int]] = {}

    @property
    def current(self) -> tuple[str, str]:
        query = self.query_ids[self.query_index]
        return query, self.docs_of[query][self.doc_index]

    def query_progress(self, query: str) -> tuple[int, int]:
        return self.marks.judged_in[query], len(self.docs_of[query])

    def goto_pair(self, query: str, doc: str) -> None:
        """Move to a pair of the protocol (the caller has checked it is one)."""
        self.query_index = self.query_position[query]
        positions = self._doc_positions.get(query)
        if positions is None:  # built per query on first use: start-up stays O(queries)
            positions = self._doc_positions[query] = {d: i for i, d in enumerate(self.docs_of[query])}
        self.doc_index = positions[doc]

    def step(self, delta: int) -> None:
        """Move ``delta`` pairs forward/back across query boundaries (stops at the ends)."""
        qi, di = self.query_index, self.doc_index + delta
        while di >= len(self.docs_of[self.query_ids[qi]]):
            if qi + 1 >= len(self.query_ids):
                di = len(self.docs_of[self.query_ids[qi]]) - 1
                break
            di -= len(self.docs_of[self.query_ids[qi]])
            qi += 1
        while di < 0:
            if qi == 0:
                di = 0
                break
            qi -= 1
            di += len(self.docs_of[self.query_ids[qi]])
        self.query_index, self.doc_index = qi, di

    def step_query(self, delta: int) -> None:
        self.query_index = max(0, min(len(self.query_ids) - 1, self.query_index + delta))
        self.doc_index = 0

    def find_unjudged(self, query_index: int, doc_index: int) -> tuple[int, int] | None:
        """Position of the first unjudged pair after (query_index, doc_index), wrapping; None if
        every pair is judged. Finished queries are skipped by their counter, so this stays fast
        at 100k pairs. The overview uses it for its own cursor."""
        if self.marks.complete:
            return None
        n = len(self.query_ids)
        for offset in range(n + 1):
            qi = (query_index + offset) % n
            query = self.query_ids[qi]
            docs = self.docs_of[query]
            if self.marks.judged_in[query] == len(docs):
                continue
            row = self.marks.labels.get(query, {})
            low = doc_index + 1 if offset == 0 else 0
            high = doc_index + 1 if offset == n else len(docs)
            for di in range(low, high):
                if docs[di] not in row:
                    return qi, di
        return None

    def next_unjudged(self) -> bool:
        """Move to the next unjudged pair after the cursor (wrapping), or with a hole order to
        its next hole; False (and no move) when none is left."""
        first = self.hole_queue.next_hole(self.marks.labels) if self.hole_queue is not None else None
        if first is not None:
            self.goto_pair(*first)
            return True
        found = self.find_unjudged(self.query_index, self.doc_index)
        if found is None:
            return False
        self.query_index, self.doc_index = found
        return True

    def move_to_first_unjudged(self) -> None:
        """Where a session starts: the first hole in display order, else the first pair."""
        for qi, query in enumerate(self.query_ids):
            if self.marks.judged_in[query] < len(self.docs_of[query]):
                row = self.marks.labels.get(query, {})
                for di, doc in enumerate(self.docs_of[query]):
                    if doc not in row:
                        self.query_index, self.doc_index = qi, di
                        return
        self.query_index = self.doc_index = 0
