"""The scoring screen's default baseline and ``r`` re-listing runs/ (Pilot, the real app)."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import DataTable, Static

from rankeval_tui.tui.app import RankevalApp
from tests.tui.settling import settle

SIZE = (120, 36)


def shown(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_v_on_the_demo_compares_fixture_b_against_fixture_a(seed_dir: Path) -> None:
    app = RankevalApp(seed_dir)  # runs/: all_empty, fixture_A, fixture_B; runs/BASELINE: fixture_A
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        screen = app.screen
        assert (screen.state.view, screen.state.baseline, screen.state.candidate) == (
            "compare",
            "fixture_A",
            "fixture_B",
        )
        assert "fixture_A [baseline (runs/BASELINE)]" in shown(screen, "#score-runs")
        assert "fixture_B [candidate]" in shown(screen, "#score-runs")
        table = screen.query_one("#score-compare-table", DataTable)
        assert "REGRESSION" in str(table.get_cell("q2", "verdict"))  # the README's q2


async def test_baseline_argument_reaches_the_screen(seed_dir: Path) -> None:
    app = RankevalApp(seed_dir, baseline="fixture_B")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert (app.screen.state.baseline, app.screen.state.candidate) == ("fixture_B", "fixture_A")
        assert "fixture_B [baseline (--baseline)]" in shown(app.screen, "#score-runs")


async def test_r_reads_a_run_file_added_after_the_start(seed_copy: Path) -> None:
    app = RankevalApp(seed_copy)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "fixture_C" not in shown(app.screen, "#score-runs")
        (seed_copy / "runs" / "fixture_C.json").write_text(json.dumps({"q4": ["d6"]}), encoding="utf-8")
        await pilot.press("r")
        await settle(pilot)
        assert "✓ fixture_C" in shown(app.screen, "#score-runs")
        assert app.screen.session.report("fixture_C").row("q4").rr == 1
        while app.screen.state.candidate != "fixture_C":  # and it can be shown
            await pilot.press("c")
            await pilot.pause()
        table = app.screen.query_one("#score-run-table", DataTable)
        assert str(table.get_cell("q4", "rr")) == "1"
