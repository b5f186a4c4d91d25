"""``rankeval-tui status PROTOCOL``: each assigned annotator's progress, pace and time left."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.common import add_protocol_directory
from rankeval_tui.cli.say import say
from rankeval_tui.core.annotation.assignment import (
    assignment_path,
    labels_path,
    pair_total,
    read_assignment,
)
from rankeval_tui.core.annotation.judging import journal_progress
from rankeval_tui.core.annotation.pace import Pace, duration, time_left
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.evaluation.render import grid
from rankeval_tui.core.files import load_definition, read_qrels_file
from rankeval_tui.core.files.annotator_kind import annotator_words, kind_field
from rankeval_tui.core.files.safe_read import entry_exists


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "status",
        help=summary("status"),
        description="For each annotator of PROTOCOL/assignments.toml: pairs judged of those assigned "
        "(from the open journal while judging, else from labels/NAME.toml), the median seconds "
        "per judgment and the time left at that pace. Reads only; works while others judge.",
    )
    add_protocol_directory(parser)
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.set_defaults(func=run_status)


def progress(protocol_dir: Path, definition: ProtocolDefinition, name: str, queries: tuple[str, ...]) -> dict[str, Any]:
    """One annotator's row: the journal (judging in progress) is newer than their labels file."""
    path = labels_path(protocol_dir, name)
    assigned = pair_total(definition, queries)
    state = journal_progress(definition.with_queries(queries), path) if queries else None
    pace: Pace | None
    if state is not None:
        judged, pace, where = state.marks.total - state.marks.remaining, state.clock.pace(), "in progress"
    elif entry_exists(path, "labels file"):
        written = read_qrels_file(path, definition, exhaustive=False)
        judged = sum(1 for q in queries for doc in definition.documents_of(q) if doc in written.labels.get(q, {}))
        pace = Pace.from_provenance(written.provenance.get("pace"))
        where = "done" if judged == assigned else "partial"
    else:
        judged, pace, where = 0, None, "not started" if queries else "no queries"
    seconds = pace.median_seconds if pace is not None else None
    return {
        "annotator": name,
        **kind_field(name),
        "queries": len(queries),
        "assigned_pairs": assigned,
        "judged_pairs": judged,
        "state": where,
        "median_seconds": None if seconds is None else round(seconds, 1),
        "active_seconds": None if pace is None else round(pace.active_seconds, 1),
        "seconds_left": None if seconds is None else round((assigned - judged) * seconds, 1),
        "file": str(path),
    }


def run_status(args: argparse.Namespace) -> int:
    definition = load_definition(args.protocol)
    assignment = read_assignment(args.protocol, definition)
    if assignment is None:
        raise ContractError(
            f"no assignment; make one with `rankeval-tui assign {args.protocol} --annotators A,B --seed N`",
            file=assignment_path(args.protocol),
        )
    rows = [progress(args.protocol, definition, name, queries) for name, queries in assignment.queries.items()]
    if args.format == "json":
        data = {
            "protocol": definition.name,
            "seed": assignment.seed,
            "overlap": assignment.overlap,
            "overlap_queries": list(assignment.overlap_queries),
            "annotators": rows,
        }
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0
    table = [
        [
            annotator_words(row["annotator"]),
            f"{row['judged_pairs']} / {row['assigned_pairs']}",
            row["state"],
            "-" if row["median_seconds"] is None else f"{row['median_seconds']:.1f} s",
            "-" if row["active_seconds"] is None else duration(row["active_seconds"]),
            time_left(row["assigned_pairs"] - row["judged_pairs"], row["median_seconds"]) or "-",
        ]
        for row in rows
    ]
    say(f"{assignment_path(args.protocol)}: seed {assignment.seed}, overlap {assignment.overlap}")
    say("\n".join(grid(["annotator", "judged", "state", "pace", "active", "left"], table, markdown=False)), lines=True)
    return 0
