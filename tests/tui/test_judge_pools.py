"""The gap flow end to end, with the real judging screen (Pilot): a pooled protocol refuses a
new run whose top k leaves the pools; the command the refusal names adds exactly that gap as
holes; judging asks those pairs (top-k first), says when every top-k pair is judged, shows a
missing text as missing; the run is then scored."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from rankeval_tui.core.annotation.hole_order import top_k_pairs
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition, load_run
from rankeval_tui.tui.app import RankevalApp
from tests.cli.helpers import run_cli
from tests.cli.test_pools_cli import make


def shown(app: RankevalApp, widget_id: str) -> str:
    return str(app.screen.query_one(widget_id).render())


async def test_new_run_refused_gap_added_judged_with_the_screen_then_scored(tmp_path: Path) -> None:
    directory = make(tmp_path)
    new_run = tmp_path / "dense.trec"
    refused = run_cli("score", directory, "--run", new_run)
    assert refused.returncode == 2 and "2 top-2 pairs in 2 queries outside the pools" in refused.stderr
    command = refused.stderr.split("add them to the pools as holes to judge: ")[1].split(" (or see")[0]
    assert run_cli(*shlex.split(command)[1:]).returncode == 0

    definition = load_definition(directory)
    session = JudgingSession.open(definition, directory / "qrels.toml", annotator="alice")
    first = session.order_holes(top_k_pairs(definition, [load_run(new_run).rankings], definition.k))
    assert first == 2 and session.marks.remaining == 2  # exactly the gap: nothing else is asked
    app = RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session)
    asked = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        asked.append(session.cursor.current)
        assert session.cursor.current == ("q:1001", "docs/new.md")
        assert "no text for this document in the protocol" in app.screen.query_one("#judge-doc").visible_text()
        await pilot.press("1")
        await pilot.pause()
        assert "1 top-k pair left to scorable" in shown(app, "#judge-status")
        asked.append(session.cursor.current)
        await pilot.press("0")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        status = shown(app, "#judge-status")
        assert status == "all 6 pairs judged: wrote qrels.toml · scorable now: every top-k pair is judged"
        await pilot.press("q")
        await pilot.pause()
    assert asked == [("q:1001", "docs/new.md"), ("q:1002", "docs/other.md")]
    scored = run_cli("score", directory, "--run", new_run, "--metrics", "R@2,RR@2", "--format", "json")
    assert scored.returncode == 0, scored.stderr
    rows = {row["query"]: row for row in json.loads(scored.stdout)["runs"]["dense"]["rows"]}
    assert rows["q:1001"]["recall"] == "1" and rows["q:1001"]["relevant"] == 2  # the new relevant joins
    assert rows["q:1002"]["recall"] == "0" and rows["q:1002"]["rr"] == "0"


def test_pool_pairs_below_k_are_counted_before_scoring(tmp_path: Path) -> None:
    from rankeval_tui.tui.judge.messages import scorable
    from tests.cli.test_pools_cli import QRELS, RUN

    (tmp_path / "qrels.trec").write_text(QRELS)
    (tmp_path / "bm25.trec").write_text(RUN)
    directory = tmp_path / "p"
    made = run_cli(
        "init",
        directory,
        "--qrels",
        tmp_path / "qrels.trec",
        "--run",
        tmp_path / "bm25.trec",
        "--k",
        "2",
        "--pool-depth",
        "3",
    )
    assert made.returncode == 0 and "labels: 4 imported, 1 of 5 pairs to judge" in made.stdout, made.stdout
    definition = load_definition(directory)
    session = JudgingSession.open(definition, directory / "qrels.toml", annotator="alice")
    try:
        assert session.order_holes(top_k_pairs(definition, [load_run(tmp_path / "bm25.trec").rankings], 2)) == 0
        assert scorable(session) == " · every top-k pair is judged; 1 pair below k left before scoring"
        assert session.cursor.current == ("q:1001", "unjudged-below-k")  # the pool's one hole, asked next
    finally:
        session.close()
