"""Snapshots of the single-run view, the comparison view and the drill-down: at 120x36 (the
README's size), and at 80x24 and 140x40 on the demo and on the seeded 2,000-query protocol
(issue 14: every screen fits both).

Run files are given explicitly so a new file in the demo's runs/ does not change the pictures;
paths on screen are shown relative to the protocol directory, so the SVGs are machine-independent.
Update after an intended change with ``pytest tests/tui/test_score_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from rankeval_tui.tui.app import RankevalApp
from tests.tui.big_protocol import write_big_protocol
from tests.tui.settling import settle

SIZE = (120, 36)
DEMO = Path(__file__).resolve().parents[2] / "protocols" / "help-docs-zh"


def app_with(*names: str) -> RankevalApp:
    return RankevalApp(DEMO, run_specs=[(None, DEMO / "runs" / f"{name}.json") for name in names])


def test_single_run_view(snap_compare) -> None:
    assert snap_compare(app_with("fixture_A"), terminal_size=SIZE, run_before=settle)


def test_comparison_view(snap_compare) -> None:
    """With the paired statistics: the worker has finished before the picture is taken."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)

    assert snap_compare(app_with("fixture_A", "fixture_B"), terminal_size=SIZE, run_before=run_before)


def test_drill_down(snap_compare) -> None:
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("v")
        await pilot.pause()
        await pilot.press("enter", "down")
        await pilot.pause()

    assert snap_compare(app_with("fixture_A", "fixture_B"), terminal_size=SIZE, run_before=run_before)


def test_single_run_view_adjudicated(snap_compare, tmp_path) -> None:
    """A temp copy whose qrels went through the real adjudication path (q1, q2, q4 adjudicated):
    the status marker, the adjudicated_queries line and the legend entry."""
    import shutil

    from tests.core.test_session import adjudicate_copy

    copy = tmp_path / "help-docs-zh"
    shutil.copytree(DEMO, copy)
    adjudicate_copy(copy, tmp_path)
    app = RankevalApp(copy, run_specs=[(None, copy / "runs" / "fixture_A.json")])
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


ALL_METRICS = ("recall", "rr", "p", "success", "ap", "ndcg")


def test_comparison_view_every_metric_140x40(snap_compare) -> None:
    """``inspect --metrics R,RR,P,Success,AP,nDCG``: a column trio per metric, one summary line
    each, the paired tests of the chosen metric only (AP@k: three m presses from RR@k)."""
    app = RankevalApp(
        DEMO, run_specs=[(None, DEMO / "runs" / f"{n}.json") for n in ("fixture_A", "fixture_B")], metrics=ALL_METRICS
    )

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("v", "m", "m", "m")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(140, 40), run_before=run_before)


def test_single_run_view_every_metric_80x24(snap_compare) -> None:
    app = RankevalApp(DEMO, run_specs=[(None, DEMO / "runs" / "fixture_B.json")], metrics=ALL_METRICS)
    assert snap_compare(app, terminal_size=(80, 24), run_before=settle)


# ---------------------------------------------------------------- issue 14: 80x24 and 140x40


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_big_protocol(tmp_path_factory.mktemp("snapshots") / "big")


async def compare_view(pilot) -> None:
    """The comparison with its paired statistics (the worker has finished)."""
    await settle(pilot)
    await pilot.press("v")
    await settle(pilot)


async def drill_down(pilot) -> None:
    """Enter on the comparison's first query, the cursor one document down."""
    await compare_view(pilot)
    await pilot.press("enter", "down")
    await settle(pilot)


SCREENS: dict[str, Callable[..., Awaitable[None]]] = {
    "score": settle,
    "compare": compare_view,
    "drill_down": drill_down,
}


@pytest.mark.parametrize("size", [(80, 24), (140, 40)], ids=["80x24", "140x40"])
@pytest.mark.parametrize("screen", list(SCREENS))
def test_demo_fits(snap_compare, screen: str, size: tuple[int, int]) -> None:
    assert snap_compare(app_with("fixture_A", "fixture_B"), terminal_size=size, run_before=SCREENS[screen])


@pytest.mark.parametrize("size", [(80, 24), (140, 40)], ids=["80x24", "140x40"])
@pytest.mark.parametrize("screen", list(SCREENS))
def test_2000_queries_fit(snap_compare, big: Path, screen: str, size: tuple[int, int]) -> None:
    app = RankevalApp(big, run_specs=[(None, big / "runs" / f"{name}.json") for name in ("bm25", "dense")])
    assert snap_compare(app, terminal_size=size, run_before=SCREENS[screen])


# ---------------------------------------------------------------- issue 33: the chart of the deltas


@pytest.fixture(scope="module")
def mid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """500 queries, realistic IDs, three runs (bm25, dense, all_empty), as issue 33 tried it."""
    return write_big_protocol(tmp_path_factory.mktemp("snapshots") / "mid", queries=500)


async def chart_bin_chosen(pilot) -> None:
    """The comparison, then ``]`` twice: the table shows the queries of the second bin that has any."""
    await compare_view(pilot)
    await pilot.press("right_square_bracket", "right_square_bracket")
    await settle(pilot)


@pytest.mark.parametrize("size", [(80, 24), (140, 40)], ids=["80x24", "140x40"])
@pytest.mark.parametrize("before", [compare_view, chart_bin_chosen], ids=["chart", "bin"])
def test_500_queries_comparison_with_its_chart(snap_compare, mid: Path, before, size: tuple[int, int]) -> None:
    assert snap_compare(RankevalApp(mid), terminal_size=size, run_before=before)
