"""``rankeval-tui init``: a new protocol directory from your own corpus, queries, labels and runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from rankeval_tui.cli.common import positive_int
from rankeval_tui.cli.say import say
from rankeval_tui.core.files.protocol_init import DEFAULT_RELEVANCE, InitRequest, plan_protocol, write_protocol
from rankeval_tui.core.files.runs import parse_run_argument


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "init",
        help="make a protocol directory from a corpus, queries, optional qrels and runs",
        description="Read and check everything, then write DIR/protocol.toml, DIR/runs/ and (with --qrels) "
        "DIR/qrels.toml with the imported labels only: every other pair is a hole to judge with "
        "'rankeval-tui judge DIR'. Nothing is written when anything is wrong; an existing protocol is "
        "never overwritten. Formats are told from the content: corpus BEIR corpus.jsonl, Pyserini JSONL, "
        "JSONL {id, text}, TSV id<TAB>text or a directory of .md/.txt files; queries BEIR queries.jsonl, "
        "JSONL {id, text[, split]}, TSV id<TAB>text; qrels TREC 'qid 0 docid rel' or BEIR TSV with the "
        "header 'query-id corpus-id score'; runs TREC 6-column, MS MARCO 'qid<TAB>docid<TAB>rank', JSON.",
    )
    parser.add_argument("directory", type=Path, metavar="DIR", help="the new protocol directory")
    parser.add_argument("--corpus", type=Path, required=True, metavar="PATH", help="corpus file or directory")
    parser.add_argument("--queries", type=Path, required=True, metavar="PATH", help="queries file")
    parser.add_argument("--qrels", type=Path, default=None, metavar="PATH", help="labels to start from (partial)")
    parser.add_argument(
        "--threshold", type=positive_int, default=None, metavar="T", help="graded labels: rel >= T is 1, else 0"
    )
    parser.add_argument(
        "--run", action="append", default=[], metavar="[NAME=]PATH", help="a run to copy into DIR/runs/; repeatable"
    )
    parser.add_argument("--k", type=positive_int, required=True, help="the cutoff of Recall@k and RR@k")
    parser.add_argument(
        "--split", default="test", help="the split scored; every query's split unless the file has one (default test)"
    )
    parser.add_argument("--name", default=None, help="protocol name (default: the directory's name)")
    parser.add_argument("--relevance", default=DEFAULT_RELEVANCE, metavar="TEXT", help="the judging rule, in words")
    sampling = parser.add_argument_group("keeping judging human-sized")
    sampling.add_argument(
        "--sample-queries", type=positive_int, default=None, metavar="N", help="keep N queries of the split, drawn"
    )
    sampling.add_argument("--seed", type=int, default=None, metavar="S", help="seed of --sample-queries (required)")
    sampling.add_argument(
        "--pool-depth",
        type=positive_int,
        default=None,
        metavar="D",
        help="corpus = documents in some run's top D for the kept queries, plus every labelled document",
    )
    parser.set_defaults(func=run_init)


def run_init(args: argparse.Namespace) -> int:
    request = InitRequest(
        directory=args.directory,
        corpus=args.corpus,
        queries=args.queries,
        k=args.k,
        split=args.split,
        name=args.name,
        relevance=args.relevance,
        qrels=args.qrels,
        threshold=args.threshold,
        runs=[parse_run_argument(argument, None) for argument in args.run],
        sample_queries=args.sample_queries,
        seed=args.seed,
        pool_depth=args.pool_depth,
    )
    plan = plan_protocol(request)
    write_protocol(plan)
    definition = plan.definition
    for notice in plan.notices:
        say(f"notice: {notice}")
    in_split = len(definition.selected_queries)
    say(
        f"wrote {args.directory}: {len(definition.documents)} documents, {len(definition.queries)} queries "
        f"({in_split} in split {definition.split!r}), k {definition.k}, runs: {', '.join(plan.run_files) or 'none'}"
    )
    say(
        f"labels: {plan.label_count} imported, {plan.hole_count} of {definition.pair_count} pairs to judge "
        f"(never filled with 0)"
    )
    say(
        f"next: rankeval-tui judge {args.directory}"
        if plan.hole_count
        else f"next: rankeval-tui score {args.directory}"
    )
    return 0
