"""``rankeval-tui``: argparse subcommands that call core or launch the app.

Each subcommand lives in its own module with a ``register(subparsers)`` function that sets
``func(args) -> int``. ``main`` turns every ``ContractError`` into one ``error:`` line and
exit 2; any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from rankeval_tui import __version__
from rankeval_tui.core.errors import ContractError

# Modules under rankeval_tui.cli, one per subcommand (or family of subcommands).
COMMAND_MODULES = (
    "init",
    "score",
    "validate",
    "adapt",
    "agree",
    "merge",
    "trec",
    "inspect",
    "judge",
    "adjudicate",
    "demo",
    "grow",
)

APP_COMMAND = "inspect"


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but usage errors are one ``error:`` line (exit 2) like every other error.

    ``commands`` names the subcommands (argparse has no public way to list them), so ``main``
    can tell a subcommand from a protocol path.
    """

    commands: frozenset[str] = frozenset()

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see --help)\n")


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="rankeval-tui",
        description="Offline retrieval evaluation with a fixed, checkable protocol. "
        "Without a subcommand, opens the app on PROTOCOL (default: the bundled demo).",
    )
    parser.add_argument("--version", action="version", version=f"rankeval-tui {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)
    for name in COMMAND_MODULES:
        importlib.import_module(f"rankeval_tui.cli.{name}").register(subparsers)
    parser.commands = frozenset(subparsers.choices or ())  # the subcommand parsers, by name
    return parser


def normalise(argv: list[str], commands: frozenset[str]) -> list[str]:
    """``rankeval-tui`` and ``rankeval-tui PROTOCOL`` open the app (the ``inspect`` command)."""
    if APP_COMMAND not in commands:
        return argv
    if not argv:
        return [APP_COMMAND]
    if argv[0] not in commands and not argv[0].startswith("-"):
        return [APP_COMMAND, *argv]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(normalise(list(sys.argv[1:] if argv is None else argv), parser.commands))
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except ContractError as error:
        print(f"error: {error.one_line()}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
