"""``rankeval-tui adapt``: chunk run -> document run with provenance and the adapter hash."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rankeval_tui.core.evaluation.adapter import adapt_for_protocol
from rankeval_tui.core.files import load_chunk_map, load_definition, load_run
from rankeval_tui.core.files.atomic import atomic_write_text


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("adapt", help="collapse a chunk run to a document run (first occurrence)")
    parser.add_argument("protocol", type=Path, metavar="PROTOCOL")
    parser.add_argument("chunk_run", type=Path, metavar="CHUNK_RUN.json")
    parser.add_argument("--chunk-map", type=Path, required=True, metavar="MAP.toml")
    parser.add_argument("--split", default=None, help="override the protocol's split")
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        metavar="DOC_RUN.json",
        help="write here (atomically) instead of standard output",
    )
    parser.set_defaults(func=run_adapt)


def run_adapt(args: argparse.Namespace) -> int:
    definition = load_definition(args.protocol)
    if args.split is not None:
        definition = definition.with_split(args.split)
    adaptation = adapt_for_protocol(
        definition, load_chunk_map(args.chunk_map), load_run(args.chunk_run), map_source=args.chunk_map
    )
    text = json.dumps(adaptation.to_json(), ensure_ascii=False, indent=2) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        atomic_write_text(args.output, text)
        print(
            f"wrote {args.output}: {len(adaptation.document_runs)} queries, adapter_sha256 {adaptation.adapter_sha256}",
            file=sys.stderr,
        )
    return 0
