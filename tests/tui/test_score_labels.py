"""``inspect PROTOCOL --labels LABELS.toml`` (issue 43 on the screen): each run's scores under the
protocol's labels and under another label file side by side, the file's annotator named (a model
marked as one), the runs' order under each; a file the protocol refuses is one line before the app.

Two protocols: a tiny one where a model's labels flip the order of two runs on RR (by hand: old
2/3 vs mid 11/18 under the protocol's labels, 5/6 vs 1 under the model's), and the Cystic
Fibrosis collection judged by its judge 1, with judge 2's real labels as the other set
(tests/data/cf_judges), checked against ``score --qrels`` and ``agree --runs`` through the API."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rankeval_tui import api
from rankeval_tui.core.wording import fraction_fits
from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.score.cells import value_cell
from rankeval_tui.tui.score.score_screen import ScoreScreen
from rankeval_tui.tui.score.score_table import ScoreTable
from tests.cli.helpers import assert_one_line_error, run_cli
from tests.tui.settling import settle

DATA = Path(__file__).resolve().parents[1] / "data"
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 0\nq2 0 d4 1\nq2 0 d5 0\nq3 0 d6 1\nq3 0 d7 0\n"
OLD = "q1 Q0 d2 1 3 old\nq1 Q0 d1 2 2 old\nq1 Q0 d3 3 1 old\nq2 Q0 d5 1 3 old\nq2 Q0 d4 2 2 old\nq3 Q0 d6 1 2 old\nq3 Q0 d7 2 1 old\n"
MID = "q1 Q0 d2 1 3 mid\nq1 Q0 d3 2 2 mid\nq1 Q0 d1 3 1 mid\nq2 Q0 d4 1 3 mid\nq2 Q0 d5 2 2 mid\nq3 Q0 d7 1 2 mid\nq3 Q0 d6 2 1 mid\n"
MODEL = "q1 0 d1 0\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d4 1\nq2 0 d5 1\nq3 0 d6 0\nq3 0 d7 1\n"


def made_protocol(root: Path) -> Path:
    (root / "qrels.trec").write_text(QRELS)
    (root / "old.trec").write_text(OLD)
    (root / "model.trec").write_text(MODEL)
    directory = root / "exl"
    result = run_cli("init", directory, "--qrels", root / "qrels.trec", "--run", root / "old.trec", "--k", "3")
    assert result.returncode == 0, result.stderr
    (directory / "runs" / "mid.trec").write_text(MID)
    imported = run_cli(
        "qrels", "import", directory, root / "model.trec", "--annotator", "model:tiny", "--partial",
        "-o", directory / "model.toml",
    )  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    return directory


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return made_protocol(tmp_path_factory.mktemp("labels"))


def rows_of(app: RankevalApp) -> dict[str, list[str]]:
    table = app.screen.query_one("#score-run-table", ScoreTable)
    return {str(key.value): [str(cell) for cell in table.get_row(key)] for key in table.rows}


def summary_of(app: RankevalApp) -> str:
    return str(app.screen.query_one("#score-run-summary").render())


def headings(app: RankevalApp) -> list[str]:
    return [str(column.label) for column in app.screen.query_one("#score-run-table", ScoreTable).columns.values()]


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_scores_under_a_models_labels_side_by_side(tiny: Path, size: tuple[int, int]) -> None:
    app = RankevalApp(tiny, labels_path=tiny / "model.toml")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert headings(app)[:5] == ["query", "Recall@k", "Recall@k B", "RR@k", "RR@k B"]
        rows = rows_of(app)  # the candidate, old
        assert [cells[:5] for cells in rows.values()] == [
            ["q1", "1", "1", "1/2 (0.5000)", "1"],
            ["q2", "1", "1", "1/2 (0.5000)", "1"],
            ["q3", "1", "1", "1", "1/2 (0.5000)"],
        ]
        title = str(app.screen.query_one("#score-run-title").render())
        assert "B = model.toml (model:tiny (a model))" in title.replace("\n", " ")
        summary = summary_of(app)
        assert "labels B = model.toml (model:tiny (a model))" in summary
        assert "Recall@3 1 → B 1   MRR@3 0.6667 → B 0.8333 (Δ +0.1667)" in summary
        assert "runs by MRR@3: old > mid, under B: mid > old  order changes: mid vs old" in summary
        assert "runs by Recall@3: mid = old, under B: mid = old  same order" in summary
        await pilot.press("c")  # the other run: its own values under both
        await settle(pilot)
        assert rows_of(app)["q1"][:5] == ["q1", "1", "1", "1/3 (0.3333)", "1"]
        assert "MRR@3 0.6111 → B 1 (Δ +0.3889)" in summary_of(app)
        await pilot.press("minus")  # k 2: both label sets rescored at the new k
        await settle(pilot)
        assert "Recall@k B" in headings(app)
        await pilot.press("r")  # a reload reads the label file again
        await settle(pilot)
        assert "MRR@2 0.5000 → B 1 (Δ +0.5000)" in summary_of(app)
        assert "MRR@2 0.5000 → B 1 (Δ +0.5000)" in summary_of(app)  # q1 0, q2 1, q3 1/2; under B 1, 1, 1
        await pilot.press("q")


async def test_without_labels_nothing_changes(tiny: Path) -> None:
    app = RankevalApp(tiny)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert headings(app)[:3] == ["query", "Recall@k", "RR@k"] and "labels B" not in summary_of(app)
        await pilot.press("q")


def test_a_label_file_the_protocol_refuses_is_one_line_before_the_app(tiny: Path, tmp_path: Path) -> None:
    (tmp_path / "part.trec").write_text("q1 0 d1 0\n")
    part = tmp_path / "part.toml"
    imported = run_cli(
        "qrels", "import", tiny, tmp_path / "part.trec", "--annotator", "model:tiny", "--partial", "-o", part
    )
    assert imported.returncode == 0, imported.stderr
    line = assert_one_line_error(run_cli("inspect", tiny, "--labels", part), "6 of 7 pairs are unjudged")
    assert str(part) in line
    assert_one_line_error(run_cli(tiny, "--labels", tmp_path / "missing.toml"), "file not found")  # the default command


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
def test_snapshot_run_view_with_labels(snap_compare, tiny: Path, tmp_path: Path, size: tuple[int, int]) -> None:
    copy = Path(shutil.copytree(tiny, tmp_path / "exl"))
    assert snap_compare(RankevalApp(copy, labels_path=copy / "model.toml"), terminal_size=size, run_before=settle)


# ---------------------------------------------------------------- real disagreements


@pytest.fixture(scope="module")
def cystic_fibrosis(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """CF judged by judge 1 (grades 0-2, relevant from 1, unlisted pairs 0 by declaration), the
    committed BM25 run's top 10 and the same ten reversed as a second run, judge 2's labels beside."""
    root = tmp_path_factory.mktemp("cf")
    ranked: dict[str, list[str]] = {}
    for line in (DATA / "collections" / "cf" / "bm25.run").read_text().splitlines():
        query, _, doc, *_ = line.split()
        ranked.setdefault(query, []).append(doc)
    for name, order in (("bm25", 1), ("reversed", -1)):
        lines = [
            f"{q} Q0 {d} {i} {11 - i} {name}" for q, docs in ranked.items() for i, d in enumerate(docs[:10][::order], 1)
        ]
        (root / f"{name}.trec").write_text("\n".join(lines) + "\n")
    directory = root / "cf"
    made = run_cli(
        "init", directory, "--qrels", DATA / "cf_judges" / "judge1.qrels", "--run", root / "bm25.trec",
        "--run", root / "reversed.trec", "--k", "10", "--unlisted-as-zero", "--relevant-from", "1",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    imported = run_cli(
        "qrels", "import", directory, DATA / "cf_judges" / "judge2.qrels", "--annotator", "judge2",
        "-o", directory / "judge2.toml",
    )  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    return directory


async def test_cf_judge_twos_labels_beside_judge_ones_equal_score_and_agree(cystic_fibrosis: Path) -> None:
    directory = cystic_fibrosis
    other = directory / "judge2.toml"
    runs = [api.load_run(directory / "runs" / f"{name}.trec") for name in ("bm25", "reversed")]
    under_judge2 = api.load_protocol(directory, qrels=other)
    expected = {
        query: row.value("rr") for query, row in ((r.query, r) for r in api.evaluate(under_judge2, runs[1]).rows)
    }
    rankings = api.rankings_under_labels(directory, directory / "qrels.toml", other, runs)
    app = RankevalApp(directory, labels_path=other)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ScoreScreen) and screen.state.run_shown(screen.session) == "reversed"
        session = screen.session
        assert session is not None
        shown = {row.query: row.value("rr") for row in session.report_under_labels("reversed").rows}
        assert shown == expected  # the screen's B column is score --qrels judge2.toml's
        ours = {row.query: row.value("rr") for row in session.report("reversed").rows}
        assert sum(ours[q] != shown[q] for q in ours) > 5  # real disagreements move the scores
        table = rows_of(app)
        assert all(table[q][4] == str(value_cell(v, exact=fraction_fits(v))) for q, v in expected.items())
        orders = session.orders_under_labels()
        for ordering in rankings.metrics:  # agree --runs' means and order changes
            assert dict(orders[ordering.metric].means[0]) == dict(ordering.means[0])
            assert dict(orders[ordering.metric].means[1]) == dict(ordering.means[1])
            assert orders[ordering.metric].changes == ordering.changes
        assert "labels B = judge2.toml (judge2)" in summary_of(app)
        await pilot.press("q")
