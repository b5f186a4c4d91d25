"""The adjudication screen's document: drawn by the judging screen's line view, on screen at
80x24, and a decision recorded only for the pair whose document has been painted."""

from __future__ import annotations

import pytest
from textual import events
from textual.widgets import DataTable

from rankeval_tui.core.annotation.adjudication import AdjudicationSession
from rankeval_tui.core.errors import ContractError
from rankeval_tui.tui.adjudicate_screen import AdjudicateScreen
from rankeval_tui.tui.judge.document_view import DocumentView
from tests.tui.test_adjudicate_screen import adjudicating, files  # noqa: F401  (fixture)


def burst(app, keys: list[str]) -> None:
    """Send ``keys`` the way a fast typist's terminal does: all queued at once, no frame between."""
    for key in keys:
        char = key if len(key) == 1 else None
        event = events.Key(key, char)
        event.set_sender(app)
        app._driver.send_message(event)


def test_the_session_refuses_a_decision_chosen_for_another_pair(definition, files):  # noqa: F811
    a, b, out = files
    session = AdjudicationSession.open(definition, a, b, out, adjudicator="carol")
    try:
        with pytest.raises(ContractError, match="chosen for q2/d4, but the current pair is q1/d1"):
            session.decide(1, "looked at the other one", pair=("q2", "d4"))
        assert session.decisions == {}
        session.decide(0, "location only", pair=("q1", "d1"))
        assert set(session.decisions) == {("q1", "d1")}
    finally:
        session.close()


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_keys_faster_than_the_pane_never_decide_an_unseen_pair(definition, files, size):  # noqa: F811
    a, b, out = files
    async with adjudicating(definition, a, b, out, size) as (app, session, pilot):
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen)
        view = screen.query_one(DocumentView)
        painted_at_choice: list[object] = []  # what the pane showed when 0/1 was pressed
        decided: list[tuple[tuple[str, str], object]] = []
        choose, decide = screen.action_choose, session.decide

        def watched_choose(final):
            painted_at_choice.append(view.drawn_key)
            choose(final)

        def watched_decide(final, reason, *, pair=None):
            decision = decide(final, reason, pair=pair)  # raises, records nothing, for another pair
            item = session.items[session.positions[pair]]
            decided.append(((item.query, item.document), painted_at_choice[-1]))
            return decision

        screen.action_choose = watched_choose  # type: ignore[method-assign]
        session.decide = watched_decide  # type: ignore[method-assign]
        for _ in range(3):
            burst(app, ["right", "1", "x", "enter", "left", "0", "y", "enter", "n", "1", "z", "enter"])
            await pilot.pause()
            await pilot.pause()
        assert painted_at_choice  # the keys did reach the screen
        for pair, painted in decided:
            assert pair == painted  # recorded only for the pair whose document was on screen at 0/1
        assert len(session.decisions) == len({pair for pair, _ in decided})  # none recorded unwatched
        await pilot.press("1", "x", "enter")  # once the frame is drawn, the same keys decide
        await pilot.pause()
        assert decided and decided[-1][0] == decided[-1][1]


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_the_disputed_document_is_on_screen_and_moves_with_the_selection(definition, files, size):  # noqa: F811
    a, b, out = files
    async with adjudicating(definition, a, b, out, size) as (app, session, pilot):
        screen = app.screen
        view = screen.query_one(DocumentView)
        assert view.content_region.intersection(screen.region).height >= 8
        queue = screen.query_one(DataTable)
        assert queue.display == (size[0] >= 110)  # narrow: the queue folds, the document gets the rows
        assert "下载操作指南" in view.visible_text()  # q1/d1
        await pilot.press("right")
        await pilot.pause()
        assert session.current is not None and session.current.document == "d4"
        assert "导出表格指南" in view.visible_text() and view.drawn_key == ("q2", "d4")
        assert view.spans  # the query's terms are painted
        await pilot.press("1", "c", "s", "v", "enter")
        await pilot.pause()
        assert set(session.decisions) == {("q2", "d4")}
        arrows_in_queue = queue.has_focus
        assert arrows_in_queue == (size[0] >= 110)
        await pilot.press("tab")
        await pilot.pause()
        assert queue.display and queue.has_focus != arrows_in_queue  # Tab shows a folded queue, moves the arrows
        assert view.has_focus == arrows_in_queue
