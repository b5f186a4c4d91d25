"""``rankeval-tui``: argparse subcommands that call core or launch the app.

Each subcommand lives in its own module with a ``register(subparsers)`` function that sets
``func(args) -> int``. ``main`` turns every ``ContractError`` (and an OSError from writing an
output) into one ``error:`` line and exit 2; a closed stdout ends quietly (141); any other
exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from rankeval_tui import __version__
from rankeval_tui.cli.browser import keep_stdout_for_the_page, served_to_a_browser, show_error_on_page
from rankeval_tui.cli.commands import COMMAND_MODULES, COMMANDS, summary
from rankeval_tui.cli.say import say
from rankeval_tui.core.errors import ContractError, describe_os_error, quote

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any, NoReturn

APP_COMMAND = "inspect"


def terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``, by its rule (COLUMNS if a positive integer, else
    the terminal of ``sys.__stdout__``, else 80), without importing shutil: argparse's formatter
    does, for every argument added, and shutil brings zlib, bz2 and lzma to every start-up."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    if sys.__stdout__ is None:
        return 80
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (ValueError, OSError):  # stdout closed, detached or not a terminal
        return 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, its width from ``terminal_columns`` (the same width, no shutil)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        super().__init__(prog, indent_increment, max_help_position, terminal_columns() - 2 if width is None else width)


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but usage errors are one ``error:`` line (exit 2) like every other error."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see --help)\n")


def build_parser(first_word: str | None = None) -> ArgumentParser:
    """The command line for an argv that starts with ``first_word``. A command: only its module is
    imported and only its parsers are built (start-up: twelve modules and their parsers cost a CI
    step more than scoring a small protocol); anything else (``--help``, a typo, nothing): every
    command as a parser with only its name and summary, enough to list it and to refuse a typo.
    None: every command in full, for tests and tools that read every parser."""
    parser = ArgumentParser(
        prog="rankeval-tui",
        description="Offline retrieval evaluation with a fixed, checkable protocol. "
        "Without a subcommand, opens the app on PROTOCOL (default: the bundled demo).",
    )
    parser.add_argument("--version", action="version", version=f"rankeval-tui {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)
    if first_word is None:
        for module in COMMAND_MODULES:
            importlib.import_module(f"rankeval_tui.cli.{module}").register(subparsers)
    elif first_word in COMMANDS:
        importlib.import_module(f"rankeval_tui.cli.{COMMANDS[first_word][0]}").register(subparsers)
    else:
        for command in COMMANDS:
            subparsers.add_parser(command, help=summary(command), add_help=False)
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
    import difflib  # only on this error path: a module-level import would cost every start-up

    choices = ", ".join(repr(name) for name in sorted(commands))
    close = difflib.get_close_matches(word, sorted(commands), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else "; to open a protocol directory, give its path (./NAME)"
    parser.error(f"argument COMMAND: invalid choice: {quote(word)} (choose from {choices}){hint}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a closed stdout (``| head``) ends quietly with 141, as Unix tools do, one
    not open at all (``>&-``) is one ``error:`` line and 2, Ctrl-C is 130 wherever it lands."""
    if sys.stdout is None:  # Python's stdout when descriptor 1 was closed before it started
        if sys.stderr is not None:
            say("error: standard output is not open (closed with >&-?): give it a file or /dev/null", file=sys.stderr)
        return 2
    if served_to_a_browser():
        keep_stdout_for_the_page()
    try:
        code = run(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()  # inside the try: a broken pipe at exit would otherwise be a traceback
        return code
    except KeyboardInterrupt:  # before a command ran (parsing, imports) or while its output flushed
        return 130
    except BrokenPipeError:
        # The Python docs' recipe: point stdout at devnull so the interpreter's final flush
        # cannot fail again, then exit with the status of a process killed by SIGPIPE.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + 13


def run(argv: list[str]) -> int:
    commands = frozenset(COMMANDS)
    argv = normalise(argv, commands)
    parser = build_parser(argv[0] if argv else "")
    if argv and argv[0] not in commands and not argv[0].startswith("-"):
        unknown_command(parser, argv[0], commands)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except ContractError as error:
        return fail(f"error: {error.one_line()}")
    except BrokenPipeError:
        raise
    except OSError as error:  # writing an output failed (disk full, read-only): one line, not a traceback
        return fail(f"error: {describe_os_error(error)}")
    except KeyboardInterrupt:
        return 130
    except MemoryError:  # a memory limit (ulimit -v, a container's): what was being built is freed by now
        return fail(f"error: out of memory running {argv[0]}: {MEMORY_HINT}")


def fail(line: str) -> int:
    """The command's one ``error:`` line on stderr, and on the page when a browser shows the app
    (the server's log is not where an annotator looks); exit status 2."""
    say(line, file=sys.stderr)
    if served_to_a_browser():
        show_error_on_page(line)
    return 2


MEMORY_HINT = "the process reached its memory limit (ulimit -v, a container's)"
