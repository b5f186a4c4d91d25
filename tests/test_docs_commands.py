"""Every example command in README.md and docs/*.md is run, so the docs cannot drift from the code.

The convention (docs/contributing.md, "Commands in the docs"):

- A fenced block marked ``console`` is an example that runs. Each line starting with ``$ `` is a
  command for bash (a trailing ``\\`` continues it on the next line). The lines after it, up to the
  next ``$ ``, are output that must appear in this order in its stdout and stderr (other lines may
  come between; ``...`` marks such a gap and is not matched). A trailing ``# exit N`` is the exit
  code expected; without it the command must exit 0.
- Every other block (indented, or fenced without ``console``) is a syntax summary with
  placeholders such as ``PROTOCOL`` or ``A.json``, and is not run.

A block runs in a fresh scratch directory holding a copy of ``protocols/`` (the bundled demo,
dereferenced, so nothing writes into the package) and links to ``benchmarks/`` and ``scripts/``.
There ``rankeval-tui`` and ``python`` are this interpreter with this checkout on ``PYTHONPATH``.
The commands of one block share that directory, so a block may write a file and then use it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^(`{3,})(\S*)\s*$")  # CommonMark: closed by as many backticks or more, no info
EXPECTED_EXIT = re.compile(r"\s+# exit (\d+)\s*$")
COMMAND_TIMEOUT = 120


@dataclass
class Command:
    text: str
    exit_code: int = 0
    output: list[str] = field(default_factory=list)


@dataclass
class ConsoleBlock:
    source: Path
    line: int
    commands: list[Command]

    @property
    def name(self) -> str:
        return f"{self.source.relative_to(REPO)}:{self.line}"


def parse_console(lines: list[str]) -> list[Command]:
    """The commands of one console block, each with its expected exit code and output lines."""
    commands: list[Command] = []
    pending: list[str] = []  # a command continued with a trailing backslash
    for raw in lines:
        line = raw.rstrip()
        if pending or line.startswith("$ "):
            part = line[2:] if not pending else line
            if part.endswith("\\"):
                pending.append(part[:-1])
                continue
            text = " ".join(p.strip() for p in [*pending, part])
            pending = []
            match = EXPECTED_EXIT.search(text)
            commands.append(Command(text, int(match.group(1)) if match else 0))
        elif commands and line.strip() and line.strip() != "...":
            commands[-1].output.append(line)
        elif not commands and line.strip():
            raise ValueError(f"output before any command: {line!r}")
    if pending:
        raise ValueError("a command ends with a backslash and nothing follows")
    return commands


def console_blocks(path: Path) -> list[ConsoleBlock]:
    blocks: list[ConsoleBlock] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    start, ticks, language = 0, "", ""
    for number, line in enumerate(lines, 1):
        fence = FENCE.match(line)
        if fence is None:
            continue
        if not ticks:
            start, ticks, language = number, fence.group(1), fence.group(2)
        elif len(fence.group(1)) >= len(ticks) and not fence.group(2):
            if language == "console":
                blocks.append(ConsoleBlock(path, start, parse_console(lines[start : number - 1])))
            ticks = ""
    assert not ticks, f"{path}:{start}: a fenced block is never closed"
    return blocks


BLOCKS = [block for path in DOCS for block in console_blocks(path)]


def shims(directory: Path) -> dict[str, str]:
    """An environment where ``rankeval-tui`` and ``python`` mean this interpreter and this checkout."""
    bin_dir = directory / ".bin"
    bin_dir.mkdir()
    for name, target in (("rankeval-tui", f'"{sys.executable}" -m rankeval_tui'), ("python", f'"{sys.executable}"')):
        shim = bin_dir / name
        shim.write_text(f'#!/bin/sh\nexec {target} "$@"\n', encoding="utf-8")
        shim.chmod(0o755)
    env = {key: value for key, value in os.environ.items() if key != "GITHUB_STEP_SUMMARY"}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(REPO)
    return env


def scratch(directory: Path) -> dict[str, str]:
    shutil.copytree(REPO / "protocols", directory / "protocols", symlinks=False)
    for name in ("benchmarks", "scripts"):
        (directory / name).symlink_to(REPO / name, target_is_directory=True)
    return shims(directory)


def missing_output(expected: list[str], actual: str) -> str | None:
    """The first expected line not found, in order, among the actual lines (None when all are)."""
    lines = iter(line.rstrip() for line in actual.splitlines())
    for wanted in expected:
        if not any(line == wanted for line in lines):
            return wanted
    return None


def run_block(block: ConsoleBlock, directory: Path) -> None:
    env = scratch(directory)
    for command in block.commands:
        result = subprocess.run(
            ["bash", "-c", command.text],
            cwd=directory,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
        )
        shown = (
            f"{block.name}: $ {command.text}\n--- stdout\n{result.stdout[-3000:]}\n--- stderr\n{result.stderr[-3000:]}"
        )
        assert result.returncode == command.exit_code, (
            f"exit {result.returncode}, expected {command.exit_code}\n{shown}"
        )
        absent = missing_output(command.output, result.stdout + result.stderr)
        assert absent is None, f"output line not found (in order): {absent!r}\n{shown}"


@pytest.mark.parametrize("block", BLOCKS, ids=[block.name for block in BLOCKS])
def test_console_block_runs_as_shown(block: ConsoleBlock, tmp_path: Path) -> None:
    run_block(block, tmp_path)


def test_the_docs_have_examples_to_run() -> None:
    """The convention is in use (an empty BLOCKS would make the test above pass vacuously)."""
    assert len(BLOCKS) >= 5
    assert {block.source.name for block in BLOCKS} >= {"scoring.md", "ci.md", "formats.md"}


def test_a_wrong_exit_code_or_output_fails(tmp_path: Path) -> None:
    """Negative controls: the runner catches a wrong exit code and a line the command never prints."""
    ok = parse_console(["$ rankeval-tui score protocols/help-docs-zh --format json", '    "split": "test",'])
    run_block(ConsoleBlock(REPO / "README.md", 0, ok), tmp_path / "ok")
    wrong = [
        ["$ rankeval-tui score protocols/help-docs-zh --run nowhere.json"],  # exit 2, not 0
        ["$ rankeval-tui score protocols/help-docs-zh  # exit 1"],  # exit 0, not 1
        ["$ rankeval-tui score protocols/help-docs-zh", "mean Recall@2 = 1 (1.0000)"],  # never printed
    ]
    for index, lines in enumerate(wrong):
        with pytest.raises(AssertionError):
            run_block(ConsoleBlock(REPO / "README.md", 0, parse_console(lines)), tmp_path / f"wrong{index}")


def test_readme_two_commands_are_what_ci_runs(tmp_path: Path) -> None:
    """The README's first block: `rankeval-tui score` with no protocol scores the bundled demo from
    any directory, and the test command is the one `.ci/run` runs (after installing the extras)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Two commands", 1)[1].split("\n\n")[1]
    install_and_score, install_and_test = [line.split("#")[0].strip() for line in block.splitlines()]
    assert install_and_score == "pip install . && rankeval-tui score"
    assert install_and_test == 'pip install -e ".[test,crosscheck]" && python -m pytest -q -n auto'
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert 'python -m pip install --quiet -e ".[test,crosscheck]"' in ci and "python -m pytest -q -n auto" in ci
    result = subprocess.run(
        ["rankeval-tui", "score"], cwd=tmp_path, env=shims(tmp_path), capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "sha256 9dd1a576cc830736a0884e847845f31f2390843c27a250abf3bafaf8fa72cadb" in result.stdout
