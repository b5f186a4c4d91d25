"""``rankeval-tui assign PROTOCOL --annotators a,b,c``: split a protocol's queries between annotators."""

from __future__ import annotations

import argparse
import sys

from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.common import add_protocol_directory
from rankeval_tui.cli.say import say
from rankeval_tui.core.annotation.assignment import (
    LABELS_DIRECTORY,
    assignment_path,
    labels_taken_away,
    pair_total,
    parse_annotators,
    plan_assignment,
    read_assignment,
    write_assignment,
)
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.annotator_kind import annotator_words
from rankeval_tui.core.files.demo import refuse_writes_into_demo
from rankeval_tui.core.files.safe_read import refuse_link
from rankeval_tui.core.wording import counted


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "assign",
        help=summary("assign"),
        description="Give each annotator a set of queries, balanced by the pairs to judge, and a seeded "
        "share of the queries (--overlap) to a second annotator too, for agreement. Written "
        "atomically to PROTOCOL/assignments.toml with its seed and overlap; the same arguments give "
        "the same file. Each annotator then runs `judge PROTOCOL --annotator NAME`.",
    )
    add_protocol_directory(parser)
    parser.add_argument("--annotators", required=True, metavar="A,B,...", help="annotator names, comma-separated")
    parser.add_argument(
        "--overlap", type=float, default=0.0, metavar="FRACTION", help="share of queries judged by two (default 0)"
    )
    parser.add_argument("--seed", type=int, required=True, metavar="N", help="seed of the overlap and of ties")
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace a different existing assignment (refused still if it would strand someone's labels)",
    )
    parser.set_defaults(func=run_assign)


def run_assign(args: argparse.Namespace) -> int:
    definition = load_definition(args.protocol)
    plan = plan_assignment(definition, parse_annotators(args.annotators), args.overlap, args.seed)
    target = assignment_path(args.protocol)
    refuse_writes_into_demo(target, "assigning")
    existing = read_assignment(args.protocol, definition)
    if existing is not None and existing.to_toml(definition) != plan.to_toml(definition):
        if not args.force:
            raise ContractError(
                "a different assignment exists (another seed, overlap or team); give --force to replace it",
                file=target,
            )
        stranded = labels_taken_away(args.protocol, definition, existing, plan)
        if stranded is not None:
            raise ContractError(f"not replaced: {stranded}", file=target)
    labels = args.protocol / LABELS_DIRECTORY
    refuse_link(labels, "labels directory")
    labels.mkdir(exist_ok=True)
    write_assignment(args.protocol, definition, plan)
    say(f"wrote {target}: seed {plan.seed}, overlap {plan.overlap}", file=sys.stderr)
    for name, queries in plan.queries.items():
        say(
            f"{annotator_words(name)}: {counted(len(queries), 'query')}, {counted(pair_total(definition, queries), 'pair')}",
            file=sys.stderr,
        )
    return 0
