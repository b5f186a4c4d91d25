"""Issue 33 item 1: the comparison's chart of per-query deltas, and selecting a bin filters the table.

Expected queries come from the evaluator's reports (candidate minus baseline per query, binned
by the documented rule here), not from the chart's own bins.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from textual.widgets import DataTable

from rankeval_tui.core.evaluation.evaluate import evaluate
from rankeval_tui.core.evaluation.histogram import LEFT, PER_SIDE
from rankeval_tui.core.files import load_protocol, load_run
from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.score.delta_histogram import DeltaChart
from tests.tui.big_protocol import write_big_protocol
from tests.tui.test_score_screen import open_comparison, order, plain


@pytest.fixture(scope="module")
def mid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_big_protocol(tmp_path_factory.mktemp("chart") / "mid", queries=500)


def expected_bins(directory: Path, metric: str) -> dict[int, list[str]]:
    """Bin index -> queries, in protocol order: ties alone, losses [-i/n, -(i-1)/n), wins ((i-1)/n, i/n]."""
    protocol = load_protocol(directory)
    base, cand = (evaluate(protocol, load_run(directory / "runs" / f"{n}.json")) for n in ("bm25", "dense"))
    bins: dict[int, list[str]] = {}
    for b, c in zip(base.rows, cand.rows):
        if b.value(metric) is None:
            continue
        delta = c.value(metric) - b.value(metric)
        step = next(i for i in range(PER_SIDE + 1) if abs(delta) <= Fraction(i, PER_SIDE))
        index = PER_SIDE if delta == 0 else PER_SIDE - step if delta < 0 else PER_SIDE + step
        bins.setdefault(index, []).append(b.query)
    return bins


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_clicking_a_bin_and_the_bracket_keys_filter_the_table(mid: Path, size: tuple[int, int]) -> None:
    expected = expected_bins(mid, "rr")
    app = RankevalApp(mid)  # bm25 against dense, RR@k first
    async with app.run_test(size=size) as pilot:
        await open_comparison(pilot)
        screen = app.screen
        assert (screen.state.baseline, screen.state.candidate, screen.state.metric) == ("bm25", "dense", "rr")
        table = screen.query_one("#score-compare-table", DataTable)
        chart = screen.query_one(DeltaChart)
        assert len(order(table)) == 500
        bin_width = chart._picture.bin_width
        for index in (min(expected), PER_SIDE, max(expected)):  # a loss bin, the ties, a win bin
            await pilot.click(DeltaChart, offset=(1 + LEFT + index * bin_width, 0))
            await pilot.pause()
            assert order(table) == expected[index], index
            assert f": {len(expected[index])}" in plain(screen, "#score-compare-title")
        await pilot.click(DeltaChart, offset=(1 + LEFT + max(expected) * bin_width, 0))  # the same bin again
        await pilot.pause()
        assert len(order(table)) == 500
        await pilot.press("right_square_bracket")  # the first bin holding queries, from the left
        await pilot.pause()
        assert order(table) == expected[min(expected)]
        await pilot.press("left_square_bracket", "left_square_bracket")  # all, then the last bin
        await pilot.pause()
        assert order(table) == expected[max(expected)]
        await pilot.press("s")  # the filter keeps; the order changes
        await pilot.pause()
        assert sorted(order(table)) == sorted(expected[max(expected)])
        await pilot.press("m")  # another metric's chart: its bins, so all queries again
        await pilot.pause()
        assert len(order(table)) == 500


async def test_the_chart_and_ten_rows_fit_80x24_and_the_chart_grows_at_140x40(mid: Path) -> None:
    heights = {}
    for size in ((80, 24), (140, 40)):
        async with RankevalApp(mid).run_test(size=size) as pilot:
            await open_comparison(pilot)
            screen = pilot.app.screen
            chart = screen.query_one(DeltaChart)
            table = screen.query_one("#score-compare-table", DataTable)
            assert chart.region.bottom <= table.region.y  # above the table, not over it
            assert table.scrollable_content_region.height - table.header_height >= 10
            assert chart.region.right <= size[0]
            heights[size] = chart.region.height
            lines = str(chart.render()).splitlines()
            assert "95% CI [" in lines[-1] and "◆ mean Δ" in lines[-2]  # the statistics arrived
    assert heights[(80, 24)] == 4 and heights[(140, 40)] > heights[(80, 24)]
