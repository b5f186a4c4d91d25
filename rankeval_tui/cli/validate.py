"""``rankeval-tui validate``: check protocol, qrels and every run; list what is wrong."""

from __future__ import annotations

import argparse

from rankeval_tui.cli.common import add_protocol_argument, protocol_dir
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.evaluate import evaluate
from rankeval_tui.core.files import load_protocol, load_run, parse_run_argument, run_files
from rankeval_tui.core.files.runs import skipped_run_notices


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check protocol, qrels and runs; print what is wrong",
        description="Exit 0 when everything is valid, 2 when anything is not.",
    )
    add_protocol_argument(parser)
    parser.add_argument(
        "--run",
        action="append",
        default=[],
        metavar="[NAME=]PATH",
        help="run file to check (default: every file in PROTOCOL/runs/)",
    )
    parser.set_defaults(func=run_validate)


def run_validate(args: argparse.Namespace) -> int:
    """The protocol must be valid to check runs; each run is then checked on its own, so one
    bad run does not hide the state of the others."""
    directory = protocol_dir(args)
    protocol = load_protocol(directory, args.qrels)
    print(
        f"ok: protocol {protocol.name}: {len(protocol.documents)} documents, {len(protocol.queries)} queries, "
        f"{len(protocol.queries) * len(protocol.documents)} judged pairs, sha256 {protocol.protocol_sha256}"
    )
    specs = [parse_run_argument(a, directory) for a in args.run] or [(None, p) for p in run_files(directory)]
    for notice in [] if args.run else skipped_run_notices(directory):
        print(notice)
    problems = 0
    for name, path in specs:
        try:
            run = load_run(path, name)
            evaluate(protocol, run)
        except ContractError as error:
            problems += 1
            print(f"error: {error.one_line()}")
        else:
            print(f"ok: run {run.name} ({path}): {len(run.rankings)} queries")
            for warning in run.warnings:
                print(f"warning: {warning}")
    return 2 if problems else 0
