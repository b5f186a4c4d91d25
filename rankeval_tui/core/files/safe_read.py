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

import errno
import os
import stat
from pathlib import Path

from rankeval_tui.core.errors import ContractError, quote

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


O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def read_input_bytes(path: str | Path, *, link: str | None = None, prefix: int | None = None) -> bytes:
    """The bytes of a regular input file; anything else is a ``ContractError`` naming the file.

    ``prefix``: at most that many bytes from the start, with the same checks (a peek at a header).

    ``link``: what the file is (``the judging journal``) when it must not be a symbolic link at
    all (a file the tool also writes in place: ``refuse_link``); otherwise a link is followed
    only while it stays inside the file's protocol directory (``check_inside_protocol``)."""
    limit = max_input_bytes()
    fd = open_input(path, link)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise ContractError(f"is {kind_of(status.st_mode)}, expected a regular file", file=path)
        if link is None:
            check_inside_protocol(path, fd)
        if prefix is not None:
            return os.read(fd, prefix)
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


def open_input(path: str | Path, link: str | None) -> int:
    """A read-only descriptor of ``path`` (not following a link when ``link`` names what the file
    is), or a ``ContractError`` saying what the path is instead of a file to read."""
    if link is not None:
        refuse_link(path, link)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(path, flags | (O_NOFOLLOW if link is not None else 0))
    except FileNotFoundError:
        if os.path.islink(path):
            target = quote(os.readlink(path))
            raise ContractError(f"is a symbolic link to {target}, which does not exist", file=path) from None
        raise ContractError("file not found", file=path) from None
    except OSError as error:  # a socket cannot be opened at all (ENXIO): say what it is instead
        if error.errno == errno.ELOOP and link is not None:  # became a link since refuse_link
            refuse_link(path, link)
        if error.errno == errno.ELOOP:
            raise ContractError("is a symbolic link that loops (it never reaches a file)", file=path) from None
        try:
            mode = os.stat(path).st_mode
        except OSError:
            mode = stat.S_IFREG
        if not stat.S_ISREG(mode):
            raise ContractError(f"is {kind_of(mode)}, expected a regular file", file=path) from None
        raise ContractError(f"cannot read: {error.strerror}", file=path) from None


def too_large(path: str | Path, limit: int) -> ContractError:
    return ContractError(
        f"larger than the input size limit of {limit} bytes; set {MAX_INPUT_BYTES_ENV} to a larger "
        "number of bytes to read it",
        file=path,
    )


PROTOCOL_MARKER = "protocol.toml"
"""The file that makes a directory a protocol directory (``protocol_files.PROTOCOL_FILE``)."""


def protocol_root(path: str | Path) -> str | None:
    """The protocol directory ``path`` is in: the nearest directory above it, taken lexically (no
    link resolved), that holds a ``protocol.toml``; None for a file outside every protocol."""
    directory = os.path.dirname(os.path.abspath(path))
    while True:
        if os.path.lexists(os.path.join(directory, PROTOCOL_MARKER)):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def opened_path(fd: int) -> str | None:
    """The resolved path of an open file, from ``/proc/self/fd`` (one syscall; None without /proc)."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def check_inside_protocol(path: str | Path, fd: int | None = None) -> None:
    """Refuse a file of a protocol directory that resolves outside it.

    A protocol directory is untrusted input: it travels by mail, git or a shared drive. A link
    inside it (``runs/BASELINE -> /proc/self/environ``, ``qrels.toml -> ~/.ssh/id_rsa``) must not
    make the tool read, and then print or hash, a file of the user's. Links that stay inside the
    directory (``protocols/NAME`` itself being a link included) are followed as usual. The rule
    lives here, in the one read path, so every loader (protocol, qrels, runs, chunk maps,
    ``runs/BASELINE``, sidecars, and files other loaders add) obeys it.

    ``fd``, the file opened from ``path``, makes the usual case cheap: when the kernel's path of
    the open file is ``path`` itself, no link was followed, and the search for the protocol
    directory (a ``lstat`` per parent) is skipped. Checking the open file also
    leaves no gap for a link swapped in between the check and the open.
    """
    lexical = os.path.abspath(path)
    real = None if fd is None else opened_path(fd)
    if real == lexical:
        return
    root = protocol_root(lexical)
    if root is None:
        return
    real = os.path.realpath(path) if real is None else real
    real_root = os.path.realpath(root)
    if real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep):
        return
    raise ContractError(
        f"is a symbolic link (or inside one) leading out of protocol directory {root}, to {real}; "
        "files of a protocol are only read inside it: copy the file into the protocol instead",
        file=path,
    )


def refuse_link(path: str | Path, what: str) -> None:
    """Refuse a symbolic link at ``path``, dangling or not: ``what`` (a journal, a lock) is a file
    the tool writes in place, so following a planted link would write wherever it points, up to a
    file the user's shell runs. Checked with ``lstat``: ``exists()`` is False for a
    dangling link, which the first append would then create."""
    try:
        is_link = stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return
    if is_link:
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        raise ContractError(
            f"is a symbolic link (to {target}); {what} is never followed through a link, since it is "
            "written in place: remove the link",
            file=path,
        )


def refuse_hard_link(path: str | Path, status: os.stat_result, what: str) -> None:
    """Refuse a regular file with more than one name: appending to or truncating ``what`` in place
    changes every other name's content too, one outside the protocol (a planted hard link) or a
    backup made with ``cp -al`` / rsnapshot. Copying the file gives it a name of its own. Checked
    on the open descriptor before the first write (reading through a second name is harmless; a
    lock is never written in place, and is published by a link, so it has two names for a moment)."""
    if stat.S_ISREG(status.st_mode) and status.st_nlink > 1:
        raise ContractError(
            f"has {status.st_nlink} hard links; {what} is written in place, so every other name of it "
            "would change too: give it a name of its own (cp it to a new file, then mv that over it)",
            file=path,
        )


def entry_exists(path: str | Path, what: str) -> bool:
    """Whether a file the tool writes in place is there, a symbolic link being refused (``refuse_link``)."""
    refuse_link(path, what)
    return os.path.lexists(path)
