"""At 80 columns the pair line cut the note (``note: nat...``), a long document ID and the
position off its end (issue 31); now the note has its own line, the position its own place at the
right, and an ID too long for the room is cut in its middle."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import tomli_w

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition
from rankeval_tui.tui.app import RankevalApp

LONG_ID = "msmarco_v2.1_doc_00_1234567890_segment_0042_of_0099"
NOTE = "natural language explanation of why this is relevant"


def write_protocol(directory: Path) -> Path:
    data = {
        "protocol": {"name": "ids", "k": 10, "split": "test", "relevance": "1 if it answers; otherwise 0"},
        "documents": {LONG_ID: {"text": "Export your settings to PDF."}, "docs/export.md": {"text": "x"}},
        "queries": {"q:1001": {"text": "export settings pdf", "split": "test"}},
    }
    directory.mkdir(parents=True)
    (directory / "protocol.toml").write_text(tomli_w.dumps(data), encoding="utf-8")
    return directory


def screen_text(app: RankevalApp) -> str:
    """What the terminal shows, as text (from the screenshot the app exports)."""
    svg = app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


@pytest.mark.parametrize("size", [(80, 24), (140, 40)], ids=["80x24", "140x40"])
async def test_note_position_and_long_id_stay_readable(tmp_path: Path, size: tuple[int, int]) -> None:
    directory = write_protocol(tmp_path / "p")
    session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="alice")
    app = RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session)
    async with app.run_test(size=size) as pilot:
        await pilot.press("d", "n", *NOTE, "enter")
        await pilot.pause()
        await pilot.pause()
        shown = screen_text(app)
        assert f"note: {NOTE}" in shown
        assert re.search(r"DISPUTED *1 of 2\n", shown)  # the position, whole, ending the row
        assert "label: unjudged" in shown and "DISPUTED" in shown
        assert "msmarco_v2" in shown and "_of_0099" in shown  # both ends of the ID
        assert "1 of 2" in shown.split("Document ")[1].splitlines()[0]
        if size[0] >= 140:
            assert LONG_ID in shown  # room enough: never cut
    session.close()
