"""The scoring screen with several cutoffs (``rankeval-tui DIR --metrics P@5,P@10,nDCG@10``): one
column per metric at its cutoff, ``m`` chooses any of them for the comparison (its statistics and
drill-down at that cutoff), every number ``evaluate``'s under ``protocol.with_k(cutoff)``."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from textual.widgets import DataTable, Static

from rankeval_tui.core.evaluation.evaluate import evaluate
from rankeval_tui.core.evaluation.metrics import named_metrics
from rankeval_tui.core.files import load_protocol, load_run
from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.score.query_screen import QueryScreen
from tests.cli.helpers import REPO, assert_one_line_error, run_cli
from tests.cli.test_trec_eval_collection import expected_values
from tests.tui.settling import settle
from tests.tui.test_score_screen import cell, exact, plain, specs

TREC = REPO / "tests" / "data" / "trec_eval"


def app_at_cutoffs(directory: Path, names: str, k: int, *runs: str) -> RankevalApp:
    run_specs = specs(directory, *runs) if runs else None
    return RankevalApp(directory, run_specs=run_specs, named=named_metrics(names.split(","), k))


def labels(table: DataTable) -> list[str]:
    return [str(column.label) for column in table.columns.values()]


async def test_demo_shows_each_metric_at_its_cutoff_and_m_compares_at_it(seed_dir: Path) -> None:
    protocol = load_protocol(seed_dir)
    run_a, run_b = (load_run(seed_dir / "runs" / f"{name}.json") for name in ("fixture_A", "fixture_B"))
    async with app_at_cutoffs(seed_dir, "R@1,R@2,RR@2", 2, "fixture_A", "fixture_B").run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        table = screen.query_one("#score-run-table", DataTable)
        assert labels(table)[:4] == ["query", "R@1", "R@2", "RR@2"]
        shown = screen.state.candidate
        for key, metric, cutoff in (("recall@1", "recall", 1), ("recall@2", "recall", 2), ("rr@2", "rr", 2)):
            expected = evaluate(protocol.with_k(cutoff), run_b if shown == "fixture_B" else run_a, (metric,))
            for row in expected.rows:
                assert exact(cell(table, row.query, key)) == row.value(metric), (row.query, key)
        summary = plain(screen, "#score-run-summary")
        assert "mean Recall@1 = 2/3 (0.6667)   Recall@2 = 5/6 (0.8333)   MRR@2 = 5/6 (0.8333)" in summary

        await pilot.press("v")
        await settle(pilot)
        compare = screen.query_one("#score-compare-table", DataTable)
        assert (screen.state.metric, screen.state.metric_cutoff) == ("rr", 2)  # RR@k first, as without cutoffs
        assert labels(compare)[1:4] == ["base RR@2", "cand RR@2", "Δ RR@2"]
        assert "m RR@2  s" in plain(screen, "#score-compare-title")  # at k: the header's hash
        await pilot.press("m")  # R@1: the comparison of the cutoff-1 protocol
        await settle(pilot)
        assert (screen.state.metric, screen.state.metric_cutoff) == ("recall", 1)
        title = plain(screen, "#score-compare-title")
        assert f"m R@1 (sha {protocol.with_k(1).protocol_sha256[:8]})" in title  # cutoff 1: its own protocol
        assert [key.value for key in compare.columns][1:4] == ["base_recall", "cand_recall", "delta_recall"]
        assert labels(compare)[1:4] == ["base R@1", "cand R@1", "Δ R@1"] and "base RR@2" not in labels(compare)
        at_one = (evaluate(protocol.with_k(1), run, ("recall",)) for run in (run_a, run_b))
        base, cand = (report.row("q2").recall for report in at_one)
        assert (base, cand) == (Fraction(1, 2), 0)  # q2 loses its rank-1 hit: a regression at cutoff 1
        assert cell(compare, "q2", "base_recall") == "0.5000" and cell(compare, "q2", "delta_recall") == "▼ -0.5000"
        summary = plain(screen, "#score-compare-summary")
        assert "Recall@1  fixture_A 0.1667 → fixture_B 0.6667  Δ +0.5000  win/tie/loss 2/0/1" in summary
        assert "sign-flip p = 0.5000" in summary  # the statistics of cutoff 1, not of k = 2 (0.7500 there)
        await pilot.press("x")  # the exact fraction one key away
        await pilot.pause()
        assert cell(compare, "q2", "delta_recall").startswith("▼ -1/2 (-0.5000)")
        assert "fixture_A 1/6 (0.1667) → fixture_B 2/3 (0.6667)" in plain(screen, "#score-compare-summary")

        await pilot.press("enter")  # q2's drill-down explains R@1 at cutoff 1
        await pilot.pause()
        query = pilot.app.screen
        assert isinstance(query, QueryScreen)
        why = str(query.query_one("#query-why-0", Static).render())
        assert why.startswith("Recall@1 = hits / relevant = 1 / 2 = 1/2 (0.5000)"), why
        await pilot.press("m")  # R@2
        await pilot.pause()
        assert str(query.query_one("#query-why-0", Static).render()).startswith("Recall@2 = hits / relevant = 1 / 2")
        await pilot.press("m")  # RR@2
        await pilot.pause()
        assert str(query.query_one("#query-why-0", Static).render()).startswith("RR@2")


async def test_k_key_keeps_cutoffs_named_with_at_and_refuses_to_go_below_them(seed_dir: Path) -> None:
    async with app_at_cutoffs(seed_dir, "R@1,RR", 2, "fixture_A", "fixture_B").run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        table = screen.query_one("#score-run-table", DataTable)
        assert labels(table)[1:3] == ["R@1", "RR@2"]
        await pilot.press("plus")  # k 3: RR follows k, R@1 stays
        await settle(pilot)
        assert screen.session.protocol.k == 3 and labels(table)[1:3] == ["R@1", "RR@3"]
        await pilot.press("minus", "minus")  # k 2, then k 1: R@1 still fits
        await settle(pilot)
        assert screen.session.protocol.k == 1 and labels(table)[1:3] == ["R@1", "RR@1"]
        assert screen.session.by_cutoff  # R@1 was named with its cutoff: the headings keep naming them
    async with app_at_cutoffs(seed_dir, "R@1,R@2", 2, "fixture_A").run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        await pilot.press("minus")
        await settle(pilot)
        assert screen.session.protocol.k == 2  # refused, in one line
        notes = [str(n.message) for n in pilot.app._notifications]
        assert any("R@2 is shown (--metrics), so k stays at least 2" in note for note in notes), notes


async def test_trec_eval_collection_p_at_5_column_is_trec_evals_p_5(tmp_path: Path) -> None:
    directory = tmp_path / "te"
    made = run_cli("init", directory, "--qrels", TREC / "qrels.test", "--run", TREC / "results.test", "--k", "10")
    assert made.returncode == 0, made.stderr
    expected = expected_values()
    async with app_at_cutoffs(directory, "P@5,P@10,nDCG@10", 10).run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        table = screen.query_one("#score-run-table", DataTable)
        assert labels(table)[:4] == ["query", "P@5", "P@10", "nDCG@10"]
        topics = [row.key.value for row in table.ordered_rows]
        assert topics == ["301", "302", "303"]
        for key, measure in (("p@5", "P_5"), ("p@10", "P_10"), ("ndcg@10", "ndcg_cut_10")):
            for topic in topics:
                assert f"{float(exact(cell(table, topic, key)) or 0):.4f}" == expected[measure][topic], (key, topic)
        summary = plain(screen, "#score-run-summary")
        mean_p5 = expected["P_5"]["all"]
        assert f"mean P@5 = 4/15 ({mean_p5})" in summary and f"P@10 = 3/10 ({expected['P_10']['all']})" in summary


def test_app_refuses_a_cutoff_above_k_in_one_line(seed_dir: Path) -> None:
    refused = run_cli(seed_dir, "--metrics", "R@1,R@3")
    assert_one_line_error(refused, "R@3", "cutoff 3 is above k (2): a cutoff is at most k", "--k 3")


DEMO = REPO / "protocols" / "help-docs-zh"


def demo_at_cutoffs() -> RankevalApp:
    return app_at_cutoffs(DEMO, "R@1,R@2,RR@2", 2, "fixture_A", "fixture_B")


def test_snapshot_single_run_80x24(snap_compare) -> None:
    assert snap_compare(demo_at_cutoffs(), terminal_size=(80, 24), run_before=settle)


def test_snapshot_single_run_140x40(snap_compare) -> None:
    assert snap_compare(demo_at_cutoffs(), terminal_size=(140, 40), run_before=settle)


def test_snapshot_comparison_at_cutoff_1_80x24(snap_compare) -> None:
    """``m`` from RR@2 to R@1: the comparison, its chart and statistics of the cutoff-1 protocol."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("v", "m")
        await settle(pilot)

    assert snap_compare(demo_at_cutoffs(), terminal_size=(80, 24), run_before=run_before)


def test_snapshot_comparison_at_cutoff_1_140x40(snap_compare) -> None:
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("v", "m")
        await settle(pilot)

    assert snap_compare(demo_at_cutoffs(), terminal_size=(140, 40), run_before=run_before)
