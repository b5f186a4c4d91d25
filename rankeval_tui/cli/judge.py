"""``rankeval-tui judge PROTOCOL``: label every query-document pair with 0/1 in the terminal.

Everything that can be wrong with the input (protocol, existing qrels, journal, lock) is checked
by opening the ``JudgingSession`` here, before textual is even imported: bad input is one
``error:`` line and exit 2, and no screen opens. After the app exits, the session is finished:
complete -> qrels written, else the journal is kept and the remaining count is printed. The
writer lock is held until then; a failed write is one ``error:`` line naming the journal that
keeps every label and the command that finishes the write (exit 1).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rankeval_tui.cli.common import finish_judging, judge_command, require_terminal
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import QRELS_FILE, load_definition


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "judge",
        help="judge query-document pairs 0/1 (exhaustive, crash-safe, resumable)",
        description="Judge every query-document pair of PROTOCOL with 1 (relevant) or 0 (not relevant). "
        "Every judgment is fsynced to QRELS.journal before it is shown; run judge again to "
        "resume. When every pair is judged, QRELS is written atomically. An existing complete "
        "QRELS opens for review and correction.",
    )
    parser.add_argument("protocol", type=Path, metavar="PROTOCOL", help="protocol directory")
    parser.add_argument(
        "--qrels",
        type=Path,
        default=None,
        metavar="PATH",
        help="qrels file to write (default: PROTOCOL/qrels.toml); journal and lock live beside it",
    )
    parser.add_argument(
        "--annotator",
        default=None,
        metavar="NAME",
        help="recorded in provenance (default: your user name; a resumed journal keeps its own)",
    )
    parser.add_argument(
        "--order",
        choices=("corpus", "shuffled"),
        default=None,
        help="document order per query (default: corpus); shuffled needs --seed",
    )
    parser.add_argument(
        "--seed", type=int, default=None, metavar="N", help="seed of the per-query shuffle, recorded in provenance"
    )
    parser.add_argument(
        "--break-lock",
        action="store_true",
        help="remove a lock this host cannot check (another host, unreadable); a lock of a process "
        "that is gone is recovered without it",
    )
    parser.add_argument(
        "--adjudicate",
        nargs=2,
        type=Path,
        default=None,
        metavar=("A.toml", "B.toml"),
        help="adjudicate the pairs two annotators label differently (with -o; --annotator "
        "names the adjudicator); see also the adjudicate command",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        metavar="QRELS.toml",
        help="with --adjudicate: the adjudicated, exhaustive qrels to write",
    )
    parser.set_defaults(func=run_judge)


def run_judge(args: argparse.Namespace) -> int:
    if args.adjudicate is not None or args.output is not None:
        from rankeval_tui.cli.adjudicate import run_from_judge  # issue 7: the adjudication queue

        return run_from_judge(args)
    definition = load_definition(args.protocol)
    qrels_path = args.qrels if args.qrels is not None else args.protocol / QRELS_FILE
    session = JudgingSession.open(
        definition, qrels_path, order=args.order, seed=args.seed, annotator=args.annotator, break_lock=args.break_lock
    )
    try:
        require_terminal()
    except ContractError:
        session.abandon()
        raise
    for warning in session.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    result = None
    try:
        from rankeval_tui.tui.app import RankevalApp  # textual only once the input is known good

        result = RankevalApp(args.protocol, qrels_path=qrels_path, start="judge", judge_session=session).run()
    finally:
        # The lock is still held here: the screen never releases it, so the final qrels write
        # and the journal's removal run locked (also after SIGTERM or SIGHUP, which end the app).
        code = finish_judging(session, judge_command(args.protocol, args.qrels))
    hangup = result if isinstance(result, int) and result > 128 else 0  # 128 + SIGHUP/SIGTERM
    return code or hangup
