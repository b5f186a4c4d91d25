"""Helpers for before/after benchmarks in one run: another commit's code beside this checkout's,
whole processes timed from outside, and the best/median summary every script prints.

Why whole processes and one run: start-up (imports, bytecode, argparse) is part of what a user
waits for, and a shared machine's speed drifts; running the two versions in turn, pair by pair,
keeps their ratio meaningful while the absolute times move.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def checkout(rev: str) -> Iterator[Path]:
    """The tree of commit ``rev`` (``git archive``) in a temporary directory, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="rankeval-before-") as tmp:
        archive = Path(tmp) / "tree.tar"
        subprocess.run(["git", "archive", "-o", str(archive), rev], cwd=ROOT, check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(Path(tmp) / "tree", filter="data")
        yield Path(tmp) / "tree"


@contextmanager
def compared_trees(before: str | None) -> Iterator[dict[str, Path]]:
    """The code trees to time side by side, by label: this checkout (``now``) and, with
    ``--before REV``, that commit's tree beside it (``checkout``), removed afterwards."""
    if before is None:
        yield {"now": ROOT}
        return
    with checkout(before) as tree:
        yield {"now": ROOT, before[:10]: tree}


def code_env(code_root: Path, pycache: Path) -> dict[str, str]:
    """The environment that runs ``code_root``'s package with its bytecode cached in ``pycache``
    (as an installed package has it): ``PYTHONDONTWRITEBYTECODE`` would recompile every module
    at every start and time the compiler instead of the code."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(code_root)
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


@dataclass(frozen=True)
class Sample:
    wall: float
    cpu: float
    """user + system seconds of the child (its own accounting, wait4)."""
    peak_mb: float
    stdout: bytes


def run_process(argv: Sequence[str], env: dict[str, str], cwd: Path = ROOT, stdout_limit: int = -1) -> Sample:
    """One process from start to exit (its output into temporary files, so no pipe can stall it);
    a failure stops the benchmark with its stderr. Only the first ``stdout_limit`` bytes of its
    output are kept (all by default): a child starts with this process's peak RSS as its own
    (Linux carries the high-water mark over exec), so a benchmark that held the 60 MB reports of
    earlier runs would raise every later process's peak."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, cwd=cwd, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{err.read().decode()[-2000:]}")
        return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read(stdout_limit))


def best_median(values: Sequence[float], unit: str = "s", digits: int = 3) -> str:
    return f"{min(values):.{digits}f} / {statistics.median(values):.{digits}f} {unit}"
