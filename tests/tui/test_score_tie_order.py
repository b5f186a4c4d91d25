"""Issue 33 item 5 on the scoring screen: trec_eval's tie order said once, in no screen row."""

from __future__ import annotations

from textual.widgets import Static

from rankeval_tui.tui.app import RankevalApp
from tests.cli.test_tie_order_cli import tied  # noqa: F401  # the fixture: a TREC run with ties
from tests.tui.settling import settle


async def test_one_notification_per_run_and_no_row_taken(tied) -> None:  # noqa: F811
    directory, path, _ = tied
    app = RankevalApp(directory, run_specs=[(None, path), (None, directory / "runs" / "dense.json")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        ties = [n for n in app._notifications if "ranked otherwise by trec_eval" in n.message]
        assert len(ties) == 1 and "run 'tied'" in ties[0].message and "score --score-order" in ties[0].message
        assert ties[0].markup is False  # a run's name or path is shown as written, never as markup
        runs = str(app.screen.query_one("#score-runs", Static).render())
        assert "trec_eval" not in runs and "⚠" not in runs
        await pilot.press("plus")  # a k change: said once, not again
        await settle(pilot)
        assert sum("ranked otherwise" in n.message for n in app._notifications) <= 1
