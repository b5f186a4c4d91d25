"""``agree --runs``: each run scored under each annotator's labels, the orderings compared
(``core.annotation.label_rankings``); this module loads the inputs and renders the result."""

from __future__ import annotations

import argparse
from fractions import Fraction
from pathlib import Path

from rankeval_tui.cli.common import add_metrics_argument, load_runs_from_args, metrics_from_args
from rankeval_tui.core.annotation.agreement import Agreement
from rankeval_tui.core.annotation.label_rankings import LabelRankings, MetricOrdering, rank_under_both
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.render import grid
from rankeval_tui.core.files import load_protocol
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.core.wording import exact_and_decimal

QUERIES_SHOWN = 20
"""The per-query table in text shows the queries whose score moved most; JSON has them all."""


def add_runs_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--runs",
        action="store_true",
        help="score every run in PROTOCOL/runs/ under each label set and compare the orderings (both files complete)",
    )
    parser.add_argument(
        "--run",
        action="append",
        default=[],
        metavar="[NAME=]PATH",
        help="with --runs: these runs instead of runs/ (repeatable; implies --runs)",
    )
    add_metrics_argument(parser)
    parser.set_defaults(chunk_map=None)


def wants_rankings(args: argparse.Namespace) -> bool:
    return bool(args.runs or args.run)


def rankings_of_args(args: argparse.Namespace, paths: tuple[Path, Path], agreement: Agreement) -> LabelRankings:
    """Both label files complete (scoring needs every pair), the runs read as ``score`` reads them."""
    if agreement.coverage is not None:
        partial = [path for path, flag in zip(paths, agreement.coverage.partial, strict=True) if flag]
        raise ContractError(
            "is partial: scoring runs under it needs every pair judged; compare it on the overlap without --runs",
            file=partial[0],
        )
    under_a, under_b = (load_protocol(args.protocol, path) for path in paths)
    runs = load_runs_from_args(args, under_a)
    return rank_under_both(under_a, under_b, runs, metrics_from_args(args, under_a), agreement)


def decimal(value: Fraction | None) -> str:
    """Scores as ``score`` shows them, four places (exact in the JSON); ``null`` where undefined."""
    return "null" if value is None else f"{float(value):.4f}"


def signed(value: Fraction) -> str:
    return f"{float(value):+.4f}" if value else "0"


def render_rankings(rankings: LabelRankings) -> str:
    lines: list[str] = []
    for ordering in rankings.metrics:
        lines += ["", *metric_lines(ordering)]
    return "\n".join(lines) + "\n"


def metric_lines(ordering: MetricOrdering) -> list[str]:
    """One metric: the means under A and B, tau-b and tau_AP, the order changes, the queries that moved most."""
    means_a, means_b = ordering.means
    lines = [f"runs ordered by {ordering.name} under A and under B"]
    lines += grid(
        ["run", "A", "B"],
        [[printable(run), decimal(means_a[run]), decimal(means_b[run])] for run in means_a],
        markdown=False,
    )
    tau = ordering.tau
    if tau is None or tau.value is None:
        lines.append("Kendall's tau-b undefined (a run without a mean, or every run tied)")
    else:
        value = tau.value
        shown = exact_and_decimal(value) if isinstance(value, Fraction) else f"{value:.4f}"
        lines.append(
            f"Kendall's tau-b {shown}   (concordant {tau.concordant}, discordant {tau.discordant}, "
            f"tied under A {tau.tied_a}, under B {tau.tied_b})"
        )
    lines.append(f"tau_AP (B's order against A's) {exact_and_decimal(ordering.tau_ap)}")
    lines.append(f"order changes ({len(ordering.changes)})")
    lines += [
        f"  {printable(change.first)} vs {printable(change.second)}: A {signed(change.delta_a)}, B {signed(change.delta_b)}"
        for change in ordering.changes
    ] or ["  none"]
    moved = sorted(ordering.queries, key=lambda q: -abs(q.change) if q.change is not None else 1)
    shown_rows = [
        [
            printable(q.query),
            printable(q.run or "-"),
            decimal(q.value_a),
            decimal(q.value_b),
            "-" if q.change is None else signed(q.change),
            exact_and_decimal(q.kappa) if q.kappa is not None else "undefined",
        ]
        for q in moved[:QUERIES_SHOWN]
    ]
    lines.append(f"largest score change per query, with its kappa (largest first, {len(shown_rows)} of {len(moved)})")
    lines += grid(["query", "run", "A", "B", "change", "kappa"], shown_rows, markdown=False)
    return lines
