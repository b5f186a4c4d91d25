"""``rankeval-tui qrels export|import`` and ``rankeval-tui run export``: TREC files in and out.

Thin wrappers over ``core.files.trec``: read through core loaders, write atomically, report on stderr.
Nothing is written when the input breaks the contract (exit 2 through ``cli.main``).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.common import (
    add_label_arguments,
    add_output_option,
    add_protocol_directory,
    add_qrels_option,
    check_output,
    positive_int,
    write_output,
)
from rankeval_tui.cli.grow import UNLISTED_DECLARED, read_under_lock
from rankeval_tui.cli.say import say
from rankeval_tui.core.annotation.growth import declare, open_journals
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.protocol import LabelScale, ProtocolDefinition
from rankeval_tui.core.files import (
    PROTOCOL_FILE,
    load_definition,
    load_protocol,
    load_protocol_and_qrels,
    load_run,
    parse_run_argument,
    qrels_to_toml,
    write_qrels,
)
from rankeval_tui.core.files.annotator_kind import annotator_words, model_notice
from rankeval_tui.core.files.atomic import atomic_write_text
from rankeval_tui.core.files.label_import import check_annotator, import_labels, stated_provenance
from rankeval_tui.core.files.outputs import QRELS, RUN
from rankeval_tui.core.files.protocol_init import DEFAULT_GRADED_RELEVANCE, DEFAULT_RELEVANCE, declared_scale
from rankeval_tui.core.files.safe_read import read_input_bytes
from rankeval_tui.core.files.trec import qrels_to_trec, run_to_trec


def register(subparsers: argparse._SubParsersAction) -> None:
    qrels = subparsers.add_parser(
        "qrels",
        help=summary("qrels"),
        description="Export exhaustive qrels as TREC 'qid 0 docid rel', or import "
        "TREC qrels as exhaustive 0/1 qrels.toml.",
    )
    qrels_commands = qrels.add_subparsers(
        dest="qrels_command", metavar="ACTION", required=True, parser_class=type(qrels)
    )

    export = qrels_commands.add_parser("export", help="qrels.toml -> TREC qrels (every pair, zeros included)")
    add_protocol_directory(export)
    add_qrels_option(export)
    export.add_argument("--format", choices=("trec",), default="trec")
    export.add_argument(
        "--split-only",
        action="store_true",
        help="only the queries of the protocol's split (what trec_eval -c should average over)",
    )
    export.add_argument("--split", default=None, help="override the protocol's split (with --split-only)")
    add_output_option(export, "QRELS.txt")
    export.set_defaults(func=run_qrels_export)

    imp = qrels_commands.add_parser(
        "import",
        help="TREC qrels or JSONL labels -> exhaustive qrels.toml, or one annotator's labels file",
        description="Every (query, document) pair of the protocol must be judged (unless --partial); graded "
        "labels need --threshold. Reads TREC qrels or JSONL {qid, docid, judgment, reasoning?}, told by content. "
        "With --annotator/--partial/--provenance the file is one annotator's labels, kept apart: "
        "never the protocol's qrels.toml (an annotator named model:NAME is a model).",
    )
    add_protocol_directory(imp)
    imp.add_argument("trec_qrels", type=Path, metavar="QRELS.txt")
    imp.add_argument("--annotator", default=None, metavar="NAME", help="whose labels (model:NAME for a model)")
    imp.add_argument(
        "--partial",
        action="store_true",
        help="the file may label only some pairs: it holds those, none filled in (never the protocol's qrels.toml)",
    )
    imp.add_argument(
        "--provenance",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="record how the labels were made, as stated (repeatable: model=..., prompt_sha256=..., temperature=...)",
    )
    imp.add_argument(
        "--threshold",
        type=positive_int,
        default=None,
        metavar="N",
        help="map graded labels: rel >= N -> 1, otherwise 0 (recorded in [provenance])",
    )
    add_label_arguments(imp)
    add_output_option(
        imp,
        "QRELS.toml",
        force_help="replace the -o file if it exists, PROTOCOL/qrels.toml included (its labels)",
    )
    imp.set_defaults(func=run_qrels_import)

    run = subparsers.add_parser(
        "run",
        help=summary("run"),
        description="Export a JSON run as TREC 'qid Q0 docid rank score tag'.",
    )
    run_commands = run.add_subparsers(dest="run_command", metavar="ACTION", required=True, parser_class=type(run))
    run_export = run_commands.add_parser("export", help="run -> TREC run, scores decreasing with rank")
    add_protocol_directory(run_export)
    run_export.add_argument("run", metavar="RUN", help="run file (JSON or TREC); relative to PROTOCOL if not found")
    add_qrels_option(run_export)
    run_export.add_argument("--split", default=None, help="override the protocol's split")
    run_export.add_argument("--format", choices=("trec",), default="trec")
    run_export.add_argument("--tag", default=None, help="the run tag column (default: the run's name)")
    add_output_option(run_export, "RUN.trec")
    run_export.set_defaults(func=run_run_export)


def run_qrels_export(args: argparse.Namespace) -> int:
    check_output(args, inputs=[(args.qrels, "the qrels file")])
    protocol, qrels = load_protocol_and_qrels(args.protocol, args.qrels)
    if args.split is not None:
        protocol = protocol.with_split(args.split)
    text = qrels_to_trec(protocol, split_only=args.split_only)
    notice = model_notice(qrels.provenance, protocol.qrels_source)
    write_output(text, args.output, f"{text.count(chr(10))} judged pairs" + (f" ({notice})" if notice else ""))
    return 0


def run_qrels_import(args: argparse.Namespace) -> int:
    stated = stated_provenance(args.provenance)
    if args.annotator is not None:
        check_annotator(args.annotator)
    # Writing the protocol's own qrels.toml is what import is for (docs/formats.md); --force if it
    # exists. One annotator's labels (a model's, a partial file) are kept apart from it, always.
    apart = args.partial or args.annotator is not None or bool(stated)
    declaring = args.unlisted_as_zero or args.relevant_from is not None
    check_declaring(args, apart)
    check_output(args, inputs=[(args.trec_qrels, "the TREC qrels file")], may_replace=[] if apart else [QRELS])
    raw = read_input_bytes(args.trec_qrels)
    if declaring:
        return import_declaring(args, raw)
    definition = load_definition(args.protocol)
    qrels = import_labels(
        raw,
        definition,
        path=args.trec_qrels,
        threshold=args.threshold,
        partial=args.partial,
        annotator=args.annotator,
        stated=stated,
    )
    pairs = sum(len(row) for row in qrels.labels.values())
    if args.output is None:
        sys.stdout.write(qrels_to_toml(qrels, definition))
        return 0
    if args.partial:
        atomic_write_text(args.output, qrels_to_toml(qrels, definition))
    else:
        write_qrels(args.output, qrels, definition)
    counted = f"{pairs} of {definition.pair_count} pairs judged (partial)" if args.partial else f"{pairs} judged pairs"
    say(
        f"wrote {args.output}: {counted}"
        + (f", threshold rel >= {args.threshold} -> 1" if args.threshold is not None else "")
        + (f", annotator {annotator_words(args.annotator)}" if args.annotator is not None else ""),
        file=sys.stderr,
    )
    return 0


def import_declaring(args: argparse.Namespace, raw: bytes) -> int:
    """The collection's qrels with what it declares: every label checked under the declared
    protocol first, then protocol.toml declared, then the qrels written, all under grow's locks.
    Killed between the two writes, the same import again finds the declaration made and writes
    the labels."""
    with read_under_lock(args.protocol, args.output) as definition:
        settings = declared_settings(args, definition, raw)
        if "scale" in settings and (journals := open_journals(args.protocol, args.output)):
            raise ContractError(
                f"an open judging journal ({journals[0].name}) holds labels on the binary scale: finish or "
                "discard it before declaring grades",
                file=journals[0],
            )
        qrels = import_labels(raw, replace(definition, **settings), path=args.trec_qrels, threshold=args.threshold)
        if settings:
            definition = declare(
                args.protocol, definition, ",".join(s for s in settings if s != "relevance"), **settings
            )
            say(f"declared in {args.protocol / PROTOCOL_FILE}: {declared_words(definition, settings)}", file=sys.stderr)
        write_qrels(args.output, qrels, definition)
    pairs = sum(len(row) for row in qrels.labels.values())
    say(f"wrote {args.output}: {pairs} judged pairs", file=sys.stderr)
    return 0


def check_declaring(args: argparse.Namespace, apart: bool) -> None:
    """``--unlisted-as-zero`` and ``--relevant-from`` declare what the collection's own qrels mean,
    so they go with the protocol's qrels written to a file, never with one annotator's labels."""
    declaring = [
        name
        for name, given in (
            ("--unlisted-as-zero", args.unlisted_as_zero),
            ("--relevant-from", args.relevant_from is not None),
        )
        if given
    ]
    if args.grades is not None and args.relevant_from is None:
        raise ContractError("--grades names the grades of a scale: give it with --relevant-from T")
    if not declaring:
        return
    if apart:
        raise ContractError(
            f"{' and '.join(declaring)} {verb(declaring, 'declares')} the collection's own qrels (written to protocol.toml): not with "
            "--annotator, --partial or --provenance (an annotator's labels follow the protocol's declarations)"
        )
    if args.relevant_from is not None and args.threshold is not None:
        raise ContractError("--threshold binarizes the grades, --relevant-from keeps them: give one of them")
    if args.output is None:
        raise ContractError(
            f"{' and '.join(declaring)} {verb(declaring, 'changes')} protocol.toml: give -o QRELS.toml for the labels"
        )


def verb(subjects: list[str], singular: str) -> str:
    """``declares`` for one option, ``declare`` for two."""
    return singular if len(subjects) == 1 else singular.removesuffix("s")


def declared_settings(args: argparse.Namespace, definition: ProtocolDefinition, raw: bytes) -> dict[str, Any]:
    """What protocol.toml must declare that it does not yet (empty when it declares it all), or
    a ``ContractError`` when it declares a different scale: a scale is the labels' meaning."""
    settings: dict[str, Any] = {}
    if args.unlisted_as_zero and not definition.unlisted_as_zero:
        settings["unlisted_as_zero"] = True
    if args.relevant_from is None:
        return settings
    # The grades as the file holds them, read once on a provisional scale: the top grade comes from them.
    provisional = replace(definition, scale=LabelScale(("grade 0", "grade 1"), 1), unlisted_as_zero=False)
    graded = import_labels(raw, provisional, path=args.trec_qrels, partial=True).labels
    scale = declared_scale(args.relevant_from, args.grades, graded, file=args.trec_qrels)
    if definition.scale is None:
        settings["scale"] = scale
        if definition.relevance == DEFAULT_RELEVANCE:  # the default rule speaks of 1 and 0: init's graded one
            settings["relevance"] = DEFAULT_GRADED_RELEVANCE
    elif definition.scale.relevant_from != scale.relevant_from or (args.grades and definition.scale != scale):
        raise ContractError(
            f"protocol.toml declares grades 0 to {definition.scale.top} relevant from "
            f"{definition.scale.relevant_from}; a protocol's scale is declared once (init --relevant-from)",
            file=args.protocol / PROTOCOL_FILE,
        )
    return settings


def declared_words(definition: ProtocolDefinition, settings: dict[str, Any]) -> str:
    """What a declaration added, in the words init and grow use."""
    words = []
    if "unlisted_as_zero" in settings:
        words.append(UNLISTED_DECLARED)
    if definition.scale is not None and "scale" in settings:
        words.append(
            f"scale: grades 0 to {definition.scale.top}, relevant from {definition.scale.relevant_from} (a new protocol hash)"
        )
    if "relevance" in settings:
        words.append(f"relevance (init's default for a graded protocol): {definition.relevance}")
    return "; ".join(words)


def run_run_export(args: argparse.Namespace) -> int:
    name, path = parse_run_argument(args.run, args.protocol)
    check_output(args, inputs=[(path, "the run"), (args.qrels, "the qrels file")], writes=RUN)
    protocol = load_protocol(args.protocol, args.qrels)
    if args.split is not None:
        protocol = protocol.with_split(args.split)
    run = load_run(path, name)
    text, warnings = run_to_trec(protocol, run, tag=args.tag)
    for warning in warnings:
        say(f"warning: {run.source}: {warning}", file=sys.stderr)
    write_output(text, args.output, f"{text.count(chr(10))} lines, run tag {args.tag or run.name}")
    return 0
