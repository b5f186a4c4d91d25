"""The scoring screen's keys, declared once: its BINDINGS (footer order) and the ? help line.

Why a module: as for the judging and adjudication screens (``judge.keys``, ``adjudicate_keys``),
the declarations change for other reasons than the screen's behaviour; the ids (``score.*``) are
what tests and keymaps name.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

SCORE_BINDINGS: list[
    BindingType
] = [  # in the footer's order: what fits 80 columns first, help and quit always (ScoreFooter)
    Binding("v", "toggle_view", "view", id="score.view"),
    Binding("d", "decide", "decide", id="score.decide", tooltip="judge the gap in the order that decides"),
    Binding("f", "next_filter", "filter", id="score.filter"),
    Binding("slash", "find_query", "find", id="score.find", key_display="/"),
    Binding("b", "next_baseline", "base", id="score.baseline"),
    Binding("c", "next_candidate", "cand", id="score.candidate"),
    Binding("m", "next_metric", "metric", id="score.metric"),
    Binding("s", "next_sort", "sort", id="score.sort"),
    Binding("right_square_bracket", "step_bin(1)", "bin", id="score.next_bin", key_display="]"),
    Binding("left_square_bracket", "step_bin(-1)", "previous bin", id="score.previous_bin", show=False),
    Binding("p", "page_summary", "stats", id="score.stats", tooltip="page the paired statistics under the table"),
    Binding("x", "toggle_exact", "exact", id="score.exact", tooltip="exact fractions beside the decimals"),
    Binding("plus,equals_sign", "k_up", "k+", id="score.k_up", key_display="+"),
    Binding("minus", "k_down", "k-", id="score.k_down"),
    Binding("t", "next_split", "split", id="score.split"),
    Binding("r", "reload", "reload", id="score.reload"),
    Binding("j", "judge", "judge", id="score.judge"),
    Binding("question_mark", "help", "help", id="score.help", key_display="?"),
    Binding("q", "app.quit", "quit", id="score.quit"),
]

SCORE_HELP = (
    "v run/compare · +/- k (and the --metrics named without @) · t split · b/c baseline/candidate · m metric (at its cutoff) · "
    "s sort (ties: baseline value, "
    "other metrics, query ID) · ] / [ next / previous bin of the chart (its queries only; a click too) · "
    "x exact fractions · p page the statistics · "
    "f filter (comparison: regressions; single run: missing, no relevant, adjudicated) · "
    "/ find a query · home/end first/last row · pgup/pgdn page · ←/→ columns off screen · enter query detail · "
    "r reload · j judge · d (a comparison on a gap) judge its unjudged pairs in the order that decides it · q quit"
)
"""What ``?`` shows (a notification: the scoring screen's keys fit one)."""
