"""``score`` reads its runs in a forked child while it reads the protocol (``cli.runs_ahead``,
the app's child of ``core.preread``): the same output, the same errors in the same order, a failed child read again, no child left.

The forking cases run the real CLI in a fresh interpreter (as users do: one thread), with the
size threshold at 0 so the demo's small runs are read by a child, and ``os.fork`` counted, so
each test shows the child was really used.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rankeval_tui.cli import runs_ahead
from rankeval_tui.core.files import run_files
from rankeval_tui.core.files.demo import BUNDLED_DEMO
from rankeval_tui.core.preread import SERIAL_VARIABLE, read_here, start_run_prefetch
from tests.cli.helpers import REPO, run_cli

SCRIPT = """
import os, sys
import rankeval_tui.cli.runs_ahead as ahead
import rankeval_tui.core.preread as preread
import rankeval_tui.core.session_runs as session_runs
ahead.MIN_BYTES = 0
ahead.runnable_tasks = lambda: 1  # a CPU idle, whatever the test run's other workers are doing
forks = []
real_fork = os.fork
def counted_fork():
    pid = real_fork()
    if pid:
        forks.append(pid)
    return pid
os.fork = counted_fork
reads_here = []
real_load_run = session_runs.load_run
def counted_load_run(*args, **kwargs):
    reads_here.append(os.getpid())  # in the child, appended to the child's copy only
    return real_load_run(*args, **kwargs)
session_runs.load_run = counted_load_run
if os.environ.get("CHILD_FAILS"):
    preread.for_the_parent = lambda loaded: os._exit(3)  # dies before writing anything
from rankeval_tui.cli import main
try:
    code = main(sys.argv[1:])
finally:
    try:
        os.waitpid(-1, os.WNOHANG)
        left = "a child left"
    except ChildProcessError:
        left = "no child left"
    with open(os.environ["FORKS_FILE"], "w") as out:
        out.write(f"{len(forks)} forked, {reads_here.count(os.getpid())} read here, {left}")
sys.exit(code)
"""


def forked_cli(tmp_path: Path, *args: str | Path, **env: str) -> tuple[subprocess.CompletedProcess, str]:
    """The CLI with every run read by a child; also what the script saw (forks, children left)."""
    forks_file = tmp_path / "forks.txt"
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "FORKS_FILE": str(forks_file), **env},
        timeout=120,
    )
    return result, forks_file.read_text()


def shared(directory: Path) -> int:
    """How many of a protocol's runs this process reads itself while the child reads the rest."""
    return read_here([(None, path) for path in run_files(directory)])


def serial_cli(*args: str | Path) -> subprocess.CompletedProcess:
    return run_cli(*args, env={SERIAL_VARIABLE: "1"})


def protocol_copy(tmp_path: Path) -> Path:
    directory = tmp_path / "protocol"
    shutil.copytree(BUNDLED_DEMO, directory)
    return directory


@pytest.mark.parametrize("output", [[], ["--format", "json"], ["--format", "markdown"]])
def test_runs_read_by_a_child_score_as_when_read_here(tmp_path: Path, output: list[str]) -> None:
    forked, seen = forked_cli(tmp_path, "score", BUNDLED_DEMO, *output)
    serial = serial_cli("score", BUNDLED_DEMO, *output)
    assert seen == f"1 forked, {shared(BUNDLED_DEMO)} read here, no child left"
    assert (forked.returncode, forked.stdout, forked.stderr) == (serial.returncode, serial.stdout, serial.stderr)
    assert forked.returncode == 0 and forked.stdout


def test_a_run_the_child_refuses_is_the_serial_error(tmp_path: Path) -> None:
    directory = protocol_copy(tmp_path)
    (directory / "runs" / "broken.run").write_text("q1 Q0 d1 1 not-a-score tag\n")
    forked, seen = forked_cli(tmp_path, "score", directory)
    serial = serial_cli("score", directory)
    assert seen == f"1 forked, {shared(directory)} read here, no child left"
    assert forked.returncode == serial.returncode == 2
    assert forked.stderr == serial.stderr
    assert "broken.run" in forked.stderr and "score must be a number" in forked.stderr
    assert "Traceback" not in forked.stderr


def test_a_child_that_dies_has_its_runs_read_here(tmp_path: Path) -> None:
    forked, seen = forked_cli(tmp_path, "score", BUNDLED_DEMO, "--format", "json", CHILD_FAILS="1")
    serial = serial_cli("score", BUNDLED_DEMO, "--format", "json")
    assert seen == f"1 forked, {len(run_files(BUNDLED_DEMO))} read here, no child left"
    assert (forked.returncode, forked.stdout) == (0, serial.stdout)


def test_the_protocols_error_comes_first_and_the_child_is_stopped(tmp_path: Path) -> None:
    directory = protocol_copy(tmp_path)
    (directory / "runs" / "broken.run").write_text("q1 Q0 d1 1 not-a-score tag\n")
    (directory / "protocol.toml").write_text("[protocol\n")
    forked, seen = forked_cli(tmp_path, "score", directory)
    serial = serial_cli("score", directory)
    assert seen == "1 forked, 0 read here, no child left"
    assert forked.returncode == serial.returncode == 2
    assert forked.stderr == serial.stderr and "protocol.toml" in forked.stderr


def specs_of(*paths: Path) -> list[tuple[str | None, Path]]:
    return [(None, path) for path in paths]


def big_run(tmp_path: Path) -> Path:
    path = tmp_path / "B.run"
    with path.open("wb") as out:
        out.truncate(runs_ahead.MIN_BYTES)
    return path


def test_small_runs_are_read_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(runs_ahead, "runnable_tasks", lambda: 1)
    run = tmp_path / "A.run"
    run.write_bytes(b"q Q0 d 1 1 t\n" * 10)
    big = big_run(tmp_path)
    assert not runs_ahead.worth_forking(specs_of(run))
    assert runs_ahead.worth_forking(specs_of(run, big))
    assert not runs_ahead.worth_forking(specs_of(big, tmp_path / "missing.run"))  # the serial read names it
    other = tmp_path / "other"
    other.mkdir()
    assert not runs_ahead.worth_forking(specs_of(big, big_run(other)))  # two runs named B: named serially
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert not runs_ahead.worth_forking(specs_of(run, big))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(runs_ahead, "runnable_tasks", lambda: 2)  # this process and another: no CPU idle
    assert not runs_ahead.worth_forking(specs_of(run, big))


def test_runnable_tasks_counts_this_process() -> None:
    assert 1 <= runs_ahead.runnable_tasks() < 100_000


def test_serial_forks_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threading, "active_count", lambda: 1)  # (pytest-xdist's workers have a thread)
    monkeypatch.setenv(SERIAL_VARIABLE, "1")
    prefetch = start_run_prefetch(tuple(specs_of(big_run(tmp_path))))
    if prefetch is not None:
        prefetch.cancel()
    assert prefetch is None
