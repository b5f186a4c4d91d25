"""Run a piece of work in a forked child that SIGKILLs itself at its Nth file-system operation.

The seeded kill suite (``test_kill_suite.py``) needs kills *between* the writes of a command, not
only during Python's start-up, where a kill after a random delay mostly lands. So the child
counts the operations that change files (``os.write``, ``fsync``, ``replace``, ``rename``,
``link``, ``unlink``, ``mkdir``, ``rmdir``) and kills itself with SIGKILL, as the OOM killer or a
power cut would, right before the Nth one: nothing of the command's own clean-up runs.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

COUNTED = ("write", "fsync", "replace", "rename", "link", "unlink", "mkdir", "rmdir")


def _count_operations(kill_at: int | None, counter: list[int]) -> None:
    for name in COUNTED:
        real = getattr(os, name)

        def counted(*args: object, _real: Callable[..., object] = real, **kwargs: object) -> object:
            counter[0] += 1
            if kill_at is not None and counter[0] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return _real(*args, **kwargs)

        setattr(os, name, counted)


def run_in_child(work: Callable[[], None], kill_at: int | None = None) -> tuple[bool, int]:
    """(killed, operations counted) of ``work`` in a forked child killed before operation
    ``kill_at`` (None: never killed). A child that raises exits 3: the work itself failed."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 0
        counter = [0]
        try:
            os.close(read_end)
            _count_operations(kill_at, counter)
            work()
        except BaseException:  # noqa: BLE001 - reported through the exit code
            code = 3
        data = str(counter[0]).encode()
        while data:  # the counted os.write is the real one underneath; counting it here is harmless
            data = data[os.write(write_end, data) :]
        os._exit(code)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 64):
        chunks.append(chunk)
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3:
        raise AssertionError("the work failed in the child (not a kill)")
    count = int(b"".join(chunks) or b"0")
    return os.WIFSIGNALED(status), count


def kill_points(total: int, seed: int, most: int) -> list[int]:
    """Up to ``most`` operation numbers in 1..total, drawn with ``seed`` (the last one always):
    the same points on every run, so a failure is reproducible."""
    import random

    points = set(random.Random(seed).sample(range(1, total + 1), min(most, total)))
    return sorted(points | {total})
