"""The scoring screen with metrics beyond the seed's pair (``inspect --metrics``): columns, the
``m`` key, the summary and the drill-down show every chosen metric, from the evaluator."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from textual.widgets import DataTable, Static

from rankeval_tui.core.evaluation.evaluate import evaluate
from rankeval_tui.core.files import load_protocol, load_run
from rankeval_tui.core.wording import fraction_fits
from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.score.query_screen import QueryScreen
from tests.tui.settling import settle
from tests.tui.test_score_screen import cell, exact, order, plain, specs

METRICS = ("ndcg", "recall", "ap")


def app_with_metrics(seed_dir: Path, *runs: str) -> RankevalApp:
    return RankevalApp(seed_dir, run_specs=specs(seed_dir, *runs), metrics=METRICS)


async def test_run_table_shows_each_chosen_metric(seed_dir: Path) -> None:
    expected = evaluate(load_protocol(seed_dir), load_run(seed_dir / "runs" / "fixture_A.json"), METRICS)
    async with app_with_metrics(seed_dir, "fixture_A").run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        table = pilot.app.screen.query_one("#score-run-table", DataTable)
        labels = [str(column.label) for column in table.columns.values()]
        assert labels[1:4] == ["nDCG@k", "Recall@k", "AP@k"] and "RR@k" not in labels  # right after the query
        long_fractions = 0
        for row in expected.rows:
            for metric in METRICS:
                value, shown = row.value(metric), cell(table, row.query, metric)
                if fraction_fits(value):  # 1/2 (0.5000): the fraction beside its decimal
                    assert exact(shown) == value, (row.query, metric)
                else:  # nDCG's 1000000000000/1630929753571: the decimal alone, the fraction a key away
                    long_fractions += 1
                    assert shown == f"{float(value):.4f}", (row.query, metric)
        assert long_fractions  # the seed's nDCG values have long fractions: both branches are exercised
        summary = plain(pilot.app.screen, "#score-run-summary")
        assert "mean nDCG@2 = 0.4147   Recall@2 = 1/2 (0.5000)   MAP@2 = 1/3 (0.3333)" in summary
        table.move_cursor(row=order(table).index("q2"))
        await pilot.press("enter")  # the drill-down: every value exact
        await pilot.pause()
        assert isinstance(pilot.app.screen, QueryScreen)
        assert "1000000000000/1630929753571" in plain(pilot.app.screen, ".query-run-title")


async def test_metric_key_steps_through_the_chosen_metrics(seed_dir: Path) -> None:
    async with app_with_metrics(seed_dir, "fixture_A", "fixture_B").run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert screen.state.metric == "ndcg"  # RR@k is not shown, so the first chosen metric
        await pilot.press("v")
        await pilot.pause()
        table = screen.query_one("#score-compare-table", DataTable)
        assert [key.value for key in table.columns][1:4] == ["base_ndcg", "cand_ndcg", "delta_ndcg"]
        assert cell(table, "q2", "delta_ndcg") == f"▼ {float(Fraction(-369070246429, 1630929753571)):+.4f}"
        await pilot.press("x")  # the exact fraction beside the decimal
        await pilot.pause()
        assert cell(table, "q2", "delta_ndcg").startswith("▼ -369070246429/1630929753571")
        assert "REGRESSION" in cell(table, "q2", "verdict")  # Recall@k ties on q2; nDCG and AP fall
        seen = []
        for _ in range(4):
            seen.append(screen.state.metric)
            await pilot.press("f")  # regressions only: the verdict's rule, a loss on any metric
            await pilot.pause()
            seen.append(order(table))
            await pilot.press("f", "m")
            await pilot.pause()
        # q2 ties on Recall@k but its verdict is REGRESSION (nDCG, AP): the filter agrees with the verdict
        assert seen == ["ndcg", ["q2"], "recall", ["q2"], "ap", ["q2"], "ndcg", ["q2"]]
        summary = plain(screen, "#score-compare-summary")
        for label in ("nDCG@2", "Recall@2", "MAP@2"):
            assert label in summary
        assert "MRR@2" not in summary


async def test_drill_down_lists_the_chosen_metrics(seed_dir: Path) -> None:
    async with app_with_metrics(seed_dir, "fixture_B").run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        pilot.app.push_screen(QueryScreen(screen.session, "q2", ["fixture_B"]))
        await pilot.pause()
        text = " ".join(str(w.render()) for w in pilot.app.screen.query(Static))
        assert "nDCG@2 630929753571/1630929753571 (0.3869)  Recall@2 1/2 (0.5000)  AP@2 1/4 (0.2500)" in text


async def test_drill_down_explains_the_comparisons_metric_and_m_steps_through_them(seed_dir: Path) -> None:
    """Enter on q2 in the comparison (nDCG@2 chosen): each panel explains nDCG@2, the candidate's
    ranking says how each document moved; m explains the next metric."""
    async with app_with_metrics(seed_dir, "fixture_A", "fixture_B").run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await pilot.pause()
        assert pilot.app.screen.state.metric == "ndcg"
        await pilot.press("enter")  # q2, the first row
        await pilot.pause()
        query = pilot.app.screen
        assert isinstance(query, QueryScreen) and query.runs == ["fixture_A", "fixture_B"]
        why = [str(query.query_one(f"#query-why-{i}", Static).render()) for i in (0, 1)]
        assert all(text.startswith("nDCG@2 = DCG / ideal DCG") for text in why)
        assert why[1].splitlines()[0].endswith("= 630929753571/1630929753571 (0.3869)")
        candidate = query.query_one("#query-table-1", DataTable)
        assert (
            str(candidate.get_cell("d3", "note")) == "▼1 (was 1)"
            and str(candidate.get_cell("d1", "note")) == "▲1 (was 2)"
        )
        await pilot.press("m")  # Recall@2
        await pilot.pause()
        assert str(query.query_one("#query-why-1", Static).render()).startswith(
            "Recall@2 = hits / relevant = 1 / 2 = 1/2"
        )
