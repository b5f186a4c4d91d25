"""``rankeval-tui merge``: shards judged on disjoint query sets -> one exhaustive qrels file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rankeval_tui.cli.agree import locate
from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.common import add_output_option, add_protocol_directory, check_output
from rankeval_tui.cli.say import say
from rankeval_tui.core.annotation.merge import merge_files
from rankeval_tui.core.files import load_definition, write_qrels
from rankeval_tui.core.files.annotator_kind import annotator_words
from rankeval_tui.core.files.outputs import QRELS


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "merge",
        help=summary("merge"),
        description="Merge shards judged on (usually disjoint) query sets. Pairs labeled differently in two "
        "shards are conflicts and pairs judged in no shard are missing: both are listed in full "
        "and nothing is written (exit 2). Agreeing overlaps are fine.",
    )
    add_protocol_directory(parser)
    parser.add_argument("shards", type=Path, nargs="+", metavar="SHARD.toml", help="partial qrels files")
    add_output_option(
        parser,
        "QRELS.toml",
        "where to write the merged qrels (atomically); may be PROTOCOL/qrels.toml",
        required=True,
        force_help="replace the -o file if it exists, PROTOCOL/qrels.toml included (its labels); never a shard",
    )
    parser.set_defaults(func=run_merge)


def run_merge(args: argparse.Namespace) -> int:
    definition = load_definition(args.protocol)
    shards = [locate(path, args.protocol) for path in args.shards]
    check_output(args, inputs=[(shard, "one of the shards") for shard in shards], may_replace=[QRELS])
    merged = merge_files(definition, shards)
    write_qrels(args.output, merged, definition)
    say(
        f"wrote {args.output}: {definition.pair_count} pairs from "
        f"{len(shards)} shards, annotators: {', '.join(map(annotator_words, merged.provenance['annotators'])) or 'unnamed'}",
        file=sys.stderr,
    )
    return 0
