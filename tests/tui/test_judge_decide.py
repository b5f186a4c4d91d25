"""``judge --decide A B`` on the real judging screen (Pilot): the holes come in the order that
decides the change, and the status line says when the verdict is decided; the labels reach the
qrels as with any order."""

from __future__ import annotations

import shlex
from pathlib import Path

from rankeval_tui.core.annotation.decide_order import DecideQueue
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition, load_run
from rankeval_tui.core.files.tomlio import read_toml
from rankeval_tui.tui.app import RankevalApp
from tests.cli.helpers import assert_one_line_error, run_cli
from tests.cli.test_pools_cli import make


def status(app: RankevalApp) -> str:
    return str(app.screen.query_one("#judge-status").render())


async def test_judging_to_decide_says_when_decided(tmp_path: Path) -> None:
    directory = make(tmp_path)
    dense = tmp_path / "dense.trec"
    refused = run_cli("judge", directory, "--decide", "bm25", str(dense))
    line = assert_one_line_error(refused, "top-2 pairs outside the pools cannot be judged")
    assert not (directory / "qrels.toml.journal").exists()  # refused before any session opened
    assert run_cli(*shlex.split(line.split("add them as holes first: ")[1].split(" (")[0])[1:]).returncode == 0

    definition = load_definition(directory)
    session = JudgingSession.open(definition, directory / "qrels.toml", annotator="alice")
    bm25 = load_run(directory / "runs" / "bm25.trec")
    session.order_holes(DecideQueue(definition, bm25, load_run(dense), session.marks.labels))
    app = RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session)
    asked = []
    async with app.run_test(size=(80, 24)) as pilot:  # the status is cut at 80 columns; the session holds it whole
        await pilot.pause()
        # q:1002's hole can drop both metrics by 1 (dense loses docs/a.md): it moves the bounds most.
        asked.append(session.cursor.current)
        await pilot.press("0")
        await pilot.pause()
        assert status(app).startswith("recorded q:1002 / docs/other.md = 0 · decided after 1 of 2")
        assert session.cursor.hole_queue.status(session.marks.labels) == (
            "decided after 1 of 2 pairs: dense worse than bm25 on Recall@2 and RR@2 for every labelling of the rest"
        )
        asked.append(session.cursor.current)
        await pilot.press("1")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert status(app).startswith("all 6 pairs judged: wrote qrels.toml · decided after 1 of 2 pairs")
        await pilot.press("q")
        await pilot.pause()
    assert asked == [("q:1002", "docs/other.md"), ("q:1001", "docs/new.md")]
    labels = read_toml(directory / "qrels.toml")["qrels"]
    assert labels["q:1002"]["docs/other.md"] == 0 and labels["q:1001"]["docs/new.md"] == 1
