"""``rankeval-tui adjudicate``: decide the pairs two annotators labeled differently, in the app.

Everything is validated (both files, coverage, lock, journal) before the screen opens, so bad
input is one ``error:`` line and exit 2 with nothing written. ``judge --adjudicate`` can call
``run_adjudicate`` with the same arguments.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rankeval_tui.cli.agree import locate
from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.common import add_output_option, add_protocol_directory, require_terminal
from rankeval_tui.cli.say import say
from rankeval_tui.core.annotation.adjudication import JOURNAL_SUFFIX, AdjudicationSession
from rankeval_tui.core.annotation.journal import journal_exists
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.outputs import QRELS, check_output_target


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "adjudicate",
        help=summary("adjudicate"),
        description="Queue only the pairs the two files label differently; give each a final 0/1 with a "
        "reason. Decisions are journaled (OUT.adjudication.journal) and survive a crash; the "
        "exhaustive qrels with [adjudication] records and provenance is written when all are "
        "decided. Two partial files (partial = true) are adjudicated on their overlap: a pair only "
        "one labels is no dispute and is not written, and the result is marked partial. "
        "Exit 0 written, 1 quit with decisions left, 2 invalid input.",
    )
    add_protocol_directory(parser)
    parser.add_argument("first", type=Path, metavar="A.toml", help="first annotator's qrels")
    parser.add_argument("second", type=Path, metavar="B.toml", help="second annotator's qrels")
    add_adjudication_options(parser)
    parser.set_defaults(func=run_adjudicate_command)


FORCE_HELP = (
    "replace the -o file if it exists, PROTOCOL/qrels.toml included (its labels); never an annotator's file. "
    "Not needed to resume: an -o file with its adjudication journal is this job's own"
)


def add_adjudication_options(parser: argparse.ArgumentParser) -> None:
    add_output_option(
        parser, "QRELS.toml", "the adjudicated, exhaustive qrels to write", required=True, force_help=FORCE_HELP
    )
    parser.add_argument(
        "--adjudicator",
        default=None,
        metavar="NAME",
        help="who decides (default: the login name); recorded with every decision",
    )
    parser.add_argument(
        "--break-lock",
        action="store_true",
        help="remove a lock this host cannot check (another host, unreadable); a lock of a process "
        "that is gone is recovered without it",
    )


def run_adjudicate(
    protocol: Path,
    first: Path,
    second: Path,
    output: Path,
    adjudicator: str | None,
    break_lock: bool,
    force: bool = False,
) -> int:
    from rankeval_tui.tui.app import run_adjudication_app  # textual only when the app opens

    first, second = locate(first, protocol), locate(second, protocol)
    # A journal beside the output: an earlier run of this job wrote it (or will); resuming needs no --force.
    resuming = journal_exists(output.with_name(output.name + JOURNAL_SUFFIX))
    check_output_target(
        output,
        force=force or resuming,
        protocol=protocol,
        inputs=[(first, "an annotator's file"), (second, "an annotator's file")],
        may_replace=[QRELS],
        resumes="adjudication",
    )
    definition = load_definition(protocol)
    session = AdjudicationSession.open(
        definition,
        first,
        second,
        output,
        adjudicator=adjudicator,
        break_lock=break_lock,
    )
    try:
        require_terminal()
    except ContractError:
        session.abandon()
        raise
    message = run_adjudication_app(protocol, session)
    if message:
        say(message, file=sys.stderr)
    return 0 if session.written else 1


def run_adjudicate_command(args: argparse.Namespace) -> int:
    return run_adjudicate(
        args.protocol, args.first, args.second, args.output, args.adjudicator, args.break_lock, args.force
    )


def run_from_judge(args: argparse.Namespace) -> int:
    """``judge PROTOCOL --adjudicate A.toml B.toml -o QRELS.toml``: the same as ``adjudicate``,
    with ``--annotator`` naming the adjudicator. Judging-only options make no sense here."""
    if args.adjudicate is None:
        option = "-o" if args.output is not None else "--force"
        raise ContractError(f"{option} applies to --adjudicate only; judging writes to --qrels")
    if args.output is None:
        raise ContractError("--adjudicate needs -o QRELS.toml (the adjudicated qrels to write)")
    for option, value in (("--qrels", args.qrels), ("--order", args.order), ("--seed", args.seed)):
        if value is not None:
            raise ContractError(f"{option} does not apply to --adjudicate (the queue is the disagreeing pairs)")
    first, second = args.adjudicate
    return run_adjudicate(args.protocol, first, second, args.output, args.annotator, args.break_lock, args.force)
