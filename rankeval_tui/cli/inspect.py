"""``rankeval-tui inspect``: open the app on a protocol (also ``rankeval-tui [PROTOCOL]``).

The protocol is validated here first, so an invalid protocol (e.g. incomplete qrels) is one
``error:`` line and exit 2 before any screen opens, exactly as ``score`` would report it. Runs
are not checked here: a run that breaks the contract is shown in the app as rejected, with its
reason, while the other runs stay usable.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.common import (
    add_baseline_argument,
    add_metrics_argument,
    add_protocol_argument,
    add_run_arguments,
    finish_judging,
    judge_command,
    named_metrics_from_args,
    protocol_dir,
    require_terminal,
)
from rankeval_tui.core.files import load_chunk_map, load_protocol_and_qrels, parse_run_argument, run_files
from rankeval_tui.core.files.baseline import choose_baseline
from rankeval_tui.core.preread import Preread, declared_by_score, start_run_prefetch

if TYPE_CHECKING:
    from rankeval_tui.tui.app import RankevalApp


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "inspect",
        help=summary("inspect"),
        description="Open the app on PROTOCOL: per-query scores, run comparison, "
        "drill-down; the judging screen is a key away.",
    )
    add_protocol_argument(parser)
    add_run_arguments(parser)
    add_metrics_argument(parser)
    add_baseline_argument(parser)
    add_labels_argument(parser)
    parser.set_defaults(func=run_inspect)


def add_labels_argument(parser: argparse.ArgumentParser) -> None:
    """``--labels LABELS.toml`` (here and on the default command, which takes inspect's arguments)."""
    parser.add_argument(
        "--labels",
        type=Path,
        default=None,
        metavar="LABELS.toml",
        help="also score every run under this label file of the protocol (another annotator's, a model's: "
        "qrels import -o), side by side with the protocol's labels; the protocol's declarations apply to both",
    )


def run_inspect(args: argparse.Namespace) -> int:
    directory = protocol_dir(args)
    preread = preread_files(args)  # a bad protocol: exit 2 here, before any screen opens
    try:
        require_terminal()
        app = scoring_app(args, preread)
        try:
            app.run()
        finally:
            # Judging opened from the scoring screen and not finished there (ctrl+q, SIGTERM):
            # finished here, still under its lock, exactly as the judge command does.
            session = app.judge_session
            code = 0
            if session is not None and session.finished_message is None:
                code = finish_judging(session, judge_command(directory, args.qrels))
    finally:  # no terminal, Ctrl-C before the screen took the runs: the reading child stopped and reaped
        preread.close()
    return code or app.return_code or 0  # return_code 1: the app ended on an unhandled error


def preread_files(args: argparse.Namespace) -> Preread:
    """The protocol and qrels, validated (``ContractError``: exit 2), the run arguments and the
    baseline checked, and the run files being read by a forked child meanwhile (``core.preread``):
    the scoring screen's first load starts from these instead of reading them again."""
    directory = protocol_dir(args)
    specs = tuple(parse_run_argument(a, directory) for a in args.run)
    prefetch = start_run_prefetch(
        specs or tuple((None, path) for path in run_files(directory)), by_score=declared_by_score(directory)
    )
    try:
        base, qrels = load_protocol_and_qrels(directory, args.qrels)
        named_metrics_from_args(args, base.with_overrides(args.k, args.split))  # a cutoff above k: exit 2
        if args.chunk_map is not None:
            load_chunk_map(args.chunk_map)
        names = [name or path.stem for name, path in specs] or [path.stem for path in run_files(directory)]
        choose_baseline(names, requested=args.baseline, protocol_dir=directory)  # a bad name: exit 2 here
        if args.labels is not None:  # a file the protocol refuses: exit 2 here
            from rankeval_tui.core.session_labels import OtherLabels

            OtherLabels.read(directory, labels_location(args.labels, directory))
    except BaseException:
        if prefetch is not None:
            prefetch.cancel()
        raise
    return Preread(base, qrels, prefetch)


def scoring_app(args: argparse.Namespace, preread: Preread) -> RankevalApp:
    """The app ``inspect`` runs (the benchmark opens it through this too)."""
    from rankeval_tui.tui.app import RankevalApp  # textual only when a screen is wanted

    directory = protocol_dir(args)
    return RankevalApp(
        directory,
        run_specs=[parse_run_argument(a, directory) for a in args.run],
        qrels_path=args.qrels,
        k=args.k,
        split=args.split,
        chunk_map_path=args.chunk_map,
        named=named_metrics_from_args(args, preread.protocol.with_overrides(args.k, args.split)),
        baseline=args.baseline,
        preread=preread,
        labels_path=labels_location(args.labels, directory) if args.labels is not None else None,
    )


def labels_location(path: Path, directory: Path) -> Path:
    """A relative path not found here is looked up in the protocol directory (as ``agree`` does)."""
    from rankeval_tui.cli.agree import locate

    return locate(path, directory)
