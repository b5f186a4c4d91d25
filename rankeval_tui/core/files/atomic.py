"""Atomic file writes: a reader sees the old file or the new one, never a mix."""

from __future__ import annotations

import os
import stat
from pathlib import Path


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
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
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


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))
