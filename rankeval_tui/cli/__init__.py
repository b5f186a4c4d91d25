"""``rankeval-tui``: argparse subcommands that call core or launch the app.

Each subcommand lives in its own module with a ``register(subparsers)`` function that sets
``func(args) -> int``. ``main`` turns every ``ContractError`` (and an OSError from writing an
output) into one ``error:`` line and exit 2; a closed stdout ends quietly (141); any other
exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from rankeval_tui import __version__
from rankeval_tui.cli.say import say
from rankeval_tui.core.errors import ContractError, describe_os_error, quote

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
    """``rankeval-tui`` and ``rankeval-tui PROTOCOL`` open the app (the ``inspect`` command).

    A first word that is neither a command nor a path (no ``/``, nothing of that name here) is
    left to argparse, so ``rankeval-tui scroe`` is an "invalid choice", not a missing protocol.
    """
    if APP_COMMAND not in commands:
        return argv
    if not argv:
        return [APP_COMMAND]
    if argv[0] not in commands and not argv[0].startswith("-") and looks_like_path(argv[0]):
        return [APP_COMMAND, *argv]
    return argv


def looks_like_path(word: str) -> bool:
    return "/" in word or os.sep in word or word in (".", "..") or os.path.exists(word)


def unknown_command(parser: ArgumentParser, word: str, commands: frozenset[str]) -> NoReturn:
    """argparse's "invalid choice" for a mistyped command, with the closest command (difflib)."""
    choices = ", ".join(repr(name) for name in sorted(commands))
    close = difflib.get_close_matches(word, sorted(commands), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else "; to open a protocol directory, give its path (./NAME)"
    parser.error(f"argument COMMAND: invalid choice: {quote(word)} (choose from {choices}){hint}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a closed stdout (``| head``) ends quietly with 141, as Unix tools do."""
    try:
        code = run(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()  # inside the try: a broken pipe at exit would otherwise be a traceback
        return code
    except BrokenPipeError:
        # The Python docs' recipe: point stdout at devnull so the interpreter's final flush
        # cannot fail again, then exit with the status of a process killed by SIGPIPE.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + 13


def run(argv: list[str]) -> int:
    parser = build_parser()
    commands = parser.commands
    argv = normalise(argv, commands)
    if argv and argv[0] not in commands and not argv[0].startswith("-"):
        unknown_command(parser, argv[0], commands)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except ContractError as error:
        say(f"error: {error.one_line()}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        raise
    except OSError as error:  # writing an output failed (disk full, read-only): one line, not a traceback
        say(f"error: {describe_os_error(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
