"""Atomic file writes: a reader sees the old file or the new one, never a mix.

The temp file is named after its target, this host and this process
(``.qrels.toml.HOST.PID.RANDOM.tmp``): a write killed before its rename leaves it behind, and the
next write of the same file removes it once its process is provably gone (same host, pid not
running). A temp of a running writer, or of another host's, is never touched.
"""

from __future__ import annotations

import os
import re
import stat
import time
from pathlib import Path

LEGACY_STALE_SECONDS = 3600
"""A temp named without its writer (``.NAME.RANDOM.tmp``, before writers were named) is stale
after an hour: no write takes that long."""


def fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (POSIX); a no-op where directories can't be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def current_umask() -> int:
    """The process's umask. Linux shows it in /proc; elsewhere it can only be read by setting it."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def target_mode(target: Path) -> int:
    """The mode the written file gets: a rewritten file keeps its own, a new one follows the umask
    (as ``open()`` would make it). mkstemp's 0600 would make a shared 0644 qrels.toml owner-only."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        return 0o666 & ~current_umask()


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to a temp file beside ``path``, fsync it, then rename it over ``path``."""
    import tempfile  # here, not at start-up: with shutil and random it would slow every reading command

    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    mode = target_mode(target)
    remove_stale_temporaries(target)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.{writer_tag()}.", suffix=".tmp", dir=directory)
    except OSError as error:  # a missing or read-only directory: name the target, not the temp file
        raise type(error)(error.errno, error.strerror, str(target)) from error
    try:
        if hasattr(os, "fchmod"):  # POSIX; Windows has no such modes
            os.fchmod(fd, mode)  # our own new file: cannot fail short of a bad fd
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException as error:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        if isinstance(error, OSError) and error.errno is not None:  # the target's name, as above
            raise type(error)(error.errno, error.strerror, str(target)) from error
        raise
    fsync_directory(directory)


def host_tag() -> str:
    """This host's name as it stands in a temp file's name: letters, digits and ``-`` only."""
    import socket

    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:40] or "host"


def writer_tag() -> str:
    return f"{host_tag()}.{os.getpid()}"


def remove_stale_temporaries(target: Path) -> None:
    """Remove the temps a killed write of ``target`` left beside it: its writer is gone (this
    host, pid not running), or it is a writer-less legacy temp older than ``LEGACY_STALE_SECONDS``.
    Best effort: one that cannot be removed stays, and the write goes on."""
    directory = target.parent if str(target.parent) else Path(".")
    prefix, here = f".{target.name}.", host_tag()
    try:
        entries = [entry for entry in os.scandir(directory) if entry.name.startswith(prefix)]
    except OSError:
        return
    for entry in entries:
        middle = entry.name[len(prefix) :]
        if not middle.endswith(".tmp") or not entry.is_file(follow_symlinks=False):
            continue
        parts = middle[: -len(".tmp")].split(".")
        try:
            if len(parts) == 3 and parts[1].isascii() and parts[1].isdigit():  # HOST.PID.RANDOM
                stale = parts[0] == here and not process_running(int(parts[1]))
            else:
                stale = (
                    len(parts) == 1 and time.time() - entry.stat(follow_symlinks=False).st_mtime > LEGACY_STALE_SECONDS
                )
            if stale:
                os.unlink(entry.path)
        except OSError:
            continue


def process_running(pid: int) -> bool:
    """Whether a process ``pid`` exists on this host (another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))
