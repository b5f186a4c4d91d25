"""Where ``init`` writes before the protocol appears, and what a killed ``init`` left behind.

A new protocol is written into a hidden staging directory and only then appears under its name,
complete. Two cases:

- the target does not exist: the staging directory ``.NAME.init-XXXX`` beside it is renamed
  into place (one atomic rename);
- the target is an existing empty directory (``init .``, or a folder made beforehand): it is
  written *into*, never replaced (replacing it would leave a shell inside it in a deleted
  directory). The staging directory ``.init-XXXX`` inside it holds the files; ``runs/`` and
  ``qrels.toml`` are moved out first and ``protocol.toml`` last, so a protocol is there only
  when complete. The names being moved are listed in the staging directory first.

The staging directory is held with ``flock`` for the whole write (the kernel drops it when the
process dies), so a later ``init`` of the same target tells a live write from the leftover of a
killed one and removes the leftover (and the entries a killed move had put in place without
``protocol.toml``). Error messages name the target, never the staging path.
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files.atomic import current_umask, fsync_directory
from rankeval_tui.core.files.protocol_files import PROTOCOL_FILE, QRELS_FILE, RUNS_DIR

MOVED_IN_ORDER = (RUNS_DIR, QRELS_FILE, PROTOCOL_FILE)
"""``protocol.toml`` last: until it is in place, the directory holds no protocol."""
MANIFEST = ".moving"


def staging_dirs(target: Path) -> list[Path]:
    """Staging directories of ``target``: beside it (new target) and inside it (existing one)."""
    beside = target.parent.glob(f".{glob.escape(target.name)}.init-*")
    inside = target.glob(".init-*") if target.is_dir() and not target.is_symlink() else iter(())
    return [path for path in (*beside, *inside) if path.is_dir() and not path.is_symlink()]


def clean_stale_staging(target: Path) -> list[str]:
    """Remove what killed ``init`` runs of ``target`` left (a staging directory nobody holds, and
    entries a killed move put in place without ``protocol.toml``); return what was removed, by
    name, for a notice. A staging directory still held is a live ``init``: left alone."""
    removed = []
    for staging in staging_dirs(target):
        if held_by_a_live_process(staging):
            continue
        if staging.parent == target and not (target / PROTOCOL_FILE).exists():
            for name in moved_names(staging):
                remove_tree(target / name)
                removed.append(name)
        remove_tree(staging)
        removed.append(staging.name)
    return removed


def moved_names(staging: Path) -> list[str]:
    try:
        listed = (staging / MANIFEST).read_text(encoding="utf-8").split()
    except OSError:
        return []
    return [name for name in listed if name in MOVED_IN_ORDER]


def remove_tree(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def held_by_a_live_process(staging: Path) -> bool:
    """Whether an ``init`` still writes ``staging`` (it holds its flock). Unknown (no flock here,
    unreadable) counts as held: a live write is never removed."""
    try:
        import fcntl

        fd = os.open(staging, os.O_RDONLY)
    except (ImportError, OSError):
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # also releases the flock just taken
    return False


@contextmanager
def held(directory: Path) -> Iterator[None]:
    """Hold ``directory``'s flock while writing it (dropped by the kernel if the process dies)."""
    try:
        import fcntl

        fd = os.open(directory, os.O_RDONLY)
    except (ImportError, OSError):
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)


def write_staged(target: Path, fill: Callable[[Path], None]) -> None:
    """Create ``target`` (or fill an existing empty directory) with what ``fill(staging)`` writes,
    so the protocol appears only complete; every failure removes the staging directory and is
    reported on the target."""
    existing = target.is_dir()
    parent = target if existing else target.parent
    prefix = ".init-" if existing else f".{target.name}.init-"
    try:
        staging = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    except OSError as error:
        raise ContractError(f"cannot write the protocol: {error.strerror}; nothing was written", file=target) from None
    try:
        with held(staging):
            staging.chmod(0o777 & ~current_umask())  # mkdtemp's 0700 would hide the protocol from the team
            fill(staging)
            fsync_directory(staging)
            if existing:
                move_into(staging, target)
            else:
                os.rename(staging, target)
    except OSError as error:
        undo(staging, target, existing)
        raise ContractError(f"cannot write the protocol: {error.strerror}; nothing was written", file=target) from None
    except BaseException:
        undo(staging, target, existing)
        raise
    if existing:
        remove_tree(staging)
    fsync_directory(target.parent)


def move_into(staging: Path, target: Path) -> None:
    names = [name for name in MOVED_IN_ORDER if (staging / name).exists()]
    (staging / MANIFEST).write_text("\n".join(names) + "\n", encoding="utf-8")
    fsync_directory(staging)
    for name in names:
        os.rename(staging / name, target / name)
    fsync_directory(target)


def undo(staging: Path, target: Path, existing: bool) -> None:
    if existing and not (target / PROTOCOL_FILE).exists():
        for name in moved_names(staging):
            remove_tree(target / name)
    remove_tree(staging)
