"""``judge --audit LABELS.toml --sample N --seed S --qrels audit-NAME.toml``: a person judges a
seeded random sample of another annotator's (a model's) pairs, blind
(``core.annotation.audit``); ``agree`` then compares the two files on the sample."""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path
from typing import Any

from rankeval_tui.cli.agree import locate
from rankeval_tui.core.annotation.audit import audit_definition, audit_provenance, sample_pairs
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.files import QRELS_FILE, read_qrels_file
from rankeval_tui.core.files.filling import named_annotator
from rankeval_tui.core.files.safe_read import read_input_bytes


def add_audit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--audit",
        type=Path,
        default=None,
        metavar="LABELS.toml",
        help="judge, blind, a seeded random sample of this file's pairs (a model's labels) into --qrels; "
        "needs --sample N and --seed S; then agree LABELS.toml against the audit file",
    )
    parser.add_argument("--sample", type=int, default=None, metavar="N", help="with --audit: how many pairs")


def audit_plan(args: argparse.Namespace, definition: ProtocolDefinition) -> tuple[ProtocolDefinition, dict[str, Any]]:
    """The protocol restricted to the sample, and the provenance the audit file records.
    Everything is checked before a lock or journal exists."""
    if args.audit is None or args.sample is None or args.seed is None or args.qrels is None:
        raise ContractError("an audit needs --audit LABELS.toml, --sample N, --seed S and --qrels audit-NAME.toml")
    for option, given in (("--order", args.order), ("--holes-first", args.holes_first), ("--run", args.run)):
        if given:
            raise ContractError(f"{option} does not apply to --audit (the sample is judged in a seeded shuffle)")
    source = locate(args.audit, args.protocol)
    if args.qrels.resolve() == (args.protocol / QRELS_FILE).resolve():
        raise ContractError("an audit sample is never the protocol's qrels.toml: give --qrels audit-NAME.toml")
    if source.exists() and args.qrels.exists() and source.resolve() == args.qrels.resolve():
        raise ContractError("--qrels is the file being audited: the audit goes to a file of its own", file=args.qrels)
    labels = read_qrels_file(source, definition, exhaustive=False)
    sample = sample_pairs(definition, labels.labels, args.sample, args.seed)
    annotator = named_annotator(labels.provenance)
    pairs = sum(map(len, labels.labels.values()))
    rule = f"audit: {args.sample} of {pairs} labeled pairs, drawn with seed {args.seed}"  # blind: no name
    sha256 = hashlib.sha256(read_input_bytes(source)).hexdigest()
    return audit_definition(definition, sample, rule), audit_provenance(
        str(source), sha256, annotator, args.sample, args.seed
    )
