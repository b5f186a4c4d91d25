"""Issue 30 S and T: a killed ``init`` leaves nothing the next ``init`` does not clean, messages
never name the staging path, and ``init .`` writes into the directory instead of replacing it."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.init_staging import held
from tests.cli.helpers import REPO, run_cli

DATA = REPO / "tests" / "data" / "own_data"
INPUTS = (
    "--corpus",
    str(DATA / "help-docs"),
    "--queries",
    str(DATA / "queries.tsv"),
    "--run",
    str(DATA / "bm25.trec"),
    "--k",
    "2",
)


def test_the_next_init_removes_a_killed_inits_staging_directory(tmp_path: Path) -> None:
    stale = tmp_path / ".help.init-k1ll3d"
    (stale / "runs").mkdir(parents=True)
    (stale / "protocol.toml").write_text("[protocol]\n", encoding="utf-8")  # half written
    result = run_cli("init", tmp_path / "help", *INPUTS)
    assert result.returncode == 0, result.stderr
    assert not stale.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["help"]


def test_a_live_inits_staging_directory_is_left_alone(tmp_path: Path) -> None:
    live = tmp_path / ".help.init-l1ve"
    live.mkdir()
    with held(live):  # another init, still writing
        assert run_cli("init", tmp_path / "help", *INPUTS).returncode == 0
        assert live.is_dir()


def test_a_failed_write_names_the_target_never_the_staging_path(tmp_path: Path) -> None:
    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))

    target = tmp_path / "help"
    result = subprocess.run(
        [sys.executable, "-m", "rankeval_tui", "init", str(target), *INPUTS],
        capture_output=True,
        text=True,
        cwd=REPO,
        preexec_fn=small_files,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"error: {target}: cannot write the protocol: File too large; nothing was written")
    assert ".init-" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_init_dot_writes_into_the_directory_under_the_shell(tmp_path: Path) -> None:
    here = tmp_path / "help"
    here.mkdir()
    inode = here.stat().st_ino
    result = run_cli("init", ".", *INPUTS, cwd=here, env={"PYTHONPATH": str(REPO)})
    assert result.returncode == 0, result.stderr
    assert here.stat().st_ino == inode  # the same directory: a shell inside it still sees the protocol
    assert os.listdir(here) and sorted(os.listdir(here)) == ["protocol.toml", "runs"]
    assert len(load_definition(here).documents) == 5


def test_an_init_killed_while_moving_into_a_directory_is_cleaned_by_the_next(tmp_path: Path) -> None:
    here = tmp_path / "help"
    staging = here / ".init-k1ll3d"
    (staging / "protocol.toml").parent.mkdir(parents=True)
    (staging / ".moving").write_text("runs\nqrels.toml\nprotocol.toml\n", encoding="utf-8")
    (staging / "protocol.toml").write_text("[protocol]\n", encoding="utf-8")
    (here / "runs").mkdir()  # moved before the kill; protocol.toml was not
    (here / "runs" / "bm25.trec").write_text("q:1001 Q0 docs/export.md 1 1.0 bm25\n", encoding="utf-8")
    result = run_cli("init", here, *INPUTS)
    assert result.returncode == 0, result.stderr
    assert sorted(os.listdir(here)) == ["protocol.toml", "runs"]
