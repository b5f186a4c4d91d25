"""An assigned annotator's labels file kept up to date as she judges: each recorded change is
written, whole, by a thread of its own, so a colleague, ``status`` or ``merge`` can read her
labels so far without waiting for her to quit.

Why a thread: turning the labels into TOML and writing them costs time in proportion to the
labels, and the key that recorded the judgment must not wait for it. The journal, fsynced before
the screen shows a judgment, stays what makes it survive a kill; the file is a copy of it.

Why it is safe to read at any moment:
- every write is atomic (``atomic_write_text``): the file is the old one or the new one, never
  half of each;
- each snapshot is numbered when it is taken (``LabelsSnapshot.taken``) and one lock orders the
  writes: a snapshot older than the one on disk is never written, so the file never goes back
  to an earlier state, and what its provenance claims (``pace.judgments``) is the state its
  labels are, both taken at once;
- only the newest snapshot waiting is written: keys faster than the disk skip the states
  between, never the last one.

This module never imports textual.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import QrelsFile


@dataclass
class LabelsSnapshot(QrelsFile):
    """A ``QrelsFile`` numbered in the order the session took it (1, 2, ...)."""

    taken: int = 0


class FollowingWriter:
    """The one writer of a labels file: ``write`` now (ordered), or ``submit`` to a thread that
    writes the newest snapshot handed to it. ``close`` waits for a write under way and stops the
    thread; ``write`` still works after it (the session's last write, under its lock)."""

    def __init__(self, write: Callable[[QrelsFile], None]) -> None:
        self._write = write
        self._order = threading.Lock()  # held during a write: one at a time, in order
        self._written = 0  # ``taken`` of the snapshot on disk
        self._state = threading.Condition()  # guards the fields below
        self._pending: LabelsSnapshot | None = None
        self._writing = False
        self._closed = False
        self._thread: threading.Thread | None = None
        self.failure: ContractError | OSError | None = None
        """Why the last write from the thread failed (the file stays the previous whole one)."""

    def write(self, snapshot: LabelsSnapshot) -> bool:
        """Write ``snapshot`` unless a newer one is on disk already (then False). Errors propagate."""
        with self._order:
            if snapshot.taken <= self._written:
                return False
            self._write(snapshot)
            self._written = snapshot.taken
            return True

    def submit(self, snapshot: LabelsSnapshot) -> None:
        """Have ``snapshot`` written soon by the thread (replacing an older one still waiting)."""
        with self._state:
            if self._closed:
                return
            if self._pending is None or self._pending.taken < snapshot.taken:
                self._pending = snapshot
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="labels-file", daemon=True)
                self._thread.start()
            self._state.notify_all()

    def _run(self) -> None:
        while True:
            with self._state:
                while self._pending is None and not self._closed:
                    self._state.wait()
                snapshot, self._pending = self._pending, None
                if snapshot is None:
                    return  # closed, nothing left waiting
                self._writing = True
            failure: ContractError | OSError | None = None
            try:
                self.write(snapshot)
            except (ContractError, OSError) as error:
                failure = error
            with self._state:
                self._writing = False
                self.failure = failure
                self._state.notify_all()

    def flush(self) -> None:
        """Wait until every snapshot submitted is written (or has failed: ``failure``)."""
        with self._state:
            while self._pending is not None or self._writing:
                self._state.wait()

    def close(self) -> None:
        """Write what is waiting, then stop the thread; later ``submit`` calls do nothing."""
        with self._state:
            self._closed = True
            self._state.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()
