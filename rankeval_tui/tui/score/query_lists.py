"""Lists of query IDs in the scoring screen's summaries: names when few, a count when many.

Why: at 2,000 queries the missing and no-relevant lists ran to hundreds of IDs and pushed every
table row off an 80x24 screen. A long list becomes a count and the key that shows it in full
(the ``f`` filter of the table), so the summary keeps its few lines at any size.
"""

from __future__ import annotations

from collections.abc import Sequence

NAMED = 3
"""Lists up to this long are named in full; longer ones are counted."""


def named_or_counted(queries: Sequence[str], named: int = NAMED) -> str:
    """``none``, ``q4, q5`` or ``95 queries``: short enough for one summary line."""
    if not queries:
        return "none"
    if len(queries) <= named:
        return ", ".join(queries)
    return f"{len(queries)} queries"
