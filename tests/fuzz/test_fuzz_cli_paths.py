"""Where a file is expected the CLI may find a directory, nothing, or a file it may not read.

Each case runs the real CLI in a subprocess: exit 2, one ``error:`` line naming the path, no
traceback, no report. Permission needs care: the tests run as root, for whom ``chmod 000`` changes
nothing, so the CLI process is started without root's read-override capabilities (setpriv).
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
from pathlib import Path

import pytest

from tests.fuzz.harness import KINDS, assert_one_error_line, cli_subprocess, stage, valid_bytes


@pytest.mark.parametrize("kind", KINDS)
def test_directory_where_a_file_is_expected(kind: str, tmp_path: Path) -> None:
    protocol, target, args = stage(kind, valid_bytes(kind), tmp_path)
    target.unlink()
    target.mkdir()
    line = assert_one_error_line(*cli_subprocess(args), target)
    assert "is a directory" in line


@pytest.mark.parametrize("special", ["fifo", "dev-zero", "socket"])
@pytest.mark.parametrize("kind", KINDS)
def test_fifo_device_or_socket_where_a_file_is_expected(kind: str, special: str, tmp_path: Path) -> None:
    """Refused at once: a FIFO would block ``open`` forever, /dev/zero would be read until memory
    runs out (cli_subprocess's timeout fails the test rather than hanging the suite)."""
    protocol, target, args = stage(kind, valid_bytes(kind), tmp_path)
    target.unlink()
    server = None
    if special == "fifo":
        os.mkfifo(target)
    elif special == "dev-zero":
        target.symlink_to("/dev/zero")
    else:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(target))
    try:
        line = assert_one_error_line(*cli_subprocess(args), target)
    finally:
        if server is not None:
            server.close()
    kind_name = {"fifo": "a FIFO (named pipe)", "dev-zero": "a character device", "socket": "a socket"}[special]
    assert f"is {kind_name}, expected a regular file" in line


@pytest.mark.parametrize("kind", KINDS)
def test_nonexistent_file(kind: str, tmp_path: Path) -> None:
    protocol, target, args = stage(kind, valid_bytes(kind), tmp_path)
    target.unlink()
    line = assert_one_error_line(*cli_subprocess(args), target)
    if kind == "qrels":  # no qrels file yet is a protocol not judged yet: every pair a hole
        assert "no qrels file yet" in line and f"judge them with: rankeval-tui judge {protocol}" in line
    else:
        assert "file not found" in line


def test_nonexistent_protocol_directory_and_a_file_in_its_place(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    assert "not found" in assert_one_error_line(*cli_subprocess(["score", str(missing)]), missing)
    a_file = tmp_path / "protocol.toml"
    a_file.write_text("[protocol]\n")
    assert_one_error_line(*cli_subprocess(["score", str(a_file)]), a_file)


def without_root_read_override() -> tuple[str, ...]:
    """Run the CLI without the capabilities that let root read a mode-000 file."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:  # pragma: no cover - util-linux is in every image we run on
        pytest.skip("running as root without setpriv: cannot make a file unreadable")
    return (setpriv, "--bounding-set=-dac_override,-dac_read_search")


@pytest.mark.parametrize("kind", KINDS)
def test_unreadable_file(kind: str, tmp_path: Path) -> None:
    protocol, target, args = stage(kind, valid_bytes(kind), tmp_path)
    prefix = without_root_read_override()
    assert cli_subprocess(args, prefix=prefix)[0] == 0  # readable: the same command scores
    target.chmod(0)
    assert stat.S_IMODE(target.stat().st_mode) == 0
    line = assert_one_error_line(*cli_subprocess(args, prefix=prefix), target)
    assert "Permission denied" in line
