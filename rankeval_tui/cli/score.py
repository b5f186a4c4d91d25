"""``rankeval-tui score``: headless scoring for people (table, Markdown) and CI (JSON, exit codes)."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from pathlib import Path

from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.common import (
    add_baseline_argument,
    add_metrics_argument,
    add_protocol_argument,
    add_run_arguments,
    add_tie_order_arguments,
    collector_paused,
    integer,
    load_protocol_and_qrels_from_args,
    load_runs_from_args,
    positive_int,
    protocol_dir,
)
from rankeval_tui.cli.say import say
from rankeval_tui.cli.score_fill import (
    add_fill_arguments,
    count_filled,
    filled_text,
    load_filled_protocol_from_args,
    refuse_allow_filled_alone,
)
from rankeval_tui.core.annotation.adjudicated import adjudicated_queries
from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.evaluation.evaluate import Report, evaluate, exact_fields
from rankeval_tui.core.evaluation.metrics import (
    PRIMARY,
    MetricId,
    metrics_by_cutoff,
    parse_metric_name,
    resolve_metrics,
)
from rankeval_tui.core.evaluation.paired_defaults import (
    DEFAULT_ALPHA,
    DEFAULT_SAMPLES,
    DEFAULT_SEED,
    MAX_SAMPLES,
    TEST_ALIASES,
)
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.evaluation.render import NO_CI, comparisons, cutoff_json, render_json, render_text
from rankeval_tui.core.evaluation.splits import evaluate_split_of
from rankeval_tui.core.files.annotator_kind import model_notice
from rankeval_tui.core.files.atomic import atomic_write_text
from rankeval_tui.core.files.baseline import choose_report_baseline
from rankeval_tui.core.files.tomlio import read_utf8
from rankeval_tui.core.terminal_text import markdown_text
from rankeval_tui.core.wording import exact_and_decimal

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:  # stats is imported when statistics are asked for (start-up of a plain score)
    from rankeval_tui.core.evaluation.stats import PairedStatistics
    from rankeval_tui.core.files import QrelsFile
    from rankeval_tui.core.files.baseline import BaselineChoice
    from rankeval_tui.core.files.filling import Filling


def parse_gate(text: str) -> tuple[str, Fraction]:
    """``recall=0.6``, ``mrr=1/2``, ``nDCG@10=0.45``: parsed exactly, so 0.6 means 3/5, not a
    float near it."""
    name, sep, value = text.partition("=")
    expected = "expected METRIC=VALUE (recall=VALUE, mrr=VALUE, nDCG@10=VALUE)"
    if not sep:
        raise argparse.ArgumentTypeError(f"{expected}, got {text!r}")
    try:
        parse_metric_name(name)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{expected}: {error}") from None
    try:
        threshold = ascii_fraction(value)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"threshold must be a number like 0.6 or 3/5, got {quote(value)}") from None
    if not 0 <= threshold <= 1:
        raise argparse.ArgumentTypeError(f"threshold must be between 0 and 1, got {value!r}")
    return name.strip(), threshold


MAX_NUMBER_TEXT = 100
"""Characters a number argument may have (``0.6``, ``3/5``): a longer one is no threshold."""


def ascii_fraction(text: str) -> Fraction:
    """``Fraction(text)`` of ASCII text only: ``Fraction`` reads ``٠.٥`` as 1/2, which the TREC
    readers, and so every number the tool reads, refuse; a text too long for a number is refused
    before it is parsed."""
    if not text.isascii() or len(text) > MAX_NUMBER_TEXT:
        raise ValueError(text)
    return Fraction(text)


def parse_fraction(low: Fraction, high: Fraction, *, open_low: bool) -> argparse._ActionType:
    """An exact number in (low, high] or [low, high]: 0.05 means 1/20, not a float near it."""

    def parse(text: str) -> Fraction:
        try:
            value = ascii_fraction(text)
        except (ValueError, ZeroDivisionError):
            raise argparse.ArgumentTypeError(f"expected a number like 0.05 or 1/20, got {quote(text)}") from None
        if value > high or value < low or (open_low and value == low):
            bracket = "(" if open_low else "["
            raise argparse.ArgumentTypeError(f"must be in {bracket}{low}, {high}], got {text!r}")
        return value

    return parse


def add_statistics_arguments(parser: argparse.ArgumentParser) -> None:
    """Paired significance (core.evaluation.stats) and the regression gate; statistics are computed when a
    baseline is named, a test option is given or the gate is on (they cost time on big protocols)."""
    group = parser.add_argument_group("paired statistics and regression gate (with --baseline)")
    group.add_argument(
        "--test",
        choices=tuple(TEST_ALIASES),
        default=None,
        help="p-value used for significance and the gate: sign-flip randomization "
        "(default; 'sign-flip' is the same) or paired bootstrap",
    )
    group.add_argument(
        "--seed",
        type=integer,
        default=None,
        help=f"seed of the Monte-Carlo and bootstrap draws (default {DEFAULT_SEED})",
    )
    group.add_argument(
        "--samples",
        type=sample_count,
        default=None,
        help=f"Monte-Carlo assignments and bootstrap resamples (default {DEFAULT_SAMPLES}, at most {MAX_SAMPLES:,})",
    )
    group.add_argument(
        "--alpha",
        type=parse_fraction(Fraction(0), Fraction(1), open_low=True),
        default=None,
        help="significance level, Holm-adjusted across candidates (default 0.05)",
    )
    group.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 if a candidate is significantly worse than the baseline or one query "
        "drops by more than --max-query-drop; the reasons go to stderr",
    )
    group.add_argument(
        "--max-query-drop",
        type=parse_fraction(Fraction(0), Fraction(1), open_low=False),
        default=Fraction(1, 2),
        metavar="DROP",
        help="largest allowed per-query drop of any compared metric with --fail-on-regression (default 0.5)",
    )


def wants_statistics(args: argparse.Namespace) -> bool:
    return (
        args.baseline is not None
        or args.fail_on_regression
        or any(getattr(args, name) is not None for name in ("test", "seed", "samples", "alpha"))
    )


def append_step_summary(markdown: str) -> None:
    """Append to $GITHUB_STEP_SUMMARY (GitHub renders it on the job page); atomic like every write.

    The summary is a convenience beside the gate's verdict, never the verdict: a summary that
    cannot be written is a warning on stderr, and the exit code stays the gate's.
    """
    path = Path(os.environ["GITHUB_STEP_SUMMARY"])
    try:
        existing = read_utf8(path) if path.exists() else ""
        atomic_write_text(path, existing + ("\n" if existing and not existing.endswith("\n") else "") + markdown)
    except ContractError as error:
        say(f"warning: step summary not written: {error.one_line()}", file=sys.stderr)
    except OSError as error:
        say(f"warning: step summary not written: {path}: {error.strerror}", file=sys.stderr)


def gate_verdict(name: str, failures: list[str]) -> list[str]:
    """``**Regression gate: passed**`` and one bullet per failure, for the step summary (a failure
    names a run: its Markdown shown, never read)."""
    bullets = (f"- {markdown_text(reason)}" for reason in failures)
    return ["", f"**{name}: " + ("failed**" if failures else "passed**"), "", *bullets]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help=summary("score"),
        description="Score runs against a protocol. Exit 0 scored, 1 a gate failed, 2 invalid input or usage.",
    )
    add_protocol_argument(parser)
    add_run_arguments(parser)
    add_tie_order_arguments(parser)
    parser.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    add_metrics_argument(parser)
    parser.add_argument(
        "--fractions",
        action="store_true",
        help="table and Markdown: the exact fraction beside each decimal (JSON always has both)",
    )
    parser.add_argument(
        "--bounds",
        action="store_true",
        help="pooled protocol: instead of refusing a run with unjudged top-k pairs, print every metric's exact "
        "lowest and highest value (per query and mean) over every 0/1 assignment of those pairs",
    )
    parser.add_argument(
        "--ignore-other-splits",
        action="store_true",
        help="set aside the runs' queries of the protocol's other splits (the report counts them per split) "
        "instead of rejecting the run; a query unknown to the protocol is still an error",
    )
    add_baseline_argument(parser)
    parser.add_argument(
        "--fail-under",
        action="append",
        type=parse_gate,
        default=[],
        metavar="METRIC=VALUE",
        help="exit 1 if any run's mean is below VALUE (recall=0.6, mrr=1/2, nDCG@10=0.45); repeatable",
    )
    add_statistics_arguments(parser)
    add_fill_arguments(parser)
    add_estimate_arguments(parser)
    parser.set_defaults(func=run_score)


def add_estimate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--estimate",
        type=Path,
        default=None,
        metavar="MODEL.toml",
        help="estimate each metric from this file's labels (a model's, on every pair) corrected by --audit: "
        "a prediction-powered estimate with its 95%% interval, beside the model-only mean (docs/annotators.md)",
    )
    parser.add_argument(
        "--audit",
        type=Path,
        default=None,
        metavar="AUDIT.toml",
        help="with --estimate: people's labels of every pair of seeded random queries "
        "(judge --audit MODEL.toml --sample-queries N --seed S)",
    )


def wants_estimate(args: argparse.Namespace) -> bool:
    return getattr(args, "estimate", None) is not None or getattr(args, "audit", None) is not None


def gate_failures(reports: list[Report], gates: list[tuple[str, MetricId, Fraction]]) -> list[str]:
    """``--fail-under`` gates as ``(name as typed, metric id, threshold)``: a run fails below it."""
    failures = []
    for report in reports:
        for name, metric, threshold in gates:
            value = report.mean(metric)
            if value is None or value < threshold:
                failures.append(
                    f"gate failed: run {report.run!r} {name} = {exact_and_decimal(value)} "
                    f"< {exact_and_decimal(threshold)}"
                )
    return failures


def sample_count(text: str) -> int:
    """argparse type of --samples: 1 to ``MAX_SAMPLES``, said in one line (far more ran the draws
    out of memory, a numpy traceback)."""
    value = positive_int(text)
    if value > MAX_SAMPLES:
        raise argparse.ArgumentTypeError(
            f"at most {MAX_SAMPLES:,} samples (each is drawn and kept in memory; the default is "
            f"{DEFAULT_SAMPLES:,}), got {text}"
        )
    return value


def run_score(args: argparse.Namespace) -> int:
    with collector_paused():
        if wants_estimate(args):
            from rankeval_tui.cli.score_estimate import run_estimate  # its modules only when asked

            return run_estimate(args)
        if args.bounds:
            if getattr(args, "fill_from", None) is not None:
                raise ContractError("--bounds bounds the unjudged pairs: --fill-from would label them instead")
            from rankeval_tui.cli.score_bounds import run_bounds  # the one option that needs its modules

            return run_bounds(args)
        return score_command(args)


@dataclass(frozen=True)
class MetricPlan:
    """What ``score`` computes: the protocol at the main cutoff with the metrics shown there, the
    other cutoffs ``--metrics`` named (each scored as its own protocol), and the ``--fail-under``
    gates as ``(name as typed, metric id, threshold)``."""

    protocol: Protocol
    metrics: tuple[MetricId, ...]
    other_cutoffs: list[tuple[int, tuple[MetricId, ...]]]
    gates: list[tuple[str, MetricId, Fraction]]


def plan_metrics(args: argparse.Namespace, protocol: Protocol) -> MetricPlan:
    """The main cutoff is the protocol's k when ``--metrics`` names it (or names none), else the
    first one named; a gate's metric is shown too."""
    requested = [name for group in args.metrics for name in group]
    groups = metrics_by_cutoff(requested, protocol.k) if requested else [(protocol.k, PRIMARY)]
    main_k, shown = next(((k, m) for k, m in groups if k == protocol.k), groups[0])
    protocol = protocol.with_k(main_k) if main_k != protocol.k else protocol
    gates = [(name, *resolve_metrics([name], protocol.k), threshold) for name, threshold in args.fail_under]
    metrics = tuple(dict.fromkeys((*shown, *(metric for _, metric, _ in gates))))
    other_cutoffs = [(k, tuple(m)) for k, m in groups if k != main_k]
    return MetricPlan(protocol, metrics, other_cutoffs, gates)


@dataclass
class Comparison:
    """The baseline chosen, the paired statistics and the regression gate's failures, with the
    JSON fields they add to the report."""

    choice: BaselineChoice | None
    statistics: PairedStatistics | None = None
    regressions: list[str] = field(default_factory=list)
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def baseline(self) -> str | None:
        return self.choice.name if self.choice is not None else None


def compare_runs(args: argparse.Namespace, reports: list[Report]) -> Comparison:
    """Each candidate against the baseline (--baseline, runs/BASELINE, the first run with
    results); statistics only when asked for, since they cost time on big protocols."""
    choice = choose_report_baseline(reports, requested=args.baseline, protocol_dir=protocol_dir(args))
    comparison = Comparison(choice)
    pairs = comparisons(reports, comparison.baseline)
    if args.fail_on_regression and not pairs:
        raise ContractError("--fail-on-regression needs a baseline and at least one candidate run")
    if pairs and choice is not None:
        comparison.extra["baseline"] = choice.to_json()
    if not (pairs and wants_statistics(args)):
        return comparison
    from rankeval_tui.core.evaluation.stats import paired_statistics, regression_failures

    statistics = paired_statistics(
        pairs,
        test=args.test or "randomization",
        seed=DEFAULT_SEED if args.seed is None else args.seed,
        samples=args.samples or DEFAULT_SAMPLES,
        alpha=args.alpha or DEFAULT_ALPHA,
        both=False,  # the report shows the chosen test only: the other's draws would be wasted
    )
    comparison.statistics = statistics
    if args.fail_on_regression:
        comparison.regressions = regression_failures(statistics, max_query_drop=args.max_query_drop)
        comparison.extra["regression_gate"] = {
            **exact_fields("alpha", statistics.alpha),
            **exact_fields("max_query_drop", args.max_query_drop),
            "passed": not comparison.regressions,
            "failures": comparison.regressions,
        }
    return comparison


def load_scored_protocol(args: argparse.Namespace) -> tuple[Protocol, QrelsFile, Filling | None]:
    """The protocol as ``score`` reads it; with ``--fill-from``, its holes filled (``cli.score_fill``)."""
    if getattr(args, "fill_from", None) is None:
        refuse_allow_filled_alone(args)
        return (*load_protocol_and_qrels_from_args(args), None)
    return load_filled_protocol_from_args(args)


def score_command(args: argparse.Namespace) -> int:
    """Read, score every run at every cutoff (the whole input validated before any output),
    compare, then write the report and the gates' verdicts: exit 1 when a gate failed."""
    protocol, qrels, filling = load_scored_protocol(args)
    notice = model_notice(qrels.provenance, protocol.qrels_source)
    if notice is not None:  # scores under a model's labels: said beside them, never silently
        say(f"note: {notice}", file=sys.stderr)
    plan = plan_metrics(args, protocol)
    protocol = plan.protocol
    runs = load_runs_from_args(args, protocol)
    score_one = evaluate_split_of if args.ignore_other_splits else evaluate
    reports = [score_one(protocol, run, plan.metrics) for run in runs]
    at_cutoffs = [
        (at_k, [score_one(at_k, run, metrics_at) for run in runs])
        for at_k, metrics_at in ((protocol.with_k(k), m) for k, m in plan.other_cutoffs)
    ]
    comparison = compare_runs(args, reports)
    threshold_failures = gate_failures(reports, plan.gates)
    filled, filled_failures = count_filled(args, filling, runs, protocol)
    if filling is not None:
        comparison.extra["filled"] = filling.to_json(filled, protocol.k)
    report_text = partial(
        render_text,
        baseline=comparison.baseline,
        statistics=comparison.statistics,
        adjudicated=adjudicated_queries(qrels),
        fractions=args.fractions,
        baseline_note=comparison.choice.describe() if comparison.choice is not None else None,
    )
    if (args.fail_on_regression or args.fail_under) and os.environ.get("GITHUB_STEP_SUMMARY"):
        verdict = []
        if args.fail_under:
            verdict += gate_verdict("Threshold gate (--fail-under)", threshold_failures)
        if filling is not None:
            verdict += gate_verdict("Filled labels (--fill-from)", filled_failures)
        if args.fail_on_regression:
            verdict += gate_verdict("Regression gate", comparison.regressions)
        summary_text = report_text(protocol, reports, markdown=True) + filled_text(filling, filled, protocol.k)
        append_step_summary(summary_text + "\n".join(verdict) + "\n")
    if args.format == "json":
        if at_cutoffs:
            comparison.extra["other_cutoffs"] = {str(p.k): cutoff_json(p, r) for p, r in at_cutoffs}
        print(
            render_json(
                protocol,
                reports,
                comparison.baseline,
                extra=comparison.extra,
                statistics=comparison.statistics,
                adjudicated=adjudicated_queries(qrels),
            )
        )
    else:
        markdown = args.format == "markdown"
        sys.stdout.write(report_text(protocol, reports, markdown=markdown) + filled_text(filling, filled, protocol.k))
        # Statistics are computed at k only: with --test given, the other cutoffs' charts say so.
        no_ci = f"at k={protocol.k} only (--test)" if args.test is not None else NO_CI
        for at_k, at_reports in at_cutoffs:  # each cutoff its own protocol: its own header and hash
            sys.stdout.write(
                "\n"
                + render_text(
                    at_k, at_reports, comparison.baseline, markdown=markdown, fractions=args.fractions, no_ci=no_ci
                )
            )
    failures = threshold_failures + comparison.regressions + filled_failures
    for failure in failures:
        say(failure, file=sys.stderr)
    return 1 if failures else 0
