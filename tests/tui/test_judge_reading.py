"""The evidence in view (issue 31): query terms highlighted (English and Chinese), find (``/``),
next/previous match (``m``/``M``) and the position, driven by the keyboard at 80x24 and 140x40."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition
from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.judge.document_view import DocumentView
from rankeval_tui.tui.widgets.launch_notice import LaunchNotice
from tests.tui.long_document import PASSAGE_LINE, write_long_protocol

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((140, 40), id="140x40")]


def judging(directory: Path) -> tuple[RankevalApp, JudgingSession]:
    session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="alice")
    return RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session), session


def painted(view: DocumentView, kind: str = "document--match") -> list[str]:
    """The texts drawn in ``kind``'s style on the rows on screen (as the terminal gets them)."""
    paint = view.get_component_rich_style(kind)
    found = []
    for y in range(view.size.height):
        for segment in view.render_line(y):
            style = segment.style
            if style is not None and paint.bgcolor is not None and style.bgcolor == paint.bgcolor:
                found.append(segment.text)
    return found


def status(app: RankevalApp) -> str:
    return str(app.screen.query_one("#judge-status").render())


@pytest.mark.parametrize("size", SIZES)
async def test_long_document_opens_on_its_best_passage_and_home_shows_the_start(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app, session = judging(write_long_protocol(tmp_path / "p"))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        view = app.screen.query_one(DocumentView)
        assert "Exporting your settings" in view.visible_text()
        # two rows of context above the passage: line 1,172 wraps to two rows at 80 columns
        top = PASSAGE_LINE - 1 if size[0] == 80 else PASSAGE_LINE - 2
        assert str(view.border_title).startswith(f"line {top:,} of 2,000 · ")
        assert f"opened at line {PASSAGE_LINE:,}, Home: the start" in str(view.border_title)
        assert painted(view)[:4] == ["Exporting", "settings", "Settings", "Export"]
        assert "PDF" in painted(view)
        await pilot.press("home")
        assert view.visible_text().startswith("Export guide\n\n")
        assert str(view.border_title) == f"line 1 of 2,000 · {'0' if size[1] == 24 else '1'}%"  # % of the bottom line
        assert painted(view)[:2] == ["Export", "export"]  # the title's word, then line 2's
        await pilot.press("end")
        assert "100%" in str(view.border_title)
        assert view.visible_text().endswith(view.lines[-1])
    session.close()


@pytest.mark.parametrize("size", SIZES)
async def test_m_and_shift_m_step_through_the_query_matches(tmp_path: Path, size: tuple[int, int]) -> None:
    app, session = judging(write_long_protocol(tmp_path / "p"))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        view = app.screen.query_one(DocumentView)
        await pilot.press("home", "m")  # from the start: line 2's "export"
        assert str(view.border_subtitle) == "query terms: 1 of 9 · m/M · / find"
        assert "You can export a single note" in view.visible_text()
        assert painted(view, "document--current") == ["export"]
        await pilot.press("m")
        assert str(view.border_subtitle).startswith("query terms: 2 of 9")
        assert view.visible_text().splitlines()[2].startswith("Exporting your settings")
        assert status(app) == "next match of the query's terms"
        await pilot.press("M")
        assert str(view.border_subtitle).startswith("query terms: 1 of 9")
        await pilot.press("M")  # before the first: round to the last
        assert status(app) == "wrapped round to the last match of the query's terms"
        assert "The PDF keeps every setting you exported" in view.visible_text()
        assert session.cursor.current == ("q:1001", "docs/export.md")  # reading moves no pair
    session.close()


@pytest.mark.parametrize("size", SIZES)
async def test_find_goes_to_any_text_and_empty_find_returns_to_the_query(tmp_path: Path, size: tuple[int, int]) -> None:
    app, session = judging(write_long_protocol(tmp_path / "p"))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        view = app.screen.query_one(DocumentView)
        await pilot.press("home", "slash")
        dialog = app.screen.query_one("#find-dialog").region
        assert dialog.right <= size[0] and dialog.bottom <= size[1]  # the find dialog fits the terminal
        await pilot.press(*"ZEBRA", "enter")
        await pilot.pause()
        assert status(app) == "2 matches for “ZEBRA”: m next, M previous"
        assert "A zebra crossing" in view.visible_text()
        assert str(view.border_title).startswith("line 38 of 2,000")
        assert painted(view, "document--current") == ["zebra"]
        await pilot.press("m")
        assert "Another zebra, far down." in view.visible_text()
        assert str(view.border_subtitle) == "“ZEBRA”: 2 of 2 · m/M · / find"
        await pilot.press("slash", "ctrl+u", "enter")  # an empty find: back to the query's terms
        await pilot.pause()
        assert status(app) == "find cleared: m/M step through the query's terms again"
        assert str(view.border_subtitle) == "query terms: 9 · m/M · / find"
        await pilot.press("slash", *"no such words", "enter")
        await pilot.pause()
        assert status(app).startswith("no match for “no such words” in this document")
        await pilot.press("slash", *"x", "escape")  # cancelled: nothing changes
        await pilot.pause()
        assert status(app).startswith("no match for “no such words”")
        assert session.marks.label_of("q:1001", "docs/export.md") is None  # typing in find labels nothing
    session.close()


@pytest.mark.parametrize("size", SIZES)
async def test_chinese_query_highlights_its_bigrams(seed_copy: Path, size: tuple[int, int]) -> None:
    (seed_copy / "qrels.toml").unlink()
    app, session = judging(seed_copy)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        view = app.screen.query_one(DocumentView)
        assert view.visible_text() == "下载操作指南：在设置的下载目录字段选择保存位置。"  # q1: 怎样重新下载失败的文件？
        assert painted(view) == ["下载", "下载"]
        assert str(view.border_title) == "1 line · all"
        await pilot.press("right")
        # overlapping bigrams (重新, 新下, 下载) are all matches, painted as one run
        assert painted(view) == ["下载", "重新下载", "文件"]
        assert str(view.border_subtitle) == "query terms: 5 · m/M · / find"
    session.close()


async def test_highlighting_never_changes_the_order_of_pairs(tmp_path: Path) -> None:
    """The order is the session's (corpus or seeded shuffle), whatever the query's terms match."""
    directory = write_long_protocol(tmp_path / "p")
    app, session = judging(directory)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        seen = [session.cursor.current]
        await pilot.press("0")
        seen.append(session.cursor.current)
    session.close()
    assert seen == [("q:1001", doc) for doc in session.cursor.docs_of["q:1001"]]
    assert session.cursor.docs_of["q:1001"] == ("docs/export.md", "docs/sync.md")  # corpus order, not by matches


async def test_launch_warnings_are_a_status_line_under_the_document_not_a_toast(tmp_path: Path) -> None:
    app, session = judging(write_long_protocol(tmp_path / "p"))
    session.warnings.append("journal: 1 torn line at its end dropped (the label was never shown)")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        notice = app.screen.query_one(LaunchNotice)
        assert notice.display and "torn line" in str(notice.render())
        assert not notice.region.overlaps(app.screen.query_one(DocumentView).region)
        assert not [n for n in app._notifications if "torn line" in n.message]
    session.close()
