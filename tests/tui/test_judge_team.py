"""``judge --annotator alice`` on an assigned protocol: the screen asks only alice's pairs and
her labels file is written (partial when she stops, complete for her queries at the end)."""

from __future__ import annotations

from pathlib import Path

from rankeval_tui.cli.common import finish_judging
from rankeval_tui.core.annotation.assignment import (
    AnnotatorSession,
    labels_path,
    parse_annotators,
    plan_assignment,
    read_assignment,
    write_assignment,
)
from rankeval_tui.core.files import load_definition, read_qrels_file
from rankeval_tui.tui.app import RankevalApp
from tests.seed_labels import SEED_QRELS

SIZE = (80, 24)


def shown(app: RankevalApp, widget_id: str) -> str:
    return str(app.screen.query_one(widget_id).render())


def open_alice(protocol: Path) -> tuple[RankevalApp, AnnotatorSession, tuple[str, ...]]:
    definition = load_definition(protocol)
    queries = read_assignment(protocol, definition).queries["alice"]
    path = labels_path(protocol, "alice")
    session = AnnotatorSession.open(definition.with_queries(queries), path, annotator="alice")
    app = RankevalApp(protocol, qrels_path=path, start="judge", judge_session=session)
    return app, session, queries


async def test_alice_is_asked_only_her_pairs_and_her_file_is_written(blank: Path) -> None:
    definition = load_definition(blank)
    plan = plan_assignment(definition, parse_annotators("alice,bob,carol"), 0.3, 7)
    write_assignment(blank, definition, plan)
    (blank / "labels").mkdir()
    app, session, queries = open_alice(blank)
    assert set(queries) != set(definition.queries)  # a real subset: the test can tell
    asked = []
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(7):
            query = shown(app, "#judge-query").split()[1]
            doc = shown(app, "#judge-pair").split()[1]
            asked.append((query, doc))
            await pilot.press(str(SEED_QRELS[query][doc]))
        await pilot.press("q")
        await pilot.pause()
    assert finish_judging(session, "rankeval-tui judge P --annotator alice") == 0
    assert {q for q, _ in asked} <= set(queries)
    partial = read_qrels_file(labels_path(blank, "alice"), definition, exhaustive=False)
    assert partial.provenance["partial"] is True and partial.provenance["annotator"] == "alice"
    assert {(q, d) for q, row in partial.labels.items() for d in row} == set(asked)
    assert not (blank / "qrels.toml").exists()  # the protocol's own qrels are not touched

    app, session, queries = open_alice(blank)  # resumes her journal
    mine = sum(len(definition.documents_of(q)) for q in queries)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(mine - 7):
            query = shown(app, "#judge-query").split()[1]
            doc = shown(app, "#judge-pair").split()[1]
            assert query in queries
            asked.append((query, doc))
            await pilot.press(str(SEED_QRELS[query][doc]))
        await pilot.press("q")
        await pilot.pause()
    assert finish_judging(session, "rankeval-tui judge P --annotator alice") == 0
    done = read_qrels_file(labels_path(blank, "alice"), definition, exhaustive=False)
    assert done.labels == {q: SEED_QRELS[q] for q in queries}
    assert done.provenance["partial"] is True
    assert not labels_path(blank, "alice").with_name("alice.toml.journal").exists()


async def test_alices_labels_file_follows_each_judgment_before_she_quits(blank: Path) -> None:
    definition = load_definition(blank)
    write_assignment(blank, definition, plan_assignment(definition, parse_annotators("alice,bob"), 0.0, 7))
    (blank / "labels").mkdir()
    app, session, _ = open_alice(blank)
    path = labels_path(blank, "alice")

    def on_disk() -> dict[str, dict[str, int]]:
        session.labels_writer.flush()
        qrels = read_qrels_file(path, definition, exhaustive=False)
        assert qrels.provenance["partial"] is True and qrels.provenance["annotator"] == "alice"
        judged = sum(len(row) for row in qrels.labels.values())
        if "pace" in qrels.provenance:  # from the second label on: what it claims is what it holds
            assert qrels.provenance["pace"]["judgments"] == judged
        return qrels.labels

    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not path.exists()  # nothing judged, nothing written
        asked = []
        for _ in range(3):
            query = shown(app, "#judge-query").split()[1]
            doc = shown(app, "#judge-pair").split()[1]
            asked.append((query, doc, SEED_QRELS[query][doc]))
            await pilot.press(str(SEED_QRELS[query][doc]))
            await pilot.pause()
            expected: dict[str, dict[str, int]] = {}
            for q, d, label in asked:
                expected.setdefault(q, {})[d] = label
            assert on_disk() == expected  # written while she judges, before any quit
        await pilot.press("u")  # the undo reaches the file too
        await pilot.pause()
        q, d, _ = asked[-1]
        del expected[q][d]
        assert on_disk() == {q: row for q, row in expected.items() if row}
        await pilot.press("q")
        await pilot.pause()
    assert finish_judging(session, "rankeval-tui judge P --annotator alice") == 0
    assert read_qrels_file(path, definition, exhaustive=False).labels == {q: row for q, row in expected.items() if row}
