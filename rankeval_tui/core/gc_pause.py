"""Pause Python's cyclic garbage collector while a session's inputs are built in bulk.

Why: loading 10,000 queries x 200 documents x 3 runs builds some ten million dicts, lists and
tuples that live as long as the session and hold no reference cycles (reference counting frees
them). The cyclic collector does not know that: each time the number of surviving containers
grows by a quarter it walks all of them again, so a load triggers dozens of full walks over a
growing heap, and inside the app (whose widgets are in that heap too) more than on its own;
paused, the load takes as long in both (``benchmarks/bench_scoring.py`` measures the load).

Counted, so overlapping pauses from two threads (a reload while the CLI scores, tests) resume
collection only when the last one ends, and never re-enable a collector the caller had disabled.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def paused_gc(*, freeze: bool = False) -> Iterator[None]:
    """Run the block with automatic cyclic collection off; reference counting still frees memory.

    ``freeze``: when the outermost pause ends, move every object alive to the collector's
    permanent generation (``gc.freeze``), so later collections never walk the session just
    built. Why: after a 10,000-query load, each k change (some 300,000 new containers) set off
    several full collections over the loaded heap; frozen, those walk
    only what was made since. The cost: cyclic garbage alive at that moment is not collected
    until the next such pause begins, which unfreezes first (reference counting frees the rest,
    which is all a session holds). Only the outermost pause freezes and unfreezes."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
            if freeze:
                gc.unfreeze()  # what the last load froze may be garbage by now
        _depth += 1
        outermost = _depth == 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                if freeze and outermost:
                    gc.freeze()
                if _was_enabled:
                    gc.enable()
