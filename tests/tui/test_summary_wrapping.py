"""The comparison summary at 80 columns: wrapped lines hang under the metric labels, and the
bootstrap interval says it is coming while only the early sign-flip result is in."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rich.console import Console
from rich.text import Text

from rankeval_tui.core.session import ScoringSession
from rankeval_tui.tui.score.hanging_text import HangingText, hanging_lines
from rankeval_tui.tui.score.score_stats import statistics_lines


def rendered(text: Text, width: int, indent: int = 10) -> list[str]:
    console = Console(width=width, color_system=None, legacy_windows=False)
    with console.capture() as capture:
        console.print(HangingText(text, indent))
    return capture.get().splitlines()


def test_continuation_lines_hang_under_the_label_and_keep_every_word() -> None:
    line = "Recall@10 bm25.run 3/7 (0.4286) → dense.run 5/7 (0.7143)  Δ +2/7 (+0.2857)  win/tie/loss 4/2/1  regressions: q:1001"
    lines = rendered(Text(line), 80)
    assert len(lines) == 2 and lines[0].startswith("Recall@10 ")
    assert lines[1].startswith(" " * 10) and not lines[1][10].isspace()
    assert all(len(screen_line) <= 80 for screen_line in lines)
    assert " ".join(" ".join(lines).split()) == " ".join(line.split())  # nothing lost or added


def test_short_lines_and_narrow_widths_are_left_as_rich_wraps_them() -> None:
    console = Console(width=80)
    assert [t.plain for t in hanging_lines(console, Text("MRR@10    fits"), 80, 10)] == ["MRR@10    fits"]
    narrow = hanging_lines(console, Text("word " * 10), 25, 10)  # 15 columns left: no indent
    assert all(not t.plain.startswith(" ") for t in narrow)


def test_styles_survive_the_wrap() -> None:
    text = Text("Recall@10 " + "x" * 60 + " ")
    text.append("regressions: q:1001, docs/export.md", style="red")
    console = Console(width=80)
    last = hanging_lines(console, text, 80, 10)[-1]
    assert last.plain.strip() == "regressions: q:1001, docs/export.md"
    assert any(span.style == "red" for span in last.spans)


def test_bootstrap_pending_is_said_not_left_out(seed_dir: Path) -> None:
    session = ScoringSession.load(seed_dir)
    family = session.statistics("fixture_A")
    assert family is not None
    candidate = family.get("fixture_B")
    assert candidate is not None
    stats = next(iter(candidate.metrics.values()))
    early = dataclasses.replace(stats, bootstrap=None)
    pending = statistics_lines(early, family.alpha, len(family.candidates), bootstrap_pending=True).plain
    assert "bootstrap CI of the mean Δ: computing…" in pending
    assert "bootstrap" not in statistics_lines(early, family.alpha, len(family.candidates)).plain
    assert "95% bootstrap CI of the mean Δ [" in statistics_lines(stats, family.alpha, len(family.candidates)).plain


async def test_a_wrapped_runs_line_continues_under_the_run_names(tmp_path) -> None:
    """At 80 columns the demo's runs line (three runs, the baseline's rule) wraps: the rest
    starts under the first run's name, not at column 0 where it read as a new line of the head."""
    from rankeval_tui.core.files.demo import copy_demo
    from rankeval_tui.tui.app import RankevalApp
    from rankeval_tui.tui.score.score_header import RUNS_INDENT
    from tests.tui.settling import settle

    app = RankevalApp(copy_demo(tmp_path / "demo"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        runs = app.screen.query_one("#score-runs")
        lines = [runs.render_line(y).text.rstrip() for y in range(runs.size.height)]
    assert lines[0].startswith("runs: ✓ all_empty  ✓ fixture_A [baseline (runs/BASELINE)]"), lines
    assert len(lines) == 2 and lines[1] == " " * RUNS_INDENT + "[candidate]", lines
