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
from rankeval_tui.core.annotation.prediction_powered import QUERY_SAMPLE_KEY, audit_population, sample_queries
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
    parser.add_argument(
        "--sample-queries",
        type=int,
        default=None,
        metavar="N",
        help="with --audit, instead of --sample: how many queries of the split, every pair of each judged "
        "(what score --estimate needs)",
    )


def audit_sampled(args: argparse.Namespace) -> bool:
    """Whether a sample size is given (``--sample`` or ``--sample-queries``): an audit, or a mistake."""
    return args.sample is not None or getattr(args, "sample_queries", None) is not None


def audit_plan(args: argparse.Namespace, definition: ProtocolDefinition) -> tuple[ProtocolDefinition, dict[str, Any]]:
    """The protocol restricted to the sample, and the provenance the audit file records.
    Everything is checked before a lock or journal exists."""
    queries = getattr(args, "sample_queries", None)
    if args.sample is not None and queries is not None:
        raise ContractError("an audit samples pairs (--sample N) or whole queries (--sample-queries N), not both")
    if args.audit is None or (args.sample is None and queries is None) or args.seed is None or args.qrels is None:
        raise ContractError(
            "an audit needs --audit LABELS.toml, --sample N, --seed S and --qrels audit-NAME.toml "
            "(or --sample-queries N instead of --sample)"
        )
    for option, given in (("--order", args.order), ("--holes-first", args.holes_first), ("--run", args.run)):
        if given:
            raise ContractError(f"{option} does not apply to --audit (the sample is judged in a seeded shuffle)")
    source = locate(args.audit, args.protocol)
    if args.qrels.resolve() == (args.protocol / QRELS_FILE).resolve():
        raise ContractError("an audit sample is never the protocol's qrels.toml: give --qrels audit-NAME.toml")
    if source.exists() and args.qrels.exists() and source.resolve() == args.qrels.resolve():
        raise ContractError("--qrels is the file being audited: the audit goes to a file of its own", file=args.qrels)
    labels = read_qrels_file(source, definition, exhaustive=False)
    annotator = named_annotator(labels.provenance)
    sha256 = hashlib.sha256(read_input_bytes(source)).hexdigest()
    if queries is not None:  # whole queries: every pair of each, as the estimate needs
        drawn = sample_queries(definition, queries, args.seed)
        sample = {query: definition.documents_of(query) for query in drawn}
        rule = (  # blind: no name
            f"audit: every pair of {queries} of the {len(audit_population(definition))} queries of split "
            f"{definition.split}, drawn with seed {args.seed}"
        )
        provenance = audit_provenance(str(source), sha256, annotator, queries, args.seed, unit=QUERY_SAMPLE_KEY)
        return audit_definition(definition, sample, rule), provenance
    sample = sample_pairs(definition, labels.labels, args.sample, args.seed)
    pairs = sum(map(len, labels.labels.values()))
    rule = f"audit: {args.sample} of {pairs} labeled pairs, drawn with seed {args.seed}"  # blind: no name
    return audit_definition(definition, sample, rule), audit_provenance(
        str(source), sha256, annotator, args.sample, args.seed
    )
