"""SIGHUP and SIGTERM end the app normally, so the command that started it finishes the session.

A dropped SSH connection (SIGHUP) or a plain ``kill`` (SIGTERM) would otherwise end the process
at once: the lock left behind (recovered on the next start, but with a notice) and, for judging,
the final qrels write not done. With these handlers the app exits with ``128 + signal``, and the
judge or adjudicate command writes what is complete and releases the lock, as after ``q``.
"""

from __future__ import annotations

import asyncio
import signal

from textual.app import App

HANGUP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGHUP", "SIGTERM") if hasattr(signal, name))


def exit_on_hangup(app: App[object]) -> None:
    """Make SIGHUP and SIGTERM call ``app.exit(128 + signal)`` (main thread, POSIX; else nothing)."""
    loop = asyncio.get_running_loop()
    for signum in HANGUP_SIGNALS:
        try:
            loop.add_signal_handler(signum, app.exit, 128 + signum)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or Windows
            return


def stop_exiting_on_hangup() -> None:
    """Give SIGHUP and SIGTERM back their default action (the app is ending)."""
    loop = asyncio.get_running_loop()
    for signum in HANGUP_SIGNALS:
        loop.remove_signal_handler(signum)
