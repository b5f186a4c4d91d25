"""Issue 30 N: no file of a protocol directory is read through a link leading out of it.

``ln -s /proc/self/environ P/runs/BASELINE; score P`` printed environment variables, and a
credentials file leaked its first 60 characters into a CI log. The rule is in the one read path
(``safe_read.read_input_bytes``), so it holds for protocol.toml, qrels, runs, chunks, BASELINE and
sidecars alike; links that stay inside the directory still work.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files.safe_read import read_input_bytes
from tests.cli.helpers import assert_one_line_error, run_cli

SECRET = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


@pytest.fixture()
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "credentials"
    path.write_text(SECRET + "\n", encoding="utf-8")
    return path


def plant(link: Path, target: Path) -> None:
    if link.exists() or link.is_symlink():
        link.unlink()
    link.symlink_to(target)


def test_baseline_linked_to_proc_environ_is_refused(seed_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plant(seed_copy / "runs" / "BASELINE", Path("/proc/self/environ"))
    result = run_cli("score", seed_copy, env={"RANKEVAL_CANARY": "canary-value-123"})
    line = assert_one_line_error(result, "runs/BASELINE", "leading out of protocol directory")
    assert "canary-value-123" not in line


@pytest.mark.parametrize(
    "inside", ["runs/BASELINE", "protocol.toml", "qrels.toml", "runs/fixture_A.json", "chunks/chunk_map.toml"]
)
def test_every_protocol_file_linked_outside_is_refused_in_one_line(seed_copy: Path, secret: Path, inside: str) -> None:
    """Each file the protocol's commands read, linked to a credentials file: one error line, no secret."""
    plant(seed_copy / inside, secret)
    command = ["score", seed_copy] + (["--chunk-map", seed_copy / inside] if inside.startswith("chunks") else [])
    validate = run_cli("validate", seed_copy)  # validate reads neither BASELINE nor chunks/
    assert SECRET[:20] not in validate.stdout + validate.stderr
    if inside not in ("runs/BASELINE", "chunks/chunk_map.toml"):
        assert "leading out of protocol directory" in validate.stdout, validate.stdout
    assert_one_line_error(run_cli(*command), inside, "leading out of protocol directory")


def test_a_linked_runs_folder_leading_outside_is_refused(seed_copy: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    shutil.move(seed_copy / "runs", elsewhere)
    (seed_copy / "runs").symlink_to(elsewhere)
    assert_one_line_error(run_cli("score", seed_copy), "leading out of protocol directory")


def test_links_inside_the_protocol_and_a_linked_protocol_are_followed(seed_copy: Path, tmp_path: Path) -> None:
    shutil.move(seed_copy / "runs" / "fixture_B.json", seed_copy / "fixture_B.json")
    (seed_copy / "runs" / "fixture_B.json").symlink_to("../fixture_B.json")
    linked = tmp_path / "linked-protocol"
    linked.symlink_to(seed_copy)
    for directory in (seed_copy, linked):
        result = run_cli("score", directory, "--format", "json")
        assert result.returncode == 0, result.stderr
        assert "fixture_B" in result.stdout


def test_a_file_outside_every_protocol_is_read_as_given(seed_copy: Path, tmp_path: Path) -> None:
    """``--run /elsewhere/x.json`` is the user's own choice, not something a protocol planted."""
    run = tmp_path / "mine.json"
    shutil.copy(seed_copy / "runs" / "fixture_A.json", run)
    link = tmp_path / "link.json"
    link.symlink_to(run)
    result = run_cli("score", seed_copy, "--run", f"mine={link}", "--format", "json")
    assert result.returncode == 0, result.stderr


def test_the_rule_is_in_the_one_read_path(seed_copy: Path, secret: Path) -> None:
    planted = seed_copy / "chunks" / "any-new-file.toml"
    planted.symlink_to(secret)
    with pytest.raises(ContractError, match="leading out of protocol directory") as raised:
        read_input_bytes(planted)
    assert raised.value.file == str(planted) and str(secret.resolve()) in raised.value.rule
