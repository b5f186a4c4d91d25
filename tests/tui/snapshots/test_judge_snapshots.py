"""Snapshots (pytest-textual-snapshot) of the judging screen and the overview matrix, at
80x24 and 140x40 (issue 14: every screen fits the smallest common terminal and grows).

Built on a copy of the seed protocol without qrels, and on the seeded 2,000-query protocol left
to judge (``tests/tui/big_protocol.py``), corpus order, a fixed annotator, so the picture is the
same on every machine. Update deliberately with ``--snapshot-update``, then look at the SVGs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rankeval_tui.core.annotation import journal as journal_module
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition
from rankeval_tui.tui.app import RankevalApp
from tests.tui.long_document import write_long_protocol

SIZE = (120, 36)
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((140, 40), id="140x40")]
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


class SteppingClock:
    """The journal's clock in snapshots: 14 s between entries, so the pace shown ("~... left at
    14 s/judgment") is the same on every machine instead of the test's milliseconds."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def time(self) -> float:
        self.now += 14.0
        return self.now


@pytest.fixture(autouse=True)
def stepping_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(journal_module, "time", SteppingClock())


@pytest.fixture()
def judging_app(seed_copy: Path) -> RankevalApp:
    (seed_copy / "qrels.toml").unlink()
    session = JudgingSession.open(load_definition(seed_copy), seed_copy / "qrels.toml", annotator="alice")
    return RankevalApp(seed_copy, qrels_path=seed_copy / "qrels.toml", start="judge", judge_session=session)


@pytest.mark.parametrize("size", SIZES)
def test_judging_screen(snap_compare, judging_app: RankevalApp, size: tuple[int, int]) -> None:
    assert snap_compare(judging_app, press=KEYS, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_overview_matrix(snap_compare, judging_app: RankevalApp, size: tuple[int, int]) -> None:
    assert snap_compare(judging_app, press=[*KEYS, "o", "down", "right", "right"], terminal_size=size)


@pytest.fixture()
def big_judging_app(tmp_path: Path) -> RankevalApp:
    """2,000 queries x 40 documents to judge; the first query has a need of several lines."""
    from tests.tui.big_protocol import write_big_protocol

    directory = write_big_protocol(tmp_path / "big", qrels=False)
    session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="alice")
    return RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session)


@pytest.mark.parametrize("size", SIZES)
def test_judging_screen_2000_queries(snap_compare, big_judging_app: RankevalApp, size: tuple[int, int]) -> None:
    """Two pairs judged; the long need folded to one line, the document below it."""
    assert snap_compare(big_judging_app, press=["1", "0"], terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_overview_2000_queries(snap_compare, big_judging_app: RankevalApp, size: tuple[int, int]) -> None:
    """Scrolled down two pages and right, so the cursor's row and column are not the first."""
    keys = ["1", "0", "o", "pagedown", "pagedown", *["right"] * 3]
    assert snap_compare(big_judging_app, press=keys, terminal_size=size)


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


@pytest.fixture()
def long_document_app(tmp_path: Path) -> RankevalApp:
    """A 2,000-line document opened on its best passage (line 1,173), query terms highlighted."""
    directory = write_long_protocol(tmp_path / "long")
    session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="alice")
    return RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session)


@pytest.mark.parametrize("size", SIZES)
def test_long_document_with_highlights(snap_compare, long_document_app: RankevalApp, size: tuple[int, int]) -> None:
    """Opened on the passage, the border saying so and where; ``m`` then marks the current match."""
    assert snap_compare(long_document_app, press=["m"], terminal_size=size)
