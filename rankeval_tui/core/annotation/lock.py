"""The writer lock: one judging process per qrels file.

``qrels.toml.lock`` is made with O_CREAT|O_EXCL and names pid, host and the process's start
time. A lock whose process is provably gone (same host; pid not running, or running with another
start time, i.e. reused) is recovered on start with a notice, so that ``kill -9`` then ``judge``
simply resumes; a lock we cannot judge (another host, unreadable, no start time while the pid
runs) is only removed when the user asks (``break_lock``).
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from rankeval_tui.core.errors import ContractError

LOCK_SUFFIX = ".lock"


@dataclass
class Lock:
    """``PATH.lock`` holding ``{"pid", "host", "started"}``: one judging process per qrels file."""

    path: Path
    held: bool = False
    recovered: str | None = None
    """Set when a stale lock of a process that is gone was replaced: the user is told, not left guessing."""

    def acquire(self, *, break_lock: bool = False) -> None:
        with directory_guard(self.path.parent):
            self._acquire(break_lock)

    def _acquire(self, break_lock: bool) -> None:
        owner = {"pid": os.getpid(), "host": socket.gethostname(), "started": process_start_time(os.getpid())}
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                self._refuse_or_break(break_lock)
                continue
            except OSError as error:  # read-only or full directory: say so, not a traceback
                raise ContractError(
                    f"cannot create the lock file: {error.strerror}; judging needs a writable "
                    "directory beside the qrels file",
                    file=self.path,
                ) from None
            with os.fdopen(fd, "w") as handle:
                json.dump(owner, handle)
                handle.flush()
                os.fsync(handle.fileno())
            self.held = True
            return
        raise ContractError("could not take the lock after breaking it; another process took it", file=self.path)

    def _refuse_or_break(self, break_lock: bool) -> None:
        try:
            owner = json.loads(self.path.read_text(encoding="utf-8"))
            pid, host, started = int(owner["pid"]), str(owner["host"]), owner.get("started")
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pid, host, started = None, "?", None
        here = socket.gethostname()
        state = owner_state(pid, host, started, here)
        if state == "alive":
            raise ContractError(
                f"locked: another judge process (pid {pid} on {host}) is writing these qrels; refusing a second writer",
                file=self.path,
            )
        if state == "gone":
            self.recovered = (
                f"recovered the lock of pid {pid} on {host}, which is no longer running "
                "(killed or crashed); its journal is replayed, nothing it recorded is lost"
            )
        elif not break_lock:
            reason = f"lock held by pid {pid} on another host {host}" if pid is not None else "unreadable lock file"
            raise ContractError(f"{reason}; if no judge process is running, rerun with --break-lock", file=self.path)
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass

    def release(self) -> None:
        if self.held:
            self.held = False
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass


@contextmanager
def directory_guard(directory: Path) -> Iterator[None]:
    """Serialise lock checks and breaks between processes with ``flock`` on the directory itself.

    O_EXCL alone makes creating a lock atomic, but not "read the owner, see it is dead, remove
    it, create ours": two ``--break-lock`` starts over one stale lock could both remove and both
    create (one removing the other's fresh lock), and a reader could see a lock file created but
    not yet written. The guard is held only while acquiring, and the kernel drops it if the
    process dies, so it can never go stale itself. Where flock is unavailable, no guard.
    """
    try:
        import fcntl

        fd = os.open(directory, os.O_RDONLY)
    except (ImportError, OSError):
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the flock


def owner_state(pid: int | None, host: str, started: object, here: str) -> str:
    """``alive``, ``gone`` (provably: safe to take over) or ``unknown`` (only the user can tell)."""
    if pid is None or host != here:
        return "unknown"
    if not pid_alive(pid):
        return "gone"
    if started is None:
        return "alive"  # cannot tell a judge from an unrelated process that reused its pid: err safe
    return "alive" if process_start_time(pid) == started else "gone"


def process_start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (Linux ``/proc``), or None elsewhere.

    Together with the pid it identifies a process: a reused pid has another start time.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat[stat.rindex(")") + 2 :].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
