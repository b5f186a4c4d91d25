"""``rankeval-tui validate``: check protocol, qrels and every run; list every problem, count the
holes per query, and say which command to run next."""

from __future__ import annotations

import argparse

from rankeval_tui.cli.common import add_protocol_argument, positive_int, protocol_dir
from rankeval_tui.core.files import parse_run_argument, run_files
from rankeval_tui.core.files.runs import skipped_run_notices
from rankeval_tui.core.files.validation import Validation, validate_directory

DEFAULT_PROBLEM_LIMIT = 20
HOLE_ROWS_SHOWN = 20


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check protocol, qrels and runs; list every problem and the holes left to judge",
        description="Check protocol.toml, the qrels and every run, listing every problem found (up to "
        "--max-problems, then a count), the unjudged pairs (holes) per query and the next command. "
        "Exit 0 when everything is valid and judged, 2 otherwise.",
    )
    add_protocol_argument(parser)
    parser.add_argument(
        "--run",
        action="append",
        default=[],
        metavar="[NAME=]PATH",
        help="run file to check (default: every file in PROTOCOL/runs/)",
    )
    parser.add_argument(
        "--max-problems",
        type=positive_int,
        default=DEFAULT_PROBLEM_LIMIT,
        metavar="N",
        help=f"problems listed before the rest are only counted (default {DEFAULT_PROBLEM_LIMIT})",
    )
    parser.set_defaults(func=run_validate)


def run_validate(args: argparse.Namespace) -> int:
    directory = protocol_dir(args)
    specs = [parse_run_argument(a, directory) for a in args.run]
    if not specs and directory.is_dir():
        specs = [(None, path) for path in run_files(directory)]
    result = validate_directory(directory, args.qrels, specs)
    for notice in [] if args.run else skipped_run_notices(directory):
        print(notice)
    print_validation(result, args.max_problems)
    return 2 if result.problems or result.holes else 0


def print_validation(result: Validation, limit: int) -> None:
    definition = result.definition
    if definition is not None:
        line = (
            f"ok: protocol {definition.name}: {len(definition.documents)} documents, {len(definition.queries)} queries"
        )
        if result.protocol is not None:
            line += f", {definition.pair_count} judged pairs, sha256 {result.protocol.protocol_sha256}"
        print(line)
    for path, run in result.runs:
        if run is not None:
            print(f"ok: run {run.name} ({path}): {len(run.rankings)} queries")
            for warning in run.warnings:
                print(f"warning: {warning}")
    for warning in result.warnings:
        print(f"warning: {warning}")
    for problem in result.problems[:limit]:
        print(f"error: {problem.one_line()}")
    if len(result.problems) > limit:
        print(f"error: ... and {len(result.problems) - limit} more problems ({len(result.problems)} in all)")
    if definition is None:
        print("note: qrels not checked: protocol.toml must be valid first")
    if result.holes:
        size = len(definition.documents) if definition is not None else 0
        print(
            f"holes: {result.hole_count} of {definition.pair_count if definition else 0} pairs unjudged "
            f"in {len(result.holes)} of {len(definition.queries) if definition else 0} queries (never read as 0):"
        )
        for query, count in list(result.holes.items())[:HOLE_ROWS_SHOWN]:
            print(f"  {query!r}: {count} of {size} unjudged")
        if len(result.holes) > HOLE_ROWS_SHOWN:
            print(f"  ... and {len(result.holes) - HOLE_ROWS_SHOWN} more queries with holes")
    if result.next_command:
        print(f"next: {result.next_command}")
    elif result.problems:
        print(f"{len(result.problems)} problems; fix them and run validate again")
