"""The judging screen on imported partial labels (Pilot): it opens on the first hole, says what
was imported, marks imported labels on the pair line and in the overview, and judging the holes
by keyboard writes the imported labels unchanged beside the new ones (no hole becomes 0)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankeval_tui.core.annotation.hole_order import top_k_pairs
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition, read_qrels_file
from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.judge.overview import OverviewScreen
from tests.partial_protocol import IMPORT_SOURCE, IMPORTED, RUN, TRUTH, write_partial_protocol


@pytest.fixture()
def partial(tmp_path: Path) -> Path:
    return write_partial_protocol(tmp_path / "help-docs")


def make_app(directory: Path, *, top_k: bool = False) -> tuple[RankevalApp, JudgingSession]:
    definition = load_definition(directory)
    session = JudgingSession.open(definition, directory / "qrels.toml", annotator="alice")
    if top_k:
        session.order_holes(top_k_pairs(definition, [RUN], definition.k))
    app = RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session)
    return app, session


def shown(app: RankevalApp, widget_id: str) -> str:
    return str(app.screen.query_one(widget_id).render())


async def test_the_pair_line_stays_one_line_with_its_marks_at_80_columns(partial: Path) -> None:
    """A long document ID with its label and the imported mark: the pair line wrapped at 80
    columns and pushed the document down a line (found by a user walkthrough); it is one line
    now, the mark kept, and the position beside it in full."""
    app, session = make_app(partial)
    async with app.run_test(size=(80, 24)) as pilot:
        session.goto("q:1003", "docs/login.md")
        await pilot.press("right")  # the next document: the imported msmarco_v2.1_doc_00_12345
        await pilot.pause()
        pair = app.screen.query_one("#judge-pair")
        assert pair.size.height == 1
        screen_line = pair.render_line(0).text
        assert "msmarco_v2.1_doc_00_12345   label: 1  relevant   imported" in screen_line
        # the position has its own place at the right now (issue 31: it was cut off this line's end)
        assert app.screen.query_one("#judge-position").render_line(0).text.strip() == "3 of 3"
        await pilot.press("q")


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_opens_on_the_first_hole_and_says_what_was_imported(partial: Path, size) -> None:
    app, _ = make_app(partial)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert "Document msmarco_v2.1_doc_00_12345" in shown(app, "#judge-pair")
        assert "unjudged" in shown(app, "#judge-pair") and "imported" not in shown(app, "#judge-pair")
        status = shown(app, "#judge-status")
        assert status == f"4 imported ({IMPORT_SOURCE}) · 5 of 9 to judge · from the first hole"
        assert len(status) + 2 <= size[0]  # fits the one status line at 80 columns
        assert "overall 4/9" in shown(app, "#judge-total-count")
        await pilot.press("left")  # the imported label just before it
        line = shown(app, "#judge-pair")
        assert "Document docs/login.md" in line and "0  not relevant" in line and "imported" in line
        await pilot.press("1")  # reviewed and changed: no longer marked imported
        await pilot.press("left")
        assert "imported" not in shown(app, "#judge-pair") and "1  relevant" in shown(app, "#judge-pair")
        await pilot.press("q")


async def test_overview_marks_imported_labels(partial: Path) -> None:
    app, _ = make_app(partial)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, OverviewScreen)
        assert "1 imported" in shown(app, "#overview-legend")
        await pilot.press("home")  # q:1001 docs/export.md: imported 1
        assert "document docs/export.md  1 relevant  imported" in shown(app, "#overview-cell")
        await pilot.press("end")  # q:1001's hole
        assert "unjudged" in shown(app, "#overview-cell") and "imported" not in shown(app, "#overview-cell")
        await pilot.press("escape", "q")


async def test_judging_the_holes_by_keyboard_keeps_the_imported_labels(partial: Path) -> None:
    app, session = make_app(partial, top_k=True)
    visited = []
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert shown(app, "#judge-status").endswith("top-k holes first")
        for _ in range(5):
            pair = session.cursor.current
            assert "unjudged" in shown(app, "#judge-pair")
            visited.append(pair)
            await pilot.press(str(TRUTH[pair]))
            await pilot.press("g")  # the next hole (the top-k ones first)
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    assert visited[:2] == [("q:1002", "msmarco_v2.1_doc_00_12345"), ("q:1003", "docs/login.md")]
    written = read_qrels_file(partial / "qrels.toml", load_definition(partial))
    for query, row in IMPORTED.items():
        for doc, label in row.items():
            assert written.labels[query][doc] == label
    for (query, doc), label in TRUTH.items():
        assert written.labels[query][doc] == label
    assert written.provenance["imported_from"] == IMPORT_SOURCE
    assert not (partial / "qrels.toml.journal").exists()
