"""The writer lock: never empty or half-written, recovered from dead and zombie owners."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rankeval_tui.core.annotation.lock import Lock, pid_alive, process_state
from tests.cli.helpers import REPO

TAKER = r"""
import sys
from pathlib import Path
from rankeval_tui.core.annotation.lock import Lock

lock = Lock(Path(sys.argv[1]))
print("ready", flush=True)
while True:  # take and give back at once: a kill lands anywhere in acquire, or while held
    lock.acquire()
    lock.release()
"""

HOLDER = r"""
import sys, time
from pathlib import Path
from rankeval_tui.core.annotation.lock import Lock

Lock(Path(sys.argv[1])).acquire()
print("holding", flush=True)
time.sleep(600)
"""

KILLS = 60
"""SIGKILLs at random moments of acquire/release: enough that some land between the creation
of a lock and its contents (the window in which the old O_EXCL-then-write lock was empty)."""


def python(script: str, *args: str | Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def test_a_kill_at_any_moment_never_leaves_an_empty_or_partial_lock(tmp_path: Path) -> None:
    path = tmp_path / "qrels.toml.lock"
    rng = random.Random(20260315)
    left = 0
    for _ in range(KILLS):
        taker = python(TAKER, path)
        assert taker.stdout is not None and taker.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0, 0.03))
        taker.send_signal(signal.SIGKILL)
        taker.wait()
        held = path.exists()
        if held:
            left += 1
            owner = json.loads(path.read_bytes())  # complete JSON, never empty, never half
            assert owner["pid"] == taker.pid and owner["host"] == socket.gethostname()
        lock = Lock(path)
        lock.acquire()  # the next start works: a dead owner's lock is recovered, no --break-lock
        assert (lock.recovered is not None) == held
        assert held is False or f"pid {taker.pid}" in str(lock.recovered)
        lock.release()
        assert not path.exists()
        assert not list(tmp_path.glob(".qrels.toml.lock.*.tmp"))  # staged leftovers are cleaned up
    # How many kills land while the lock is held depends on the machine's load (often none:
    # the lock exists only between link and unlink); recovery is pinned by the zombie test and
    # tests/tui/test_judge_concurrency.py. The previous O_EXCL-then-write lock fails this test.
    print(f"{left} of {KILLS} kills left a (complete) lock behind")


def test_a_zombie_owner_is_recovered_with_the_usual_notice(tmp_path: Path) -> None:
    path = tmp_path / "qrels.toml.lock"
    holder = python(HOLDER, path)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        os.kill(holder.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while process_state(holder.pid) != "Z" and time.monotonic() < deadline:  # not reaped: a zombie
            time.sleep(0.01)
        if process_state(holder.pid) != "Z":
            pytest.skip("no /proc process states here")
        os.kill(holder.pid, 0)  # succeeds for a zombie: why the state must be read
        assert not pid_alive(holder.pid)
        lock = Lock(path)
        lock.acquire()
        assert lock.recovered is not None and f"pid {holder.pid}" in lock.recovered
        lock.release()
    finally:
        holder.kill()
        holder.wait()


def test_an_empty_lock_left_by_an_older_version_is_recovered(tmp_path: Path) -> None:
    path = tmp_path / "qrels.toml.lock"
    path.write_bytes(b"")
    lock = Lock(path)
    lock.acquire()
    try:
        assert lock.recovered is not None and "empty lock file" in lock.recovered
        assert json.loads(path.read_bytes())["pid"] == os.getpid()
    finally:
        lock.release()


def test_a_live_owner_is_still_refused(tmp_path: Path) -> None:
    from rankeval_tui.core.errors import ContractError

    path = tmp_path / "qrels.toml.lock"
    holder = python(HOLDER, path)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        with pytest.raises(ContractError, match=f"pid {holder.pid} .* refusing a second writer"):
            Lock(path).acquire(break_lock=True)
        assert json.loads(path.read_bytes())["pid"] == holder.pid
    finally:
        holder.kill()
        holder.wait()
