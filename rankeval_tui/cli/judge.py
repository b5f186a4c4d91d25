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

from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.common import (
    add_output_option,
    add_protocol_directory,
    finish_judging,
    integer,
    judge_command,
    require_terminal,
)
from rankeval_tui.cli.judge_audit import add_audit_arguments, audit_plan, audit_sampled
from rankeval_tui.cli.say import say
from rankeval_tui.core.annotation.assignment import (
    AnnotatorSession,
    assignment_path,
    check_annotator_name,
    labels_path,
    read_assignment,
)
from rankeval_tui.core.annotation.hole_order import HOLE_ORDERS, top_k_pairs
from rankeval_tui.core.annotation.judging import JudgingSession, Order
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.evaluate import Run, check_run
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.files import QRELS_FILE, load_definition, load_run, parse_run_argument, run_files
from rankeval_tui.core.files.safe_read import refuse_link


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "judge",
        help=summary("judge"),
        description="Judge every query-document pair of PROTOCOL with 1 (relevant) or 0 (not relevant). "
        "Every judgment is fsynced to QRELS.journal before it is shown; run judge again to "
        "resume. When every pair is judged, QRELS is written atomically. An existing complete "
        "QRELS opens for review and correction.",
    )
    add_protocol_directory(parser)
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
        help="recorded in provenance (default: your user name; a resumed journal keeps its own). With "
        "PROTOCOL/assignments.toml (see assign): judge only NAME's queries, into PROTOCOL/labels/NAME.toml",
    )
    parser.add_argument(
        "--order",
        choices=("corpus", "shuffled"),
        default=None,
        help="document order per query (default: corpus); shuffled needs --seed",
    )
    parser.add_argument(
        "--seed", type=integer, default=None, metavar="N", help="seed of the per-query shuffle, recorded in provenance"
    )
    parser.add_argument(
        "--holes-first",
        choices=HOLE_ORDERS,
        default=None,
        help="top-k: judge first the holes inside some run's top k (runs in PROTOCOL/runs/ or --run); "
        "they decide the numerators. Only the visiting order changes; no run is shown",
    )
    parser.add_argument(
        "--run",
        action="append",
        default=[],
        metavar="[NAME=]PATH",
        help="with --holes-first: the runs whose top k come first (default: every file in PROTOCOL/runs/)",
    )
    parser.add_argument(
        "--decide",
        nargs=2,
        default=None,
        metavar=("A", "B"),
        help="pooled protocol: ask first the holes whose labels decide whether run B is better than run A "
        "(names of runs/ files or [NAME=]PATH); the status line says when the verdict is decided. "
        "Only the visiting order changes; no run is shown",
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
    add_audit_arguments(parser)
    add_output_option(
        parser,
        "QRELS.toml",
        "with --adjudicate: the adjudicated, exhaustive qrels to write",
        force_help="with --adjudicate: replace the -o file if it exists (as adjudicate --force)",
    )
    parser.set_defaults(func=run_judge)


def holes_in_top_k(
    definition: ProtocolDefinition, args: argparse.Namespace, judged: ProtocolDefinition
) -> list[tuple[str, str]]:
    """The pairs of ``judged`` (the protocol, or one annotator's queries of it) inside the runs'
    top k; every run is checked against the whole protocol first."""
    if args.run:
        specs = [parse_run_argument(a, args.protocol) for a in args.run]
    else:
        specs = [(None, path) for path in run_files(args.protocol)]
        if not specs:
            raise ContractError("--holes-first top-k needs runs: give --run PATH or put run files in runs/")
    runs = [load_run(path, name) for name, path in specs]
    for run in runs:
        check_run(definition, run)
    pairs = top_k_pairs(definition, [run.rankings for run in runs], definition.k)
    return pairs if judged is definition else [(q, doc) for q, doc in pairs if q in judged.queries]


def assigned_queries(definition: ProtocolDefinition, args: argparse.Namespace) -> tuple[str, ...] | None:
    """The queries ``--annotator`` is assigned in PROTOCOL/assignments.toml; None without an
    assignment (the annotator's name is then only recorded) or without ``--annotator``."""
    if args.annotator is None:
        return None
    assignment = read_assignment(args.protocol, definition)
    if assignment is None:
        return None
    if args.qrels is not None:
        raise ContractError(
            "an assigned annotator judges into PROTOCOL/labels/NAME.toml; --qrels does not apply",
            file=assignment_path(args.protocol),
        )
    queries = assignment.queries_of(check_annotator_name(args.annotator), assignment_path(args.protocol))
    labels = labels_path(args.protocol, args.annotator).parent
    refuse_link(labels, "labels directory")
    labels.mkdir(exist_ok=True)
    return queries


def decide_runs(definition: ProtocolDefinition, args: argparse.Namespace) -> list[Run]:
    """The two runs of ``--decide``: a name of a runs/ file, or ``[NAME=]PATH``; each checked."""
    by_name = {path.stem: path for path in run_files(args.protocol)}
    specs = [
        (name, by_name[name]) if name in by_name else parse_run_argument(name, args.protocol) for name in args.decide
    ]
    runs = [load_run(path, name) for name, path in specs]
    for run in runs:
        check_run(definition, run)
    if runs[0].name == runs[1].name:
        raise ContractError(f"--decide needs two different runs, got {runs[0].name!r} twice")
    return runs


def run_judge(args: argparse.Namespace) -> int:
    if args.adjudicate is not None or args.output is not None or args.force:
        from rankeval_tui.cli.adjudicate import run_from_judge  # the adjudication queue

        return run_from_judge(args)
    protocol_definition = definition = load_definition(args.protocol)
    if args.decide is not None:
        if args.holes_first is not None or args.run or args.audit is not None or audit_sampled(args):
            raise ContractError(
                "--decide sets the order itself: no --holes-first, --run, --audit, --sample or --sample-queries with it"
            )
        if args.annotator is not None and read_assignment(args.protocol, definition) is not None:
            raise ContractError("--decide orders the whole protocol's holes: not for an assigned --annotator")
        return judge_to_decide(args, definition, decide_runs(definition, args))
    audit = None
    if args.audit is not None or audit_sampled(args):  # a blind sample: its own queue, never the labels audited
        definition, audit = audit_plan(args, definition)
    qrels_path = args.qrels if args.qrels is not None else args.protocol / QRELS_FILE
    session_kind: type[JudgingSession] = JudgingSession
    assigned = assigned_queries(definition, args) if audit is None else None
    if assigned is not None:  # one annotator of a team: their queries, their labels file
        definition = definition.with_queries(assigned)
        qrels_path = labels_path(args.protocol, args.annotator)
        session_kind = AnnotatorSession
    # A pooled protocol judges by value: the pairs inside some run's top k first, when it has runs.
    follows_runs = audit is None and (
        args.holes_first is not None or (definition.pools is not None and bool(args.run or run_files(args.protocol)))
    )
    if args.run and not follows_runs:
        raise ContractError("--run applies to --holes-first only")
    # Runs are read before the session opens: a bad run leaves no lock and no journal behind.
    priority = holes_in_top_k(protocol_definition, args, definition) if follows_runs else None
    order: Order | None = "shuffled" if audit is not None else args.order
    session = session_kind.open(
        definition, qrels_path, order=order, seed=args.seed, annotator=args.annotator, break_lock=args.break_lock
    )
    if audit is not None:  # kept in the file written: partial, and which labels it audits
        session.marks.base_provenance.update(audit)
    if priority is not None:
        try:
            first = session.order_holes(priority)
        except BaseException:
            session.close()
            raise
    try:
        require_terminal()
    except ContractError:
        session.abandon()
        raise
    if priority is not None:
        say(
            f"{first} holes inside some run's top {definition.k} come "
            + ("next, after the pair where you left off" if session.resumed else "first")
            + (
                " (pooled protocol: judged by value; scorable once they are judged)"
                if definition.pools is not None
                else ""
            ),
            file=sys.stderr,
        )
    return open_judging_screen(args, session, qrels_path)


def open_judging_screen(args: argparse.Namespace, session: JudgingSession, qrels_path: Path) -> int:
    """The judging screen on the open session, then the session finished (qrels written when complete)."""
    for warning in session.warnings:
        say(f"warning: {warning}", file=sys.stderr)
    say(session.start_summary(), file=sys.stderr)
    result = None
    try:
        from rankeval_tui.tui.app import RankevalApp  # textual only once the input is known good
        from rankeval_tui.tui.hangups import guard_lock

        guard_lock(session.lock)  # released if a hangup's exit wedges on a dead terminal
        result = RankevalApp(args.protocol, qrels_path=qrels_path, start="judge", judge_session=session).run()
    finally:
        # The lock is still held here: the screen never releases it, so the final qrels write
        # and the journal's removal run locked (also after SIGTERM or SIGHUP, which end the app).
        from rankeval_tui.tui.hangups import app_ended

        app_ended()  # a hangup's watchdog stands down: the app ended, the finish below runs
        assigned = isinstance(session, AnnotatorSession)  # resumed by name: their labels file is not --qrels
        resume = judge_command(args.protocol, args.qrels) + (f" --annotator {session.annotator}" if assigned else "")
        code = finish_judging(session, resume)
    hangup = result if isinstance(result, int) and result > 128 else 0  # 128 + SIGHUP/SIGTERM
    return code or hangup


def judge_to_decide(args: argparse.Namespace, definition: ProtocolDefinition, runs: list[Run]) -> int:
    """``judge --decide A B``: the holes in the order that decides B - A (core/annotation/decide_order.py)."""
    from rankeval_tui.core.annotation.decide_order import refuse_outside_pools
    from rankeval_tui.core.annotation.decide_session import open_to_decide

    refuse_outside_pools(definition, runs, definition.k)  # before the session: nothing left behind
    qrels_path = args.qrels if args.qrels is not None else args.protocol / QRELS_FILE
    session, queue = open_to_decide(
        definition,
        qrels_path,
        runs[0],
        runs[1],
        order=args.order,
        seed=args.seed,
        annotator=args.annotator,
        break_lock=args.break_lock,
    )
    try:
        require_terminal()
    except ContractError:
        session.abandon()
        raise
    say(
        f"holes in the order that decides {runs[1].name} vs {runs[0].name}: {queue.status(session.marks.labels)}",
        file=sys.stderr,
    )
    code = open_judging_screen(args, session, qrels_path)
    if not session.marks.complete:  # stopped early: the verdict stands on the journal's labels
        say(f"the comparison on the labels so far: {bounds_command(args, runs)}")
    return code


def bounds_command(args: argparse.Namespace, runs: list[Run]) -> str:
    """``score --bounds`` of the two runs of ``--decide``, which reads the open journal's labels."""
    import shlex  # for the hint only

    qrels = f" --qrels {shlex.quote(str(args.qrels))}" if args.qrels is not None else ""
    sources = " ".join(f"--run {shlex.quote(f'{run.name}={run.source}')}" for run in runs)
    return (
        f"rankeval-tui score {shlex.quote(str(args.protocol))}{qrels} {sources} "
        f"--baseline {shlex.quote(runs[0].name)} --bounds"
    )
