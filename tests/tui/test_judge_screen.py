"""The judging screen driven by the keyboard (Pilot), and the ``judge`` command's refusals."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition, read_qrels_file
from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.judge.label_matrix import LabelMatrix
from rankeval_tui.tui.judge.overview import OverviewScreen
from rankeval_tui.tui.judge.screen import JudgeScreen
from tests.seed_labels import SEED_QRELS

SIZE = (120, 36)


def make_app(directory: Path, **options) -> tuple[RankevalApp, JudgingSession]:
    options.setdefault("annotator", "alice")
    session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", **options)
    return RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session), session


def shown(app: RankevalApp, widget_id: str) -> str:
    return str(app.screen.query_one(widget_id).render())


def written(directory: Path):
    return read_qrels_file(directory / "qrels.toml", load_definition(directory))


@pytest.mark.parametrize("order", [{}, {"order": "shuffled", "seed": 11}])
async def test_judge_all_30_pairs_by_keyboard_writes_the_seed_labels(blank: Path, order: dict) -> None:
    app, session = make_app(blank, **order)
    async with app.run_test(size=SIZE) as pilot:
        seen = []
        for _ in range(30):
            # the annotator reads the pair off the screen, then presses 1 or 0
            line = shown(app, "#judge-pair")
            query = shown(app, "#judge-query").split()[1]
            doc = line.split()[1]
            assert "unjudged" in line
            seen.append((query, doc))
            await pilot.press(str(SEED_QRELS[query][doc]))
        assert len(set(seen)) == 30
        assert "overall 30/30" in shown(app, "#judge-total-count")
        await pilot.press("q")
        await pilot.pause()
    assert written(blank).labels == SEED_QRELS
    if order:
        assert seen[:6] != [("q1", d) for d in ("d1", "d2", "d3", "d4", "d5", "d6")]  # not corpus order
        assert written(blank).provenance["seed"] == 11
    assert not (blank / "qrels.toml.journal").exists() and not (blank / "qrels.toml.lock").exists()


async def test_no_default_label_moving_everywhere_judges_nothing(blank: Path) -> None:
    app, session = make_app(blank)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(
            *["right"] * 35,
            "left",
            "right_square_bracket",
            "left_square_bracket",
            "g",
            "g",
            "space",
            "enter",
            "tab",
            "x",
            "2",
            "o",
            "escape",
            "question_mark",
            "escape",
            "w",
        )
        assert "overall 0/30" in shown(app, "#judge-total-count")
        assert "unjudged" in shown(app, "#judge-pair")
        await pilot.press("q")
        await pilot.pause()
    assert session.marks.judged == 0
    assert session.finished_message.startswith("30 of 30 pairs remain")
    assert not (blank / "qrels.toml").exists()


async def test_undo_change_note_dispute_are_written(blank: Path) -> None:
    app, session = make_app(blank)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1")  # q1 d1 = 1, a mistake
        await pilot.press("u")  # undo: back on q1 d1, unjudged
        assert "Document d1" in shown(app, "#judge-pair") and "unjudged" in shown(app, "#judge-pair")
        await pilot.press("U")  # redo
        assert session.marks.label_of("q1", "d1") == 1
        await pilot.press("left", "0")  # change it to 0
        assert session.marks.label_of("q1", "d1") == 0
        await pilot.press("n", *"retry fits", "enter")  # note on q1 d2
        await pilot.press("d")  # dispute q1 d2
        assert "DISPUTED" in shown(app, "#judge-pair") and "retry fits" in shown(app, "#judge-note")
        await pilot.press("d", "d")  # off and on again
        await pilot.press("n", *"0 1 u d q", "enter")  # typing in a note fires no shortcut
        assert session.marks.judged == 1 and session.marks.note_of("q1", "d2") == "0 1 u d q"
        await pilot.press("n", *["backspace"] * 9, *"retry fits", "enter")
        while not session.marks.complete:
            query, doc = session.cursor.current
            await pilot.press(str(SEED_QRELS[query][doc]))
        await pilot.press("q")
        await pilot.pause()
    result = written(blank)
    assert result.labels == SEED_QRELS
    assert result.notes == {"q1": {"d2": "retry fits"}}
    assert result.disputed == {"q1": {"d2": True}}
    assert result.provenance["annotator"] == "alice"


async def test_overview_jumps_to_a_cell(blank: Path) -> None:
    app, session = make_app(blank)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("0", "0", "o")
        assert isinstance(app.screen, OverviewScreen)
        assert "q1  document d3  unjudged" in shown(app, "#overview-cell")
        await pilot.press("down", "down", "right", "enter")
        assert isinstance(app.screen, JudgeScreen)
        assert session.cursor.current == ("q3", "d4")
        assert "Query q3" in shown(app, "#judge-query") and "Document d4" in shown(app, "#judge-pair")
        await pilot.press("1", "o")  # the overview opens on the session's pair
        assert "q3  document d5  unjudged" in shown(app, "#overview-cell")
        await pilot.press("g", "g")  # next unjudged: q3 d6, then the next query
        assert "q4  document d1  unjudged" in shown(app, "#overview-cell")
        await pilot.press("escape", "q")


async def test_overview_click_moves_the_cursor_and_double_click_jumps(blank: Path) -> None:
    """The mouse on the matrix: a click (it used to crash the app) moves, a double click opens the pair."""
    app, session = make_app(blank)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("o")
        matrix = app.screen.query_one(LabelMatrix)
        cell = (matrix.gutter_width + 2 * 2, 2 + 1)  # third column (d3) of the second row (q2)
        assert await pilot.click(LabelMatrix, offset=cell)
        assert "q2  document d3  unjudged" in shown(app, "#overview-cell")
        assert await pilot.click(LabelMatrix, offset=cell, times=2)
        assert isinstance(app.screen, JudgeScreen)
        assert session.cursor.current == ("q2", "d3")
        await pilot.press("q")


def matrix_lines(app: RankevalApp) -> list[str]:
    """The overview matrix as the annotator sees it: the text of each line the widget renders."""
    matrix = app.screen.query_one(LabelMatrix)
    return [matrix.render_line(y).text.rstrip() for y in range(matrix.size.height)]


async def test_overview_ruler_and_row_counts(blank: Path) -> None:
    app, session = make_app(blank)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"010000", "1", "0", "o")  # q1 complete, q2 d1 and d2 judged
        lines = matrix_lines(app)
        assert lines[0] == "  doc # 1       5"  # a number over column 1 and over every 5th column
        assert lines[1] == "        ┬───▼───┬───"  # ticks under the numbers; ▼ = the cursor's column
        assert lines[2] == "q1 6/6  0 1 0 0 0 0"
        assert lines[3] == "q2 2/6  1 0 · · · ·"
        assert [line[:8] for line in lines[4:7]] == ["q3 0/6  ", "q4 0/6  ", "q5 0/6  "]
        assert "doc #3" in shown(app, "#overview-cell") and "document d3" in shown(app, "#overview-cell")
        assert "doc # = n-th document in corpus order" in shown(app, "#overview-legend")
        await pilot.press("escape", "0", "1", "1", "1", "o")
        lines = matrix_lines(app)
        assert lines[3] == "q2 6/6  1 0 0 1 1 1"  # the count follows the judgments
        assert all(line[6:8] == "  " and line[8] in "01·" for line in lines[2:7])  # the gutter keeps its width
        await pilot.press("escape", "q")


async def test_overview_ruler_in_shuffled_order_numbers_positions(blank: Path) -> None:
    app, session = make_app(blank, order="shuffled", seed=11)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1", "o")
        lines = matrix_lines(app)
        assert lines[0] == "  pos # 1       5"
        assert lines[2] == "q1 1/6  1 · · · · ·"
        assert "pos #2" in shown(app, "#overview-cell")
        assert "pos # = position in each query's own shuffled order" in shown(app, "#overview-legend")
        await pilot.press("escape", "q")


async def test_overview_ruler_scrolls_with_the_columns(tmp_path: Path) -> None:
    """120 documents do not fit in 120 columns: after End the ruler still names the cells under it."""
    import tomli_w

    directory = tmp_path / "wide"
    directory.mkdir()
    (directory / "protocol.toml").write_text(
        tomli_w.dumps(
            {
                "protocol": {"name": "wide", "k": 10, "split": "test", "relevance": "1 if it answers the query"},
                "documents": {f"d{i}": {"text": f"document {i}"} for i in range(1, 121)},
                "queries": {f"q{i}": {"text": f"query {i}", "split": "test", "need": "n"} for i in range(1, 4)},
            }
        ),
        encoding="utf-8",
    )
    app, session = make_app(directory)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1", "0", "o", "end")
        matrix = app.screen.query_one(LabelMatrix)
        assert matrix.cursor == (0, 119) and matrix.col_offset > 0
        x = matrix.gutter_width + (119 - matrix.col_offset) * 2
        lines = matrix_lines(app)
        assert lines[0][x : x + 3] == "120" and lines[1][x] == "▼" and lines[2][x] == "·"
        assert lines[2].startswith("q1   2/120  ") and lines[3].startswith("q2   0/120  ")
        assert lines[0][: matrix.gutter_width] == "doc # ".rjust(matrix.gutter_width)
        y = matrix.gutter_width + (114 - matrix.col_offset) * 2
        assert lines[0][y : y + 3] == "115" and lines[1][y] == "┬" and lines[1][y + 1 : x] == "─" * (x - y - 1)
        assert "doc #120" in shown(app, "#overview-cell")
        await pilot.press("home")
        lines = matrix_lines(app)
        assert matrix.col_offset == 0
        assert lines[0][matrix.gutter_width :].startswith("1       5         10        15        20")
        assert lines[2][matrix.gutter_width : matrix.gutter_width + 4] == "1 0 "
        await pilot.press("escape", "q")


async def test_review_existing_complete_qrels(seed_copy: Path) -> None:
    app, session = make_app(seed_copy)
    async with app.run_test(size=SIZE) as pilot:
        assert "overall 30/30" in shown(app, "#judge-total-count")
        assert "review" in shown(app, "#judge-status")
        assert "label: 0" in shown(app, "#judge-pair")
        await pilot.press("right_square_bracket", "right", "right", "d", "q")  # dispute q2 d3
        await pilot.pause()
    result = written(seed_copy)
    assert result.labels == SEED_QRELS and result.disputed == {"q2": {"d3": True}}


def judge_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rankeval_tui", "judge", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_lock_refuses_a_second_writer(blank: Path) -> None:
    first = JudgingSession.open(load_definition(blank), blank / "qrels.toml", annotator="alice")
    try:
        result = judge_cli(str(blank))
    finally:
        first.close()
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "refusing a second writer" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "breakage, message",
    [
        ("missing", "protocol directory not found"),
        ("protocol", "invalid TOML"),
        ("labels", "qrels labels must be integer 0 or 1"),
        ("seed", "--order shuffled needs --seed"),
    ],
)
def test_bad_input_is_one_line_and_exit_2_before_the_screen(
    blank: Path, seed_dir: Path, breakage: str, message: str
) -> None:
    target, extra = blank, []
    if breakage == "missing":
        target = blank / "no-such-protocol"
    elif breakage == "protocol":
        (blank / "protocol.toml").write_text("[protocol\nname = 1\n")
    elif breakage == "labels":
        text = (seed_dir / "qrels.toml").read_text().replace("d2 = 1", "d2 = true", 1)
        (blank / "qrels.toml").write_text(text)
    else:
        extra = ["--order", "shuffled"]
    result = judge_cli(str(target), *extra)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert message in result.stderr
    assert not (blank / "qrels.toml.journal").exists() and not (blank / "qrels.toml.lock").exists()


async def test_open_judging_from_the_scoring_app_and_back(blank: Path) -> None:
    app = RankevalApp(blank, qrels_path=blank / "qrels.toml")
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        under = app.screen
        app.open_judging()
        await pilot.pause()
        assert isinstance(app.screen, JudgeScreen)
        assert (blank / "qrels.toml.lock").exists()
        await pilot.press("1", "q")
        await pilot.pause()
        assert app.screen is under  # quit returns to the scoring screen
        assert not (blank / "qrels.toml.lock").exists()
        app.open_judging()  # and judging resumes from the journal
        await pilot.pause()
        assert "overall 1/30" in shown(app, "#judge-total-count")
        await pilot.press("q")
