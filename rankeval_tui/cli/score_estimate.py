"""``score PROTOCOL --estimate MODEL.toml --audit AUDIT.toml``: each run's metrics estimated from a
model's labels on every query, corrected by a blind query-level audit
(``core.annotation.prediction_powered``), beside the model-only mean. Imported by ``score`` only
when ``--estimate`` or ``--audit`` is given (``score`` declares the two options)."""

from __future__ import annotations

import argparse
import json

from rankeval_tui.cli.agree import locate
from rankeval_tui.cli.common import load_runs_from_args, metrics_from_args, protocol_dir
from rankeval_tui.cli.say import say
from rankeval_tui.core.annotation.prediction_powered import Estimate, Estimates, estimate_runs, read_audited_labels
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.text_grid import grid
from rankeval_tui.core.files.annotator_kind import annotator_words
from rankeval_tui.core.terminal_text import markdown_text, printable
from rankeval_tui.core.wording import counted, exact_and_decimal

REFUSED_WITH_ESTIMATE = (
    ("qrels", "--qrels"),
    ("bounds", "--bounds"),
    ("fill_from", "--fill-from"),
    ("allow_filled", "--allow-filled"),
    ("baseline", "--baseline"),
    ("fail_under", "--fail-under"),
    ("fail_on_regression", "--fail-on-regression"),
    ("ignore_other_splits", "--ignore-other-splits"),
    ("test", "--test"),
    ("seed", "--seed"),
    ("samples", "--samples"),
    ("alpha", "--alpha"),
)


def run_estimate(args: argparse.Namespace) -> int:
    """Everything read and checked first (one ``error:`` line on bad input); nothing is written."""
    if args.estimate is None or args.audit is None:
        raise ContractError("an estimate needs both --estimate MODEL.toml and --audit AUDIT.toml")
    given = [option for name, option in REFUSED_WITH_ESTIMATE if getattr(args, name, None)]
    if given:
        raise ContractError(
            f"{given[0]} does not apply to --estimate: it reads the model's and the audit's labels, "
            "not the protocol's qrels, and prints estimates, not gated scores"
        )
    directory = protocol_dir(args)
    labels = read_audited_labels(
        directory, locate(args.estimate, directory), locate(args.audit, directory), args.k, args.split
    )
    estimates = estimate_runs(labels, load_runs_from_args(args, labels.model), metrics_from_args(args, labels.model))
    if args.format == "json":
        print(json.dumps(estimates.to_json(), indent=2, ensure_ascii=False))
    else:
        say(render_estimates(estimates, markdown=args.format == "markdown"), lines=True)
    return 0


def interval_text(estimate: Estimate) -> str:
    if estimate.point is None:
        return f"undefined ({estimate.undefined_reason})"
    point = f"{float(estimate.point):.4f}"
    if estimate.interval is None:
        return f"{point} (no interval: {estimate.undefined_reason})"
    low, high = estimate.interval
    return f"{point} [{low:.4f}, {high:.4f}]"


def render_estimates(estimates: Estimates, *, markdown: bool) -> str:
    """People's view: what is estimated and from what, then per run and metric the model-only
    mean, the estimate with its interval, and the audited queries' own estimate. Names and files
    come from the protocol directory: each is one line, and inert in Markdown."""
    field = markdown_text if markdown else printable
    model = field(estimates.model_file) + (
        "" if estimates.model_annotator is None else f" ({field(annotator_words(estimates.model_annotator))})"
    )
    lines = [
        "Prediction-powered estimate: an estimate of the mean under people's labels, not a measurement.",
        f"model labels: {model}, on all {counted(estimates.population, 'query')} of split {field(estimates.split)}",
        f"audit: {field(estimates.audit_file)}, every pair of {counted(len(estimates.audited), 'query')} drawn "
        f"with seed {estimates.seed}, judged by people",
        f"interval: {estimates.level:.0%}, normal approximation; the audited queries a simple random sample",
        "",
    ]
    if markdown:  # each its own paragraph, not one run-on line
        lines = [line + "\n" for line in lines if line]
    rows = [
        [
            field(row.run),
            row.metric,
            "undefined" if row.model_mean is None else exact_and_decimal(row.model_mean),
            interval_text(row.corrected),
            interval_text(row.people_only),
        ]
        for row in estimates.rows
    ]
    header = ["run", "metric", "model only", "estimate [95% interval]", "audited queries only"]
    return "\n".join(lines + grid(header, rows, markdown))
