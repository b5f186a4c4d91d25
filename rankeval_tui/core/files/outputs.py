"""Where a command may write its ``-o`` file: never over an input, over an existing file only when asked.

One rule for every command that writes a file the user names (``qrels export|import``, ``run
export``, ``adapt``, ``merge``, ``adjudicate``, ``judge --adjudicate``), checked before any work:

- an existing file is replaced only with ``--force`` (``error: FILE: exists; pass --force to
  replace it``);
- a file the command reads (a shard, an annotator's file, the TREC qrels, the run) is never
  replaced, nor are the inputs of the protocol the command reads: its ``protocol.toml`` and
  ``qrels.toml``, the files in its ``runs/`` and ``chunks/``. ``--force`` does not change that;
- except what the command exists to write: the commands that write exhaustive labels may write
  the protocol's ``qrels.toml`` (with ``--force`` when it exists: it holds the protocol's labels),
  and ``adapt`` may replace an adapted run in ``runs/`` (one with its provenance sidecar);
- nothing is written into the bundled demo.

The write itself stays atomic (``core.files.atomic``); this module only decides whether it may happen.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Iterable
from pathlib import Path

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files.demo import refuse_writes_into_demo
from rankeval_tui.core.files.protocol_files import PROTOCOL_FILE, QRELS_FILE, RUNS_DIR
from rankeval_tui.core.files.runs import SIDECAR_SUFFIX
from rankeval_tui.core.files.safe_read import kind_of

CHUNKS_DIR = "chunks"

PROTOCOL_TOML = "protocol.toml"
QRELS = "qrels.toml"
RUN = "run"
ADAPTED_RUN = "adapted run"
CHUNK_FILE = "chunk file"
"""The roles a file plays in a protocol directory (``protocol_role``); a command names in
``may_replace`` the ones it exists to write."""

ROLE_WORDS = {
    PROTOCOL_TOML: f"the {PROTOCOL_FILE} of protocol {{protocol}}",
    QRELS: f"the {QRELS_FILE} of protocol {{protocol}} (its labels)",
    RUN: f"a run of protocol {{protocol}} (in its {RUNS_DIR}/)",
    ADAPTED_RUN: f"an adapted run of protocol {{protocol}} (in its {RUNS_DIR}/)",
    CHUNK_FILE: f"a file of protocol {{protocol}} (in its {CHUNKS_DIR}/)",
}


def entry_of(path: Path) -> Path:
    """The directory entry a rename onto ``path`` replaces: its directory resolved, not the link
    ``path`` may itself be (a rename replaces a symlink, not the file it points to)."""
    return path.parent.resolve() / path.name


def same_file(a: Path, b: Path) -> bool:
    """True when ``a`` and ``b`` name one file: the same entry, the same resolved file, or (both
    existing) the same inode, which also catches another case on a case-insensitive disk."""
    if entry_of(a) == entry_of(b) or a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def protocol_role(path: Path, protocol: Path) -> str | None:
    """What ``path`` is to the protocol directory ``protocol`` (one of the roles above), or None."""
    base = protocol.resolve()
    if same_file(path, base / PROTOCOL_FILE):
        return PROTOCOL_TOML
    if same_file(path, base / QRELS_FILE):
        return QRELS
    if not os.path.lexists(path):
        return None  # a new file in runs/ or chunks/ adds to the protocol, it replaces nothing
    entry = entry_of(path)
    if base / CHUNKS_DIR in entry.parents:
        return CHUNK_FILE
    if base / RUNS_DIR in entry.parents:
        if entry.name.endswith(SIDECAR_SUFFIX):
            return ADAPTED_RUN
        sidecar = entry.with_name(entry.name + SIDECAR_SUFFIX)
        return ADAPTED_RUN if sidecar.exists() else RUN
    return None


def refuse_special_output(output: Path) -> None:
    """Refuse an ``-o`` that is a symbolic link, a FIFO, a device or a socket, even with ``--force``.

    The write is a rename onto the name, so it would replace the link or the device node itself
    with a regular file (as root, ``-o /dev/full --force`` replaced /dev/full), never write where
    the link points or into the pipe: neither is what the user meant, so the command says so.
    """
    try:
        mode = os.lstat(output).st_mode
    except OSError:
        return
    if stat.S_ISLNK(mode):
        raise ContractError(
            f"is a symbolic link (to {os.readlink(output)}); -o never replaces a link, even with --force "
            "(the write would put a file in its place, not write where it points): name the file itself",
            file=output,
        )
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        raise ContractError(
            f"is {kind_of(mode)}; -o only replaces a regular file, even with --force: name another file",
            file=output,
        )


def check_output_target(
    output: Path,
    *,
    force: bool,
    protocol: Path | None = None,
    inputs: Iterable[tuple[Path, str]] = (),
    may_replace: Collection[str] = (),
) -> None:
    """Raise a ``ContractError`` naming ``output`` and the rule when writing it would replace a
    file it must not; return when the write may go ahead. ``inputs`` are the files the command
    reads, each with what it is (``"one of the shards"``); ``protocol`` the directory it reads."""
    refuse_writes_into_demo(output, "writing this file")
    refuse_special_output(output)
    if output.is_dir():
        raise ContractError("is a directory; -o names the file to write", file=output)
    for path, what in inputs:
        if os.path.lexists(output) and path.exists() and same_file(output, path):
            raise ContractError(
                f"is {what} this command reads; it is never written over, even with --force: write to another file",
                file=output,
            )
    role = protocol_role(output, protocol) if protocol is not None else None
    if role is not None and role not in may_replace:
        raise ContractError(
            f"is {ROLE_WORDS[role].format(protocol=protocol)}; a protocol's inputs are never written over "
            "by this command, even with --force: write to another file",
            file=output,
        )
    if force or not os.path.lexists(output):
        return
    if role == QRELS:
        raise ContractError(
            f"exists and holds the labels of protocol {protocol}; pass --force to replace them", file=output
        )
    raise ContractError("exists; pass --force to replace it", file=output)
