"""The judging screen shows the pace and the time left once a few judgments are timed (issue 31)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankeval_tui.core.annotation import journal as journal_module
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition
from rankeval_tui.tui.app import RankevalApp


class Clock:
    now = 1_800_000_000.0

    def time(self) -> float:
        return self.now


@pytest.mark.parametrize("size", [(80, 24), (140, 40)], ids=["80x24", "140x40"])
async def test_pace_and_time_left_appear_after_three_timed_judgments(
    blank: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    clock = Clock()
    monkeypatch.setattr(journal_module, "time", clock)
    session = JudgingSession.open(load_definition(blank), blank / "qrels.toml", annotator="alice")
    app = RankevalApp(blank, qrels_path=blank / "qrels.toml", start="judge", judge_session=session)
    async with app.run_test(size=size) as pilot:
        pace = app.screen.query_one("#judge-pace")
        for _ in range(3):
            assert str(pace.render()) == ""
            clock.now += 14.0
            await pilot.press("0")
        await pilot.pause()
        assert str(pace.render()) == "~6 min left at 14 s/judgment"  # 27 pairs left x 14 s = 378 s
        assert pace.region.right <= size[0] and pace.region.width == len("~6 min left at 14 s/judgment")
    session.close()
