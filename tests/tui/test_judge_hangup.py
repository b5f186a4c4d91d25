"""The judge ends when its terminal goes away, within about a second, keeping every label.

Issue 30 "stuck judge": the terminal killed while a long document draws (``tmux kill-session``,
a dropped SSH link). The output queue to the dead terminal filled, the app's shutdown blocked in
``WriterThread.write -> Queue.put``, and the SIGHUP handler (run by the event loop that was
blocked) never ran: the process stayed, holding the lock, until ``kill -9`` (2 of 4 tries here
before the fix, ``tui/hangups.py``).

The real ``rankeval-tui judge`` runs in tmux (a private server, so no other session is touched);
the test labels a pair, pages through documents of 4,000 lines and kills the session mid-draw.
The process must be gone within 2 s, its label in the journal, and its lock released.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tomli_w

from rankeval_tui.core.annotation.judging import journal_progress
from rankeval_tui.core.files import load_definition
from tests.cli.helpers import REPO

pytestmark = pytest.mark.skipif(sys.platform == "win32" or shutil.which("tmux") is None, reason="needs tmux")

LONG = "\n".join(f"line {n}: export settings download retry sync theme archive folder account" for n in range(4000))


def long_protocol(directory: Path) -> Path:
    directory.mkdir()
    data = {
        "protocol": {"name": "long-docs", "k": 2, "split": "test", "relevance": "1 if it answers the query"},
        "documents": {f"docs/long-{n}.md": {"text": f"Document {n}\n{LONG}"} for n in range(4)},
        "queries": {"q:1001": {"text": "how do I export settings?", "split": "test"}},
    }
    (directory / "protocol.toml").write_text(tomli_w.dumps(data), encoding="utf-8")
    return directory


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@pytest.mark.parametrize("trial", range(3))
def test_the_judge_ends_when_its_terminal_is_killed_mid_draw(tmp_path: Path, trial: int) -> None:
    protocol = long_protocol(tmp_path / "long")
    tmux = ["tmux", "-L", f"rankeval-hangup-{os.getpid()}-{trial}"]
    command = f"cd {REPO} && PYTHONPATH={REPO} exec {sys.executable} -m rankeval_tui judge {protocol} --annotator alice"
    subprocess.run([*tmux, "new-session", "-d", "-s", "judge", "-x", "140", "-y", "40", command], check=True)
    pid = int(subprocess.run([*tmux, "list-panes", "-F", "#{pane_pid}"], capture_output=True, text=True).stdout)
    try:
        screen = lambda: subprocess.run([*tmux, "capture-pane", "-p"], capture_output=True, text=True).stdout  # noqa: E731
        assert wait_for(lambda: "overall 0/4" in screen(), 30), screen()
        subprocess.run([*tmux, "send-keys", "1"], check=True)
        assert wait_for(lambda: "overall 1/4" in screen(), 10), screen()
        subprocess.run([*tmux, "send-keys", *["PageDown"] * (40 + 10 * trial)], check=True)
        subprocess.run([*tmux, "kill-server"], check=True)  # the terminal goes away mid-draw
        gone = wait_for(lambda: not alive(pid), 2.0)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    assert gone, "the judge process still runs 2 s after its terminal was killed"
    state = journal_progress(load_definition(protocol), protocol / "qrels.toml")
    assert state is not None and state.marks.labels == {"q:1001": {"docs/long-0.md": 1}}
    assert not (protocol / "qrels.toml.lock").exists()
