"""``rankeval-tui rewrite PROTOCOL``: protocol.toml and the qrels file in the canonical layout.

A file written by hand or by another tool may be valid TOML in another layout; it is read
correctly, by tomllib, more slowly (``validate`` says so). Rewriting it as the project writes
its files (tomli-w) keeps every table and value and makes the next reads fast.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.common import add_qrels_option
from rankeval_tui.cli.say import say
from rankeval_tui.core.annotation.lock import LOCK_SUFFIX, Lock
from rankeval_tui.core.files.atomic import atomic_write_text
from rankeval_tui.core.files.demo import refuse_writes_into_demo
from rankeval_tui.core.files.protocol_files import PROTOCOL_FILE, QRELS_FILE
from rankeval_tui.core.files.tomlio import canonical_rewrite


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "rewrite",
        help=summary("rewrite"),
        description="Rewrite PROTOCOL/protocol.toml and the qrels file in the layout the project writes "
        "(the same tables and values; comments are not kept), atomically, while holding the qrels "
        "file's lock. A file already in that layout is left as it is.",
    )
    parser.add_argument("protocol", type=Path, metavar="PROTOCOL", help="protocol directory")
    add_qrels_option(parser)
    parser.set_defaults(func=run_rewrite)


def run_rewrite(args: argparse.Namespace) -> int:
    directory: Path = args.protocol
    qrels: Path = args.qrels if args.qrels is not None else directory / QRELS_FILE
    targets = [path for path in (directory / PROTOCOL_FILE, qrels) if path.is_file()]
    for path in targets:
        refuse_writes_into_demo(path, "rewriting")
    lock = Lock(qrels.with_name(qrels.name + LOCK_SUFFIX), command="rewrite")
    lock.acquire()
    try:
        rewrites = {path: canonical_rewrite(path) for path in targets}  # every file checked before any write
        for path, text in rewrites.items():
            if text is None:
                say(f"{path}: already in the canonical layout")
                continue
            atomic_write_text(path, text)
            say(f"rewrote {path} in the canonical layout")
    finally:
        lock.release()
    return 0
