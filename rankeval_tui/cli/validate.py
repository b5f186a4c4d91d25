"""``rankeval-tui validate``: check protocol, qrels and every run; list every problem, count the
holes per query, and say which command to run next."""

from __future__ import annotations

import argparse

from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.common import add_protocol_argument, positive_int, protocol_dir
from rankeval_tui.cli.say import say
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.evaluation.tie_order import tie_order_report
from rankeval_tui.core.files import parse_run_argument, run_files
from rankeval_tui.core.files.annotator_kind import annotator_words, model_notice
from rankeval_tui.core.files.journal_names import open_journals_of
from rankeval_tui.core.files.runs import skipped_run_notices
from rankeval_tui.core.files.validation import Validation, validate_directory
from rankeval_tui.core.wording import counted

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from rankeval_tui.core.annotation.judging_state import JudgingState

DEFAULT_PROBLEM_LIMIT = 20
HOLE_ROWS_SHOWN = 20


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "validate",
        help=summary("validate"),
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
    journal = read_journal(result)
    for notice in [] if args.run else skipped_run_notices(directory):
        say(notice)
    print_validation(result, args.max_problems, journal)
    return 2 if result.problems or result.holes else 0


def read_journal(result: Validation) -> JudgingState | None:
    """The open judging journal beside the qrels, replayed read-only (its labels are not in the
    qrels file until judging ends); a journal ``judge`` would refuse is one more problem."""
    if result.definition is None:
        return None
    try:
        if "judging" not in open_journals_of(result.qrels_path):  # nothing there, not even a link
            return None
        # with something there only (start-up: the journal, judging and pace modules are not small)
        from rankeval_tui.core.annotation.journal import journal_exists, journal_of

        if not journal_exists(journal_of(result.qrels_path)):  # a link there is refused, even dangling
            return None
        from rankeval_tui.core.annotation.judging import journal_progress

        return journal_progress(result.definition, result.qrels_path)
    except ContractError as error:
        result.problems.append(error)
        return None


def print_validation(result: Validation, limit: int, journal: JudgingState | None = None) -> None:
    definition = result.definition
    if definition is not None:
        line = (
            f"ok: protocol {definition.name}: {counted(len(definition.documents), 'document')}, "
            f"{counted(len(definition.queries), 'query')}"
        )
        if definition.pools is not None:
            line += f", pooled: {counted(len(definition.document_ids), 'pooled document')} ({definition.pool_rule})"
        if result.protocol is not None:
            pairs = "pair" if definition.unlisted_as_zero else "judged pair"  # some 0 by declaration: counted below
            line += f", {counted(definition.pair_count, pairs)}, sha256 {result.protocol.protocol_sha256}"
        say(line)
        notice = model_notice(result.qrels.provenance, result.qrels_path) if result.qrels is not None else None
        if notice is not None:
            say(f"note: {notice}")
    for path, run in result.runs:  # a run is only ever valid against a definition
        if run is not None:
            say(f"ok: run {run.name} ({path}): {counted(len(run.rankings), 'query')}")
            for warning in run.warnings:
                say(f"warning: {warning}")
            ties = tie_order_report(result.protocol, run) if result.protocol is not None else None
            if ties is not None:
                say(f"warning: {ties.summary()}")
    for warning in result.warnings:
        say(f"warning: {warning}")
    for problem in result.problems[:limit]:
        say(f"error: {problem.one_line()}")
    if len(result.problems) > limit:
        say(f"error: ... and {counted(len(result.problems) - limit, 'more problem')} ({len(result.problems)} in all)")
    if definition is None:
        say("note: qrels and runs not checked against the protocol: protocol.toml must be valid first")
    else:
        print_holes(result, definition, journal)
    if result.next_command:
        say(f"next: {result.next_command}")
    elif result.problems:
        them = "it" if len(result.problems) == 1 else "them"
        say(f"{counted(len(result.problems), 'problem')}; fix {them} and run validate again")


def print_holes(result: Validation, definition: ProtocolDefinition, journal: JudgingState | None) -> None:
    if result.holes:
        say(
            f"holes: {result.hole_count} of {counted(definition.pair_count, 'pair')} unjudged in {len(result.holes)} "
            f"of {counted(len(definition.queries), 'query')} (never read as 0):"
        )
        for query, count in list(result.holes.items())[:HOLE_ROWS_SHOWN]:
            say(f"  {query!r}: {count} of {len(definition.documents_of(query))} unjudged")
        if len(result.holes) > HOLE_ROWS_SHOWN:
            say(f"  ... and {counted(len(result.holes) - HOLE_ROWS_SHOWN, 'more query')} with holes")
    if definition.unlisted_as_zero:
        declared = sum(result.unlisted.values())
        say(
            f"unlisted: {declared} of {counted(definition.pair_count, 'pair')} without a label, each 0 by the "
            f"collection's declaration (unlisted_as_zero), kept apart from the {definition.pair_count - declared} "
            "labelled; so is every pair outside the qrels"
        )
    provenance = result.qrels.provenance if result.qrels is not None else {}
    if journal is None and "pace" not in provenance:
        return  # nothing timed: the pace module (statistics, random) is not imported
    from rankeval_tui.core.annotation.pace import Pace, pace_line

    if journal is not None:
        say(
            f"journal: {journal.marks.judged} of {counted(journal.marks.total, 'pair')} judged so far ({journal.journal_path}); "
            f"{result.qrels_path.name} is written when judging "
            + ("finishes" if journal.marks.complete else "finishes with every pair judged")
        )
        say(f"pace: {annotator_words(journal.annotator or 'annotator')}: {pace_line(journal.pace())} (this journal)")
    recorded = Pace.from_provenance(provenance.get("pace"))
    if recorded is not None:
        annotator = provenance.get("annotator", "annotator")
        say(f"pace: {annotator_words(str(annotator))}: {pace_line(recorded)} ({result.qrels_path.name})")
