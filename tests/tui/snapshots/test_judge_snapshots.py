"""Snapshots (pytest-textual-snapshot, 120x36) of the judging screen and the overview matrix.

Built on a copy of the seed protocol without qrels, corpus order, a fixed annotator, so the
picture is the same on every machine. Update deliberately with ``--snapshot-update``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition
from rankeval_tui.tui.app import RankevalApp

SIZE = (120, 36)
# q1 judged, then q2 d1 and d2; back to q1 d2, disputed with a note (the cursor stays there).
KEYS = [
    "0",
    "1",
    "0",
    "0",
    "0",
    "0",
    "0",
    "0",
    "left",
    "left",
    "left",
    "left",
    "left",
    "left",
    "left",
    "d",
    "n",
    *"retry after a broken download",
    "enter",
]


@pytest.fixture()
def judging_app(seed_copy: Path) -> RankevalApp:
    (seed_copy / "qrels.toml").unlink()
    session = JudgingSession.open(load_definition(seed_copy), seed_copy / "qrels.toml", annotator="alice")
    return RankevalApp(seed_copy, qrels_path=seed_copy / "qrels.toml", start="judge", judge_session=session)


def test_judging_screen(snap_compare, judging_app: RankevalApp) -> None:
    assert snap_compare(judging_app, press=KEYS, terminal_size=SIZE)


def test_overview_matrix(snap_compare, judging_app: RankevalApp) -> None:
    assert snap_compare(judging_app, press=[*KEYS, "o", "down", "right", "right"], terminal_size=SIZE)


@pytest.fixture()
def imported_app(tmp_path: Path) -> RankevalApp:
    from tests.partial_protocol import write_partial_protocol

    directory = write_partial_protocol(tmp_path / "help-docs")
    session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="alice")
    return RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session)


def test_judging_screen_on_imported_labels_80x24(snap_compare, imported_app: RankevalApp) -> None:
    """Opened on the first hole; the status says what was imported and how much is left."""
    assert snap_compare(imported_app, terminal_size=(80, 24))


def test_overview_with_imported_labels(snap_compare, imported_app: RankevalApp) -> None:
    """Imported labels drawn in their own style beside the annotator's; the legend says which."""
    assert snap_compare(imported_app, press=["left", "1", "o"], terminal_size=SIZE)
