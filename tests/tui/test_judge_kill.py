"""kill -9 the real ``rankeval-tui judge`` (under a pty) and restart it: nothing shown is lost.

The app runs as a subprocess with a real terminal (``pty.fork``); the test types keys, waits
until the screen shows each judgment as recorded, sends SIGKILL, restarts, and checks that every
acknowledged judgment, undo, note and dispute is there and the cursor is where it was.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

import pytest

from rankeval_tui.core.annotation.assignment import (
    labels_path,
    parse_annotators,
    plan_assignment,
    read_assignment,
    write_assignment,
)
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition, read_qrels_file

ANSI = re.compile(rb"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78cDEHM])")
SEED_Q1 = {"d1": 0, "d2": 1, "d3": 0, "d4": 0, "d5": 0, "d6": 0}
SEED_Q2 = {"d1": 0, "d2": 0, "d3": 1, "d4": 1, "d5": 0, "d6": 0}


class Terminal:
    """``rankeval-tui judge`` in a 120x36 pty; ``screen`` is everything printed, escapes removed."""

    def __init__(self, *args: str) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # child
            os.environ.update(TERM="xterm-256color", COLUMNS="120", LINES="36")
            os.execv(sys.executable, [sys.executable, "-m", "rankeval_tui", "judge", *args])
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
        self.raw = b""
        self.mark = 0

    def read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # the child exited
            return False
        self.raw += chunk
        return bool(chunk)

    @property
    def screen(self) -> str:
        return ANSI.sub(b"", self.raw).decode("utf-8", "replace")

    def wait_for(self, text: str, timeout: float = 30.0) -> None:
        """Wait until ``text`` is printed after the last mark (so old output never satisfies it)."""
        deadline = time.monotonic() + timeout
        while text not in self.screen[self.mark :]:
            if time.monotonic() > deadline:
                raise AssertionError(f"screen never showed {text!r}; tail: {self.screen[-800:]!r}")
            self.read(0.2)
        self.mark = self.screen.index(text, self.mark) + len(text)

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode("utf-8"))

    def kill(self) -> None:
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.fd)

    def wait_exit(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.read(0.1)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                while self.read(0.1):
                    pass
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
        self.kill()
        raise AssertionError("judge did not exit")


pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")


def test_kill_9_after_acknowledged_judgments_then_resume(blank: Path) -> None:
    app = Terminal(str(blank), "--annotator", "alice")
    app.wait_for("overall 0/30")
    for number, doc in enumerate(["d1", "d2", "d3", "d4", "d5"], 1):
        app.send(str(SEED_Q1[doc] if doc != "d3" else 1))  # d3 gets a wrong 1 first
        app.wait_for(f"overall {number}/30")
    app.send("u")  # undo d5
    app.wait_for("overall 4/30")
    app.send("h")  # back to d4
    app.wait_for("Document d4")
    app.send("h")
    app.wait_for("Document d3")
    app.send("0")  # change d3 1 -> 0
    app.wait_for("(was 1)")
    app.send("h")
    app.wait_for("Document d3")
    app.send("d")
    app.wait_for("DISPUTED")
    app.send("n")
    app.wait_for("Note for query")
    app.send("crash test note\r")
    app.wait_for("note: crash test note")
    app.kill()  # SIGKILL: no cleanup runs

    again = Terminal(str(blank))  # no flag: the killed judge's lock is recovered
    again.wait_for("recovered the lock")
    again.wait_for("overall 4/30")
    again.wait_for("Document d3")
    again.wait_for("DISPUTED")
    again.wait_for("note: crash test note")
    again.send("u")  # undo works across the restart: the note goes
    again.wait_for("undid note of q1 / d3")
    again.send("q")
    assert again.wait_exit() == 0
    assert "26 of 30 pairs remain unjudged" in again.screen

    session = JudgingSession.open(load_definition(blank), blank / "qrels.toml")
    try:
        assert session.marks.labels["q1"] == {"d1": 0, "d2": 1, "d3": 0, "d4": 0}
        assert session.marks.is_disputed("q1", "d3") and session.marks.note_of("q1", "d3") is None
        assert session.cursor.current == ("q1", "d3")
    finally:
        session.close()


def test_kill_9_in_the_middle_of_fast_typing_keeps_every_shown_judgment(blank: Path) -> None:
    keys = "".join(str(SEED_Q1[d]) for d in SEED_Q1) + "".join(str(SEED_Q2[d]) for d in SEED_Q2)
    app = Terminal(str(blank), "--annotator", "alice")
    app.wait_for("overall 0/30")
    for key in keys[:8]:  # typing fast, never waiting for the screen
        app.send(key)
        app.read(0.03)
    app.kill()  # while keys are still being processed
    seen = [int(n) for n in re.findall(r"overall (\d+)/30", app.screen)]
    shown = max(seen)

    session = JudgingSession.open(load_definition(blank), blank / "qrels.toml", break_lock=True)
    try:
        print(f"shown before kill: {shown}, on disk: {session.marks.judged}")
        assert session.marks.judged >= shown  # everything shown was on disk
        expected = [("q1", d, v) for d, v in SEED_Q1.items()] + [("q2", d, v) for d, v in SEED_Q2.items()]
        for query, doc, value in expected[: session.marks.judged]:
            assert session.marks.label_of(query, doc) == value
        assert session.marks.judged <= len(expected)
    finally:
        session.close()


def test_kill_9_leaves_alices_labels_file_whole_with_what_the_screen_showed(blank: Path) -> None:
    """``judge --annotator alice`` writes her labels file as she goes: read while the judge still
    runs, it holds every judgment shown; after SIGKILL it is still a whole, valid partial file."""
    definition = load_definition(blank)
    write_assignment(blank, definition, plan_assignment(definition, parse_annotators("alice,bob"), 0.0, 7))
    queries = read_assignment(blank, definition).queries["alice"]
    mine = sum(len(definition.documents_of(q)) for q in queries)
    path = labels_path(blank, "alice")
    app = Terminal(str(blank), "--annotator", "alice")
    app.wait_for(f"overall 0/{mine}")
    for number in range(1, 5):
        app.send("1" if number % 2 else "0")
        app.wait_for(f"overall {number}/{mine}")
    deadline = time.monotonic() + 10
    labels: dict[str, dict[str, int]] = {}
    while time.monotonic() < deadline:  # written by the judge's thread after the frame
        if path.exists():
            labels = read_qrels_file(path, definition, exhaustive=False).labels
            if sum(len(row) for row in labels.values()) == 4:
                break
        time.sleep(0.05)
    app.kill()
    assert sum(len(row) for row in labels.values()) == 4  # before any quit: the file followed her
    after = read_qrels_file(path, definition, exhaustive=False)
    assert after.labels == labels and after.provenance["partial"] is True
    assert [value for row in after.labels.values() for value in row.values()] == [1, 0, 1, 0]
