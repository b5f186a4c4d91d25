"""The one way an input file is read: a regular file, of bounded size, never blocking.

Every loader (protocol, qrels, runs, chunk maps, TREC qrels, journals, locks) reads through
``read_input_bytes``. Without it, a FIFO given as ``--run`` blocks ``score`` forever (``open``
waits for a writer), ``/dev/zero`` is read until memory runs out, and a directory or socket
is a traceback. So the file is opened with ``O_NONBLOCK`` (a FIFO opens at once instead of
waiting), its type is checked with ``fstat`` on the open descriptor (no race with a rename
between a ``stat`` and the ``open``), and at most the size limit plus one byte is read.

The limit is ``DEFAULT_MAX_INPUT_BYTES`` (1 GiB) unless the environment variable
``RANKEVAL_MAX_INPUT_BYTES`` sets another number of bytes.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from rankeval_tui.core.errors import ContractError

MAX_INPUT_BYTES_ENV = "RANKEVAL_MAX_INPUT_BYTES"
DEFAULT_MAX_INPUT_BYTES = 1 << 30
"""1 GiB: a 10-million-entry JSON run is about 300 MB; a larger input is more likely a mistake
(a device, a log) than data, and reading it would need several times its size in memory."""

READ_CHUNK = 1 << 20

FILE_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def max_input_bytes() -> int:
    """The size limit in bytes: ``$RANKEVAL_MAX_INPUT_BYTES`` if set, else 1 GiB."""
    text = os.environ.get(MAX_INPUT_BYTES_ENV)
    if text is None or text == "":
        return DEFAULT_MAX_INPUT_BYTES
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        shown = text if len(text) <= 40 else f"{text[:40]}... ({len(text)} characters)"
        raise ContractError(f"{MAX_INPUT_BYTES_ENV} must be a whole number of bytes >= 1, got {shown!r}")
    return int(text)


def kind_of(mode: int) -> str:
    """``a FIFO (named pipe)``, ``a directory`` ...: what a non-regular file is, for the message."""
    for test, name in FILE_KINDS:
        if test(mode):
            return name
    return "not a regular file"


def read_input_bytes(path: str | Path) -> bytes:
    """The bytes of a regular input file; anything else is a ``ContractError`` naming the file."""
    limit = max_input_bytes()
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise ContractError("file not found", file=path) from None
    except OSError as error:  # a socket cannot be opened at all (ENXIO): say what it is instead
        try:
            mode = os.stat(path).st_mode
        except OSError:
            mode = stat.S_IFREG
        if not stat.S_ISREG(mode):
            raise ContractError(f"is {kind_of(mode)}, expected a regular file", file=path) from None
        raise ContractError(f"cannot read: {error.strerror}", file=path) from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise ContractError(f"is {kind_of(status.st_mode)}, expected a regular file", file=path)
        if status.st_size > limit:
            raise too_large(path, limit)
        # One read of the expected size (one allocation, as Path.read_bytes), then more only if
        # the file grew meanwhile: never more than the limit plus one byte.
        chunks = [os.read(fd, status.st_size + 1)]
        size = len(chunks[0])
        while chunks[-1] and size <= limit:
            chunks.append(os.read(fd, min(READ_CHUNK, limit + 1 - size)))
            size += len(chunks[-1])
        if size > limit:
            raise too_large(path, limit)
        chunks = [chunk for chunk in chunks if chunk]
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)  # no copy in the usual case
    except OSError as error:
        raise ContractError(f"cannot read: {error.strerror}", file=path) from None
    finally:
        os.close(fd)


def too_large(path: str | Path, limit: int) -> ContractError:
    return ContractError(
        f"larger than the input size limit of {limit} bytes; set {MAX_INPUT_BYTES_ENV} to a larger "
        "number of bytes to read it",
        file=path,
    )
