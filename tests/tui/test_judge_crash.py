"""Crash safety of judging: SIGKILL at random moments, torn writes, interrupted qrels writes, full disks.

The judge's promise is that a judgment acknowledged on screen is on disk. The screen acknowledges
exactly when ``JudgingSession.label`` returns, so a child process here labels pairs through that
API and prints ``ack`` after each return; the parent kills it with SIGKILL at seeded random
moments (during start-up, while labelling, while writing the finished qrels), restarts it, and
checks after every kill that each acknowledged judgment is present with its value, that no pair
has two label entries in the journal, and that every stored label is the one the child gave.

``RANKEVAL_CRASH_KILLS`` raises the number of kills (default 40, a few seconds per ten kills).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rankeval_tui.core.annotation import journal as journal_module
from rankeval_tui.core.annotation import judging
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import atomic, load_definition, read_qrels_file, write_qrels

KILLS = int(os.environ.get("RANKEVAL_CRASH_KILLS", "40"))
SEED = int(os.environ.get("RANKEVAL_CRASH_SEED", "20240611"))
QUERIES, DOCUMENTS = 10, 30

CHILD = r"""
import hashlib, os, signal, sys
from pathlib import Path
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.annotation.judging import JudgingSession

def value(q, d):
    return hashlib.sha256(f"{q}/{d}".encode()).digest()[0] & 1

protocol = Path(sys.argv[1])
torn_after = int(sys.argv[2])
session = JudgingSession.open(load_definition(protocol), protocol / "qrels.toml", break_lock=True)
acks = 0
while not session.marks.complete:
    q, d = session.cursor.current
    if session.marks.label_of(q, d) is not None:
        session.next_unjudged()
        continue
    if acks == torn_after:
        # die in the middle of writing this judgment's journal line: half the bytes, then SIGKILL
        real_write = os.write
        def torn(fd, data):
            real_write(fd, data[: len(data) // 2])
            os.kill(os.getpid(), signal.SIGKILL)
        print(f"torn {q} {d}", flush=True)
        os.write = torn
    session.label(value(q, d))
    acks += 1
    print(f"ack {q} {d} {value(q, d)}", flush=True)
print(session.finish(), flush=True)
print("done", flush=True)
"""


def value(query: str, doc: str) -> int:
    """The label the child gives a pair: fixed per pair, so a corrupted or swapped label shows."""
    return hashlib.sha256(f"{query}/{doc}".encode()).digest()[0] & 1


def make_protocol(directory: Path, queries: int = QUERIES, documents: int = DOCUMENTS) -> Path:
    """A protocol without qrels: a fresh judging job of ``queries * documents`` pairs."""
    directory.mkdir(parents=True)
    lines = ['[protocol]\nname = "crash"\nk = 3\nsplit = "test"\nrelevance = "r"\n']
    lines += [f'[documents.d{i}]\ntext = "document {i}"\n' for i in range(1, documents + 1)]
    lines += [f'[queries.q{i}]\ntext = "query {i}"\nsplit = "test"\n' for i in range(1, queries + 1)]
    (directory / "protocol.toml").write_text("\n".join(lines), encoding="utf-8")
    return directory


def journal_label_counts(journal: Path) -> dict[tuple[str, str], int]:
    """Label entries per pair among the journal's complete lines (a torn tail is not a line)."""
    raw = journal.read_bytes()
    counts: dict[tuple[str, str], int] = {}
    for line in raw[: raw.rfind(b"\n") + 1].splitlines():
        entry = json.loads(line)
        if entry["op"] == "label":
            key = (entry["q"], entry["d"])
            counts[key] = counts.get(key, 0) + 1
    return counts


def test_sigkill_at_random_moments_loses_no_acknowledged_judgment(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    figures = {
        "kills": 0,
        "torn_writes": 0,
        "acknowledged": 0,
        "lost": 0,
        "duplicated": 0,
        "corrupted": 0,
        "rounds_completed": 0,
        "killed_before_first_ack": 0,
    }
    round_no = 0
    protocol = make_protocol(tmp_path / "round0")
    acked: dict[tuple[str, str], int] = {}
    while figures["kills"] < KILLS:
        torn_after = rng.randint(0, 40) if rng.random() < 0.2 else -1
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(protocol), str(torn_after)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        time.sleep(rng.uniform(0.02, 0.6))
        child.send_signal(signal.SIGKILL)
        child.wait()
        out, err = child.communicate()
        lines = out.decode().splitlines()
        assert child.returncode in (0, -signal.SIGKILL), err.decode()[-3000:]
        torn_pair = None
        new_acks = 0
        for line in lines:
            word, *rest = line.split(" ")
            if word == "ack":
                acked[(rest[0], rest[1])] = int(rest[2])
                new_acks += 1
            elif word == "torn":
                torn_pair = (rest[0], rest[1])
        figures["acknowledged"] += new_acks
        if child.returncode == -signal.SIGKILL:
            figures["kills"] += 1
            figures["killed_before_first_ack"] += new_acks == 0

        definition = load_definition(protocol)
        qrels, journal = protocol / "qrels.toml", protocol / "qrels.toml.journal"
        if journal.exists() and journal.stat().st_size:
            counts = journal_label_counts(journal)
            figures["duplicated"] += sum(n - 1 for n in counts.values() if n > 1)
        if qrels.exists() and not journal.exists():  # the child finished: every pair written
            labels = read_qrels_file(qrels, definition).labels
            stored = {(q, d): v for q, row in labels.items() for d, v in row.items()}
            assert len(stored) == QUERIES * DOCUMENTS
        else:
            session = JudgingSession.open(definition, qrels, break_lock=True)
            try:
                stored = {(q, d): v for q, row in session.marks.labels.items() for d, v in row.items()}
                if torn_pair is not None and child.returncode == -signal.SIGKILL and "done" not in lines:
                    figures["torn_writes"] += 1
                    assert any("torn" in w and "never shown as recorded" in w for w in session.warnings), (
                        session.warnings
                    )
                    assert torn_pair not in stored  # the half line is never read as a judgment
            finally:
                session.close()
        figures["lost"] += sum(1 for pair, v in acked.items() if stored.get(pair) != v)
        figures["corrupted"] += sum(1 for (q, d), v in stored.items() if v != value(q, d))
        assert figures["lost"] == figures["duplicated"] == figures["corrupted"] == 0, figures
        if "done" in lines or (qrels.exists() and not journal.exists()):
            figures["rounds_completed"] += 1
            round_no += 1
            protocol = make_protocol(tmp_path / f"round{round_no}")
            acked = {}
    print(f"\ncrash figures (seed {SEED}): {json.dumps(figures)}")
    assert figures["kills"] == KILLS and figures["acknowledged"] > 0


# ---------------------------------------------------------------- torn tail, in detail


@pytest.fixture()
def small(tmp_path: Path) -> Path:
    return make_protocol(tmp_path / "p", queries=2, documents=3)


def label_some(protocol: Path, count: int) -> JudgingSession:
    session = JudgingSession.open(load_definition(protocol), protocol / "qrels.toml")
    for _ in range(count):
        q, d = session.cursor.current
        session.label(value(q, d))
    return session


@pytest.mark.parametrize("cut", ["half-line", "complete-json-without-newline", "one-byte"])
def test_torn_last_line_is_reported_and_never_a_label(small: Path, cut: str) -> None:
    session = label_some(small, 2)
    q, d = session.cursor.current
    session.close()
    journal = small / "qrels.toml.journal"
    line = json.dumps({"op": "label", "q": q, "d": d, "v": 1}, separators=(",", ":")).encode()
    tail = {"half-line": line[: len(line) // 2], "complete-json-without-newline": line, "one-byte": b"{"}[cut]
    good = journal.read_bytes()
    journal.write_bytes(good + tail)
    resumed = JudgingSession.open(load_definition(small), small / "qrels.toml")
    try:
        assert resumed.marks.label_of(q, d) is None and resumed.marks.judged == 2
        (warning,) = [w for w in resumed.warnings if "torn" in w]
        assert str(journal) in warning and "dropped, not read as a judgment" in warning and "\n" not in warning
        assert journal.read_bytes() == good  # the tail is cut off before anything is appended
        resumed.label(0)
    finally:
        resumed.close()
    assert journal_label_counts(journal)[(q, d)] == 1
    again = JudgingSession.open(load_definition(small), small / "qrels.toml")
    assert again.marks.label_of(q, d) == 0 and not again.warnings
    again.close()


def test_corrupted_middle_line_is_an_error_naming_the_line(small: Path) -> None:
    label_some(small, 3).close()
    journal = small / "qrels.toml.journal"
    lines = journal.read_bytes().split(b"\n")
    lines[2] = lines[2][:-3]
    journal.write_bytes(b"\n".join(lines))
    with pytest.raises(ContractError) as caught:
        JudgingSession.open(load_definition(small), small / "qrels.toml")
    assert caught.value.file == str(journal) and caught.value.where == "line 3"


# ---------------------------------------------------------------- atomic writes


def complete_qrels(definition) -> judging.QrelsFile:
    return judging.QrelsFile(labels={q: {d: value(q, d) for d in definition.documents} for q in definition.queries})


@pytest.mark.parametrize("fail_at", ["write", "fsync", "replace"])
def test_interrupted_qrels_write_leaves_the_old_file(small: Path, monkeypatch, fail_at: str) -> None:
    definition = load_definition(small)
    qrels = small / "qrels.toml"
    old = complete_qrels(definition)
    write_qrels(qrels, old, definition)
    before = qrels.read_bytes()
    new = complete_qrels(definition)
    new.labels["q1"]["d1"] = 1 - new.labels["q1"]["d1"]

    def fail(*args, **kwargs):
        raise OSError(errno.EIO, f"injected failure at {fail_at}")

    if fail_at == "write":
        monkeypatch.setattr(atomic.os, "fdopen", lambda fd, mode: _FailingHandle(fd))
    else:
        monkeypatch.setattr(atomic.os, fail_at, fail)
    with pytest.raises(OSError, match="injected"):
        write_qrels(qrels, new, definition)
    monkeypatch.undo()
    assert qrels.read_bytes() == before
    assert sorted(p.name for p in small.iterdir()) == ["protocol.toml", "qrels.toml"]  # no temp file left


REAL_FDOPEN = os.fdopen


class _FailingHandle:
    """A file handle whose write dies half way (the temp file holds a prefix of the new text)."""

    def __init__(self, fd: int) -> None:
        self.handle = REAL_FDOPEN(fd, "wb")

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.handle.close()

    def write(self, data: bytes) -> None:
        self.handle.write(data[: len(data) // 2])
        self.handle.flush()
        raise OSError(errno.ENOSPC, "injected failure at write: No space left on device")


KILL_POINTS = ["after-mkstemp", "mid-write", "after-fsync", "after-replace"]

WRITER = r"""
import os, signal, sys, tempfile
from rankeval_tui.core.files import atomic
point, path, text = sys.argv[1], sys.argv[2], sys.argv[3]
die = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
if point == "after-mkstemp":
    real = tempfile.mkstemp
    tempfile.mkstemp = lambda **k: (real(**k), die())[0]  # atomic imports tempfile when it writes
elif point == "mid-write":
    real_fdopen = os.fdopen
    class Half:
        def __init__(self, fd, mode): self.h = real_fdopen(fd, mode)
        def __enter__(self): return self
        def __exit__(self, *e): self.h.close()
        def write(self, data): self.h.write(data[: len(data) // 2]); self.h.flush(); os.fsync(self.h.fileno()); die()
    atomic.os.fdopen = Half
elif point == "after-fsync":
    atomic.os.replace = die
elif point == "after-replace":
    atomic.fsync_directory = die
atomic.atomic_write_text(path, text)
"""


@pytest.mark.parametrize("point", KILL_POINTS)
def test_sigkill_during_an_atomic_write_leaves_old_or_new_never_a_mix(tmp_path: Path, point: str) -> None:
    """qrels.toml and report files both go through atomic_write_text: kill it at each step."""
    target = tmp_path / "report.json"
    old, new = '{"old": ' + "1" * 5000 + "}\n", '{"new": ' + "2" * 7000 + "}\n"
    target.write_text(old)
    result = subprocess.run([sys.executable, "-c", WRITER, point, str(target), new], capture_output=True)
    assert result.returncode == -signal.SIGKILL, result.stderr.decode()[-2000:]
    assert target.read_text() == (new if point == "after-replace" else old)
    leftovers = [p.name for p in tmp_path.iterdir() if p != target]
    # a kill before the rename can leave the hidden temp file; it is never read as the target
    assert all(n.startswith(".report.json.") and n.endswith(".tmp") for n in leftovers), leftovers


# ---------------------------------------------------------------- disk full / read-only while journaling


def enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_disk_full_at_fsync_records_nothing_and_leaves_no_line_behind(small: Path, monkeypatch) -> None:
    session = label_some(small, 2)
    journal = small / "qrels.toml.journal"
    before = journal.read_bytes()
    q, d = session.cursor.current
    monkeypatch.setattr(journal_module, "sync", enospc)
    with pytest.raises(OSError) as caught:
        session.label(1)
    assert caught.value.errno == errno.ENOSPC
    assert session.marks.label_of(q, d) is None and session.marks.judged == 2 and session.cursor.current == (q, d)
    monkeypatch.undo()
    # nothing the screen was told is "NOT recorded" may come back after a restart
    assert journal.read_bytes() == before
    session.changes.undo()  # the user goes on: the undo must undo the last *recorded* label
    session.close()
    resumed = JudgingSession.open(load_definition(small), small / "qrels.toml")
    assert resumed.marks.judged == 1 and resumed.marks.label_of(q, d) is None
    resumed.close()


def test_disk_full_mid_line_then_space_freed_keeps_the_journal_readable(small: Path, monkeypatch) -> None:
    """A short write then ENOSPC leaves half a line; the next append must not glue onto it."""
    session = label_some(small, 2)
    q, d = session.cursor.current
    real_write = os.write
    fd = session.journal.fd

    def short_then_full(target_fd: int, data: bytes) -> int:
        if target_fd != fd:
            return real_write(target_fd, data)
        if len(data) > 8:
            return real_write(target_fd, data[:8])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(journal_module.os, "write", short_then_full)
    with pytest.raises(OSError):
        session.label(1)
    monkeypatch.undo()
    assert session.marks.label_of(q, d) is None
    session.label(0)  # space is back: this one is recorded
    session.close()
    resumed = JudgingSession.open(load_definition(small), small / "qrels.toml")
    try:
        assert resumed.marks.label_of(q, d) == 0 and resumed.marks.judged == 3
        assert not [w for w in resumed.warnings if "torn" in w]
    finally:
        resumed.close()


def test_read_only_directory_refuses_to_start_with_one_clean_line(small: Path) -> None:
    """Root ignores directory permissions, so the CLI runs without root's override (setpriv)."""
    import shutil

    setpriv = shutil.which("setpriv")
    if os.geteuid() == 0 and setpriv is None:  # pragma: no cover
        pytest.skip("root without setpriv")
    prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
    small.chmod(0o555)
    try:
        result = subprocess.run(
            [*prefix, sys.executable, "-m", "rankeval_tui", "judge", str(small)],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    finally:
        small.chmod(0o755)
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(small) in lines[0], result.stderr
    assert sorted(p.name for p in small.iterdir()) == ["protocol.toml"]


async def test_disk_full_on_screen_says_not_recorded_and_keeps_what_was(small: Path, monkeypatch) -> None:
    """The judging screen with a full disk: a clear notice, the pair still unjudged, earlier labels kept."""
    from rankeval_tui.tui.app import RankevalApp

    session = JudgingSession.open(load_definition(small), small / "qrels.toml", annotator="t")
    app = RankevalApp(small, qrels_path=small / "qrels.toml", start="judge", judge_session=session)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("1")
        first = next((q, d) for q, row in session.marks.labels.items() for d in row)
        pair = session.cursor.current
        monkeypatch.setattr(journal_module, "sync", enospc)
        await pilot.press("0")
        await pilot.pause()
        notices = [n.message for n in app._notifications]
        assert any("NOT recorded" in m and "No space left on device" in m for m in notices), notices
        assert session.marks.label_of(*pair) is None and session.cursor.current == pair and session.marks.judged == 1
        assert session.marks.label_of(*first) == 1  # what was recorded before stays, in memory and on disk
        monkeypatch.undo()
        await pilot.press("0")  # space is back
        await pilot.pause()
        assert session.marks.label_of(*pair) == 0
    session.close()
    resumed = JudgingSession.open(load_definition(small), small / "qrels.toml")
    assert resumed.marks.judged == 2 and resumed.marks.label_of(*pair) == 0 and resumed.marks.label_of(*first) == 1
    resumed.close()
