"""``rankeval-tui adapt``: chunk run -> document run with provenance and the adapter hash."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rankeval_tui.cli.common import add_output_option, add_protocol_directory, write_output
from rankeval_tui.core.evaluation.adapter import adapt_for_protocol
from rankeval_tui.core.files import load_chunk_map, load_definition, load_run


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("adapt", help="collapse a chunk run to a document run (first occurrence)")
    add_protocol_directory(parser)
    parser.add_argument("chunk_run", type=Path, metavar="CHUNK_RUN.json")
    parser.add_argument("--chunk-map", type=Path, required=True, metavar="MAP.toml")
    parser.add_argument("--split", default=None, help="override the protocol's split")
    add_output_option(parser, "DOC_RUN.json")
    parser.set_defaults(func=run_adapt)


def run_adapt(args: argparse.Namespace) -> int:
    definition = load_definition(args.protocol)
    if args.split is not None:
        definition = definition.with_split(args.split)
    adaptation = adapt_for_protocol(
        definition, load_chunk_map(args.chunk_map), load_run(args.chunk_run), map_source=args.chunk_map
    )
    text = json.dumps(adaptation.to_json(), ensure_ascii=False, indent=2) + "\n"
    write_output(
        text, args.output, f"{len(adaptation.document_runs)} queries, adapter_sha256 {adaptation.adapter_sha256}"
    )
    return 0
