"""docs/own-data.md, run as written: every command of the walk-through, on tests/data/own_data/.

The commands are read out of the document's ``shell`` blocks, so the page and this test cannot
drift apart. (Not ``console`` blocks: tests/test_docs_commands.py runs those in a copy of
protocols/, without these fixtures, and ``judge`` is interactive.) ``judge`` is interactive: the test drives the very app ``rankeval-tui judge`` opens
(same session, same screen) with the keyboard, as a person would.
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition, read_qrels_file
from rankeval_tui.tui.app import RankevalApp
from tests.cli.helpers import REPO, run_cli

DOC = REPO / "docs" / "own-data.md"
DATA = REPO / "tests" / "data" / "own_data"

# The annotator's judgments for the walk-through's 15 pairs (the 3 imported ones agree).
TRUTH = {
    "q:1001": {"docs/export.md": 1, "文档/导出.md": 1},
    "q:1002": {"docs/sync.md": 1},
    "q:1003": {"wiki.Paris-2024.md": 1},
}


def walkthrough_commands() -> list[list[str]]:
    """Every ``$ rankeval-tui ...`` line of the document's shell blocks, in order."""
    commands = []
    in_block = False
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_block = line.strip() == "```shell"
            continue
        if in_block and line.startswith("$ rankeval-tui "):
            commands.append(shlex.split(line[2:])[1:])
    return commands


def label(query: str, doc: str) -> int:
    return TRUTH.get(query, {}).get(doc, 0)


async def judge_every_hole(directory: Path) -> int:
    """What ``rankeval-tui judge DIR`` opens, driven by keys: ``1``/``0`` on each unjudged pair,
    ``g`` (next unjudged) past the imported ones. Returns how many pairs were judged here."""
    qrels_path = directory / "qrels.toml"
    session = JudgingSession.open(load_definition(directory), qrels_path, annotator="alice")
    app = RankevalApp(directory, qrels_path=qrels_path, start="judge", judge_session=session)
    judged = 0
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(40):
            if session.marks.complete:
                break
            pair = str(app.screen.query_one("#judge-pair").render())
            query = str(app.screen.query_one("#judge-query").render()).split()[1]
            doc = pair.split()[1]
            if "unjudged" in pair:
                await pilot.press(str(label(query, doc)))
                judged += 1
            else:
                await pilot.press("g")
        await pilot.press("q")
        await pilot.pause()
    session.finish()
    return judged


async def test_the_walkthrough_runs_as_written(tmp_path):
    for name in ("help-docs", "queries.tsv", "qrels.trec", "bm25.trec", "dense.tsv"):
        source = DATA / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    commands = walkthrough_commands()
    assert [c[0] for c in commands] == ["init", "validate", "judge", "validate", "score", "score", "qrels"]
    protocol = tmp_path / "help-center"
    outputs = []
    for command in commands:
        if command[0] == "judge":
            assert await judge_every_hole(tmp_path / command[1]) == 12  # 15 pairs, 3 imported
            continue
        result = run_cli(*command, cwd=tmp_path)
        assert "Traceback" not in result.stderr
        outputs.append((command, result))

    init_result, validate_holes, validate_done, table, as_json, export = (result for _, result in outputs)
    assert init_result.returncode == 0, init_result.stderr
    assert "3 imported, 12 of 15 pairs to judge" in init_result.stdout
    assert validate_holes.returncode == 2  # holes: not scoreable yet
    assert "holes: 12 of 15 pairs unjudged in 3 of 3 queries" in validate_holes.stdout
    assert "'q:1003': 5 of 5 unjudged" in validate_holes.stdout
    assert "next: rankeval-tui judge help-center" in validate_holes.stdout
    assert validate_done.returncode == 0, validate_done.stdout
    assert "ok: run bm25" in validate_done.stdout and "ok: run dense" in validate_done.stdout

    labels = read_qrels_file(protocol / "qrels.toml", load_definition(protocol)).labels
    assert labels == {q: {d: label(q, d) for d in load_definition(protocol).documents} for q in TRUTH}

    assert table.returncode == 0, table.stderr
    assert "mean Recall@2 = 2/3 (0.6667)" in table.stdout
    data = json.loads(as_json.stdout)
    # bm25: q:1001 both relevant in its top 2, q:1002 sync first, q:1003 misses the theme page
    assert (data["runs"]["bm25"]["recall_at_k"], data["runs"]["bm25"]["mrr_at_k"]) == ("2/3", "2/3")
    # dense: all three found in the top 2; q:1002's relevant page is second, so RR 1/2
    assert (data["runs"]["dense"]["recall_at_k"], data["runs"]["dense"]["mrr_at_k"]) == ("1", "5/6")
    assert export.returncode == 0, export.stderr
    lines = (tmp_path / "help-center-qrels.trec").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 15 and "q:1001 0 文档/导出.md 1" in lines
