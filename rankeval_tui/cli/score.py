"""``rankeval-tui score``: headless scoring for people (table, Markdown) and CI (JSON, exit codes)."""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction

from rankeval_tui.cli.common import add_protocol_argument, add_run_arguments, load_protocol_from_args, load_runs_from_args
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluate import Report, evaluate
from rankeval_tui.core.render import exact_and_decimal, render_json, render_text

GATE_METRICS = {"recall": "recall_at_k", "mrr": "mrr_at_k"}


def parse_gate(text: str) -> tuple[str, Fraction]:
    """``recall=0.6`` or ``mrr=1/2``: parsed exactly, so 0.6 means 3/5, not a float near it."""
    metric, sep, value = text.partition("=")
    if not sep or metric not in GATE_METRICS:
        raise argparse.ArgumentTypeError(f"expected recall=VALUE or mrr=VALUE, got {text!r}")
    try:
        threshold = Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"threshold must be a number like 0.6 or 3/5, got {value!r}") from None
    if not 0 <= threshold <= 1:
        raise argparse.ArgumentTypeError(f"threshold must be between 0 and 1, got {value!r}")
    return metric, threshold


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("score", help="score runs; table, JSON or Markdown; exit 1 if a gate fails",
                                   description="Score runs against a protocol. Exit 0 scored, 1 a gate failed, "
                                               "2 invalid input or usage.")
    add_protocol_argument(parser)
    add_run_arguments(parser)
    parser.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    parser.add_argument("--baseline", default=None, metavar="NAME",
                        help="run the others are compared with (default: the first run)")
    parser.add_argument("--fail-under", action="append", type=parse_gate, default=[], metavar="METRIC=VALUE",
                        help="exit 1 if any run's mean is below VALUE (recall=0.6, mrr=1/2); repeatable")
    parser.set_defaults(func=run_score)


def gate_failures(reports: list[Report], gates: list[tuple[str, Fraction]]) -> list[str]:
    failures = []
    for report in reports:
        for metric, threshold in gates:
            value = getattr(report, GATE_METRICS[metric])
            if value is None or value < threshold:
                failures.append(f"gate failed: run {report.run!r} {metric} = {exact_and_decimal(value)} "
                                f"< {exact_and_decimal(threshold)}")
    return failures


def run_score(args: argparse.Namespace) -> int:
    protocol = load_protocol_from_args(args)
    runs = load_runs_from_args(args, protocol)
    reports = [evaluate(protocol, run) for run in runs]  # whole input validated before any output
    if args.baseline is not None and args.baseline not in {r.run for r in reports}:
        raise ContractError(f"--baseline {args.baseline!r} is not one of the runs: "
                            + ", ".join(r.run for r in reports))
    if args.format == "json":
        print(render_json(protocol, reports, args.baseline))
    else:
        sys.stdout.write(render_text(protocol, reports, args.baseline, markdown=args.format == "markdown"))
    failures = gate_failures(reports, args.fail_under)
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0
