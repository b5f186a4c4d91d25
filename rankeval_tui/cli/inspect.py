"""``rankeval-tui inspect``: open the app on a protocol (also ``rankeval-tui [PROTOCOL]``).

The protocol is validated here first, so an invalid protocol (e.g. incomplete qrels) is one
``error:`` line and exit 2 before any screen opens, exactly as ``score`` would report it. Runs
are not checked here: a run that breaks the contract is shown in the app as rejected, with its
reason, while the other runs stay usable.
"""

from __future__ import annotations

import argparse

from rankeval_tui.cli.common import (
    add_baseline_argument,
    add_metrics_argument,
    add_protocol_argument,
    add_run_arguments,
    finish_judging,
    judge_command,
    load_protocol_from_args,
    metrics_from_args,
    protocol_dir,
    require_terminal,
)
from rankeval_tui.core.files import load_chunk_map, parse_run_argument, run_files
from rankeval_tui.core.files.baseline import choose_baseline


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "inspect",
        help="open the scoring screen (the default command)",
        description="Open the app on PROTOCOL: per-query scores, run comparison, "
        "drill-down; the judging screen is a key away.",
    )
    add_protocol_argument(parser)
    add_run_arguments(parser)
    add_metrics_argument(parser)
    add_baseline_argument(parser)
    parser.set_defaults(func=run_inspect)


def run_inspect(args: argparse.Namespace) -> int:
    protocol = load_protocol_from_args(args)  # raises ContractError -> exit 2 before the app opens
    metrics = metrics_from_args(args, protocol)
    if args.chunk_map is not None:
        load_chunk_map(args.chunk_map)
    directory = protocol_dir(args)
    specs = [parse_run_argument(a, directory) for a in args.run]
    names = [name or path.stem for name, path in specs] or [path.stem for path in run_files(directory)]
    choose_baseline(names, requested=args.baseline, protocol_dir=directory)  # a bad name: exit 2 here
    require_terminal()
    from rankeval_tui.tui.app import RankevalApp  # textual only when a screen is wanted

    app = RankevalApp(
        directory,
        run_specs=specs,
        qrels_path=args.qrels,
        k=args.k,
        split=args.split,
        chunk_map_path=args.chunk_map,
        metrics=metrics,
        baseline=args.baseline,
    )
    try:
        app.run()
    finally:
        # Judging opened from the scoring screen and not finished there (ctrl+q, SIGTERM):
        # finished here, still under its lock, exactly as the judge command does.
        session = app.judge_session
        code = 0
        if session is not None and session.finished_message is None:
            code = finish_judging(session, judge_command(directory, args.qrels))
    return code or app.return_code or 0  # return_code 1: the app ended on an unhandled error
