"""The legends under the scoring screen's tables: what each colour and word in a cell means.

Shared by the single-run and the comparison views, so a style is explained in the same words
wherever it appears.
"""

from __future__ import annotations

from rich.text import Text

from rankeval_tui.tui.score.cells import (
    STYLE_ADJUDICATED,
    STYLE_LOSS,
    STYLE_MISSING,
    STYLE_NO_RELEVANT,
    STYLE_WIN,
)

RUN_LEGEND = Text.assemble(
    "legend: ",
    ("MISSING (scored 0)", STYLE_MISSING),
    " the run has no ranking for the query: it counts 0 in both means · ",
    ("no relevant (excluded)", STYLE_NO_RELEVANT),
    " no relevant document: Recall/RR are null and the query is left out of the means",
)
POOLED_RUN_LEGEND = Text.assemble(
    "legend: ",
    ("MISSING (scored 0)", STYLE_MISSING),
    " the run has no ranking for the query: it counts 0 in both means · ",
    ("no relevant in pool (excluded)", STYLE_NO_RELEVANT),
    " no relevant document in the query's pool: null, left out of the means · pooled protocol: each query "
    "judged on its own pool; Recall@k's denominator is the relevant documents in the query's pool",
)
"""The pooled kind's legend: the same cells, and what was measured (the header names the pool rule)."""
COMPARE_LEGEND = Text.assemble(
    "legend: ",
    ("▼ REGRESSION", STYLE_LOSS),
    " candidate worse than baseline on a metric · ",
    ("▲ improved", STYLE_WIN),
    " better · = same · ",
    ("0 missing", STYLE_MISSING),
    " no ranking, scored 0 · ",
    ("n/a", STYLE_NO_RELEVANT),
    " no relevant document (null, not compared)",
)
ADJUDICATED_LEGEND = Text.assemble(
    " · ",
    ("adj.", STYLE_ADJUDICATED),
    " adjudicated: the query's labels were disputed and decided by an adjudicator (qrels [adjudication])",
)
