"""``rankeval-tui demo DIR``: a copy of the bundled demo protocol that you may judge and change.

The installed demo is read-only by rule (``core.files.demo``): judging, adjudicating or growing
it is refused with a pointer to this command.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.say import say
from rankeval_tui.core.files.demo import copy_demo


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help=summary("demo"),
        description="Copy the bundled demo protocol (protocol.toml, qrels.toml, runs/, chunks/) to the new "
        "directory DIR. The installed demo itself is never modified: judge the copy with "
        "`rankeval-tui judge DIR`.",
    )
    parser.add_argument("directory", type=Path, metavar="DIR", help="new directory to create")
    parser.set_defaults(func=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    target = copy_demo(args.directory)
    say(f"copied the demo protocol to {target}; judge it with: rankeval-tui judge {target}")
    return 0
