"""Two judges on one qrels file: the second is refused; a stale lock is detected and cleared safely
(automatically when its process is provably gone, with --break-lock when only the user can tell).

Real processes throughout: a holder process opens a ``JudgingSession`` (taking ``qrels.toml.lock``)
and keeps it open while the test starts the real ``rankeval-tui judge`` against the same file.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import load_definition
from tests.tui.test_judge_crash import make_protocol

HOLDER = r"""
import sys, time
from pathlib import Path
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.annotation.judging import JudgingSession
protocol, count, break_lock = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
go = Path(sys.argv[4]) if len(sys.argv) > 4 else None
while go is not None and not go.exists():
    time.sleep(0.001)
try:
    session = JudgingSession.open(load_definition(protocol), protocol / "qrels.toml", break_lock=break_lock)
except Exception as error:
    print("refused", type(error).__name__, str(error).replace("\n", " "), flush=True)
    sys.exit(3)
for _ in range(count):
    q, d = session.cursor.current
    session.label(1)
print("holding", flush=True)
sys.stdin.readline()  # hold the lock until the test closes stdin
session.close()
print("released", flush=True)
"""


def start_holder(
    protocol: Path, count: int = 3, *, break_lock: bool = False, go: Path | None = None, wait: bool = True
) -> subprocess.Popen:
    args = [sys.executable, "-c", HOLDER, str(protocol), str(count), "1" if break_lock else "0"]
    if go is not None:
        args.append(str(go))
    holder = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if wait:
        assert holder.stdout.readline().strip() == "holding", holder.stderr.read()
    return holder


def judge_cli(protocol: Path, *extra: str) -> subprocess.CompletedProcess:
    """The real judge command; a refused start never opens the screen, so stdin is not needed."""
    return subprocess.run(
        [sys.executable, "-m", "rankeval_tui", "judge", str(protocol), *extra],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def one_error_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert result.stdout == "" and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


@pytest.fixture()
def protocol(tmp_path: Path) -> Path:
    return make_protocol(tmp_path / "p", queries=3, documents=4)


def test_second_judge_is_refused_and_the_first_keeps_working(protocol: Path) -> None:
    holder = start_holder(protocol, count=3)
    journal, lock = protocol / "qrels.toml.journal", protocol / "qrels.toml.lock"
    before = journal.read_bytes(), lock.read_bytes()
    try:
        line = one_error_line(judge_cli(protocol))
        assert f"pid {holder.pid}" in line and "refusing a second writer" in line and str(lock) in line
        one_error_line(judge_cli(protocol, "--break-lock"))  # never breaks a live owner's lock
        with pytest.raises(ContractError, match="locked"):
            JudgingSession.open(load_definition(protocol), protocol / "qrels.toml", break_lock=True)
        assert (journal.read_bytes(), lock.read_bytes()) == before  # refused attempts touched nothing
    finally:
        holder.stdin.close()
        assert holder.stdout.readline().strip() == "released"
        holder.wait(timeout=30)
    assert not lock.exists()
    session = JudgingSession.open(load_definition(protocol), protocol / "qrels.toml")
    assert session.marks.judged == 3
    session.close()


@pytest.mark.parametrize("break_lock", [False, True], ids=["plain", "break-lock"])
def test_simultaneous_starts_give_exactly_one_writer(tmp_path: Path, break_lock: bool) -> None:
    """Six processes released together, five times; with --break-lock also over a stale lock."""
    for attempt in range(5):
        protocol = make_protocol(tmp_path / f"p{attempt}", queries=2, documents=2)
        if break_lock:
            (protocol / "qrels.toml.lock").write_text(json.dumps({"pid": dead_pid(), "host": socket.gethostname()}))
        go = tmp_path / f"go{attempt}"
        holders = [start_holder(protocol, count=0, break_lock=break_lock, go=go, wait=False) for _ in range(6)]
        time.sleep(0.5)  # every process imported and spinning on the go file
        go.touch()
        outcomes = [h.stdout.readline().split(" ")[0].strip() for h in holders]
        for h in holders:
            if h.poll() is None:
                h.stdin.close()
            h.wait(timeout=30)
        assert outcomes.count("holding") == 1, (attempt, outcomes)
        assert outcomes.count("refused") == 5, (attempt, outcomes)


def dead_pid() -> int:
    """A pid that is certainly not running: a child that has exited and been reaped."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_stale_lock_of_a_killed_judge_is_recovered_on_restart_with_a_notice(protocol: Path) -> None:
    """kill -9 then judge again must simply resume (issue 3): the lock's process is provably gone."""
    holder = start_holder(protocol, count=5)
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    lock = protocol / "qrels.toml.lock"
    assert lock.exists() and json.loads(lock.read_text())["pid"] == holder.pid
    session = JudgingSession.open(load_definition(protocol), protocol / "qrels.toml")
    try:
        assert session.marks.judged == 5  # nothing the killed judge recorded is lost by taking over its lock
        assert json.loads(lock.read_text())["pid"] == os.getpid()
        assert any(f"recovered the lock of pid {holder.pid}" in w for w in session.warnings)
    finally:
        session.close()
    assert not lock.exists()


def test_lock_of_a_reused_pid_is_recovered(protocol: Path) -> None:
    """The pid runs again, but as another process (another start time): the judge is gone."""
    (protocol / "qrels.toml.lock").write_text(
        json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": 1})
    )
    session = JudgingSession.open(load_definition(protocol), protocol / "qrels.toml")
    try:
        assert any("recovered the lock" in w for w in session.warnings)
    finally:
        session.close()


@pytest.mark.parametrize("content", ["other-host", "garbage"])
def test_lock_we_cannot_judge_is_refused_until_broken(protocol: Path, content: str) -> None:
    """An empty lock is not here: it is recovered (tests/core/test_lock.py)."""
    lock = protocol / "qrels.toml.lock"
    lock.write_text(
        {"other-host": json.dumps({"pid": 1, "host": "elsewhere.invalid"}), "garbage": "\x00\xffnot json"}[content],
        errors="surrogateescape",
    )
    line = one_error_line(judge_cli(protocol))
    assert "--break-lock" in line and str(lock) in line
    assert not (protocol / "qrels.toml.journal").exists()
    session = JudgingSession.open(load_definition(protocol), protocol / "qrels.toml", break_lock=True)
    session.close()


def test_a_live_unrelated_pid_in_the_lock_is_treated_as_a_live_judge(protocol: Path) -> None:
    """A lock without a start time (older writer) naming a live pid cannot tell a judge from another
    process with its old pid, so it errs on the safe side and refuses, even with --break-lock."""
    (protocol / "qrels.toml.lock").write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname()}))
    line = one_error_line(judge_cli(protocol, "--break-lock"))
    assert f"pid {os.getpid()}" in line and "refusing a second writer" in line
