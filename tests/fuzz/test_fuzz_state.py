"""Replay the judging-state corpus (damaged journals, lock files) through the core and the real CLI.

Harmless damage resumes with a notice; anything else is one ``error:`` line naming the file,
quoting input briefly, with no lock left behind. See ``state_corpus.py`` for the cases.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import load_definition
from tests.fuzz.harness import CORPUS, DEMO, REPO
from tests.fuzz.state_corpus import STATE_SUFFIX, state_cases

GENERATED = state_cases()
CASES = [(kind, name, data, expect) for kind, cases in GENERATED.items() for name, (data, expect) in cases.items()]
PLACE = {"journal": "qrels.toml.journal", "lock": "qrels.toml.lock"}
BRIEF = 400
"""Longest acceptable error line, less the file name: input is quoted briefly."""


def test_committed_state_corpus_matches_its_generator() -> None:
    for kind, cases in GENERATED.items():
        on_disk = {p.name.removesuffix(STATE_SUFFIX[kind]): p.read_bytes() for p in (CORPUS / kind).iterdir()}
        assert on_disk == {name: data for name, (data, _) in cases.items()}


@pytest.mark.parametrize(("kind", "name", "data", "expect"), CASES, ids=[f"{k}/{n}" for k, n, _, _ in CASES])
def test_damaged_state_is_recovered_or_refused_in_one_line(
    kind: str, name: str, data: bytes, expect: str, tmp_path: Path
) -> None:
    protocol = tmp_path / "p"
    shutil.copytree(DEMO, protocol)
    target = protocol / PLACE[kind]
    target.write_bytes(data)
    lock = protocol / "qrels.toml.lock"
    try:
        session = JudgingSession.open(load_definition(protocol), protocol / "qrels.toml", annotator="fuzz")
    except ContractError as error:
        assert expect.startswith("refused: "), (expect, error.one_line())
        line = error.one_line()
        assert error.file == str(target) and expect.removeprefix("refused: ") in line, line
        assert len(line) < BRIEF + len(str(target))
        assert kind == "lock" or not lock.exists()
    else:
        assert expect == "recovered", (expect, session.warnings)
        assert session.warnings and all(str(target) in w for w in session.warnings)
        session.close()
    target.write_bytes(data)  # the core run may have recovered it; the CLI sees the same damage
    if kind == "journal" and lock.exists():
        lock.unlink()
    result = subprocess.run(
        [sys.executable, "-m", "rankeval_tui", "judge", str(protocol)],
        capture_output=True,
        text=True,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert result.returncode == 2 and result.stdout == "" and "Traceback" not in result.stderr, result.stderr
    (line,) = result.stderr.strip().splitlines()
    if expect == "recovered":  # judging would resume; without a terminal the app refuses to open
        assert "needs a terminal" in line
    else:
        assert (
            line == f"error: {target}: " + line.split(f"{target}: ", 1)[1] and expect.removeprefix("refused: ") in line
        )
