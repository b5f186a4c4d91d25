"""Issue 14, judging side: the judging screen, the overview and the adjudication screen fit
80x24 (and grow at 140x40), a label key never records a pair whose document is not on screen,
progress never reads complete early, and help and quit stay in the footer at 80 columns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets._footer import FooterKey

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.wording import counted, floored_percent, pairs_unjudged
from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.judge.dialogs import NoteScreen
from rankeval_tui.tui.judge.head import progress_text
from rankeval_tui.tui.judge.label_matrix import LabelMatrix
from rankeval_tui.tui.judge.overview import OverviewScreen
from rankeval_tui.tui.judge.screen import JudgeScreen
from rankeval_tui.tui.widgets.help_screen import HelpScreen
from tests.seed_labels import SEED_QRELS
from tests.tui.big_protocol import write_big_protocol


@pytest.fixture()
def big(tmp_path: Path) -> Path:
    """The 2,000-query protocol left to judge; its first query (q:1001) has a long need."""
    return write_big_protocol(tmp_path / "big", qrels=False)


def judging_app(directory: Path) -> tuple[RankevalApp, JudgingSession]:
    session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="alice")
    return RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session), session


def journal_ops(directory: Path) -> list[str]:
    """The ops the journal holds on disk (what survives a killed process)."""
    lines = (directory / "qrels.toml.journal").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["op"] for line in lines if line.strip()]


def on_screen(app: RankevalApp, selector: str) -> bool:
    """At least one line of the widget lies inside the terminal."""
    widget = app.screen.query_one(selector)
    return widget.region.intersection(app.screen.region).height >= 1


def footer_actions_on_screen(app: RankevalApp) -> set[str]:
    """Actions whose footer key is drawn whole inside the terminal (not cut at its right edge)."""
    width = app.screen.region.width
    shown = set()
    for key in app.screen.query(FooterKey):
        region = key.region
        if region.width and region.x >= 0 and region.right <= width and key.parent.region.contains_region(region):
            shown.add(key.action)
    return shown


def cut_footer_keys(app: RankevalApp) -> list[str]:
    """Footer keys drawn only in part (their right edge past the room the pinned keys leave)."""
    group = app.screen.query_one(".footer-unpinned")
    return [
        key.action
        for key in group.query(FooterKey)
        if key.display and key.region.width and key.region.right > group.region.right
    ]


# ------------------------------------------------------------------ wording


def test_counts_are_pluralized_and_percentages_floored() -> None:
    assert [counted(1, "pair"), counted(2, "pair"), counted(0, "pair")] == ["1 pair", "2 pairs", "0 pairs"]
    assert [counted(1, "query"), counted(2000, "query")] == ["1 query", "2000 queries"]
    assert counted(1, "disagreement") == "1 disagreement"
    assert [counted(3, "more query"), counted(1, "more problem"), counted(2, "judged pair")] == [
        "3 more queries",
        "1 more problem",
        "2 judged pairs",
    ]
    assert [pairs_unjudged(1), pairs_unjudged(0), pairs_unjudged(30)] == [
        "1 pair is unjudged",
        "0 pairs are unjudged",
        "30 pairs are unjudged",
    ]
    assert floored_percent(239, 240) == "99%"  # rounding made this 100% with a pair unjudged
    assert floored_percent(240, 240) == "100%"
    assert floored_percent(0, 240) == "0%"
    assert progress_text("overall", 239, 240) == "overall 239/240 99% · 1 left"
    assert progress_text("overall", 240, 240) == "overall 240/240 100%"


async def test_progress_says_one_left_until_the_last_pair(blank: Path) -> None:
    app, session = judging_app(blank)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(29):
            query, doc = session.cursor.current
            await pilot.press(str(SEED_QRELS[query][doc]))
        assert str(app.screen.query_one("#judge-total-count").render()) == "overall 29/30 96% · 1 left"
        assert "100%" not in str(app.screen.query_one("#judge-progress").render())
        query, doc = session.cursor.current
        await pilot.press(str(SEED_QRELS[query][doc]))
        assert str(app.screen.query_one("#judge-total-count").render()) == "overall 30/30 100%"
        await pilot.press("q")
        await pilot.pause()


# ------------------------------------------------------------------ judging screen


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_long_need_folds_so_query_and_document_are_on_screen(big: Path, size: tuple[int, int]) -> None:
    app, session = judging_app(big)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, JudgeScreen)
        assert session.definition.queries["q:1001"].need  # the long one
        assert str(screen.query_one("#judge-query").render()).startswith("Query q:1001")
        assert on_screen(app, "#judge-query") and screen.query_one("#judge-query").region.y == 1
        assert screen.query_one("#judge-need").region.height == 1  # folded to one line
        folded_lines = screen.document_lines_on_screen()
        assert folded_lines >= 10  # measured: 12 at 80x24, 28 at 140x40
        await pilot.press("e")  # unfold: the need in full, the document box shrinks
        await pilot.pause()
        assert screen.query_one("#judge-need").region.height > 1
        assert screen.document_lines_on_screen() < folded_lines
        await pilot.press("e")
        await pilot.pause()
        assert screen.document_lines_on_screen() == folded_lines
        await pilot.press("1")
        assert session.marks.label_of("q:1001", session.cursor.docs_of["q:1001"][0]) == 1
        assert journal_ops(big).count("label") == 1
        assert {"help", "quit_judging"} <= footer_actions_on_screen(app)
        await pilot.pause()  # the footer hides what it cannot show whole one frame after layout
        assert cut_footer_keys(app) == []
        assert ("note" in footer_actions_on_screen(app)) == (size[0] >= 100)  # measured: fits from 100 columns


async def test_label_keys_record_nothing_while_no_document_line_is_on_screen(big: Path) -> None:
    app, session = judging_app(big)
    first = session.cursor.current
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.document_lines_on_screen() == 0
        await pilot.press("1", "0", "1")
        await pilot.pause()
        assert session.marks.judged == 0 and session.cursor.current == first
        assert "NOT recorded" in str(screen.query_one("#judge-status").render())
        assert "label" not in journal_ops(big)
        assert on_screen(app, "#judge-query")  # the query stays; the help and quit keys too
        assert {"help", "quit_judging"} <= footer_actions_on_screen(app)
        await pilot.resize_terminal(80, 24)  # enlarged: the document shows and the key records
        await pilot.pause()
        assert screen.document_lines_on_screen() > 0
        await pilot.press("0")
        assert session.marks.label_of(*first) == 0 and journal_ops(big).count("label") == 1
        await pilot.press("q")
        await pilot.pause()
    assert not (big / "qrels.toml").exists()  # 1 of 80,000 judged: the journal keeps it


async def test_unfolded_need_at_80x24_squeezes_the_document_out_and_labels_are_refused(big: Path) -> None:
    app, session = judging_app(big)
    async with app.run_test(size=(80, 18)) as pilot:
        await pilot.pause()
        assert app.screen.document_lines_on_screen() > 0
        await pilot.press("e")
        await pilot.pause()
        assert app.screen.document_lines_on_screen() == 0
        await pilot.press("1")
        assert session.marks.judged == 0 and "label" not in journal_ops(big)
        await pilot.press("e", "1")  # folded again: recorded
        assert session.marks.judged == 1 and journal_ops(big).count("label") == 1


def dialog_fits(app: RankevalApp, selector: str) -> bool:
    region = app.screen.query_one(selector).region
    return region.width <= 80 and app.screen.region.contains_region(region)


async def test_note_and_help_dialogs_fit_80x24(big: Path) -> None:
    app, _ = judging_app(big)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen) and dialog_fits(app, "#help-dialog")
        await pilot.press("escape", "n")
        await pilot.pause()
        assert isinstance(app.screen, NoteScreen) and dialog_fits(app, "#note-dialog")
        note = app.screen.query_one("#note-input")
        assert app.screen.region.contains_region(note.region)
        assert len(note.placeholder) < note.content_region.width  # the placeholder whole, never cut
        await pilot.press("escape")


# ------------------------------------------------------------------ overview


async def test_overview_of_2000_queries_scrolls_at_80x24_with_the_cursor_in_view(big: Path) -> None:
    app, _ = judging_app(big)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, OverviewScreen)
        matrix = app.screen.query_one(LabelMatrix)
        await pilot.press("pagedown", "pagedown", "pagedown")
        assert matrix.rows_in_view == 14 and matrix.cursor[0] == 39  # 13 rows a page at 80x24
        assert matrix.row_offset == 39 - 14 + 1  # scrolled: the cursor's row is the last in view
        matrix.cursor = (1998, 0)  # far down (pressing 150 pages makes a slow test), then keys
        await pilot.press("down", "end")
        await pilot.pause()
        row, col = matrix.cursor
        assert row == 1999 and col == 39  # the last query, its last document
        assert matrix.row_offset <= row < matrix.row_offset + matrix.rows_in_view
        assert matrix.col_offset <= col < matrix.col_offset + matrix.columns_in_view
        assert "q:3000" in str(app.screen.query_one("#overview-cell").render())
        assert {"help", "quit"} <= footer_actions_on_screen(app)
        assert "2000 queries x 40 documents" in str(app.screen.query_one("#overview-legend").render())
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.press("q")  # quit from the overview: judging quits, the journal is kept
        await pilot.pause()
    assert app.return_value == 0
    assert (big / "qrels.toml.journal").exists() and not (big / "qrels.toml").exists()
