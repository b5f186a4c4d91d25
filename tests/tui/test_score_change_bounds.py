"""The scoring screen's comparison on a gap (issue 42 on the screen): a run with top-k pairs outside
a pooled protocol's pools is compared on the change's exact bounds (the numbers of ``score
--baseline --bounds``, docs/own-data.md's example), and ``d`` judges the gap in the order that
decides it, in the same app, with the comparison following the labels.

The protocol is docs/own-data.md's: three queries, the old run's top 3 judged, the new run
bringing one unjudged document to each query's top 3. By hand: q1 and q2 gain RR +1/2 under
every labelling, q3's RR change is -1/2 or 0; each query's Recall change is 0 or +1/2."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from rankeval_tui import api
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.tomlio import read_toml
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.score.cells import signed_and_decimal
from rankeval_tui.tui.score.score_screen import ScoreScreen
from rankeval_tui.tui.score.score_table import ScoreTable
from tests.cli.helpers import run_cli
from tests.tui.settling import settle

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 0\nq2 0 d4 1\nq2 0 d5 0\nq3 0 d6 1\nq3 0 d7 0\n"
OLD = "q1 Q0 d2 1 3 old\nq1 Q0 d1 2 2 old\nq1 Q0 d3 3 1 old\nq2 Q0 d5 1 3 old\nq2 Q0 d4 2 2 old\nq3 Q0 d6 1 2 old\nq3 Q0 d7 2 1 old\n"
NEW = "q1 Q0 d1 1 3 new\nq1 Q0 d8 2 2 new\nq1 Q0 d2 3 1 new\nq2 Q0 d4 1 3 new\nq2 Q0 d9 2 2 new\nq3 Q0 d10 1 2 new\nq3 Q0 d6 2 1 new\n"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The protocol as ``init`` writes it, with the new run in its runs/ (made once: init is a subprocess)."""
    root = tmp_path_factory.mktemp("gap")
    (root / "qrels.trec").write_text(QRELS)
    (root / "old.trec").write_text(OLD)
    directory = root / "ex"
    result = run_cli("init", directory, "--qrels", root / "qrels.trec", "--run", root / "old.trec", "--k", "3")
    assert result.returncode == 0, result.stderr
    (directory / "runs" / "new.trec").write_text(NEW)
    return directory


@pytest.fixture()
def gap(made: Path, tmp_path: Path) -> Path:
    """A fresh copy for each test (``d`` writes into it); named ``ex`` as the header shows it."""
    return Path(shutil.copytree(made, tmp_path / "ex"))


def shown_text(app: RankevalApp) -> str:
    return "\n".join(str(widget.render()) for widget in app.screen.query("Static"))


def footer_keys(app: RankevalApp) -> list[str]:
    return [key.description for key in app.screen.query("FooterKey")]


def table_rows(app: RankevalApp) -> dict[str, list[str]]:
    table = app.screen.query_one("#score-compare-table", ScoreTable)
    return {str(key.value): [str(cell) for cell in table.get_row(key)] for key in table.rows}


def test_a_run_rejected_for_its_gap_alone_is_comparable_with_the_clis_bounds(gap: Path) -> None:
    session = ScoringSession.load(gap)
    new = next(s for s in session.scored if s.name == "new")
    assert new.rejected and new.on_gap and new.gap_pairs == 3 and "outside the pools" in (new.error or "")
    assert [s.name for s in session.comparable] == ["new", "old"] and [s.name for s in session.accepted] == ["old"]
    protocol = api.load_protocol(gap)
    cli = api.change_bounds(protocol, api.load_run(gap / "runs" / "old.trec"), api.load_run(gap / "runs" / "new.trec"))
    assert session.change_bounds("old", "new") == cli


def test_a_run_rejected_for_something_else_is_not_comparable(gap: Path) -> None:
    (gap / "runs" / "new.trec").write_text(NEW + "q1 Q0 d8 4 0 new\n")  # d8 twice in one ranking
    session = ScoringSession.load(gap)
    new = next(s for s in session.scored if s.name == "new")
    assert new.rejected and not new.on_gap and new.run is None
    assert [s.name for s in session.comparable] == ["old"]


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_the_comparison_shows_the_changes_exact_bounds_and_verdicts(gap: Path, size: tuple[int, int]) -> None:
    app = RankevalApp(gap)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert "◐ new [candidate]: unjudged top-k pairs outside the pools" in shown_text(app)
        await pilot.press("v")
        await settle(pilot)
        rows = table_rows(app)
        assert rows == {
            "q1": ["q1", "1", "+0.5000", "better", "[0, +0.5000]", "undecided (1)"],
            "q2": ["q2", "1", "+0.5000", "better", "[0, +0.5000]", "undecided (1)"],
            "q3": ["q3", "1", "[-0.5000, 0]", "undecided (1)", "[0, +0.5000]", "undecided (1)"],
        }
        summary = str(app.screen.query_one("#score-compare-summary").render())
        assert "MRR@3     change [+0.1667, +0.3333]: decided better" in summary
        assert "Recall@3  change [0, +0.5000]: undecided (3 unjudged pairs can change it)" in summary.replace("\n", " ")
        assert "new vs old  on bounds: 3 unjudged top-3 pairs" in shown_text(app)
        assert footer_keys(app)[:2] == ["view", "decide"]
        await pilot.press("x")  # the exact fractions, one key away
        await pilot.pause()
        assert table_rows(app)["q3"][2] == "[-1/2 (-0.5000), 0]"
        summary = str(app.screen.query_one("#score-compare-summary").render())
        assert "change [+1/6 (+0.1667), +1/3 (+0.3333)]: decided better" in summary
        await pilot.press("s", "f")  # worst first; only queries some labelling makes worse
        await pilot.pause()
        assert list(table_rows(app)) == ["q3"]
        await pilot.press("enter")  # the drill-down shows the scored run (the other has no scores)
        await pilot.pause()
        assert not isinstance(app.screen, ScoreScreen) and "q3" in shown_text(app)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("q")


async def test_d_is_hidden_on_a_comparison_of_scored_runs(gap: Path) -> None:
    shutil.copy(gap / "runs" / "old.trec", gap / "runs" / "twin.trec")
    (gap / "runs" / "new.trec").unlink()
    app = RankevalApp(gap)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ScoreScreen)
        assert screen.check_action("decide", ()) is False
        assert "decide" not in footer_keys(app) and "view" in footer_keys(app)
        await pilot.press("d")  # does nothing: no file written
        await pilot.pause()
        assert isinstance(app.screen, ScoreScreen) and not (gap / "qrels.toml.journal").exists()


async def test_d_judges_the_gap_in_the_order_that_decides_and_the_comparison_follows(gap: Path) -> None:
    before = load_definition(gap)
    assert before.pools is not None and "d8" not in before.pools["q1"]
    app = RankevalApp(gap)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("d")
        await app.workers.wait_for_complete()  # the growth and the order are made in a worker
        await pilot.pause()
        grown = load_definition(gap)  # grow --gap: the two runs' gaps joined the pools as holes
        assert grown.pools is not None and {"d8", "d9", "d10"} <= {
            *grown.pools["q1"],
            *grown.pools["q2"],
            *grown.pools["q3"],
        }
        judging = app.judge_session
        assert judging is not None and judging.cursor.current == ("q1", "d8")  # moves Recall's bounds most
        await pilot.press("1")
        await pilot.pause()
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, ScoreScreen)
        assert (gap / "qrels.toml.journal").exists()  # the label is journaled; qrels.toml waits for every hole
        assert "d8" not in read_toml(gap / "qrels.toml")["qrels"]["q1"]
        assert "under the labels judged so far; 2 holes of the grown pools left unjudged" in shown_text(app)
        assert table_rows(app)["q1"] == ["q1", "0", "+0.5000", "better", "+0.5000", "better"]
        summary = str(app.screen.query_one("#score-compare-summary").render())
        assert "Recall@3  change [+0.1667, +0.5000]: decided better" in summary

        await pilot.press("d")  # resumes the journal in the same order
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.judge_session is not judging and app.judge_session.cursor.current[0] in ("q2", "q3")
        await pilot.press("0")
        await pilot.pause()
        await pilot.press("0")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("q")
        await settle(pilot)
        session = app.screen.session
        assert session is not None and [s.name for s in session.accepted] == ["new", "old"]  # scored exactly now
        assert "new vs old  m RR@k" in shown_text(app)
    labels = read_toml(gap / "qrels.toml")["qrels"]
    assert (labels["q1"]["d8"], labels["q2"]["d9"], labels["q3"]["d10"]) == (1, 0, 0)
    assert not (gap / "qrels.toml.journal").exists()


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
def test_snapshot_comparison_on_bounds(snap_compare, gap: Path, size: tuple[int, int]) -> None:
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)

    assert snap_compare(RankevalApp(gap), terminal_size=size, run_before=run_before)


async def test_d_at_another_k_says_so_and_writes_nothing(gap: Path) -> None:
    before = (gap / "protocol.toml").read_bytes()
    app = RankevalApp(gap)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("v", "minus")  # k 2: the bounds follow k, the judging order is the protocol's
        await settle(pilot)
        assert "on bounds: 3 unjudged top-2 pairs" in shown_text(app)
        await pilot.press("d")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, ScoreScreen) and app.judge_session is None
    assert (gap / "protocol.toml").read_bytes() == before and not (gap / "qrels.toml.journal").exists()


def cli_means(directory: Path, *args: object) -> dict[str, tuple[str, str, str]]:
    """``score --bounds --baseline old --format json``'s mean change per metric: (low, high, verdict)."""
    result = run_cli("score", directory, "--baseline", "old", "--bounds", "--format", "json", *args)
    assert result.returncode == 0, result.stderr
    measures = json.loads(result.stdout)["delta_bounds"]["new"]["measures"]
    return {
        metric: (mean["delta_low"], mean["delta_high"], mean["verdict"])
        for metric, mean in ((m, v["mean_delta"]) for m, v in measures.items())
    }


def screen_means(app: RankevalApp) -> str:
    return " ".join(str(app.screen.query_one("#score-compare-summary").render()).split())


def said(low: str, high: str, verdict: str) -> str:
    """The summary's words for a mean change as the CLI's JSON gives it (exact fractions, ``x``)."""

    def end(value: str) -> str:
        exact = Fraction(value)
        return signed_and_decimal(exact)

    bound = end(low) if low == high else f"[{end(low)}, {end(high)}]"
    return f"change {bound}: {verdict}"


async def test_a_graded_protocol_shows_the_same_bounds_as_score(tmp_path: Path) -> None:
    graded = tmp_path / "graded"
    graded.mkdir()
    (graded / "qrels.trec").write_text(QRELS.replace("q1 0 d1 1", "q1 0 d1 2"))
    (graded / "old.trec").write_text(OLD)
    directory = graded / "ex"
    made = run_cli(
        "init",
        directory,
        "--qrels",
        graded / "qrels.trec",
        "--run",
        graded / "old.trec",
        "--k",
        "3",
        "--relevant-from",
        "1",
    )
    assert made.returncode == 0, made.stderr
    (directory / "runs" / "new.trec").write_text(NEW)
    expected = cli_means(directory, "--metrics", "R,RR,nDCG")
    app = RankevalApp(directory, metrics=("recall", "rr", "ndcg"))
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("v", "x")
        await settle(pilot)
        shown = screen_means(app)
        for metric, (low, high, verdict) in expected.items():
            assert said(low, high, verdict) in shown, metric
        assert "nDCG" in shown and len(expected) == 3


async def test_after_stopping_early_the_comparison_is_score_bounds_on_the_journal(gap: Path) -> None:
    app = RankevalApp(gap)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("v", "x", "d")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("1", "q")  # q1/d8 relevant, then back with two holes left
        await settle(pilot)
        shown = screen_means(app)
    expected = cli_means(gap, "--run", gap / "runs" / "old.trec", "--run", gap / "runs" / "new.trec")
    assert expected["recall"] == ("1/6", "1/2", "decided better")
    for low, high, verdict in expected.values():
        assert said(low, high, verdict) in shown
