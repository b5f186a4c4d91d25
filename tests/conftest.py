"""Shared fixtures: the seed protocol as loaded from the repo's own files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SEED_DIR = REPO / "protocols" / "help-docs-zh"
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def seed_dir() -> Path:
    return SEED_DIR


@pytest.fixture()
def seed_copy(tmp_path: Path) -> Path:
    """A writable copy of the seed protocol, for tests that write or break files."""
    target = tmp_path / "help-docs-zh"
    shutil.copytree(SEED_DIR, target)
    return target


@pytest.fixture(scope="session")
def seed_expected() -> dict:
    return json.loads((DATA / "seed_expected.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def seed_expected_chunk() -> dict:
    return json.loads((DATA / "seed_expected_chunk.json").read_text(encoding="utf-8"))


@pytest.fixture()
def blank(seed_copy: Path) -> Path:
    """The seed protocol without qrels: a fresh judging job."""
    (seed_copy / "qrels.toml").unlink()
    return seed_copy


@pytest.fixture()
def definition(seed_dir: Path):
    from rankeval_tui.core.files import load_definition

    return load_definition(seed_dir)


@pytest.fixture()
def seed_labels(seed_dir: Path, definition):
    """The labels as read from the demo's qrels.toml (for tests about agreement and merging)."""
    from rankeval_tui.core.files import read_qrels_file

    return read_qrels_file(seed_dir / "qrels.toml", definition).labels
