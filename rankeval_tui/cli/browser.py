"""The app served to a browser: textual-serve (``rankeval-tui serve``) runs a command such as
``rankeval-tui judge PROTOCOL`` with Textual's web driver, one process per page.

There the command's stdin and stdout are the server's pipes, not a terminal: the driver writes the
screen to stdout in framed packets and reads keys from stdin. Two things follow. A line the command
prints to stdout outside those frames would be read as a packet and break the page, so every line
goes to stderr, which the server copies to its log. And an error before the app starts (a bad
protocol, a lock held by another page) would reach only that log while the page stayed blank, so
it is also shown on the page.
"""

from __future__ import annotations

import os
import sys

WEB_DRIVER = "textual.drivers.web_driver:WebDriver"
"""What textual-serve (and textual-web) put in ``TEXTUAL_DRIVER`` for the app they start: Textual
then draws through its web driver, not on a terminal."""


def served_to_a_browser() -> bool:
    """True when the app runs under Textual's web driver: its display is a browser's page."""
    return os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER


def keep_stdout_for_the_page() -> None:
    """Every line the command prints goes to stderr (the server's log): stdout carries the
    driver's packets, which it writes to the descriptor itself (``sys.__stdout__``)."""
    sys.stdout = sys.stderr


def show_error_on_page(line: str) -> None:
    """The command's ``error:`` line on the page, until the annotator closes it or the page."""
    from rankeval_tui.tui.error_page import ErrorPage  # textual only on this path

    ErrorPage(line).run()
