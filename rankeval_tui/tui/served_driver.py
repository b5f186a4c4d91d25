"""Textual's web driver, ending the app when the server that runs it is gone.

Under textual-serve (``rankeval-tui serve``) the app's stdin is a pipe from the server. Closing
the page sends the app a quit message; but a server that is killed, or crashes, sends nothing,
and Textual's web driver then only stops reading: the judge would live on, holding its lock, and
every later page would find the job locked. Here the end of stdin ends the app as ``q`` does: its
command writes what is complete and releases the lock (every label is in the journal already).
"""

from __future__ import annotations

from textual import messages
from textual.driver import Driver

WEB_DRIVER_MODULE = "textual.drivers.web_driver"


def ending_with_its_server(driver_class: type[Driver]) -> type[Driver]:
    """The driver an app runs with (its ``get_driver_class``): Textual's choice, except that its
    web driver becomes one that ends the app at the end of stdin. The web driver's module is
    imported only when Textual chose it (TEXTUAL_DRIVER), never at a terminal's start-up."""
    if driver_class.__module__ != WEB_DRIVER_MODULE:
        return driver_class
    from textual.drivers.web_driver import WebDriver

    class ServedDriver(WebDriver):
        def run_input_thread(self) -> None:
            super().run_input_thread()
            if not self.exit_event.is_set():  # stdin ended, not the app: the server is gone
                self._app.post_message(messages.ExitApp())

    return ServedDriver
