"""Which queries a qrels file says were adjudicated: what ``score`` and the scoring screen mark.

Apart from ``adjudication`` (the adjudicating session, its journal and lock) because scoring
only reads this, and should not import the judging machinery to do it (start-up time).
"""

from __future__ import annotations

from rankeval_tui.core.files import QrelsFile


def adjudicated_queries(qrels: QrelsFile) -> set[str]:
    """Queries with at least one adjudicated pair: what ``score`` and the scoring screen can
    mark per query ("labels adjudicated"). Read from the ``[adjudication]`` table only."""
    return {query for query, row in qrels.adjudication.items() if isinstance(row, dict) and row}
