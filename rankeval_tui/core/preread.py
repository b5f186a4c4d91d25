"""What the command line reads before the app starts, handed to the scoring screen's first load:
the protocol and qrels (read to refuse a bad protocol with exit 2 before a screen opens, so
not read twice), and the run files, shared between a forked child and this process (see
``read_here``): the second core's share of opening the scoring screen.

Why: at 10,000 queries x 3 runs of depth 100, reading the runs (``json.loads`` allocating a
million strings a run, then the ID checks) is about as long as reading the protocol and qrels,
and waits for nothing else; a compiled JSON parser measured no faster (the allocation is the
cost). A child forked before the app starts its threads reads them at the same time and sends
them back with each document ID as one shared string, which pickle writes once and the parent
reads back in a fraction of the time a copy per entry takes (``benchmarks/bench_score_opening.py``).

Nothing is lost or guessed: the child runs ``read_runs``, the same function the session would
run (so a rejected run carries the same one-line reason), and when the child fails in any way
the parent reads the child's files itself.

Only the app forks it (its first screen waits on the runs; ``score`` reads in one process, where
CPU time, not wall time, is what a CI step pays). ``RANKEVAL_TUI_SERIAL=1`` keeps the app's reads
in the one process too.
"""

from __future__ import annotations

import gc
import os
import pickle
import re
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain, islice
from pathlib import Path

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.files import PROTOCOL_FILE
from rankeval_tui.core.files.protocol_files import QrelsFile
from rankeval_tui.core.files.safe_read import read_input_bytes
from rankeval_tui.core.session_runs import LoadedRun, RunSpec, read_runs

SERIAL_VARIABLE = "RANKEVAL_TUI_SERIAL"
"""Set to ``1``: every file read in the process that needs it, no child forked."""


def for_the_parent(loaded: LoadedRun) -> LoadedRun:
    """``loaded`` as the child sends it: every document ID of its rankings one shared (interned)
    string, so pickle writes each ID once and a reference per entry, not a million copies; and
    what ``check_run`` can check without the protocol checked here (``Run.distinct_str_entries``:
    ``sys.intern`` takes exact ``str`` only, so a ranking it interned whole is of strings).
    A run whose reader checked that already and whose IDs do not repeat (``ids_repeat``) goes
    as it is: a pooled run's million IDs, each about once, cost the child time to intern and
    set-check, and the parent more to unpickle, while sharing nothing."""
    if loaded.run is None:
        return loaded
    checked = loaded.run.distinct_str_entries
    if checked and not ids_repeat(loaded.run.rankings):
        return loaded
    rankings: dict[str, list[str]] = {}
    distinct = True
    for query, ranking in loaded.run.rankings.items():
        try:
            shared = list(map(sys.intern, ranking)) if type(ranking) is list else None
        except TypeError:  # not a str: check_run gives the reason
            shared = None
        if shared is None:
            return replace(loaded, run=replace(loaded.run, distinct_str_entries=False))
        rankings[query] = shared
        distinct = distinct and (checked or len(set(shared)) == len(shared))
    return replace(loaded, run=replace(loaded.run, rankings=rankings, distinct_str_entries=distinct))


REPEAT_SAMPLE = 20_000
"""Entries ``ids_repeat`` looks at: a few milliseconds, and hundreds of queries of a usual run."""


def ids_repeat(rankings: Mapping[str, Sequence[str]]) -> bool:
    """Whether a run's document IDs (checked strings) repeat across its queries, judged on its
    first entries: at least every other one seen before (a corpus of hundreds ranked for 10,000
    queries), where one string per ID makes the pickle a fraction of its size."""
    sample = list(islice(chain.from_iterable(rankings.values()), REPEAT_SAMPLE))
    return 2 * len(set(sample)) <= len(sample)


def read_here(specs: Sequence[RunSpec]) -> int:
    """How many of ``specs`` (the first ones) this process reads while the child reads the rest.

    Why share: the child is on the path to the first rows. A run costs the child more than it
    costs this process (read, interned, pickled against read), and this process first reads the
    protocol and qrels (about two runs' worth), so the child keeping every run made the screen
    wait for the third one. (n - 1) // 2 balances the two within a
    run for any n: none of 1 or 2, 1 of 3 or 4, 2 of 5 or 6."""
    return (len(specs) - 1) // 2


CLOSED = -1
"""``RunPrefetch.pipe`` once its descriptor is closed: a descriptor number closed twice may by
then name another file of this process."""


@dataclass
class RunPrefetch:
    """A child reading ``specs[here:]`` while this process reads ``specs[:here]``; ``loaded()``
    returns all of them, once."""

    specs: tuple[RunSpec, ...]
    pid: int
    pipe: int
    """The read end of the pipe the child writes the pickled runs to."""
    here: int = 0
    by_score: bool = False
    _result: tuple[LoadedRun, ...] | None = field(default=None, repr=False)
    _from_child: tuple[LoadedRun, ...] | None = field(default=None, repr=False)

    def loaded(self) -> tuple[LoadedRun, ...]:
        """The runs of ``specs``: the first ``here`` read now, the others from the child, or
        read here too when the child failed (died, was killed, sent something else)."""
        if self._result is None:
            self._result = read_runs(self.specs, self._child_run, by_score=self.by_score)
            self._reap()
        return self._result

    def _child_run(self, index: int) -> LoadedRun | None:
        if index < self.here:
            return None
        if self._from_child is None:
            self._from_child = self._receive()
        runs = self._from_child
        return runs[index - self.here] if len(runs) == len(self.specs) - self.here else None

    def _receive(self) -> tuple[LoadedRun, ...]:
        """What the child sent, or () when it failed: then this process reads those files."""
        pipe_fd, self.pipe = self.pipe, CLOSED  # the file object owns it from here, closed once
        try:
            with os.fdopen(pipe_fd, "rb") as pipe:
                result = pickle.loads(pipe.read())
        except Exception:  # noqa: BLE001  # any failure of the child: read the files here
            return ()
        valid = isinstance(result, tuple) and all(isinstance(entry, LoadedRun) for entry in result)
        return result if valid else ()

    def cancel(self) -> None:
        """Stop the child (its runs are not wanted: the protocol was refused, or other runs)."""
        if self._result is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            if self.pipe != CLOSED:
                os.close(self.pipe)
                self.pipe = CLOSED
            self._reap()
            self._result = ()

    def _reap(self) -> None:
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


HEADER_BYTES = 1 << 16
"""How much of protocol.toml ``declared_by_score`` reads: its [protocol] table, in the layout
init writes (the table first), fits many times over."""
SCORE_ORDER_LINE = re.compile(rb'^tie_order *= *"score" *\r?$', re.MULTILINE)


def declared_by_score(directory: Path) -> bool:
    """Whether protocol.toml's [protocol] table declares trec_eval's tie order, from its first
    bytes. Only a hint for reading runs ahead, before the protocol is read in full: that read
    decides, and runs read ahead in the other order are read again (a file in another layout
    costs that, never a wrong order)."""
    try:
        head = read_input_bytes(directory / PROTOCOL_FILE, prefix=HEADER_BYTES)
    except ContractError:
        return False  # the full read that follows names the problem in one line
    protocol_table = head.split(b"\n[", 1)[0]
    return SCORE_ORDER_LINE.search(protocol_table) is not None


def start_run_prefetch(specs: tuple[RunSpec, ...], by_score: bool = False) -> RunPrefetch | None:
    """Fork a child that reads ``specs`` but the first ``read_here(specs)``; None (read them
    in-process later) with nothing to read, off Linux (macOS may abort a forked child that
    touches system frameworks, which is why multiprocessing spawns there; Windows has no fork),
    while this process runs other threads (a fork copies only the calling thread, and a lock
    another thread holds would stay locked in the child), or with ``RANKEVAL_TUI_SERIAL=1``."""
    if (
        not specs
        or not sys.platform.startswith("linux")
        or threading.active_count() > 1
        or os.environ.get(SERIAL_VARIABLE) == "1"
    ):
        return None
    here = read_here(specs)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: read, send, and leave without running the parent's cleanup
        os.close(read_end)
        gc.disable()  # it builds millions of lasting objects, then exits: nothing to collect
        code = 1
        try:
            # Pickled whole first: written as it is pickled, the child would wait on a full pipe
            # until the parent reads, and the pickling would be on the parent's clock.
            runs = tuple(map(for_the_parent, read_runs(specs[here:], by_score=by_score)))
            data = pickle.dumps(runs, protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    return RunPrefetch(specs, pid, read_end, here, by_score)


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

    def runs_for(self, specs: tuple[RunSpec, ...], by_score: bool = False) -> tuple[LoadedRun, ...]:
        """The prefetched runs when they are the ones asked for, read in that order (``by_score``:
        trec_eval's, the protocol's tie order), else ``specs`` read here."""
        if self.runs is not None and self.runs.specs == specs and self.runs.by_score == by_score:
            return self.runs.loaded()
        if self.runs is not None:
            self.runs.cancel()
        return read_runs(specs, by_score=by_score)
