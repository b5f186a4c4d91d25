"""``rankeval-tui adapt``: chunk run -> document run with provenance and the adapter hash.

With ``-o RUN.json`` the document run is a plain JSON run that ``score --run RUN.json`` reads;
the adapter hash and the evidence go beside it, to ``RUN.json.provenance.json``, never inside.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.common import add_output_option, add_protocol_directory, check_output, write_output
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.adapter import adapt_for_protocol
from rankeval_tui.core.files import load_chunk_map, load_definition, load_run
from rankeval_tui.core.files.outputs import ADAPTED_RUN, RUN, SIDECAR
from rankeval_tui.core.files.runs import SIDECAR_SUFFIX, run_sha256


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("adapt", help=summary("adapt"))
    add_protocol_directory(parser)
    parser.add_argument("chunk_run", type=Path, metavar="CHUNK_RUN.json")
    parser.add_argument("--chunk-map", type=Path, required=True, metavar="MAP.toml")
    parser.add_argument("--split", default=None, help="override the protocol's split")
    add_output_option(
        parser,
        "DOC_RUN.json",
        help="write the document run here (a plain JSON run 'score --run' reads) and the adapter hash and "
        f"evidence beside it, in DOC_RUN.json{SIDECAR_SUFFIX} (atomically); default: all of it to standard output",
        force_help="replace DOC_RUN.json and its sidecar if they exist (in PROTOCOL/runs/: only an adapted run)",
    )
    parser.set_defaults(func=run_adapt)


def run_adapt(args: argparse.Namespace) -> int:
    sidecar = None
    if args.output is not None:
        inputs = [(args.chunk_run, "the chunk run"), (args.chunk_map, "the chunk map")]
        check_output(args, inputs=inputs, may_replace=[ADAPTED_RUN], writes=RUN)  # an adapted run may be redone
        if not str(args.output).endswith(".json"):
            raise ContractError("-o must name a .json file (the document run is a JSON run)", file=args.output)
        sidecar = args.output.with_name(args.output.name + SIDECAR_SUFFIX)
        check_output(args, sidecar, inputs=inputs, may_replace=[ADAPTED_RUN], writes=SIDECAR)
    definition = load_definition(args.protocol)
    if args.split is not None:
        definition = definition.with_split(args.split)
    adaptation = adapt_for_protocol(
        definition, load_chunk_map(args.chunk_map), load_run(args.chunk_run), map_source=args.chunk_map
    )
    if args.output is None or sidecar is None:
        write_output(json_text(adaptation.to_json()), None, "")
        return 0
    run_text = json_text(adaptation.document_runs)
    provenance = {
        "adapter_sha256": adaptation.adapter_sha256,
        "run_sha256": run_sha256(run_text.encode("utf-8")),  # what makes it an adapted run -o may redo
        "chunk_map": str(args.chunk_map),
        "chunk_run": str(args.chunk_run),
        "evidence": adaptation.evidence,
    }
    # The sidecar first: a run whose provenance is lost would be scored without its adapter hash.
    write_output(json_text(provenance), sidecar, f"adapter_sha256 {adaptation.adapter_sha256}, evidence")
    write_output(
        run_text,
        args.output,
        f"{len(adaptation.document_runs)} queries; score it with: rankeval-tui score {args.protocol} --run {args.output}",
    )
    return 0


def json_text(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
