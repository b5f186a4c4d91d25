"""The judging journal: append-only JSON lines, fsynced before the screen shows a judgment.

Why a journal: rewriting qrels.toml on every key would cost O(pairs) per key and could leave a
half-written file. Every judgment, change, undo, redo, note and dispute flag is one line appended
to ``qrels.toml.journal``; replaying it rebuilds the exact state. A torn last line (the write did
not finish, so nothing was acknowledged) is reported and cut off, never read as a label; a
malformed line before it is an error.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files.atomic import fsync_directory

JOURNAL_VERSION = 1
JOURNAL_SUFFIX = ".journal"


def replay_entries(contents: JournalContents, path: Path, replay: Callable[[dict[str, Any]], None]) -> None:
    """Apply every journal entry in order; a bad entry is an error naming the journal and its line."""
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


class Journal:
    """Append-only JSON lines; ``append`` returns only after the line is on disk (fdatasync)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None
        self.cut_to: int | None = None
        """Length to cut back to before the next append: a failed append whose bytes could not be removed."""

    @staticmethod
    def read(path: Path) -> JournalContents:
        raw = path.read_bytes()
        cut = raw.rfind(b"\n") + 1
        torn = raw[cut:]
        lines = raw[:cut].split(b"\n")[:-1]
        entries: list[tuple[int, dict[str, Any]]] = []
        for number, line in enumerate(lines, 1):
            try:
                entry = json.loads(line.decode("utf-8"))
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
        header = entries[0][1]
        if header.get("op") != "start" or header.get("version") != JOURNAL_VERSION:
            raise ContractError(
                f"not a version-{JOURNAL_VERSION} judging journal (first line must be a start entry)",
                file=path,
                where="line 1",
            )
        return JournalContents(header, entries[1:], torn, cut)

    def open_for_append(self, truncate_to: int | None = None) -> None:
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
        created = not self.path.exists()
        self.fd = os.open(self.path, flags, 0o644)
        if truncate_to is not None:
            os.ftruncate(self.fd, truncate_to)
            os.fsync(self.fd)
        if created:
            fsync_directory(self.path.parent)

    def append(self, entry: dict[str, Any], *, durable: bool = True) -> None:
        """Write one line; with ``durable`` (every change), fdatasync before returning."""
        assert self.fd is not None, "journal not open"
        data = (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        if self.cut_to is not None:  # raises again while the disk is still full or read-only
            self._cut(self.cut_to)
        start = os.lseek(self.fd, 0, os.SEEK_END)
        try:
            written = os.write(self.fd, data)
            while written < len(data):  # short writes are legal; finish the line
                written += os.write(self.fd, data[written:])
            if durable:
                sync(self.fd)
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


sync: Callable[[int], None] = getattr(os, "fdatasync", os.fsync)
