"""Every exit of judging: the lock is held until the final write, and a failed write is one line.

Disk-full cases run on a real 64 KiB tmpfs where the machine allows mounting one (root in a
container usually does); elsewhere, the start case runs under a file-size ulimit instead.
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rankeval_tui.cli.common import finish_judging
from rankeval_tui.core.annotation import judging
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition, read_qrels_file
from rankeval_tui.tui.app import RankevalApp
from tests.cli.helpers import REPO
from tests.seed_labels import SEED_QRELS

RESUME = "rankeval-tui judge P"


@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs mounted at a fresh directory, unmounted afterwards; skipped if not allowed."""
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (the file-size ulimit test covers the start)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def fill(directory: Path, leave: int = 0) -> Path:
    """Fill the filesystem of ``directory`` until writes fail, then free ``leave`` bytes."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
    os.truncate(filler, max(0, filler.stat().st_size - leave))
    return filler


def blank_protocol(seed_dir: Path, where: Path) -> Path:
    protocol = where / "p"
    shutil.copytree(seed_dir, protocol)
    (protocol / "qrels.toml").unlink()
    return protocol


def judge_cli(protocol: Path, *, preexec=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rankeval_tui", "judge", str(protocol)],
        capture_output=True,
        text=True,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        timeout=60,
        preexec_fn=preexec,  # noqa: PLW1509
    )


def one_error(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr and result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ")
    return line


def nothing_left(protocol: Path) -> None:
    names = sorted(p.name for p in protocol.iterdir())
    assert not [n for n in names if ".lock" in n or ".journal" in n], names


def test_disk_full_at_start_is_one_line_and_leaves_no_lock(seed_dir: Path, small_disk: Path) -> None:
    protocol = blank_protocol(seed_dir, small_disk)
    fill(small_disk)
    line = one_error(judge_cli(protocol))
    assert "cannot create the lock file: No space left on device" in line and "qrels.toml.lock" in line
    nothing_left(protocol)


def test_disk_full_after_the_lock_at_the_journal_is_one_line_and_leaves_nothing(
    seed_dir: Path, small_disk: Path
) -> None:
    protocol = blank_protocol(seed_dir, small_disk)
    fill(small_disk, leave=4096)  # one page: the lock fits, the journal does not
    line = one_error(judge_cli(protocol))
    assert "cannot start the journal: No space left on device" in line and "qrels.toml.journal" in line, line
    nothing_left(protocol)


def test_file_size_limit_at_start_is_one_line_and_leaves_no_lock(blank: Path) -> None:
    """The same start on any machine: writes beyond 8 bytes fail (EFBIG) as on a full disk."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (8, 8))

    line = one_error(judge_cli(blank, preexec=limit))
    assert "cannot create the lock file: File too large" in line
    nothing_left(blank)


def judged_session(protocol: Path) -> JudgingSession:
    session = JudgingSession.open(load_definition(protocol), protocol / "qrels.toml", annotator="alice")
    while not session.marks.complete:
        query, doc = session.cursor.current
        session.label(SEED_QRELS[query][doc])
    return session


def finish(session: JudgingSession) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = finish_judging(session, RESUME)
    return code, out.getvalue(), err.getvalue()


def test_disk_full_at_the_final_write_keeps_every_label_and_says_how_to_finish(
    seed_dir: Path, small_disk: Path
) -> None:
    protocol = blank_protocol(seed_dir, small_disk)
    session = judged_session(protocol)
    filler = fill(small_disk)
    code, out, err = finish(session)
    assert code == 1 and out == ""
    (line,) = err.strip().splitlines()
    journal = protocol / "qrels.toml.journal"
    assert line.startswith("error: qrels NOT written: ") and "No space left on device" in line
    assert f"every label is safe in {journal}" in line and f"run `{RESUME}` again" in line
    assert not (protocol / "qrels.toml").exists() and journal.exists()
    assert not (protocol / "qrels.toml.lock").exists()  # released once the attempt is over
    filler.unlink()
    resumed = JudgingSession.open(load_definition(protocol), protocol / "qrels.toml")
    assert resumed.marks.complete
    assert finish(resumed)[0] == 0
    assert read_qrels_file(protocol / "qrels.toml", load_definition(protocol)).labels == SEED_QRELS
    nothing_left(protocol)


def test_the_final_write_and_journal_removal_run_under_the_lock(blank: Path, monkeypatch) -> None:
    lock = blank / "qrels.toml.lock"
    seen = []
    real_write = judging.write_qrels

    def watching_write(*args, **kwargs):
        seen.append(("write", lock.exists()))
        return real_write(*args, **kwargs)

    monkeypatch.setattr(judging, "write_qrels", watching_write)
    session = judged_session(blank)
    real_remove = session.journal.remove

    def watching_remove():
        seen.append(("remove journal", lock.exists()))
        real_remove()

    monkeypatch.setattr(session.journal, "remove", watching_remove)
    assert finish(session)[0] == 0
    assert seen == [("write", True), ("remove journal", True)]
    assert not lock.exists()


@pytest.mark.parametrize("how", ["ctrl+q", "SIGTERM"])
async def test_leaving_the_screen_keeps_the_lock_for_the_final_write(blank: Path, how: str) -> None:
    """ctrl+q or SIGTERM/SIGHUP end the app (the latter via app.exit(128 + signum)); the screen
    must not release the lock: the judge command writes the qrels after the app, still locked."""
    session = judged_session(blank)
    app = RankevalApp(blank, qrels_path=blank / "qrels.toml", start="judge", judge_session=session)
    async with app.run_test(size=(80, 24)) as pilot:
        if how == "ctrl+q":
            await pilot.press("ctrl+q")
        else:
            app.exit(128 + signal.SIGTERM)  # what the screen's SIGTERM handler calls
        await pilot.pause()
    assert (blank / "qrels.toml.lock").exists()  # still held after the screen is gone
    assert finish(session) == (0, f"wrote {blank / 'qrels.toml'}: all 30 pairs judged\n", "")
    nothing_left(blank)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_real_sigterm_or_sighup_finishes_under_the_lock_and_exits_128_plus_signal(
    seed_copy: Path, signum: int
) -> None:
    """Review of a complete qrels file under a pty: change one label, then the signal. The app
    ends, the judge command writes the change (locked), removes journal and lock, exits 128+N."""
    from tests.tui.test_judge_kill import Terminal

    app = Terminal(str(seed_copy), "--annotator", "alice")
    app.wait_for("overall 30/30")
    app.send("1")  # q1/d1 was 0
    app.wait_for("(was 0)")
    os.kill(app.pid, signum)
    assert app.wait_exit() == 128 + signum
    assert f"wrote {seed_copy / 'qrels.toml'}" in app.screen
    assert read_qrels_file(seed_copy / "qrels.toml", load_definition(seed_copy)).labels["q1"]["d1"] == 1
    nothing_left(seed_copy)


def test_sigterm_during_adjudication_releases_the_lock_and_keeps_the_journal(seed_copy: Path, tmp_path: Path) -> None:
    """Before: SIGTERM killed adjudicate outright, leaving its lock for the next start to recover."""
    from rankeval_tui.core.files import QrelsFile, write_qrels
    from tests.tui.test_judge_kill import Terminal

    definition = load_definition(seed_copy)
    bob = {q: dict(row) for q, row in SEED_QRELS.items()}
    bob["q1"]["d1"] = 1
    alice_file, bob_file, out = tmp_path / "alice.toml", tmp_path / "bob.toml", tmp_path / "final.toml"
    write_qrels(alice_file, QrelsFile(labels=SEED_QRELS, provenance={"annotators": ["alice"]}), definition)
    write_qrels(bob_file, QrelsFile(labels=bob, provenance={"annotators": ["bob"]}), definition)
    app = Terminal(str(seed_copy), "--adjudicate", str(alice_file), str(bob_file), "-o", str(out))
    app.wait_for("undecided")
    assert (tmp_path / "final.toml.lock").exists()
    os.kill(app.pid, signal.SIGTERM)
    assert app.wait_exit() == 1  # decisions left
    assert "Traceback" not in app.screen
    assert not (tmp_path / "final.toml.lock").exists() and (tmp_path / "final.toml.adjudication.journal").exists()
