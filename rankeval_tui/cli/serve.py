"""``rankeval-tui serve PROTOCOL --annotator NAME``: one annotator's judging in a browser.

A small web server (textual-serve) on localhost: each page opened
runs ``rankeval-tui judge PROTOCOL`` with Textual's web driver (``cli/browser.py``), so the page is
the judging screen, with its journal, its resume and its lock. A second page while one is open
shows the lock's error; closing the page ends that judge as ``q`` does.

There is no authentication: anyone who can reach the address judges as NAME. Hence localhost by
default, and a websocket is accepted only from the server's own pages (``Origin``) under a name of
the address it serves (``Host``), so that another site open in the same browser cannot drive the
judging. Several annotators, accounts and TLS are a later step (docs/judging.md).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.common import add_protocol_directory, add_qrels_option, integer
from rankeval_tui.cli.say import say
from rankeval_tui.core.annotation.assignment import check_annotator_name
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.annotator_kind import annotator_words

DEFAULT_HOST = "localhost"
DEFAULT_PORT = 8000
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help=summary("serve"),
        description="Serve the judging screen of PROTOCOL to a browser on this machine "
        "(http://localhost:PORT): each page opened runs `rankeval-tui judge PROTOCOL` (journal, resume "
        "and lock as in a terminal). No authentication: localhost only unless --host says otherwise.",
    )
    add_protocol_directory(parser)
    add_qrels_option(parser)
    parser.add_argument(
        "--annotator",
        default=None,
        metavar="NAME",
        help="as judge --annotator (a plain name, as assign takes: no spaces, no '/'): recorded in provenance; "
        "with PROTOCOL/assignments.toml, NAME's queries only",
    )
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"address to listen on (default: {DEFAULT_HOST}; another one is reachable by others, unauthenticated)",
    )
    parser.add_argument(
        "--port", type=port_number, default=DEFAULT_PORT, help=f"port to listen on (default: {DEFAULT_PORT})"
    )
    parser.set_defaults(func=run_serve)


def port_number(text: str) -> int:
    """argparse type for --port: a TCP port a browser can be given (1-65535)."""
    value = integer(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 1 to 65535, got {value}")
    return value


def judge_command_line(args: argparse.Namespace) -> str:
    """The shell command each page runs (textual-serve starts it through a shell): this
    interpreter's ``rankeval-tui judge``, every argument quoted, paths absolute (none then reads
    as an option, whatever its name)."""
    argv = [sys.executable, "-m", "rankeval_tui", "judge", str(Path(args.protocol).absolute())]
    if args.qrels is not None:
        argv += ["--qrels", str(Path(args.qrels).absolute())]
    if args.annotator is not None:
        argv += ["--annotator", args.annotator]
    return shlex.join(argv)


def run_serve(args: argparse.Namespace) -> int:
    load_definition(args.protocol)  # a bad protocol stops here, in the terminal, before any page
    if args.annotator is not None:
        check_annotator_name(args.annotator)
    from aiohttp import web  # textual-serve's own dependency
    from textual_serve.server import Server  # imported here: no other command pays for it

    class JudgingServer(Server):
        """textual-serve's server, its websocket refused to other sites' pages and other host names."""

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            allowed = {f"{name}:{self.port}" for name in (*LOOPBACK_NAMES, self.host)}
            origin = request.headers.get("Origin")
            origin_host = None if origin is None else origin.partition("://")[2].rstrip("/")
            if request.host not in allowed or (origin is not None and origin_host not in allowed):
                raise web.HTTPForbidden(text="this judging server accepts only its own pages")
            return await super().handle_websocket(request)

    title = "rankeval-tui judge" + ("" if args.annotator is None else f" ({annotator_words(args.annotator)})")
    server = JudgingServer(judge_command_line(args), host=args.host, port=args.port, title=title)
    if args.host not in LOOPBACK_NAMES:
        say(f"warning: listening on {args.host}: no authentication, anyone who reaches it judges", file=sys.stderr)
    say(f"judging {args.protocol} at {server.public_url} (Ctrl+C stops the server)", file=sys.stderr)
    server.serve()
    return 0
