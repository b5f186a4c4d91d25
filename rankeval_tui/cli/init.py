"""``rankeval-tui init``: a new protocol directory from your own corpus, queries, labels and runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.common import add_label_arguments, integer, positive_int
from rankeval_tui.cli.say import say
from rankeval_tui.core.errors import quote
from rankeval_tui.core.evaluation.protocol import TIE_ORDERS
from rankeval_tui.core.files.input_formats import formats_help
from rankeval_tui.core.files.pooled_init import plan
from rankeval_tui.core.files.protocol_files import RUNS_DIR
from rankeval_tui.core.files.protocol_init import DEFAULT_RELEVANCE, InitRequest, PlannedProtocol, write_protocol
from rankeval_tui.core.files.runs import parse_run_argument


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "init",
        help=summary("init"),
        description="Read and check everything, then write DIR/protocol.toml, DIR/runs/ and (with --qrels) "
        "DIR/qrels.toml with the imported labels only: every other pair is a hole to judge with "
        "'rankeval-tui judge DIR'. Nothing is written when anything is wrong; an existing protocol is "
        "never overwritten. Formats are told from the content: " + formats_help() + ".",
    )
    parser.add_argument("directory", type=Path, metavar="DIR", help="the new protocol directory")
    parser.add_argument(
        "--corpus",
        type=Path,
        default=None,
        metavar="PATH",
        help="corpus file or directory (without it: a pooled protocol, each query judged on its own pool)",
    )
    parser.add_argument(
        "--queries", type=Path, default=None, metavar="PATH", help="queries file (also TREC topics <top> <num> <title>)"
    )
    parser.add_argument("--qrels", type=Path, default=None, metavar="PATH", help="labels to start from (partial)")
    parser.add_argument(
        "--threshold",
        type=positive_int,
        default=None,
        metavar="T",
        help="labels on another scale: rel >= T is 1, else 0 (negatives too, as trec_eval)",
    )
    parser.add_argument(
        "--relevant-values",
        type=integer_list,
        default=None,
        metavar="V,V,...",
        help="labels on another scale: these values are 1, every other label 0 (e.g. 1,2,3 for Cranfield)",
    )
    add_label_arguments(parser)
    parser.add_argument(
        "--run", action="append", default=[], metavar="[NAME=]PATH", help="a run to copy into DIR/runs/; repeatable"
    )
    parser.add_argument(
        "--k", type=positive_int, required=True, help="the deepest cutoff: metrics are scored at k or at most k"
    )
    parser.add_argument(
        "--tie-order",
        choices=TIE_ORDERS,
        default="rank",
        help="how TREC runs are ordered when scored: by their rank column (default) or as trec_eval orders them "
        "(score descending, then document ID descending); recorded in protocol.toml",
    )
    parser.add_argument(
        "--split", default="test", help="the split scored; every query's split unless the file has one (default test)"
    )
    parser.add_argument("--name", default=None, help="protocol name (default: the directory's name)")
    parser.add_argument(
        "--relevance",
        default=None,
        metavar="TEXT",
        help=f"the judging rule, in words (default: {DEFAULT_RELEVANCE!r}; with --relevant-from, one about grades)",
    )
    sampling = parser.add_argument_group("keeping judging human-sized")
    sampling.add_argument(
        "--sample-queries", type=positive_int, default=None, metavar="N", help="keep N queries of the split, drawn"
    )
    sampling.add_argument("--seed", type=integer, default=None, metavar="S", help="seed of --sample-queries (required)")
    pools = sampling.add_mutually_exclusive_group()
    pools.add_argument(
        "--pool-depth",
        type=positive_int,
        default=None,
        metavar="D",
        help="a pooled protocol: each query's pool = the runs' top D for it plus the documents labelled for it; "
        "only those pairs are judged (texts from --corpus when given)",
    )
    pools.add_argument(
        "--union-pool-depth",
        type=positive_int,
        default=None,
        metavar="D",
        help="an exhaustive protocol over a cut corpus: the documents in some run's top D for any kept query, "
        "plus every labelled document, each judged for every query",
    )
    parser.set_defaults(func=run_init)


def integer_list(text: str) -> tuple[int, ...]:
    """``1,2,3`` or ``-1,4``: the label values read as relevant."""
    try:
        return tuple(integer(value) for value in text.split(","))
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected integers separated by commas, like 1,2,3, got {quote(text)}"
        ) from None


def run_init(args: argparse.Namespace) -> int:
    request = InitRequest(
        directory=args.directory,
        corpus=args.corpus,
        queries=args.queries,
        k=args.k,
        split=args.split,
        name=args.name,
        relevance=args.relevance,
        qrels=args.qrels,
        threshold=args.threshold,
        relevant_values=args.relevant_values,
        runs=[parse_run_argument(argument, None) for argument in args.run],
        sample_queries=args.sample_queries,
        seed=args.seed,
        pool_depth=args.pool_depth if args.pool_depth is not None else args.union_pool_depth,
        union_pool=args.union_pool_depth is not None,
        relevant_from=args.relevant_from,
        grade_words=args.grades,
        unlisted_as_zero=args.unlisted_as_zero,
        tie_order=args.tie_order,
    )
    planned = plan(request)
    write_protocol(planned)
    definition = planned.definition
    for notice in planned.notices:
        say(f"notice: {notice}")
    for warning in planned.warnings:
        say(f"warning: {warning}", file=sys.stderr)
    in_split = len(definition.selected_queries)
    if definition.pools is not None:
        say(
            f"wrote {args.directory}: pooled protocol, {len(definition.queries)} queries ({in_split} in split "
            f"{definition.split!r}), {len(definition.document_ids)} pooled documents "
            f"({len(definition.documents)} with text), k {definition.k}, runs: {', '.join(planned.run_files) or 'none'}"
        )
        say(f"pools: {definition.pool_rule}")
    else:
        say(
            f"wrote {args.directory}: {len(definition.documents)} documents, {len(definition.queries)} queries "
            f"({in_split} in split {definition.split!r}), k {definition.k}, "
            f"runs: {', '.join(planned.run_files) or 'none'}"
        )
    if definition.unlisted_as_zero:
        say(
            f"labels: {planned.label_count} imported; every pair the qrels do not list is 0 by the collection's "
            "declaration (unlisted_as_zero, counted as unlisted in every report)"
        )
    else:
        say(
            f"labels: {planned.label_count} imported, {planned.hole_count} of {definition.pair_count} pairs to judge "
            f"(never filled with 0)"
        )
    if definition.scale is not None:
        say(f"scale: grades 0 to {definition.scale.top}, relevant from {definition.scale.relevant_from}")
    say(f"next: {next_command(planned)}")
    return 0


def next_command(planned: PlannedProtocol) -> str:
    """Judge the holes; else add a run's unjudged top-k pairs to the pools (``score`` refuses that
    run until then); else score."""
    directory = planned.directory
    if planned.hole_count:
        return f"rankeval-tui judge {directory}"
    if planned.gapped_runs:
        from rankeval_tui.core.evaluation.gaps import gap_command  # a pooled protocol's gap only: start-up

        gapped = ", ".join(planned.gapped_runs)
        run = directory / RUNS_DIR / planned.gapped_runs[0]
        return f"{gap_command(planned.definition, run, planned.definition.k)} (score refuses {gapped} until then)"
    return f"rankeval-tui score {directory}"
