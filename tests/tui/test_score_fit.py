"""Issue 14, the scoring side: the scoring screen and the drill-down at 80x24 and 140x40.

Each test asserts on what the screen shows (rows in the table's visible region, the cursor's
row key, the note and summary text), on the seeded 2,000-query protocol or the demo. Expected
query lists come from the evaluator's report, not from the screen's own filtering code.
"""

from __future__ import annotations

import re
import threading
from fractions import Fraction
from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Static
from textual.widgets._footer import FooterKey

from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.judge.document_view import DocumentView
from rankeval_tui.tui.score.query_jump import find_query, not_found
from rankeval_tui.tui.score.query_screen import QueryScreen
from tests.tui.big_protocol import write_big_protocol
from tests.tui.settling import settle
from tests.tui.test_score_screen import cell, open_comparison, order, plain, specs

SMALL, LARGE = (80, 24), (140, 40)
BIG_RUNS = ("bm25", "dense", "all_empty")


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_big_protocol(tmp_path_factory.mktemp("issue14") / "big")


def big_app(big: Path, *runs: str) -> RankevalApp:
    return RankevalApp(big, run_specs=specs(big, *runs))


def rows_shown(table: DataTable) -> int:
    """Rows inside the table's visible region (its height less the header), at most its rows."""
    return min(table.row_count, table.scrollable_content_region.height - table.header_height)


def cursor_key(table: DataTable) -> str:
    return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)


def footer_keys(screen) -> list[FooterKey]:
    return list(screen.query(FooterKey))


def assert_footer_fits(screen, width: int, *kept: str) -> None:
    keys = footer_keys(screen)
    assert {key.key for key in keys} >= set(kept)
    assert all(key.region.right <= width for key in keys), [(key.key, key.region) for key in keys]


# ---------------------------------------------------------------- item 1: rows always shown


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_both_views_show_rows_at_2000_queries(big: Path, size: tuple[int, int]) -> None:
    async with big_app(big, "bm25", "dense").run_test(size=size) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        run_table = screen.query_one("#score-run-table", DataTable)
        assert run_table.row_count == 2000 and rows_shown(run_table) >= 10
        await pilot.press("v")
        await settle(pilot)
        compare = screen.query_one("#score-compare-table", DataTable)
        assert compare.row_count == 2000 and rows_shown(compare) >= 10
        assert "sign-flip p" in plain(screen, "#score-compare-summary")  # statistics arrived, rows kept
        assert_footer_fits(screen, size[0], "question_mark", "q")


async def test_comparison_shows_rows_while_statistics_compute(big: Path, monkeypatch) -> None:
    """Statistics held back: the pending line is shown and the table keeps its 10 rows."""
    import rankeval_tui.tui.score.compare_summary as compare_summary

    release = threading.Event()
    original = compare_summary.statistics_in_process

    def held(*args, **kwargs):
        assert release.wait(30)
        return original(*args, **kwargs)

    monkeypatch.setattr(compare_summary, "statistics_in_process", held)
    async with big_app(big, "bm25", "dense").run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await pilot.pause()
        screen = pilot.app.screen
        compare = screen.query_one("#score-compare-table", DataTable)
        try:
            assert "computing sign-flip and bootstrap over 2000 queries" in plain(screen, "#score-compare-summary")
            assert compare.row_count == 2000 and rows_shown(compare) >= 10
        finally:
            release.set()
        await settle(pilot)
        assert "sign-flip p" in plain(screen, "#score-compare-summary") and rows_shown(compare) >= 10


async def test_query_lists_are_counts_and_f_shows_them_in_full(big: Path) -> None:
    async with big_app(big, "bm25").run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        report = screen.session.report("bm25")
        missing, no_relevant = list(report.missing_queries), list(report.no_relevant_queries)
        assert len(missing) > 3 and len(no_relevant) > 3
        summary = plain(screen, "#score-run-summary")
        assert f"missing_queries: {len(missing)} queries" in summary
        assert f"no_relevant_queries: {len(no_relevant)} queries" in summary
        assert missing[0] not in summary  # counted, not listed
        table = screen.query_one("#score-run-table", DataTable)
        await pilot.press("f")
        await pilot.pause()
        assert order(table) == missing and rows_shown(table) >= 10
        assert f"missing queries ({len(missing)} of 2000)" in plain(screen, "#score-run-title")
        await pilot.press("f")
        await pilot.pause()
        assert order(table) == no_relevant
        assert all("no relevant" in cell(table, q, "status") for q in no_relevant)
        await pilot.press("f")  # no adjudication here: back to all queries
        await pilot.pause()
        assert table.row_count == 2000 and screen.state.run_filter == "all"


@pytest.mark.parametrize("width", [80, 140])
async def test_drill_down_reaches_every_run_with_its_columns_uncut(big: Path, width: int) -> None:
    async with big_app(big, *BIG_RUNS).run_test(size=(width, 24 if width == 80 else 40)) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # q:1001 with each accepted run
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, QueryScreen) and len(screen.runs) == 3
        window = "run 1 of 3 shown" if width == 80 else "runs 1-2 of 3 shown"  # as many as fit uncut
        assert plain(screen, "#query-window") == f"{window} (tab: next run)"
        seen = []
        for _ in range(len(screen.runs) + 1):
            table = screen.focused
            assert isinstance(table, DataTable) and table.id is not None
            seen.append(int(table.id.rsplit("-", 1)[1]))
            for shown in screen.query(".query-table").results(DataTable):
                if shown.parent is not None and shown.parent.display:
                    assert shown.virtual_size.width <= shown.scrollable_content_region.width, shown.id  # uncut
                    assert shown.region.right <= width and rows_shown(shown) >= min(5, shown.row_count)
            await pilot.press("tab")
            await pilot.pause()
        assert seen == [0, 1, 2, 0]  # every run reached, then round again
        if width == 80:  # the long need and document, in their short boxes at 80x24
            scroll = screen.query_one("#query-head-box", VerticalScroll)
            assert scroll.max_scroll_y > 0 and scroll.scroll_y == 0
            await pilot.press("n")
            await pilot.pause()
            assert scroll.scroll_y > 0
            document = screen.query_one(DocumentView)
            top = document.top
            assert document.last_top() > top  # longer than its box
            await pilot.press("d")
            await pilot.pause()
            assert document.top > top
        assert_footer_fits(screen, width, "escape", "question_mark", "q")


# ---------------------------------------------------------------- item 2: state survives


async def test_view_runs_metric_and_focus_survive_a_split_without_runs(seed_dir: Path) -> None:
    """Split dev rejects both runs (they hold test queries); back on test, everything is as chosen."""
    app = RankevalApp(seed_dir)  # all_empty, fixture_A, fixture_B
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert screen.focused is screen.query_one("#score-run-table", DataTable)  # from the start
        await pilot.press("v", "b", "c", "m")
        await pilot.pause()
        chosen = (screen.state.view, screen.state.baseline, screen.state.candidate, screen.state.metric)
        assert chosen[0] == "compare" and chosen[1] != chosen[2]
        await pilot.press("t")
        await pilot.pause()
        assert screen.state.view == "compare" and "needs two accepted runs" in plain(screen, "#score-compare-title")
        await pilot.press("t")
        await pilot.pause()
        assert (screen.state.view, screen.state.baseline, screen.state.candidate, screen.state.metric) == chosen
        assert screen.focused is screen.query_one("#score-compare-table", DataTable)
        await pilot.press("v")  # and the focus follows to the single-run table
        await pilot.pause()
        assert screen.focused is screen.query_one("#score-run-table", DataTable)


# ---------------------------------------------------------------- item 3: filters agree with the verdicts


async def test_regressions_filter_equals_the_verdict_column_on_every_metric(big: Path) -> None:
    async with big_app(big, "bm25", "dense").run_test(size=LARGE) as pilot:
        await open_comparison(pilot)
        screen = pilot.app.screen
        table = screen.query_one("#score-compare-table", DataTable)
        verdicts = {q: cell(table, q, "verdict") for q in order(table)}
        regressions = [q for q, verdict in verdicts.items() if "REGRESSION" in verdict]
        assert regressions
        for metric in ("rr", "recall"):
            assert screen.state.metric == metric
            await pilot.press("f")
            await pilot.pause()
            assert order(table) == regressions, metric
            await pilot.press("f", "m")
            await pilot.pause()


async def test_an_empty_filter_says_so(seed_dir: Path) -> None:
    app = RankevalApp(seed_dir, run_specs=specs(seed_dir, "fixture_A", "fixture_B"))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert screen.state.candidate == "fixture_B" and not screen.session.report("fixture_B").missing_queries
        note = screen.query_one("#score-run-note", Static)
        assert not note.display
        await pilot.press("f")  # missing queries of fixture_B: none
        await pilot.pause()
        assert screen.query_one("#score-run-table", DataTable).row_count == 0
        assert (
            note.display and plain(screen, "#score-run-note") == "no missing queries in run fixture_B (f: next filter)"
        )
        await pilot.press("v", "b")  # fixture_B against itself: no regression
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        assert screen.query_one("#score-compare-table", DataTable).row_count == 0
        assert plain(screen, "#score-compare-note") == (
            "no regressions: fixture_B is worse than fixture_B on no query (f: all queries)"
        )


# ---------------------------------------------------------------- item 4: navigation, jump, decimals


@pytest.mark.parametrize("view", ["run", "compare"])
async def test_home_end_and_pages_move_the_cursor(big: Path, view: str) -> None:
    async with big_app(big, "bm25", "dense").run_test(size=SMALL) as pilot:
        await settle(pilot)
        if view == "compare":
            await pilot.press("v")
            await settle(pilot)
        table = pilot.app.screen.query_one(f"#score-{view}-table", DataTable)
        keys = order(table)
        await pilot.press("end")
        await pilot.pause()
        assert cursor_key(table) == keys[-1] and table.scroll_y == table.max_scroll_y
        await pilot.press("home")
        await pilot.pause()
        assert cursor_key(table) == keys[0] and table.scroll_y == 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert table.cursor_row >= 10
        await pilot.press("pageup")
        await pilot.pause()
        assert table.cursor_row == 0


def test_find_query_prefers_the_exact_id_then_the_first_prefix() -> None:
    keys = ["q:1001", "q:1010", "q:101", "docs/export.md"]
    assert find_query(keys, "q:101") == "q:101"  # exact beats the earlier q:1010
    assert find_query(keys, "q:10") == "q:1001"  # first in shown order
    assert find_query(keys, " Q:1010 ") == "q:1010"  # trimmed, case ignored when nothing else matches
    assert find_query(keys, "docs/") == "docs/export.md"
    assert find_query(keys, "q:2") is None and find_query(keys, "") is None
    assert not_found("docs/", keys) == "no query 'docs/' in this table: not shown under the current filter (f)"
    assert not_found(" q:2 ", keys) == "no query 'q:2' in this table: not a query of this split"


async def test_slash_jumps_to_a_query_and_names_an_unknown_one(big: Path) -> None:
    async with big_app(big, "bm25", "dense").run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        table = screen.query_one("#score-run-table", DataTable)
        await pilot.press("slash", *"q:2500", "enter")
        await pilot.pause()
        assert cursor_key(table) == "q:2500" and screen.focused is table
        assert rows_shown(table) >= 10
        prefix = next(key for key in order(table) if key.startswith("q:199"))
        await pilot.press("slash", *"q:199", "enter")
        await pilot.pause()
        assert cursor_key(table) == prefix
        await pilot.press("slash", *"q:9999", "enter")
        await pilot.pause()
        assert cursor_key(table) == prefix  # not moved
        messages = [n.message for n in pilot.app._notifications]
        assert "no query 'q:9999' in this table: not a query of this split" in messages
        await pilot.press("escape")
        await pilot.pause()
        assert screen.focused is table and not screen.query_one("#score-jump").display
        await pilot.press("f")  # only missing queries shown: a known query that is filtered out
        await pilot.pause()
        shown = set(order(table))
        hidden = next(q for q in screen.session.protocol.selected_queries if q not in shown)
        await pilot.press("slash", *hidden, "enter")
        await pilot.pause()
        messages = [n.message for n in pilot.app._notifications]
        assert f"no query {hidden!r} in this table: not shown under the current filter (f)" in messages


async def test_mean_change_shows_its_decimal(big: Path) -> None:
    async with big_app(big, "bm25", "dense").run_test(size=LARGE) as pilot:
        await open_comparison(pilot)
        screen = pilot.app.screen
        comparison = screen.current_comparison()
        decimals = re.findall(r"Δ ([+-]\d\.\d{4})  win", plain(screen, "#score-compare-summary"))
        chosen_first = sorted(comparison.metrics, key=lambda m: m != screen.state.metric)
        assert decimals == [f"{float(comparison.mean_delta(m)):+.4f}" for m in chosen_first]
        await pilot.press("x")
        await pilot.pause()
        comparison = screen.current_comparison()
        summary = plain(screen, "#score-compare-summary")
        shown = re.findall(r"Δ ([+-]?\d+/\d+) \(([+-]\d\.\d{4})\)", summary)
        assert [Fraction(exact) for exact, _ in shown] == [comparison.mean_delta(m) for m in chosen_first]
        for exact, decimal in shown:
            assert decimal == f"{float(Fraction(exact)):+.4f}"


# ---------------------------------------------------------------- issue 33 item 2: the verdict first at 80 columns


async def test_chosen_metric_verdict_and_bar_fit_80_columns_for_every_metric(big: Path) -> None:
    """At 80x24 the query, both values and the delta of the chosen metric, the verdict and the bar
    are inside the table's visible width, whichever metric ``m`` chose (the rest scroll in)."""
    app = RankevalApp(big, run_specs=specs(big, "bm25", "dense"), metrics=("recall", "rr", "ndcg"))
    async with app.run_test(size=SMALL) as pilot:
        await open_comparison(pilot)
        screen = pilot.app.screen
        table = screen.query_one("#score-compare-table", DataTable)
        for _ in range(3):
            metric = screen.state.metric
            keys = [c.value for c in table.columns]
            first = ["query", f"base_{metric}", f"cand_{metric}", f"delta_{metric}", "verdict", "chart"]
            assert keys[:6] == first
            widths = [column.get_render_width(table) for column in table.ordered_columns]
            assert sum(widths[:6]) <= table.scrollable_content_region.width, (metric, widths)
            assert rows_shown(table) >= 10
            await pilot.press("m")
            await pilot.pause()
