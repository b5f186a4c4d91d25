"""An atomic write removes the temps killed writes of the same file left, and only those."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from rankeval_tui.core.files.atomic import LEGACY_STALE_SECONDS, atomic_write_text, host_tag


def test_stale_temporaries_go_and_live_ones_stay(tmp_path: Path) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(gone.stdout)  # exited and reaped: no process has it (unless reused: then it stays)
    here = host_tag()
    names = {
        "killed here": f".qrels.toml.{here}.{dead_pid}.abc123.tmp",
        "legacy, old": ".qrels.toml.old12345.tmp",
        "running writer": f".qrels.toml.{here}.{os.getppid()}.abc123.tmp",
        "another host": f".qrels.toml.elsewhere.{dead_pid}.abc123.tmp",
        "legacy, fresh": ".qrels.toml.new12345.tmp",
        "another file's": f".protocol.toml.{here}.{dead_pid}.abc123.tmp",
    }
    for name in names.values():
        (tmp_path / name).write_text("half a write")
    old = time.time() - LEGACY_STALE_SECONDS - 60
    os.utime(tmp_path / names["legacy, old"], (old, old))
    atomic_write_text(tmp_path / "qrels.toml", "whole\n")
    left = {what for what, name in names.items() if (tmp_path / name).exists()}
    assert left == {"running writer", "another host", "legacy, fresh", "another file's"}
    assert (tmp_path / "qrels.toml").read_text() == "whole\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".qrels.toml.") and "abc123" not in p.name] == [
        ".qrels.toml.new12345.tmp"
    ]
