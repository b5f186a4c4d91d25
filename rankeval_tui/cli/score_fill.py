"""``score --fill-from`` and ``--allow-filled``: the protocol read with its holes filled from another
annotator's file (``core.files.filling``), and what every output and gate says about those labels."""

from __future__ import annotations

import argparse
from pathlib import Path

from rankeval_tui.cli.common import protocol_dir
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.evaluate import Run
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.files import QrelsFile
from rankeval_tui.core.terminal_text import printable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up of a plain score)
if TYPE_CHECKING:
    from rankeval_tui.core.files.filling import Filling


def add_fill_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fill-from",
        type=Path,
        default=None,
        metavar="LABELS.toml",
        help="take the labels of pairs the protocol's qrels leave unjudged from this annotator's file (a model's); "
        "every output counts the filled top-k pairs per run and query",
    )
    parser.add_argument(
        "--allow-filled",
        action="store_true",
        help="with --fill-from: let a gate pass on runs whose top-k holds filled labels (else it fails)",
    )


def load_filled_protocol_from_args(args: argparse.Namespace) -> tuple[Protocol, QrelsFile, Filling]:
    """The protocol with its holes filled from ``--fill-from`` (``core.files.filling``), the filled
    pairs remembered for every output; --k/--split applied as ``score`` applies them."""
    from rankeval_tui.core.files.filling import load_filled_protocol  # with --fill-from only

    protocol, qrels, filling = load_filled_protocol(protocol_dir(args), args.qrels, args.fill_from)
    return protocol.with_overrides(args.k, args.split), qrels, filling


def refuse_allow_filled_alone(args: argparse.Namespace) -> None:
    if getattr(args, "allow_filled", False):
        raise ContractError("--allow-filled is for --fill-from: without it no label is filled")


def count_filled(
    args: argparse.Namespace, filling: Filling | None, runs: list[Run], protocol: Protocol
) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Per run, its top-k pairs per query whose label was filled, and the gates those make fail."""
    if filling is None:
        return {}, []
    filled = {run.name: filling.top_k(run, protocol.k, protocol.selected_queries) for run in runs}
    gated = bool(args.fail_under or args.fail_on_regression) and not args.allow_filled
    return filled, filled_gate_failures(filling, filled, protocol.k) if gated else []


def filled_text(filling: Filling | None, filled: dict[str, dict[str, int]], k: int) -> str:
    """The lines every text output ends with under ``--fill-from``: per run, its filled top-k pairs."""
    if filling is None:
        return ""
    lines = ["", f"filled from {printable(filling.who())}: {filling.count} pairs the protocol's qrels leave unjudged"]
    for run, counts in filled.items():
        per_query = ", ".join(f"{query} {count}" for query, count in counts.items())
        total = sum(counts.values())
        lines.append(
            f"  {printable(run)}: {total} filled top-{k} pairs"
            + (f" in {len(counts)} queries ({per_query})" if counts else "")
        )
    return "\n".join(lines) + "\n"


def filled_gate_failures(filling: Filling, filled: dict[str, dict[str, int]], k: int) -> list[str]:
    """A gate never passes silently on filled labels: each run with any fails it, unless --allow-filled."""
    return [
        f"gate on filled labels: run {run!r} has {sum(counts.values())} top-{k} pairs labeled from "
        f"{filling.who()}; pass --allow-filled to accept"
        for run, counts in filled.items()
        if counts
    ]
