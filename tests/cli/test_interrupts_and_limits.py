"""Interrupts and limits end with the documented codes (docs/ci.md), in one line, no traceback:
Ctrl-C 130 whichever process is reading (the app's run-reading child too), a stdout not open
at all (``>&-``) and a memory limit one ``error:`` line and 2."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import textwrap
import time

from tests.cli.helpers import REPO

SEED = REPO / "protocols" / "help-docs-zh"


def test_a_stdout_not_open_is_one_error_line() -> None:
    """``score d >&-`` was a traceback (Python's ``sys.stdout`` is None then)."""
    result = subprocess.run(
        [sys.executable, "-m", "rankeval_tui", "score", str(SEED)],
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        preexec_fn=lambda: os.close(1),
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "error: standard output is not open (closed with >&-?): give it a file or /dev/null"
    ]


def limit_memory() -> None:
    limit = 400 * 1024 * 1024  # numpy and the interpreter fit; a million bootstrap resamples do not
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def test_a_memory_limit_is_one_error_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "rankeval_tui", "score", str(SEED), "--test", "bootstrap", "--samples", "1000000"],
        capture_output=True,
        text=True,
        cwd=REPO,
        preexec_fn=limit_memory,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.splitlines() == [
        "error: out of memory running score: the process reached its memory limit (ulimit -v, a container's)"
    ]


def interrupted(script: str) -> tuple[subprocess.CompletedProcess, str]:
    """Run ``script`` in its own process group; once it prints ``ready``, Ctrl-C the group (as a
    terminal does: every process of it gets SIGINT); return its outcome and the children left."""
    process = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        start_new_session=True,
        # as a terminal's shell starts a command: a suite run as a background job would pass
        # SIGINT on ignored, and no Ctrl-C could reach the command
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready", process.stderr.read() if process.stderr else ""
    time.sleep(0.2)  # the child is asleep in its read by now
    children = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
    os.killpg(process.pid, signal.SIGINT)
    try:
        stdout, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # Ctrl-C did not end it: end the group, leave nothing running
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    left = [pid for pid in children if os.path.exists(f"/proc/{pid}")]
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr), f"{children} {left}"


def test_ctrl_c_while_the_apps_child_reads_the_runs_is_130() -> None:
    """The app forks a child to read the runs (core/preread.py); Ctrl-C before the screen took them
    ends with 130, the child stopped and reaped, its pipe closed once, no traceback."""
    result, children = interrupted(
        f"""
        import sys, time
        import rankeval_tui.core.preread as preread
        import rankeval_tui.cli.inspect as inspect
        real = preread.read_runs
        def slow(*args, **kwargs):  # the child's read, long enough to be interrupted
            time.sleep(30)
            return real(*args, **kwargs)
        preread.read_runs = slow
        def waiting():  # stands for the screen opening while the child reads
            print("ready", flush=True)
            time.sleep(30)
        inspect.require_terminal = waiting
        from rankeval_tui.cli import main
        sys.exit(main(["inspect", {str(SEED)!r}]))
        """
    )
    assert result.returncode == 130, (result.stderr, children)
    assert result.stderr == "" and "Bad file descriptor" not in result.stdout
    forked, left = children.split("] [")
    assert forked != "[" and left == "]", children  # a child was reading, and none is left


def test_ctrl_c_while_score_reads_is_130() -> None:
    result, _ = interrupted(
        f"""
        import sys, time
        import rankeval_tui.cli.common as common
        real = common.load_run
        def slow(*args, **kwargs):
            print("ready", flush=True)
            time.sleep(30)
            return real(*args, **kwargs)
        common.load_run = slow
        from rankeval_tui.cli import main
        sys.exit(main(["score", {str(SEED)!r}]))
        """
    )
    assert result.returncode == 130 and result.stderr == "", result.stderr
