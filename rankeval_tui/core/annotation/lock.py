"""The writer lock: one judging process per qrels file.

``qrels.toml.lock`` names pid, host and the process's start time. It is written to a temp file
and fsynced first, then linked into place (``os.link`` fails if the name is taken, like
O_EXCL), so no empty or half-written lock can ever be seen, whenever the process is killed.
A lock whose process is provably gone (same host; pid not running or a zombie, or running with
another start time, i.e. reused) is recovered on start with a notice, so that ``kill -9`` then ``judge``
simply resumes; a lock we cannot judge (another host, unreadable, no start time while the pid
runs) is only removed when the user asks (``break_lock``).
"""

from __future__ import annotations

import errno
import glob
import json
import os
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files.atomic import current_umask
from rankeval_tui.core.files.safe_read import read_input_bytes, refuse_link

LOCK_SUFFIX = ".lock"
A_LOCK = "a lock"


@dataclass
class Lock:
    """``PATH.lock`` holding ``{"pid", "host", "started"}``: one judging process per qrels file."""

    path: Path
    command: str = "judge"
    """What holds the lock (``judge``, ``grow``, ``adjudicate``): recorded so a refusal names it."""
    held: bool = False
    recovered: str | None = None
    """Set when a stale lock of a process that is gone was replaced: the user is told, not left guessing."""

    guarded: bool = False
    """Whether the directory guard is held while acquiring (False where flock is unavailable)."""

    def acquire(self, *, break_lock: bool = False) -> None:
        with directory_guard(self.path.parent) as self.guarded:
            self._acquire(break_lock)

    def _acquire(self, break_lock: bool) -> None:
        owner = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": process_start_time(os.getpid()),
            "command": self.command,
        }
        try:
            staged = self._stage(json.dumps(owner).encode("utf-8"))
        except OSError as error:  # read-only or full directory: say so, not a traceback
            raise ContractError(
                f"cannot create the lock file: {error.strerror}; judging needs a writable "
                "directory beside the qrels file",
                file=self.path,
            ) from None
        try:
            for _ in range(2):
                try:
                    publish(staged, self.path)
                except FileExistsError:
                    self._refuse_or_break(break_lock)
                    continue
                except OSError as error:
                    raise ContractError(f"cannot create the lock file: {error.strerror}", file=self.path) from None
                self.held = True
                return
        finally:
            remove_quietly(staged)
        raise ContractError("could not take the lock after breaking it; another process took it", file=self.path)

    def _stage(self, data: bytes) -> Path:
        """The lock's full contents in a temp file beside it, fsynced: only then is it published.

        Under the guard, another process's staged file is a leftover of one killed while taking
        the lock (staging happens only under the guard), so it is removed first.
        """
        if self.guarded:
            for leftover in self.path.parent.glob(f".{glob.escape(self.path.name)}.*.tmp"):
                remove_quietly(leftover)
        fd, name = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        try:
            os.fchmod(fd, 0o666 & ~current_umask())  # like any new file, not mkstemp's 0600
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            remove_quietly(Path(name))
            raise
        os.close(fd)
        return Path(name)

    def _refuse_or_break(self, break_lock: bool) -> None:
        refuse_link(self.path, A_LOCK)  # a planted link is no lock: not read, not broken, named
        try:
            raw = read_input_bytes(self.path, link=A_LOCK)
        except ContractError:
            if not self.path.exists():  # released meanwhile (release takes no guard): try again
                return
            raw = None
        try:
            owner = json.loads(b"" if raw is None else raw)
            pid, host, started = int(owner["pid"]), str(owner["host"]), owner.get("started")
            command = str(owner.get("command", "judge"))
        except (ValueError, KeyError, TypeError, AttributeError):
            pid, host, started, command = None, "?", None, "judge"
        here = socket.gethostname()
        state = owner_state(pid, host, started, here)
        if raw is not None and not raw.strip() and self.guarded:
            # Locks are published complete (link of a written file), so an empty one was left by
            # an older version killed between create and write; the guard we hold proves its
            # creator is gone (it held the guard while writing it, and the kernel dropped it).
            self.recovered = (
                "recovered an empty lock file, left by a judge killed while taking the lock; no process ever held it"
            )
            remove_quietly(self.path)
            return
        if state == "alive":
            raise ContractError(
                f"locked: another rankeval-tui {printable_word(command)} (pid {pid} on {host}) is writing these "
                f"qrels; refusing a second writer; if that process is stuck (its terminal gone), end it with "
                f"`kill {pid}` (`kill -9 {pid}` if it does not end) and start again: its journal keeps every label",
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
        remove_quietly(self.path)

    def release(self) -> None:
        if self.held:
            self.held = False
            remove_quietly(self.path)


def printable_word(command: str) -> str:
    """The command named in a lock file, or ``process`` when it is not a plain word: a lock file
    is in the protocol directory, so its text is never sent to the terminal as it is."""
    return command if command.isascii() and command.isalpha() else "process"


def publish(staged: Path, path: Path) -> None:
    """Make the written lock visible under its name, atomically; FileExistsError if it is taken.

    ``os.link`` never replaces an existing name, so it is O_EXCL for a file that is already
    complete. Where the filesystem has no hard links, O_EXCL create and write is the fallback
    (readers then hold the directory guard, which orders them after the writer).
    """
    try:
        os.link(staged, path)
        return
    except FileExistsError:
        raise
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV):
            raise
    data = staged.read_bytes()
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    try:
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        os.fsync(fd)
    except BaseException:
        remove_quietly(path)
        raise
    finally:
        os.close(fd)


def remove_quietly(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


@contextmanager
def directory_guard(directory: Path) -> Iterator[bool]:
    """Serialise lock checks and breaks between processes with ``flock`` on the directory itself.

    O_EXCL alone makes creating a lock atomic, but not "read the owner, see it is dead, remove
    it, create ours": two ``--break-lock`` starts over one stale lock could both remove and both
    create (one removing the other's fresh lock), and a reader could see a lock file created but
    not yet written. The guard is held only while acquiring, and the kernel drops it if the
    process dies, so it can never go stale itself. Yields whether it is held: where flock is
    unavailable, there is no guard.
    """
    try:
        import fcntl

        fd = os.open(directory, os.O_RDONLY)
    except (ImportError, OSError):
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:  # e.g. a filesystem without flock
            yield False
            return
        yield True
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
    """Whether ``pid`` runs. A zombie (killed, not yet reaped by its parent) does not:
    ``os.kill(pid, 0)`` succeeds for it, so its state in ``/proc/PID/stat`` is read too."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return process_state(pid) not in ("Z", "X")


def process_state(pid: int) -> str | None:
    """The one-letter state of ``/proc/PID/stat`` (R, S, D, Z zombie, X dead ...), None without /proc."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat[stat.rindex(")") + 2]
    except (OSError, ValueError, IndexError):
        return None
