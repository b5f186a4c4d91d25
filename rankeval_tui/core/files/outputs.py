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
- nothing is written into the bundled demo;
- a file a session is still writing (an open judging or adjudication journal beside it) is never
  replaced, ``--force`` or not: the session writes it when it ends, over whatever was written
  meanwhile. Only ``adjudicate`` resuming its own adjudication journal goes ahead.

The write itself stays atomic (``core.files.atomic``); this module only decides whether it may happen.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Iterable
from pathlib import Path

from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.files.demo import refuse_writes_into_demo
from rankeval_tui.core.files.journal_names import open_journals_of
from rankeval_tui.core.files.protocol_files import PROTOCOL_FILE, QRELS_FILE, RUN_SUFFIXES, RUNS_DIR
from rankeval_tui.core.files.runs import SIDECAR_SUFFIX, is_adapted_run, run_files
from rankeval_tui.core.files.safe_read import kind_of

CHUNKS_DIR = "chunks"

PROTOCOL_TOML = "protocol.toml"
QRELS = "qrels.toml"
RUN = "run"
ADAPTED_RUN = "adapted run"
CHUNK_FILE = "chunk file"
SIDECAR = "sidecar"
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
            return ADAPTED_RUN if is_adapted_run(entry.with_name(entry.name[: -len(SIDECAR_SUFFIX)])) else RUN
        return ADAPTED_RUN if is_adapted_run(entry) else RUN
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
    resumes: str | None = None,
    writes: str | None = None,
) -> None:
    """Raise a ``ContractError`` naming ``output`` and the rule when writing it would replace a
    file it must not; return when the write may go ahead. ``inputs`` are the files the command
    reads, each with what it is (``"one of the shards"``); ``protocol`` the directory it reads;
    ``resumes`` the kind of journal beside ``output`` the command itself resumes (``adjudication``);
    ``writes`` what the file is when it is a run (``RUN``) or an adapted run's ``SIDECAR``."""
    refuse_writes_into_demo(output, "writing this file")
    refuse_special_output(output)
    refuse_files_being_written(output, resumes)
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
    refuse_breaking_the_runs(output, writes)
    if force or not os.path.lexists(output):
        return
    if role == QRELS:
        raise ContractError(
            f"exists and holds the labels of protocol {protocol}; pass --force to replace them", file=output
        )
    raise ContractError("exists; pass --force to replace it", file=output)


SESSION_WORDS = {
    "judging": ("is being judged", "finish that judging or move its journal away first"),
    "adjudication": ("is being adjudicated", "finish that adjudication first (the same adjudicate command resumes it)"),
}


def refuse_files_being_written(output: Path, resumes: str | None = None) -> None:
    """Refuse ``output`` when a judging or adjudication session is writing it (its journal is
    open beside it), whatever ``--force`` says; ``resumes`` is the kind this command continues."""
    for kind, journal in open_journals_of(output).items():
        if kind != resumes:
            doing, advice = SESSION_WORDS[kind]
            raise ContractError(
                f"{doing} ({journal} is open): {advice}; it writes this file when it ends, over whatever is written now",
                file=output,
            )


def refuse_breaking_the_runs(output: Path, writes: str | None) -> None:
    """Refuse an ``-o`` file that a protocol would then read wrongly: a ``*.provenance.json`` name
    that is no sidecar being written (read as an adapted run's provenance), a file that is no run
    in a protocol's ``runs/`` with a run extension (read as a run), or a run whose name (its stem)
    another run in that ``runs/`` already has (``score`` refuses two runs with one name, while
    the write itself succeeded)."""
    entry = entry_of(output)
    if entry.name.endswith(SIDECAR_SUFFIX) and writes != SIDECAR:
        advice = "name the run itself; its sidecar is written beside it" if writes == RUN else "write to another name"
        raise ContractError(
            f"is named like the provenance sidecar of an adapted run (*{SIDECAR_SUFFIX}), which is read as one; {advice}",
            file=output,
        )
    protocol = entry.parent.parent
    in_runs = entry.parent.name == RUNS_DIR and (protocol / PROTOCOL_FILE).is_file()
    if not in_runs or entry.suffix not in RUN_SUFFIXES or writes == SIDECAR:
        return
    if writes != RUN:
        raise ContractError(
            f"is in the {RUNS_DIR}/ of protocol {protocol}, where every {', '.join(RUN_SUFFIXES)} file is read "
            "as a run; write this file elsewhere",
            file=output,
        )
    for other in run_files(protocol):
        if other.stem == entry.stem and not same_file(other, output):
            raise ContractError(
                f"would be a second run named {quote(entry.stem)} in protocol {protocol} (beside {other}); "
                "score refuses two runs with one name: choose another file name",
                file=output,
            )
