"""``score --bounds``: ranges, never one number, for runs with unjudged top-k pairs under a
pooled protocol; with a baseline, the ranges of each candidate's change and the regression gate
decided on them (exit 3 when undecided). A pooled protocol whose qrels leave pool pairs unjudged
(judging stopped early) is bounded on the labels judged so far, an open judging journal's
included, read only (core/annotation/open_labels.py). Imported by ``score`` only when
``--bounds`` is given: every CLI call registers every command, and would otherwise load these modules."""

from __future__ import annotations

import argparse
import sys

from rankeval_tui.cli.common import (
    load_protocol_and_qrels_from_args,
    load_runs_from_args,
    metrics_from_args,
    protocol_dir,
)
from rankeval_tui.cli.say import say
from rankeval_tui.core.annotation.open_labels import JudgedSoFar, judged_so_far
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.bounds import bounds
from rankeval_tui.core.evaluation.delta_bounds import DeltaReport, compare_bounds
from rankeval_tui.core.evaluation.delta_gate import UNDECIDED, GateOnGap, gate_on_gap
from rankeval_tui.core.evaluation.evaluate import Run, exact_fields
from rankeval_tui.core.evaluation.gaps import run_gap
from rankeval_tui.core.evaluation.metrics import MetricId
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.evaluation.render_bounds import render_bounds_json, render_bounds_text, render_delta_text
from rankeval_tui.core.files.baseline import choose_baseline
from rankeval_tui.core.wording import counted


def run_bounds(args: argparse.Namespace) -> int:
    """Each run's ranges; with ``--baseline`` or ``--fail-on-regression``, each candidate's change too."""
    protocol, partial = load_judged(args)
    if protocol.kind != "pooled":
        raise ContractError("--bounds is for a pooled protocol: an exhaustive protocol has no unjudged pair to bound")
    statistics_options = [
        f"--{name}" for name in ("test", "seed", "samples", "alpha") if getattr(args, name) is not None
    ]
    if args.fail_under or statistics_options or args.ignore_other_splits:
        raise ContractError(
            "--bounds prints ranges: no --fail-under, --ignore-other-splits or statistics options (--test, --seed, "
            "--samples, --alpha) with it; --baseline and --fail-on-regression compare on the bounds (docs/ci.md)"
        )
    metrics = metrics_from_args(args, protocol)
    runs = load_runs_from_args(args, protocol)
    holes = None if partial is None else partial.holes
    reports = [bounds(protocol, run, metrics, holes) for run in runs]
    changes, gate = compare_on_bounds(args, protocol, runs, metrics, holes)
    if args.format == "json":
        extra: dict[str, object] = {} if partial is None else {"labels": partial.json()}
        if gate is not None:
            extra |= gate_json(args, gate)
        print(render_bounds_json(protocol, reports, changes, extra or None))
    else:
        markdown = args.format == "markdown"
        source = None if partial is None else partial.source_line()
        sys.stdout.write(
            render_bounds_text(protocol, reports, markdown=markdown, fractions=args.fractions, source=source)
        )
        if changes:
            sys.stdout.write(render_delta_text(protocol, changes, markdown=markdown, fractions=args.fractions))
    if gate is None:
        return 0
    whole = protocol.definition if partial is None else partial.definition
    with_gap = [run.name for run in runs if run_gap(whole, run.rankings, protocol.k)]
    return say_gate_on_gap(args, gate, runs, changes, with_gap)


def load_judged(args: argparse.Namespace) -> tuple[Protocol, JudgedSoFar | None]:
    """The protocol with its qrels; when they leave pool pairs unjudged, its judged part with
    the labels of an open judging session too (``JudgedSoFar``), or else the load's own error."""
    try:
        return load_protocol_and_qrels_from_args(args)[0], None
    except ContractError:
        partial = judged_so_far(protocol_dir(args), args.qrels)
        if partial is None:
            raise
    k, split = getattr(args, "k", None), getattr(args, "split", None)
    return partial.protocol.with_overrides(k, split), partial


def compare_on_bounds(
    args: argparse.Namespace,
    protocol: Protocol,
    runs: list[Run],
    metrics: tuple[MetricId, ...],
    holes: dict[str, tuple[str, ...]] | None = None,
) -> tuple[list[DeltaReport], GateOnGap | None]:
    """Each candidate's change against the baseline, when one is asked for (``--baseline``, or
    the gate: then runs/BASELINE or the first run), and the gate decided on those changes."""
    if args.baseline is None and not args.fail_on_regression:
        return [], None
    choice = choose_baseline(
        [run.name for run in runs],
        requested=args.baseline,
        protocol_dir=protocol_dir(args),
        empty={run.name for run in runs if not any(run.rankings.values())},
    )
    candidates = [run for run in runs if choice is not None and run.name != choice.name]
    if not candidates or choice is None:
        raise ContractError("a comparison on the bounds needs a baseline and at least one candidate run")
    baseline = next(run for run in runs if run.name == choice.name)
    changes = [compare_bounds(protocol, baseline, run, metrics, holes) for run in candidates]
    return changes, gate_on_gap(changes, args.max_query_drop) if args.fail_on_regression else None


def gate_json(args: argparse.Namespace, gate: GateOnGap) -> dict[str, object]:
    return {
        "regression_gate": {
            "on": "bounds",
            "outcome": gate.outcome,
            "exit_code": gate.exit_code,
            **exact_fields("max_query_drop", args.max_query_drop),
            "failures_every_labelling": list(gate.certain),
            "failures_some_labelling": list(gate.possible),
            "pairs_to_decide": gate.open_pairs,
        }
    }


def say_gate_on_gap(
    args: argparse.Namespace, gate: GateOnGap, runs: list[Run], changes: list[DeltaReport], with_gap: list[str]
) -> int:
    """The gate's reasons on stderr; when undecided, the pairs and the commands that decide it
    (``with_gap``: the runs whose top k leaves the pools, grown first)."""
    import shlex  # for the hint only

    for reason in gate.certain:
        say(f"regression: {reason}", file=sys.stderr)
    if gate.outcome == UNDECIDED:
        for reason in gate.possible:
            say(f"possible regression: {reason}", file=sys.stderr)
        directory = shlex.quote(str(protocol_dir(args) or "PROTOCOL"))
        gaps = " ".join(f"--gap {shlex.quote(str(run.source or run.name))}" for run in runs if run.name in with_gap)
        grow = f"rankeval-tui grow {directory} {gaps} && " if gaps else ""
        source = {run.name: shlex.quote(str(run.source or run.name)) for run in runs}
        names = f"{source[changes[0].baseline]} {source[changes[0].candidate]}"
        say(
            f"regression gate undecided: judging at most {counted(gate.open_pairs, 'unjudged pair')} decides it: "
            f"{grow}rankeval-tui judge {directory} --decide {names}",
            file=sys.stderr,
        )
    return gate.exit_code
