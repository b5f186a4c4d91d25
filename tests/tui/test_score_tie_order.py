"""The scoring screen says trec_eval's tie order once, in a status line under the table."""

from __future__ import annotations

from textual.widgets import Static

from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.widgets.launch_notice import LaunchNotice
from tests.cli.test_tie_order_cli import tied  # noqa: F401  # the fixture: a TREC run with ties
from tests.tui.settling import settle


async def test_tie_order_said_once_in_a_status_line_not_a_toast(tied) -> None:  # noqa: F811
    """Said in the status line under the table (a toast covered half the screen), once per run."""
    directory, path, _ = tied
    app = RankevalApp(directory, run_specs=[(None, path), (None, directory / "runs" / "dense.json")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not [n for n in app._notifications if "ranked otherwise" in n.message]  # no toast
        notice = app.screen.query_one(LaunchNotice)
        said = str(notice.render())
        assert notice.display and said.count("ranked otherwise by trec_eval") == 1
        assert "run 'tied'" in said and "score --score-order" in said and "change a value at k=" in said
        assert notice.region.height == 1  # one line, cut to the width: the table keeps its rows
        table = app.screen.query_one("#score-run-table")
        assert not notice.region.overlaps(table.region)  # under the table, not over it
        runs = str(app.screen.query_one("#score-runs", Static).render())
        assert "trec_eval" not in runs and "⚠" not in runs
        await pilot.press("plus")  # a k change: said once, not again
        await settle(pilot)
        assert str(notice.render()).count("ranked otherwise") <= 1
        assert not [n for n in app._notifications if "ranked otherwise" in n.message]
        notice.hide()  # what its timer does: the row goes back to the table
        await pilot.pause()
        assert not notice.display
