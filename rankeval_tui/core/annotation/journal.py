"""The judging journal: append-only JSON lines, fsynced before the screen shows a judgment.

Why a journal: rewriting qrels.toml on every key would cost O(pairs) per key and could leave a
half-written file. Every judgment, change, undo, redo, note and dispute flag is one line appended
to ``qrels.toml.journal``; replaying it rebuilds the exact state. A torn last line (the write did
not finish, so nothing was acknowledged) is reported and cut off, never read as a label; a
malformed line before it is an error. Blank lines (an editor, an ``echo >>``) hold nothing and
are skipped with a notice.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from json.scanner import make_scanner
from pathlib import Path

from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.files.atomic import fsync_directory
from rankeval_tui.core.files.journal_names import JUDGING_JOURNAL_SUFFIX as JOURNAL_SUFFIX
from rankeval_tui.core.files.safe_read import (
    O_NOFOLLOW,
    entry_exists,
    kind_of,
    read_input_bytes,
    refuse_hard_link,
    refuse_link,
)
from rankeval_tui.core.gc_pause import paused_gc

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any

JOURNAL_VERSION = 2
"""Version 2 headers record the hash of each part a label's meaning depends on (``binding.py``)."""
READABLE_VERSIONS = (1, 2)
"""Version 1 is still read, so that ``binding.check_binding`` can refuse it with a clear reason."""
A_JOURNAL = "a journal"
"""What ``refuse_link`` calls a journal: one is never opened through a symbolic link."""


def journal_of(qrels_path: Path) -> Path:
    """The judging journal of a qrels file: beside it, its name plus ``.journal``."""
    return qrels_path.with_name(qrels_path.name + JOURNAL_SUFFIX)


def journal_exists(path: Path) -> bool:
    """Whether a journal is at ``path``; a symbolic link there (even dangling) is refused, since
    appending through it would write outside the protocol (``safe_read.refuse_link``)."""
    return entry_exists(path, A_JOURNAL)


@paused_gc(freeze=True)
def replay_entries(contents: JournalContents, path: Path, replay: Callable[[dict[str, Any]], None]) -> None:
    """Apply every journal entry in order; a bad entry is an error naming the journal and its line.

    The collector is paused and the state built is frozen (``core.gc_pause``): a million entries
    make millions of long-lived, acyclic objects (labels, the undo history) that its walks would
    otherwise visit again and again while they grow, much of a resume otherwise
    (``benchmarks/bench_resume.py``)."""
    for number, entry in contents.entries:
        try:
            replay(entry)
        except ContractError as error:
            raise error.located(file=path, where=f"line {number}") from None


@dataclass
class JournalContents:
    header: dict[str, Any]
    entries: list[tuple[int, dict[str, Any]]]  # (line number, entry)
    torn: bytes  # bytes after the last newline: an unfinished write, never an entry
    good_length: int  # bytes up to and including the last newline
    blank_lines: list[int] = field(default_factory=list)  # line numbers of empty lines, skipped

    def notices(self, path: Path) -> list[str]:
        """What was recovered from harmless damage, to tell the user (nothing is silently dropped)."""
        notices = []
        if self.blank_lines:
            numbers = ", ".join(map(str, self.blank_lines[:5])) + (", ..." if len(self.blank_lines) > 5 else "")
            notices.append(
                f"{path}: skipped {len(self.blank_lines)} blank journal line(s) (line {numbers}); "
                "they hold no entry, nothing was lost"
            )
        if self.torn:
            shown = quote(self.torn[:60].decode("utf-8", "replace"))
            notices.append(
                f"{path}: the last journal line was torn (an unfinished write, {len(self.torn)} bytes: "
                f"{shown}); it was never shown as recorded and was dropped, not read as a judgment"
            )
        return notices


class Journal:
    """Append-only JSON lines; ``append`` returns only after the line is on disk (fdatasync)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None
        self.cut_to: int | None = None
        """Length to cut back to before the next append: a failed append whose bytes could not be removed."""
        self.created = False
        """Whether this process created the file (``abandon`` may then remove it)."""

    @staticmethod
    @paused_gc(freeze=True)  # one object per line, all alive until replayed: no walks over them
    def read(path: Path) -> JournalContents:
        """Every entry; blank lines and a torn last line are recovered (see ``notices``), any other
        damage is refused: a bad line in the middle may have been an acknowledged judgment."""
        raw = read_input_bytes(path, link=A_JOURNAL)
        cut = raw.rfind(b"\n") + 1
        torn = raw[cut:]
        lines = raw[:cut].split(b"\n")[:-1]
        entries: list[tuple[int, dict[str, Any]]] = []
        blank: list[int] = []
        for number, line in enumerate(lines, 1):
            if not line.strip():
                blank.append(number)
                continue
            try:
                entry = decoded(line)
            except (UnicodeDecodeError, ValueError):
                raise ContractError(
                    "journal line is not valid JSON (corrupted in the middle, not a torn tail); "
                    "fix or move the journal away",
                    file=path,
                    where=f"line {number}",
                ) from None
            if not isinstance(entry, dict) or "op" not in entry:
                raise ContractError("journal line is not an entry object", file=path, where=f"line {number}")
            entries.append((number, entry))
        if not entries:
            raise ContractError("journal has no complete header line; move it away to start over", file=path)
        number, header = entries[0]
        if header.get("op") != "start" or header.get("version") not in READABLE_VERSIONS:
            raise ContractError(
                f"not a version-{JOURNAL_VERSION} judging journal (first line must be a start entry)",
                file=path,
                where=f"line {number}",
            )
        return JournalContents(header, entries[1:], torn, cut, blank)

    def open_for_append(self, truncate_to: int | None = None) -> None:
        """Open (creating it if needed) for appending, never through a symbolic link: O_NOFOLLOW
        refuses one, dangling or not, and O_EXCL tells creating from reopening without a race.
        Anything but a regular file (a FIFO, a device) is refused too."""
        flags = os.O_WRONLY | os.O_APPEND | O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            try:
                self.fd = os.open(self.path, flags | os.O_CREAT | os.O_EXCL, 0o644)
                self.created = True
            except FileExistsError:
                self.fd = os.open(self.path, flags)
                self.created = False
        except OSError:  # ELOOP (a link), ENXIO (a FIFO nobody reads): say what is there
            refuse_link(self.path, A_JOURNAL)
            refuse_special(self.path, os.lstat(self.path).st_mode)
            raise
        status = os.fstat(self.fd)
        refuse_special(self.path, status.st_mode, self.close)
        try:  # the name may have gained a second one since the lstat before the open
            refuse_hard_link(self.path, status, A_JOURNAL)
        except ContractError:
            self.close()
            raise
        if truncate_to is not None:
            os.ftruncate(self.fd, truncate_to)
            os.fsync(self.fd)
        if self.created:
            fsync_directory(self.path.parent)

    def append(self, entry: dict[str, Any], *, durable: bool = True) -> float:
        """Write one line, stamped with ``"at"`` (unix seconds, ms precision: what ``pace`` times
        judgments by); with ``durable`` (every change), fdatasync before returning. Returns the stamp."""
        assert self.fd is not None, "journal not open"
        at = round(time.time(), 3)
        data = (json.dumps({**entry, "at": at}, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        if self.cut_to is not None:  # raises again while the disk is still full or read-only
            self._cut(self.cut_to)
        start = os.lseek(self.fd, 0, os.SEEK_END)
        try:
            written = os.write(self.fd, data)
            while written < len(data):  # short writes are legal; finish the line
                written += os.write(self.fd, data[written:])
            if durable:
                sync(self.fd)
            return at
        except OSError:
            # Disk full, I/O error: the caller reports "not recorded", so no byte of this line may
            # stay. A partial line would glue onto the next append (a corrupt middle line that
            # blocks resuming), a complete but unsynced one would come back after a restart.
            self.cut_to = start
            try:
                self._cut(start)
            except OSError:
                pass
            raise

    def _cut(self, length: int) -> None:
        assert self.fd is not None
        os.ftruncate(self.fd, length)
        sync(self.fd)
        self.cut_to = None

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def remove(self) -> None:
        self.close()
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        fsync_directory(self.path.parent)


def refuse_special(path: Path, mode: int, cleanup: Callable[[], None] = lambda: None) -> None:
    """A journal must be a regular file: a FIFO or a device there would swallow the judgments."""
    if not stat.S_ISREG(mode):
        cleanup()
        raise ContractError(f"is {kind_of(mode)}, not a regular file; a journal must be one", file=path)


sync: Callable[[int], None] = getattr(os, "fdatasync", os.fsync)

_scan_once = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # typeshed: a duck-typed context (its TODO)


def decoded(line: bytes) -> Any:
    """``json.loads(line.decode("utf-8"))``, the same value or the same error, at twice its speed.

    Why: a resume decodes every line (a million for a 1M-pair protocol), and ``json.loads``
    spends more time in its Python layers (two whitespace regexes, three calls) than in the C
    scanner. A line that is one JSON value from its first character to its last (what ``append``
    writes) is scanned directly; anything else (whitespace around it, a second value, not JSON)
    goes to ``json.loads``, which returns or raises exactly as before."""
    text = line.decode("utf-8")
    try:
        value, end = _scan_once(text, 0)
    except StopIteration:  # not a value at the first character: json.loads says what it is
        return json.loads(text)
    return value if end == len(text) else json.loads(text)
