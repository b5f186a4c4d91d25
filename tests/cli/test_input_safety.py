"""Only regular files of bounded size are read; messages quote input briefly.

Every case that could hang (FIFO) or read forever (/dev/zero) runs the real CLI in a
subprocess with a timeout: a regression fails by timing out, it cannot hang the suite.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from rankeval_tui.core.errors import quote
from tests.cli.helpers import REPO, assert_one_line_error

TIMEOUT = 30


def score(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rankeval_tui", "score", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, **(env or {})},
        timeout=TIMEOUT,
    )


@pytest.mark.parametrize("place", ["run", "qrels", "protocol"])
def test_fifo_is_refused_at_once_never_blocking(seed_copy: Path, tmp_path: Path, place: str) -> None:
    fifo = tmp_path / "input.fifo"
    os.mkfifo(fifo)
    if place == "run":
        result = score(seed_copy, "--run", f"fifo={fifo}")
    elif place == "qrels":
        result = score(seed_copy, "--qrels", fifo)
    else:
        (seed_copy / "protocol.toml").unlink()
        os.mkfifo(seed_copy / "protocol.toml")
        fifo = seed_copy / "protocol.toml"
        result = score(seed_copy)
    assert_one_line_error(result, str(fifo), "is a FIFO (named pipe), expected a regular file")


@pytest.mark.parametrize(("device", "kind"), [("/dev/zero", "a character device"), ("/dev/null", "a character device")])
def test_device_is_refused_without_reading_it(seed_copy: Path, device: str, kind: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    assert_one_line_error(score(seed_copy, "--run", device), device, f"is {kind}, expected a regular file")


def test_directory_and_socket_are_refused(seed_copy: Path, tmp_path: Path) -> None:
    folder = tmp_path / "runs_dir.json"
    folder.mkdir()
    assert_one_line_error(score(seed_copy, "--run", folder), str(folder), "is a directory, expected a regular file")
    path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        assert_one_line_error(score(seed_copy, "--run", path), str(path), "is a socket, expected a regular file")
    finally:
        server.close()


def test_size_limit_is_refused_and_can_be_raised(seed_copy: Path) -> None:
    protocol = seed_copy / "protocol.toml"
    limit = {"RANKEVAL_MAX_INPUT_BYTES": str(protocol.stat().st_size - 1)}
    assert_one_line_error(
        score(seed_copy, env=limit), f"{protocol}: larger than the input size limit of", "RANKEVAL_MAX_INPUT_BYTES"
    )
    largest = max(p.stat().st_size for p in seed_copy.rglob("*") if p.is_file())
    result = score(seed_copy, env={"RANKEVAL_MAX_INPUT_BYTES": str(largest)})
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("value", ["lots", "-5", "0", "1e9"])
def test_bad_size_limit_setting_is_one_line(seed_copy: Path, value: str) -> None:
    assert_one_line_error(score(seed_copy, env={"RANKEVAL_MAX_INPUT_BYTES": value}), "RANKEVAL_MAX_INPUT_BYTES")


def test_huge_document_id_is_quoted_briefly(seed_copy: Path) -> None:
    run = seed_copy / "runs" / "huge.json"
    doc = "msmarco_v2.1_doc_00_" + "9" * 20_000_000
    run.write_text('{"q2": ["' + doc + '"]}', encoding="utf-8")
    line = assert_one_line_error(score(seed_copy, "--run", run), str(run), f"({len(doc)} characters)")
    # The path may appear several times (the error, then the remedy's command) and its length
    # depends on where pytest puts tmp dirs (xdist adds a level): budget only the rest of the line.
    assert len(line.replace(str(seed_copy), "")) < 300


def test_5000_digit_trec_rank_is_out_of_range(seed_copy: Path) -> None:
    run = seed_copy / "runs" / "ranks.trec"
    run.write_text("q2 Q0 d1 " + "7" * 5000 + " 1.5 bm25\n", encoding="utf-8")
    line = assert_one_line_error(
        score(seed_copy, "--run", run), str(run), "line 1", "rank is out of range: 5000 digits"
    )
    assert "not an integer" not in line and len(line) < 400 + len(str(run))


def test_19_digit_rank_is_out_of_range_and_18_digits_is_a_rank(seed_copy: Path) -> None:
    run = seed_copy / "runs" / "ranks.trec"
    run.write_text("q2 Q0 d1 " + "1" * 19 + " 1.5 bm25\n", encoding="utf-8")
    assert_one_line_error(score(seed_copy, "--run", run), "rank is out of range: 19 digits, at most 18")
    run.write_text("q2 Q0 d1 " + "1" * 18 + " 1.5 bm25\n", encoding="utf-8")
    result = score(seed_copy, "--run", run)
    assert result.returncode == 0, result.stderr


def test_huge_json_integer_says_out_of_range(seed_copy: Path) -> None:
    run = seed_copy / "runs" / "big.json"
    run.write_text('{"q2": [' + "7" * 5000 + "]}", encoding="utf-8")
    line = assert_one_line_error(score(seed_copy, "--run", run), "an integer of more than 4300 digits is out of range")
    assert "set_int_max_str_digits" not in line


def test_quote_cuts_long_values_and_keeps_short_ones() -> None:
    assert quote("docs/export.md") == "'docs/export.md'"
    long = "d" * 1000
    assert quote(long) == "'" + "d" * 60 + "...' (1000 characters)"
    assert quote(10**6000) == "an integer of about 6001 digits"
    assert len(quote(["msmarco_v2.1_doc_00_12345" * 10] * 1000)) < 600


def test_an_empty_setting_means_the_default_limit(seed_copy: Path) -> None:
    """The default limit (1 GiB) reads every ordinary input: the seed scores unchanged."""
    result = score(seed_copy, env={"RANKEVAL_MAX_INPUT_BYTES": ""})
    assert result.returncode == 0, result.stderr
