"""CLI conventions: unknown commands, no terminal, TREC qrels hint, step summary, file modes, pipes."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import REPO, assert_one_line_error, run_cli

SEED = REPO / "protocols" / "help-docs-zh"
A = SEED / "runs" / "fixture_A.json"


def test_unknown_command_is_an_invalid_choice_with_the_closest_match(tmp_path: Path) -> None:
    line = assert_one_line_error(
        run_cli("scroe", SEED, cwd=tmp_path), "invalid choice: 'scroe'", "did you mean 'score'?"
    )
    assert "protocol directory" not in line
    line = assert_one_line_error(run_cli("frobnicate", cwd=tmp_path), "invalid choice: 'frobnicate'")
    assert "did you mean" not in line and "./NAME" in line


@pytest.mark.parametrize(
    "args", [(), ("protocols/help-docs-zh",), ("inspect", "protocols/help-docs-zh"), ("judge", "{blank}")]
)
def test_the_app_refuses_to_start_without_a_terminal(blank: Path, args: tuple[str, ...]) -> None:
    """A path still opens the app (here: refuses for want of a terminal, at once, never hanging)."""
    args = tuple(a.format(blank=blank) for a in args)
    result = subprocess.run(
        [sys.executable, "-m", "rankeval_tui", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        timeout=30,
    )
    assert_one_line_error(result, "needs a terminal", "rankeval-tui score PROTOCOL")
    # judge refused here leaves nothing behind: no lock, no journal started for nothing
    assert not (blank / "qrels.toml.lock").exists() and not (blank / "qrels.toml.journal").exists()


def test_trec_qrels_given_as_qrels_get_a_hint_to_import(tmp_path: Path) -> None:
    trec = tmp_path / "qrels.txt"
    trec.write_text("q:1001 0 docs/export.md 1\nq:1001 0 docs/import.md 0\n", encoding="utf-8")
    assert_one_line_error(
        run_cli("score", SEED, "--qrels", trec), str(trec), "invalid TOML", "looks like TREC qrels", "qrels import"
    )
    not_trec = tmp_path / "broken.toml"
    not_trec.write_text("[qrels.q1\nd1 = 0\n", encoding="utf-8")
    line = assert_one_line_error(run_cli("score", SEED, "--qrels", not_trec), "invalid TOML")
    assert "TREC" not in line


@pytest.mark.parametrize(("gate", "passed"), [("recall=0.1", True), ("recall=1", False)])
def test_fail_under_writes_the_step_summary(tmp_path: Path, gate: str, passed: bool) -> None:
    summary = tmp_path / "summary.md"
    result = run_cli("score", SEED, "--run", A, "--fail-under", gate, env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.returncode == (0 if passed else 1), result.stderr
    text = summary.read_text(encoding="utf-8")
    assert ("**Threshold gate (--fail-under): passed**" if passed else "- gate failed: run 'fixture_A'") in text
    assert "9dd1a576cc830736a0884e847845f31f2390843c27a250abf3bafaf8fa72cadb" in text


@pytest.mark.parametrize("summary", ["no-such-dir/summary.md", "fifo"])
def test_summary_that_cannot_be_written_is_a_warning_not_an_exit_code(tmp_path: Path, summary: str) -> None:
    path = tmp_path / summary
    if summary == "fifo":
        os.mkfifo(path)
    result = run_cli("score", SEED, "--run", A, "--fail-under", "recall=1", env={"GITHUB_STEP_SUMMARY": str(path)})
    assert result.returncode == 1  # the gate's verdict, not 2
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: step summary not written")]
    assert len(warnings) == 1 and str(path) in warnings[0] and "Traceback" not in result.stderr


def run_with_umask(mask: int, *args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rankeval_tui", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        preexec_fn=lambda: os.umask(mask),  # noqa: PLW1509 - single-threaded test process
    )


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_a_new_file_follows_the_umask(tmp_path: Path, mask: int, mode: int) -> None:
    out = tmp_path / "qrels.txt"
    result = run_with_umask(mask, "qrels", "export", SEED, "-o", out)
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(out.stat().st_mode) == mode


def test_a_rewritten_file_keeps_its_mode(tmp_path: Path) -> None:
    out = tmp_path / "qrels.txt"
    out.write_text("old\n")
    out.chmod(0o664)  # a shared qrels file, group-writable
    result = run_with_umask(0o077, "qrels", "export", SEED, "-o", out, "--force")
    assert result.returncode == 0, result.stderr
    assert out.read_text() != "old\n" and stat.S_IMODE(out.stat().st_mode) == 0o664


def test_a_closed_stdout_ends_quietly() -> None:
    """``rankeval-tui validate P | (exec 0<&-; true)``: no traceback, the SIGPIPE status."""
    reader, writer = os.pipe()
    os.close(reader)  # nobody will ever read: every write is EPIPE
    try:
        result = subprocess.run(
            [sys.executable, "-m", "rankeval_tui", "score", SEED, "--format", "json"],
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            timeout=60,
        )
    finally:
        os.close(writer)
    assert result.returncode == 141 and result.stderr == "", result.stderr


def test_an_output_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    out = tmp_path / "missing-dir" / "qrels.txt"
    assert_one_line_error(run_cli("qrels", "export", SEED, "-o", out), f"error: {out}: No such file or directory")
