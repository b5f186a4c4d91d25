"""What the command line reads before the app starts, handed to the scoring screen's first load:
the protocol and qrels (read to refuse a bad protocol with exit 2 before a screen opens, so
not read twice), and the run files, read by a forked child meanwhile: the second core's share
of opening the scoring screen.

Why: at 10,000 queries x 3 runs of depth 100, reading the runs (``json.loads`` allocating a
million strings a run, then the ID checks) is ~0.4 s that waits for nothing else, beside ~0.45 s
for the protocol and qrels; a compiled JSON parser measured no faster (the allocation is the
cost). A child forked before the app starts its threads reads them at the same time and sends
them back with each document ID as one shared string, which pickle writes once and the parent
reads back in ~10 ms a run instead of ~110 ms.

Nothing is lost or guessed: the child runs ``read_runs``, the same function the session would
run (so a rejected run carries the same one-line reason), and when the child fails in any way
the parent reads the files itself.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
from dataclasses import dataclass, field, replace

from rankeval_tui.core.evaluation.evaluate import has_distinct_str_entries
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.files.protocol_files import QrelsFile
from rankeval_tui.core.session_runs import LoadedRun, RunSpec, read_runs


def for_the_parent(loaded: LoadedRun) -> LoadedRun:
    """``loaded`` as the child sends it: every document ID of its rankings one shared (interned)
    string, so pickle writes each ID once and a reference per entry, not a million copies; and
    what ``check_run`` can check without the protocol checked here (``Run.distinct_str_entries``)."""
    if loaded.run is None:
        return loaded
    rankings = {query: list(map(sys.intern, ranking)) for query, ranking in loaded.run.rankings.items()}
    run = replace(loaded.run, rankings=rankings, distinct_str_entries=has_distinct_str_entries(rankings))
    return replace(loaded, run=run)


@dataclass
class RunPrefetch:
    """A child reading ``specs``; ``loaded()`` waits for its runs, once."""

    specs: tuple[RunSpec, ...]
    pid: int
    pipe: int
    """The read end of the pipe the child writes the pickled runs to."""
    _result: tuple[LoadedRun, ...] | None = field(default=None, repr=False)

    def loaded(self) -> tuple[LoadedRun, ...]:
        """The child's runs, or the files read here when the child failed (died, was killed,
        sent something else)."""
        if self._result is None:
            try:
                with os.fdopen(self.pipe, "rb") as pipe:
                    result = pickle.loads(pipe.read())
                valid = isinstance(result, tuple) and all(isinstance(entry, LoadedRun) for entry in result)
            except Exception:  # noqa: BLE001  # any failure of the child: read the files here
                valid = False
            self._reap()
            self._result = result if valid else read_runs(self.specs)
        return self._result

    def cancel(self) -> None:
        """Stop the child (its runs are not wanted: the protocol was refused, or other runs)."""
        if self._result is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.close(self.pipe)
            self._reap()
            self._result = ()

    def _reap(self) -> None:
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def start_run_prefetch(specs: tuple[RunSpec, ...]) -> RunPrefetch | None:
    """Fork a child that reads ``specs``; None (read them in-process later) with nothing to
    read, off Linux (macOS may abort a forked child that touches system frameworks, which is
    why multiprocessing spawns there; Windows has no fork), or while this process runs other
    threads: a fork copies only the calling thread, and a lock another thread holds would stay
    locked in the child."""
    if not specs or not sys.platform.startswith("linux") or threading.active_count() > 1:
        return None
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: read, send, and leave without running the parent's cleanup
        os.close(read_end)
        code = 1
        try:
            # Pickled whole first: written as it is pickled, the child would wait on a full pipe
            # until the parent reads, and the pickling would be on the parent's clock.
            data = pickle.dumps(tuple(map(for_the_parent, read_runs(specs))), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    return RunPrefetch(specs, pid, read_end)


@dataclass(frozen=True)
class Preread:
    """The files the command line read for the app: the protocol as written (no ``--k`` or
    ``--split``) with its qrels, and the runs being read (None: read them when needed)."""

    protocol: Protocol = field(repr=False)  # spelled out, a repr is every label (Textual prints reprs)
    qrels: QrelsFile = field(repr=False)
    runs: RunPrefetch | None = None

    def close(self) -> None:
        """Stop reading the runs: the app will not open."""
        if self.runs is not None:
            self.runs.cancel()

    def runs_for(self, specs: tuple[RunSpec, ...]) -> tuple[LoadedRun, ...]:
        """The prefetched runs when they are the ones asked for, else ``specs`` read here."""
        if self.runs is not None and self.runs.specs == specs:
            return self.runs.loaded()
        if self.runs is not None:
            self.runs.cancel()
        return read_runs(specs)
