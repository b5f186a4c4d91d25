"""The paired-statistics lines under the comparison table of the scoring screen.

Formatting only: every number comes from ``core.evaluation.stats`` through ``ScoringSession.statistics``
and the verdict words from ``core.session.verdict`` (both testable without a terminal). The
statistics arrive later than the table (a worker computes them), so there is a "computing"
line for the meantime, never a blank that reads like "no result".
"""

from __future__ import annotations

from fractions import Fraction

from rich.text import Text

from rankeval_tui.core.evaluation.stats import MetricStatistics, decimal, exact_decimal, percent
from rankeval_tui.core.session import verdict

INDENT = " " * 10
"""Under the metric label of the summary line above (``Recall@k`` padded to 9, one space)."""

SHORT_FRACTION = 9
"""Longer exact fractions (Monte-Carlo p, bootstrap bounds over thousands of queries) are shown
as decimals on screen; the exact values are in ``score --format json``."""


def number(value: Fraction, exact: bool = True) -> str:
    """``474/10001 = 0.0474`` (the decimal beside a short fraction, to compare at a glance), or
    the decimal alone for a long one, or for any with ``exact=False`` (the fraction a key away)."""
    return exact_decimal(value) if exact and len(str(value)) <= SHORT_FRACTION else decimal(value)


def p_text(stats: MetricStatistics, exact: bool = True) -> str:
    """The sign-flip p: exact fraction and decimal when exact, Monte-Carlo with samples and seed."""
    flip = stats.sign_flip
    if flip is None:
        return "sign-flip p: no test"
    if flip.method == "exact":
        return f"sign-flip p = {number(flip.p_value, exact)} (exact, {flip.assignments} assignments)"
    return f"sign-flip p ≈ {decimal(flip.p_value)} (Monte-Carlo, {flip.assignments} samples, seed {flip.seed})"


def ci_text(stats: MetricStatistics, pending: bool = False, exact: bool = True) -> str:
    boot = stats.bootstrap
    if boot is None:
        return "bootstrap CI of the mean Δ: computing…" if pending else ""
    if not exact or any(len(str(bound)) > SHORT_FRACTION for bound in (boot.low, boot.high)):
        low, high = decimal(boot.low), decimal(boot.high)
    else:  # as score's summary line writes them: each exact bound with its decimal
        low, high = exact_decimal(boot.low), exact_decimal(boot.high)
    return (
        f"{percent(boot.confidence)} bootstrap CI of the mean Δ [{low}, {high}] "
        f"({boot.samples} resamples, seed {boot.seed})"
    )


def statistics_lines(
    stats: MetricStatistics, alpha: Fraction, candidates: int, bootstrap_pending: bool = False, exact: bool = True
) -> Text:
    """Three indented lines (each fits 120 columns): the verdict in words first (what a reader
    came for, in view without paging at 80x24), then the sign-flip p with Holm's adjustment when
    several candidates face the baseline, and the bootstrap interval (or that it is still being
    drawn: it comes seconds after the p-values on thousands of queries). Decimals alone unless
    ``exact``."""
    words = verdict(stats, alpha, candidates)
    style = ""
    if words.startswith("significant"):
        style = "bold red" if stats.mean_delta is not None and stats.mean_delta < 0 else "bold green"
    text = Text(INDENT)
    text.append("→ " + words, style=style)
    text.append("\n" + INDENT)
    text.append(p_text(stats, exact))
    if candidates > 1 and stats.p_holm is not None:
        text.append(f"   Holm-adjusted p = {number(stats.p_holm, exact)} ({candidates} candidates)")
    ci = ci_text(stats, bootstrap_pending, exact)
    if ci:
        text.append("\n" + INDENT + ci)
    return text


def pending_line(queries: int) -> Text:
    return Text(
        f"{INDENT}paired statistics: computing sign-flip and bootstrap over {queries} queries…", style="dim italic"
    )
