"""``rankeval-tui grow PROTOCOL``: add new documents, queries, or a run's unknown documents.

Every existing label is kept; exactly the new pairs become holes, listed by ``validate`` and
judged with ``judge`` (an open judging journal is carried over). Nothing is written unless all
input is valid.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.common import positive_int
from rankeval_tui.cli.say import say
from rankeval_tui.core.annotation.growth import apply_growth, carry_over, declare, growing, plan_growth
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.pools import documents_without_text
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.files import PROTOCOL_FILE, QRELS_FILE, load_definition, load_run, parse_run_argument
from rankeval_tui.core.files.additions import read_documents, read_queries, source_file
from rankeval_tui.core.files.holes import judge_command
from rankeval_tui.core.files.input_formats import formats_help
from rankeval_tui.core.wording import counted


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "grow",
        help=summary("grow"),
        description="Add to PROTOCOL the documents of --corpus and the queries of --queries that it does not "
        "have yet (with --run: only the documents those runs name that the protocol lacks, their text "
        "from --corpus). Existing labels are all kept; the new pairs are holes to judge with "
        "`rankeval-tui judge PROTOCOL`. The change is recorded in protocol.toml's [[provenance.growth]]. "
        "Inputs are protocol.toml-shaped TOML files ([documents.ID] text; [queries.ID] text, split), "
        "another protocol directory, or any format init reads: " + formats_help(("--corpus", "--queries")) + ".",
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
        "--gap",
        action="append",
        default=[],
        metavar="[NAME=]PATH",
        help="pooled protocol: add this run's top-k pairs outside the pools to them, as holes to judge "
        "(repeatable; texts from --corpus when given)",
    )
    parser.add_argument(
        "--k", type=positive_int, default=None, help="with --gap: the depth (default: the protocol's k)"
    )
    parser.add_argument(
        "--qrels",
        type=Path,
        default=None,
        metavar="PATH",
        help="qrels whose journal to carry over (default: PROTOCOL/qrels.toml)",
    )
    parser.add_argument(
        "--unlisted-as-zero",
        action="store_true",
        help="record in protocol.toml the collection's declaration that every pair its qrels do not list is 0 "
        "(counted as 'unlisted' in every report; a new protocol hash), on its own",
    )
    parser.set_defaults(func=run_grow)


def run_declare_unlisted(args: argparse.Namespace) -> int:
    """``grow --unlisted-as-zero``: the declaration added to protocol.toml, every other part and
    every label kept. It changes no label's meaning (the binding), so open journals stay bound."""
    if args.corpus or args.queries or args.run or args.gap:
        raise ContractError("--unlisted-as-zero is grown on its own: give it without --corpus, --queries, --run, --gap")
    qrels_path = args.qrels if args.qrels is not None else args.protocol / QRELS_FILE
    with read_under_lock(args.protocol, qrels_path) as definition:
        if definition.unlisted_as_zero:
            return nothing_new(args.protocol, definition, qrels_path, "protocol.toml declares unlisted pairs 0 already")
        declare(args.protocol, definition, "unlisted_as_zero", unlisted_as_zero=True)
    say(f"declared in {args.protocol / PROTOCOL_FILE}: {UNLISTED_DECLARED}")
    return 0


UNLISTED_DECLARED = (
    "every pair the qrels do not list is 0 by the collection's declaration (unlisted_as_zero; a new protocol hash)"
)


def run_gap_growth(args: argparse.Namespace) -> int:
    """``grow --gap RUN``: the run's unjudged top-k pairs join the pools as holes (its module is
    imported here: every CLI call registers ``grow``, few grow a pooled protocol)."""
    from rankeval_tui.core.annotation.pool_growth import apply_gap, plan_gap

    if args.run:
        raise ContractError(
            "a pooled protocol grows by its pools: grow PROTOCOL --gap RUN [--corpus TEXTS] [--queries TEXTS] "
            "(--run adds documents to an exhaustive protocol)"
        )
    load_definition(args.protocol)  # a broken protocol is named before the inputs are read
    runs = [load_run(path, name) for name, path in (parse_run_argument(a, args.protocol) for a in args.gap)]
    texts = read_documents(args.corpus)[0] if args.corpus is not None else None
    sources = {"runs": [str(run.source) for run in runs]}
    if args.corpus is not None:
        sources["corpus"] = [str(source_file(args.corpus))]
    qrels_path = args.qrels if args.qrels is not None else args.protocol / QRELS_FILE
    with read_under_lock(args.protocol, qrels_path) as definition:
        split = args.split if args.split is not None else definition.split
        queries = read_queries(args.queries, split) if args.queries is not None else None
        if args.queries is not None:
            sources["queries"] = [str(source_file(args.queries))]
        k = args.k if args.k is not None else definition.k
        growth, added = plan_gap(definition, runs, k, texts, sources, queries)
        if not added and not growth.documents and not growth.queries:
            what = f"every top-{k} pair of the run is in the pools of {args.protocol}; nothing written"
            return nothing_new(args.protocol, definition, qrels_path, what)
        migrated = apply_gap(args.protocol, growth, added, qrels_path=qrels_path)
    gap_queries = sum(
        1 for q in definition.queries if len(growth.after.documents_of(q)) > len(definition.documents_of(q))
    )
    say(
        f"grew {args.protocol}: +{added} pool pairs in {gap_queries} queries (holes to judge, every existing label "
        f"kept), +{len(growth.documents)} document texts, +{len(growth.queries)} query texts"
        + (f"; carried over {_listed(migrated)}" if migrated else "")
    )
    untexted = documents_without_text(growth.after.pools, growth.after.documents)
    if untexted:
        say(
            f"warning: {counted(len(untexted), 'pooled document')} without text: judging shows a placeholder; "
            f"add the texts with rankeval-tui grow {args.protocol} --corpus FILE (validate lists them)"
        )
    say(f"next: {judge_command(args.protocol, qrels_path)}")
    return 0


def run_grow(args: argparse.Namespace) -> int:
    if args.unlisted_as_zero:
        return run_declare_unlisted(args)
    pooled_texts = (args.corpus is not None or args.queries is not None) and not args.run
    if args.gap or (pooled_texts and load_definition(args.protocol).pools is not None):
        return run_gap_growth(args)  # a pooled protocol grows by its pools (and the texts of pooled documents)
    if args.run and args.corpus is None:
        raise ContractError("--run needs --corpus PATH: the texts of the run's new documents")
    if args.corpus is None and args.queries is None:
        raise ContractError("nothing to add: give --corpus PATH, --queries PATH or --run PATH --corpus PATH")
    load_definition(args.protocol)  # a broken protocol is named before the inputs are read
    corpus, titles, notices = read_documents(args.corpus) if args.corpus is not None else (None, None, [])
    runs = [load_run(path, name) for name, path in (parse_run_argument(a, args.protocol) for a in args.run)]
    sources = {
        "corpus": [str(source_file(args.corpus))] if args.corpus is not None else [],
        "queries": [str(source_file(args.queries))] if args.queries is not None else [],
        "runs": [str(run.source) for run in runs],
    }
    qrels_path = args.qrels if args.qrels is not None else args.protocol / QRELS_FILE
    for notice in notices:
        say(f"notice: {notice}")
    with read_under_lock(args.protocol, qrels_path) as definition:
        split = args.split if args.split is not None else definition.split
        queries = read_queries(args.queries, split) if args.queries is not None else None
        growth = plan_growth(definition, corpus=corpus, queries=queries, runs=runs, sources=sources, titles=titles)
        if growth.empty:
            what = f"every document and query given is already in {args.protocol}; nothing added"
            return nothing_new(args.protocol, definition, qrels_path, what)
        migrated = apply_growth(args.protocol, growth, qrels_path=qrels_path)
    say(
        f"grew {args.protocol}: +{len(growth.documents)} documents, +{len(growth.queries)} queries "
        f"({len(growth.after.documents)} documents, {len(growth.after.queries)} queries); "
        f"{growth.new_pairs} new pairs are holes, every existing label kept"
        + (f"; carried over {_listed(migrated)}" if migrated else "")
    )
    say(f"next: {judge_command(args.protocol, qrels_path)}")
    return 0


@contextmanager
def read_under_lock(protocol: Path, qrels_path: Path) -> Iterator[ProtocolDefinition]:
    """protocol.toml read under grow's locks (``growing``: a concurrent grow's addition is not
    lost to a read made before it), after saying which stale locks were recovered."""
    with growing(protocol, qrels_path) as recovered:
        for notice in recovered:
            say(f"note: {notice}")
        yield load_definition(protocol)


def nothing_new(protocol: Path, definition: ProtocolDefinition, qrels_path: Path, what: str) -> int:
    """Nothing to add; the journals an interrupted grow left behind are still moved, so running
    the same grow again is what repairs it."""
    finished = carry_over(protocol, definition, qrels_path)
    say(f"nothing new: {what}")
    if finished:
        say(f"finished an interrupted grow: moved {_listed(finished)} to the grown protocol.toml, every label kept")
    return 0


def _listed(journals: list[Path]) -> str:
    names = ", ".join(journal.name for journal in journals)
    return f"the open journal {names}" if len(journals) == 1 else f"the open journals {names}"
