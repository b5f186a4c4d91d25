"""A docs folder as a corpus: every entry below it is either read or listed with the reason.

``init`` and ``grow`` read a folder of ``.md``/``.txt`` files. What they do not read must be
said, never dropped silently: other extensions, hidden files, unreadable subfolders, FIFOs and
devices, symbolic links (never followed, to a file or a folder). The walk is iterative (a stack, not
recursion), so a folder 1,500 levels deep is walked like any other instead of ending in
``RecursionError``. File names are OS strings: one that is not valid UTF-8 is shown with
backslash escapes (``display_name``) so printing it can never fail, and a document whose name
is not valid UTF-8 is refused before anything is written (its ID would not survive protocol.toml).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files.unicode_text import display_name


@dataclass
class FolderEntries:
    files: list[tuple[str, Path]] = field(default_factory=list)
    """(ID: the path relative to the folder with ``/``, path) of every file to read, in path order."""
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(display name, reason) of everything else, in path order."""


def walk_folder(directory: Path, suffixes: tuple[str, ...]) -> FolderEntries:
    """Every entry below ``directory``: the files with one of ``suffixes`` to read, the rest skipped."""
    found = FolderEntries()
    stack: list[tuple[Path, str]] = [(directory, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            with os.scandir(folder) as scan:
                entries = list(scan)
        except OSError as error:
            found.skipped.append((display_name(prefix.rstrip("/") or "."), f"folder not readable: {error.strerror}"))
            continue
        for entry in entries:
            relative = prefix + entry.name
            reason = skip_reason(entry, relative, suffixes)
            if reason == "folder":
                stack.append((Path(entry.path), relative + "/"))
            elif reason is not None:
                found.skipped.append((display_name(relative), reason))
            else:
                if display_name(relative) != relative:
                    raise ContractError(
                        f"file name {display_name(relative)} is not valid UTF-8: a document's ID is its "
                        "file name and protocol.toml is UTF-8; rename the file",
                        file=directory,
                    )
                found.files.append((relative, Path(entry.path)))
    found.files.sort(key=lambda item: item[0].split("/"))
    found.skipped.sort(key=lambda item: item[0].split("/"))
    return found


def skip_reason(entry: os.DirEntry[str], relative: str, suffixes: tuple[str, ...]) -> str | None:
    """Why ``entry`` is not read (``"folder"``: walk into it), or None: read it."""
    try:
        if entry.is_symlink():
            # Never followed, to a file or a folder: a linked .md could be any file of the user's
            # (notes.md -> ~/.ssh/id_rsa would become a document's text in a shared protocol).
            if not os.path.exists(entry.path):
                return "a link to nothing"
            return "a symbolic link: links in a corpus folder are not followed"
        if entry.is_dir(follow_symlinks=False):
            return "folder"
        if not entry.is_file():
            return "not a regular file (a FIFO, socket or device)"
    except OSError as error:
        return f"not readable: {error.strerror}"
    if any(part.startswith(".") for part in relative.split("/")):
        return "hidden"
    if os.path.splitext(entry.name)[1] not in suffixes:
        return f"not {' or '.join(suffixes)}"
    return None
