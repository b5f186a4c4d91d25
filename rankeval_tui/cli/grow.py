"""``rankeval-tui grow PROTOCOL``: add new documents, queries, or a run's unknown documents.

Every existing label is kept; exactly the new pairs become holes, listed by ``validate`` and
judged with ``judge`` (an open judging journal is carried over). Nothing is written unless all
input is valid.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rankeval_tui.cli.say import say
from rankeval_tui.core.annotation.growth import apply_growth, plan_growth
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import QRELS_FILE, load_definition, load_run, parse_run_argument
from rankeval_tui.core.files.additions import read_documents, read_queries, source_file
from rankeval_tui.core.files.holes import judge_command


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "grow",
        help="add new documents / queries (or a run's unknown documents) to a protocol; new pairs become holes",
        description="Add to PROTOCOL the documents of --corpus and the queries of --queries that it does not "
        "have yet (with --run: only the documents those runs name that the protocol lacks, their text "
        "from --corpus). Existing labels are all kept; the new pairs are holes to judge with "
        "`rankeval-tui judge PROTOCOL`. The change is recorded in protocol.toml's [[provenance.growth]]. "
        "Inputs are protocol.toml-shaped TOML files ([documents.ID] text; [queries.ID] text, split), "
        "another protocol directory, or any format init reads (BEIR, Pyserini, JSONL, TSV, a folder "
        "of .md/.txt files).",
    )
    parser.add_argument("protocol", type=Path, metavar="PROTOCOL", help="protocol directory to grow")
    parser.add_argument(
        "--corpus", type=Path, default=None, metavar="PATH", help="documents to add (or to take texts from)"
    )
    parser.add_argument("--queries", type=Path, default=None, metavar="PATH", help="queries to add")
    parser.add_argument(
        "--split",
        default=None,
        help="split of the added queries when their file has none (default: the protocol's split)",
    )
    parser.add_argument(
        "--run",
        action="append",
        default=[],
        metavar="[NAME=]PATH",
        help="add the documents this run retrieves that the protocol lacks (repeatable; texts from --corpus)",
    )
    parser.add_argument(
        "--qrels",
        type=Path,
        default=None,
        metavar="PATH",
        help="qrels whose journal to carry over (default: PROTOCOL/qrels.toml)",
    )
    parser.set_defaults(func=run_grow)


def run_grow(args: argparse.Namespace) -> int:
    if args.run and args.corpus is None:
        raise ContractError("--run needs --corpus PATH: the texts of the run's new documents")
    if args.corpus is None and args.queries is None:
        raise ContractError("nothing to add: give --corpus PATH, --queries PATH or --run PATH --corpus PATH")
    definition = load_definition(args.protocol)
    corpus, titles = read_documents(args.corpus) if args.corpus is not None else (None, None)
    split = args.split if args.split is not None else definition.split
    queries = read_queries(args.queries, split) if args.queries is not None else None
    runs = [load_run(path, name) for name, path in (parse_run_argument(a, args.protocol) for a in args.run)]
    sources = {
        "corpus": [str(source_file(args.corpus))] if args.corpus is not None else [],
        "queries": [str(source_file(args.queries))] if args.queries is not None else [],
        "runs": [str(run.source) for run in runs],
    }
    growth = plan_growth(definition, corpus=corpus, queries=queries, runs=runs, sources=sources, titles=titles)
    if growth.empty:
        say(f"nothing new: every document and query given is already in {args.protocol}; nothing written")
        return 0
    qrels_path = args.qrels if args.qrels is not None else args.protocol / QRELS_FILE
    migrated = apply_growth(args.protocol, growth, qrels_path=qrels_path)
    say(
        f"grew {args.protocol}: +{len(growth.documents)} documents, +{len(growth.queries)} queries "
        f"({len(growth.after.documents)} documents, {len(growth.after.queries)} queries); "
        f"{growth.new_pairs} new pairs are holes, every existing label kept"
        + ("; the open judging journal was carried over" if migrated else "")
    )
    say(f"next: {judge_command(args.protocol, qrels_path)}")
    return 0
