"""SIGHUP and SIGTERM end the app within about a second, even when the terminal is already gone.

A dropped SSH connection (SIGHUP) or a plain ``kill`` (SIGTERM) would otherwise end the process
at once: the lock left behind and, for judging, the final qrels write not done. With these
handlers the app exits with ``128 + signal``, and the judge or adjudicate command writes what is
complete and releases the lock, as after ``q``.

Why not ``loop.add_signal_handler`` alone: its callback runs only when the event loop runs, and a
terminal killed while a long document draws can block the loop's thread for good (a
``tmux kill-session`` mid-draw could leave the process alive, ignoring SIGHUP and SIGTERM,
holding the lock). Textual's output queue to the dead terminal fills and the next write waits
(``App._shutdown -> disable_input -> WriterThread.write -> Queue.put``), or the shutdown waits
for its input thread. A plain ``signal.signal`` handler runs on the main thread even inside such
a wait (a lock wait is interrupted by signals on POSIX), so on a hangup it asks the app to exit
(``call_soon_threadsafe``: the loop may be blocked right now) and starts a watchdog: if the app
has not ended ``GRACE_SECONDS`` later, the watchdog releases the command's lock and ends the
process with ``os._exit(128 + signal)``. Every label is already in the journal (fsynced before
it was shown), so the next ``judge`` resumes where the user was.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App

    from rankeval_tui.core.annotation.lock import Lock

HANGUP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGHUP", "SIGTERM") if hasattr(signal, name))
GRACE_SECONDS = 1.0
"""How long a hangup waits for the app to end normally before the process ends itself."""

_app_ended = threading.Event()
_guarded: list[Lock] = []


def guard_lock(lock: Lock | None) -> None:
    """The command's lock, released by the watchdog if a hangup's exit is wedged (so the next
    start needs no recovery). Called by the command before the app runs."""
    _app_ended.clear()
    _guarded[:] = [lock] if lock is not None else []


def app_ended() -> None:
    """Called by the command once the app's ``run()`` returned: its own ending (the final write,
    the lock's release) then runs without the watchdog."""
    _app_ended.set()


def exit_on_hangup(app: App[object]) -> None:
    """Make SIGHUP and SIGTERM end ``app`` with ``128 + signal`` (main thread, POSIX; else nothing)."""
    if threading.current_thread() is not threading.main_thread():
        return
    loop = asyncio.get_running_loop()

    def on_hangup(signum: int, frame: FrameType | None) -> None:
        start_watchdog(128 + signum)
        try:
            loop.call_soon_threadsafe(app.exit, 128 + signum)
        except RuntimeError:  # the loop is closed: the app is ending anyway
            pass

    for signum in HANGUP_SIGNALS:
        signal.signal(signum, on_hangup)


def stop_exiting_on_hangup() -> None:
    """The app is ending: SIGTERM gets its default action back; SIGHUP is ignored from now on (the
    terminal may be gone, and the command's final write must not be cut off by a late hangup)."""
    if threading.current_thread() is threading.main_thread():
        for signum in HANGUP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN if signum == getattr(signal, "SIGHUP", None) else signal.SIG_DFL)


def start_watchdog(code: int) -> None:
    def watch() -> None:
        if not _app_ended.wait(GRACE_SECONDS):
            for lock in _guarded:
                lock.release()
            os._exit(code)  # the exit is wedged on a dead terminal; the journal holds every label

    threading.Thread(target=watch, name="rankeval-hangup-watchdog", daemon=True).start()
