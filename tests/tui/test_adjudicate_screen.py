"""Pilot tests of the adjudication queue: only disagreements queued, both labels and notes shown,
decisions need a reason, are journaled, survive a restart, and ``w`` writes the right file."""

from __future__ import annotations

import copy
import json
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import tomli_w
from textual.widgets import DataTable, Input, Static

from rankeval_tui.core.annotation.adjudicated import adjudicated_queries
from rankeval_tui.core.annotation.adjudication import JOURNAL_SUFFIX, AdjudicationSession
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import load_protocol, read_qrels_file
from rankeval_tui.core.files.tomllib_compat import tomllib  # tomli on Python 3.10
from rankeval_tui.tui.adjudicate_screen import AdjudicateScreen
from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.judge.document_view import DocumentView

SIZE = (140, 40)
DEMO = Path(__file__).resolve().parents[2] / "protocols" / "help-docs-zh"


def adjudication_app(session: AdjudicationSession) -> RankevalApp:
    """The one app, started in adjudication mode (what ``adjudicate`` and ``judge --adjudicate`` run)."""
    return RankevalApp(DEMO, start="adjudicate", adjudication_session=session)


@pytest.fixture()
def files(tmp_path, seed_dir) -> tuple[Path, Path, Path]:
    labels = tomllib.loads((seed_dir / "qrels.toml").read_text(encoding="utf-8"))["qrels"]
    bob = copy.deepcopy(labels)
    bob["q1"]["d1"] = 1
    bob["q2"]["d4"] = 0
    bob["q4"]["d6"] = 0
    a = tmp_path / "alice.toml"
    b = tmp_path / "bob.toml"
    a.write_text(
        tomli_w.dumps(
            {
                "provenance": {"annotators": ["alice"]},
                "qrels": labels,
                "notes": {"q2": {"d4": "CSV is an export format"}},
            }
        ),
        encoding="utf-8",
    )
    b.write_text(
        tomli_w.dumps(
            {"provenance": {"annotators": ["bob"]}, "qrels": bob, "notes": {"q2": {"d4": "a table, not a text export"}}}
        ),
        encoding="utf-8",
    )
    return a, b, tmp_path / "qrels.toml"


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def decide(pilot, key: str, reason: str) -> None:
    await pilot.press(key)
    for ch in reason:
        await pilot.press("space" if ch == " " else ch)
    await pilot.press("enter")
    await pilot.pause()


async def test_queue_shows_only_disagreements_with_both_labels_and_notes(definition, files):
    a, b, out = files
    session = AdjudicationSession.open(definition, a, b, out, adjudicator="carol")
    app = adjudication_app(session)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, AdjudicateScreen)
            table = screen.query_one(DataTable)
            assert table.row_count == 3  # of 30 pairs, only the 3 disagreements
            assert [table.get_row_at(i)[1:5] for i in range(3)] == [
                ["q1", "d1", "0", "1"],
                ["q2", "d4", "1", "0"],
                ["q4", "d6", "1", "0"],
            ]
            await pilot.press("down")
            await pilot.pause()
            labels = text_of(screen, "#adjudicate-labels")
            assert "alice: 1 relevant" in labels and "CSV is an export format" in labels
            assert "bob: 0 not relevant" in labels and "a table, not a text export" in labels
            assert "导出表格指南" in screen.query_one(DocumentView).visible_text()  # the document's text, drawn
            assert definition.relevance in labels  # the criterion to decide by
            assert "0/3 decided" in text_of(screen, "#adjudicate-summary")
    finally:
        session.close()


async def test_decisions_are_written_as_exhaustive_adjudicated_qrels(definition, files, seed_dir):
    a, b, out = files
    session = AdjudicationSession.open(definition, a, b, out, adjudicator="carol")
    app = adjudication_app(session)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await decide(pilot, "0", "about download location")
            await decide(pilot, "1", "CSV is 1 of 2 formats")
            # w before the last decision writes nothing
            await pilot.press("w")
            await pilot.pause()
            assert not out.exists()
            await decide(pilot, "1", "dark theme")
            screen = app.screen
            assert screen.query_one(DataTable).get_row_at(2)[5:] == ["1", "dark theme"]
            # the reason is shown, not cut to the width of the column's header
            assert screen.query_one(DataTable).columns["reason"].width >= len("about download location")
            assert "all 3 decided" in text_of(screen, "#adjudicate-summary")
            # the last decision writes the file (in a worker), as the last judged pair does
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert out.exists() and session.written
            assert f"wrote {out}" in text_of(screen, "#adjudicate-status")
            await pilot.press("q")
            await pilot.pause()
        assert app.return_value.startswith(f"wrote {out}")
    finally:
        session.close()
    written = read_qrels_file(out, definition)
    # The decisions restore the seed labels here, so the result scores under the seed's hash.
    assert load_protocol(seed_dir, out).protocol_sha256 == load_protocol(seed_dir).protocol_sha256
    assert written.adjudication == {
        "q1": {"d1": {"labels": [0, 1], "final": 0, "reason": "about download location", "adjudicator": "carol"}},
        "q2": {"d4": {"labels": [1, 0], "final": 1, "reason": "CSV is 1 of 2 formats", "adjudicator": "carol"}},
        "q4": {"d6": {"labels": [1, 0], "final": 1, "reason": "dark theme", "adjudicator": "carol"}},
    }
    assert written.provenance["annotators"] == ["alice", "bob"]
    assert written.provenance["adjudicator"] == "carol"
    assert written.provenance["kappa"] is not None and written.provenance["disagreements"] == 3
    assert written.notes["q2"]["d4"] == "alice: CSV is an export format | bob: a table, not a text export"
    assert adjudicated_queries(written) == {"q1", "q2", "q4"}
    assert not out.with_name(out.name + JOURNAL_SUFFIX).exists()  # journal dropped once written
    assert not out.with_name(out.name + ".lock").exists()


async def test_final_label_without_reason_is_not_recorded(definition, files):
    a, b, out = files
    session = AdjudicationSession.open(definition, a, b, out, adjudicator="carol")
    app = adjudication_app(session)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("1", "enter")
            await pilot.pause()
            assert session.decided == 0
            assert app.screen.query_one(DataTable).get_row_at(0)[5] == "-"
            await pilot.press("escape")
            assert app.screen.pending_final is None
            assert app.screen.query_one("#adjudicate-reason", Input).disabled
    finally:
        session.close()


async def test_decisions_survive_a_restart_through_the_journal(definition, files):
    a, b, out = files
    session = AdjudicationSession.open(definition, a, b, out, adjudicator="carol")
    app = adjudication_app(session)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await decide(pilot, "0", "location only")
            await pilot.press("q")
            await pilot.pause()
        assert "2 of 3 disagreements undecided" in app.return_value
    finally:
        session.close()  # what the CLI does on exit: the journal stays, the lock goes
    assert not out.exists()
    again = AdjudicationSession.open(definition, a, b, out)
    try:
        assert again.adjudicator == "carol"
        assert again.decided == 1 and again.index == 1  # resumes at the first undecided pair
        app = adjudication_app(again)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            table = app.screen.query_one(DataTable)
            assert table.get_row_at(0)[5:] == ["0", "location only"]
            assert table.cursor_row == 1
    finally:
        again.close()


def test_changed_input_file_refuses_the_old_journal(definition, files):
    a, b, out = files
    session = AdjudicationSession.open(definition, a, b, out, adjudicator="carol")
    session.decide(1, "x")
    session.close()
    b.write_text(b.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    with pytest.raises(ContractError, match="other annotator files"):
        AdjudicationSession.open(definition, a, b, out)
    assert not out.with_name(out.name + ".lock").exists()  # refused input leaves no lock


def test_second_writer_is_refused_by_the_lock(definition, files):
    a, b, out = files
    session = AdjudicationSession.open(definition, a, b, out, adjudicator="carol")
    try:
        with pytest.raises(ContractError, match="locked"):
            AdjudicationSession.open(definition, a, b, out, adjudicator="dave")
    finally:
        session.close()


def test_unanimous_files_write_without_decisions(definition, files, tmp_path):
    a, _, out = files
    copy_a = tmp_path / "alice2.toml"
    copy_a.write_bytes(a.read_bytes())
    session = AdjudicationSession.open(definition, a, copy_a, out, adjudicator="carol")
    try:
        assert session.items == () and session.complete
        session.write()
    finally:
        session.close()
    assert read_qrels_file(out, definition).adjudication == {}


def test_write_refuses_undecided_pairs_and_nothing_is_written(definition, files):
    a, b, out = files
    session = AdjudicationSession.open(definition, a, b, out, adjudicator="carol")
    try:
        session.decide(0, "location only")
        with pytest.raises(ContractError, match="2 disagreeing pairs are not adjudicated yet: q2/d4; q4/d6"):
            session.write()
        with pytest.raises(ContractError, match="needs a reason"):
            session.decide(1, "   ")
        assert session.decided == 1
    finally:
        session.close()
    assert not out.exists()


def test_torn_journal_tail_is_dropped_not_read_as_a_decision(definition, files):
    a, b, out = files
    session = AdjudicationSession.open(definition, a, b, out, adjudicator="carol")
    session.decide(0, "location only")
    session.close()
    journal = out.with_name(out.name + JOURNAL_SUFFIX)
    with journal.open("ab") as handle:
        handle.write(b'{"op":"decide","q":"q2","d":"d4","final":1,"rea')  # killed mid-write
    again = AdjudicationSession.open(definition, a, b, out)
    try:
        assert again.decided == 1 and "torn" in again.warnings[0]
        again.decide(1, "CSV")
    finally:
        again.close()
    third = AdjudicationSession.open(definition, a, b, out)
    try:
        assert [(p, d.final) for p, d in third.decisions.items()] == [(("q1", "d1"), 0), (("q2", "d4"), 1)]
        assert third.warnings == []
    finally:
        third.close()


def adjudication_over(directory: Path, labels: dict, flipped: dict, notes: tuple[dict, dict] = ({}, {})):
    """alice's labels and bob's ``flipped`` copy written beside the protocol in ``directory``;
    yields the app in adjudication mode (carol adjudicating) and closes the session after."""
    from rankeval_tui.core.files import load_definition

    a, b = directory / "qrels-alice.toml", directory / "qrels-bob.toml"
    for path, name, qrels, note in ((a, "alice", labels, notes[0]), (b, "bob", flipped, notes[1])):
        document = {"provenance": {"annotators": [name]}, "qrels": qrels, **({"notes": note} if note else {})}
        path.write_text(tomli_w.dumps(document), encoding="utf-8")
    session = AdjudicationSession.open(
        load_definition(directory), a, b, directory / "qrels-adjudicated.toml", adjudicator="carol"
    )
    try:
        yield RankevalApp(directory, start="adjudicate", adjudication_session=session)
    finally:
        session.close()


@pytest.fixture()
def adjudication_in_copy(seed_copy: Path):
    """A temp copy of the demo with alice's and bob's files (3 disagreements), adjudicator carol.

    Only file names relative to the copy reach the screen before every pair is decided, so the
    picture is the same on every machine."""
    labels = tomllib.loads((seed_copy / "qrels.toml").read_text(encoding="utf-8"))["qrels"]
    bob = copy.deepcopy(labels)
    bob["q1"]["d1"] = 1
    bob["q2"]["d4"] = 0
    bob["q4"]["d6"] = 0
    notes = ({"q2": {"d4": "CSV is an export format"}}, {"q2": {"d4": "a table, not a text export"}})
    yield from adjudication_over(seed_copy, labels, bob, notes)


SNAPSHOT_SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((140, 40), id="140x40")]


@pytest.mark.parametrize("size", SNAPSHOT_SIZES)
def test_adjudication_snapshot(snap_compare, adjudication_in_copy: RankevalApp, size: tuple[int, int]) -> None:
    """q1/d1 decided with a reason; the cursor moved on to q2/d4, whose two notes disagree."""
    keys = ["0", *("space" if ch == " " else ch for ch in "about download location"), "enter"]
    assert snap_compare(adjudication_in_copy, press=keys, terminal_size=size)


@pytest.fixture()
def big_adjudication(tmp_path: Path):
    """The 2,000-query protocol; bob flips five of alice's 80,000 labels (one per 400 queries)."""
    from tests.tui.big_protocol import write_big_protocol

    directory = write_big_protocol(tmp_path / "big")
    labels = tomllib.loads((directory / "qrels.toml").read_text(encoding="utf-8"))["qrels"]
    bob = copy.deepcopy(labels)
    for query in list(bob)[::400]:
        doc = next(iter(bob[query]))
        bob[query][doc] = 1 - bob[query][doc]
    yield from adjudication_over(directory, labels, bob)


@pytest.mark.parametrize("size", SNAPSHOT_SIZES)
def test_adjudication_snapshot_2000_queries(snap_compare, big_adjudication: RankevalApp, size: tuple[int, int]) -> None:
    """One of five decided; the reason of the second being typed, in view at both sizes."""
    keys = ["1", *("space" if ch == " " else ch for ch in "answers it"), "enter", "0", *"partly"]
    assert snap_compare(big_adjudication, press=keys, terminal_size=size)


def test_cli_runner_uses_the_one_app_and_always_closes_the_session(definition, files, monkeypatch):
    """``run_adjudication_app`` (what ``adjudicate`` calls) runs RankevalApp in adjudication mode,
    passes its message through, and releases the lock even when the app fails."""
    from rankeval_tui.tui.app import run_adjudication_app

    a, b, out = files
    lock = out.with_name(out.name + ".lock")
    started: list[RankevalApp] = []

    def fake_run(app: RankevalApp) -> str:
        started.append(app)
        assert lock.exists()  # the session is still open while the app runs
        return "2 of 3 disagreements undecided"

    monkeypatch.setattr(RankevalApp, "run", fake_run)
    session = AdjudicationSession.open(definition, a, b, out, adjudicator="carol")
    assert run_adjudication_app(DEMO, session) == "2 of 3 disagreements undecided"
    assert started[0].start == "adjudicate" and started[0].adjudication_session is session
    assert not lock.exists()

    def failing_run(app: RankevalApp) -> str:
        raise RuntimeError("terminal gone")

    monkeypatch.setattr(RankevalApp, "run", failing_run)
    session = AdjudicationSession.open(definition, a, b, out, adjudicator="carol")
    with pytest.raises(RuntimeError):
        run_adjudication_app(DEMO, session)
    assert not lock.exists()


def in_view(screen, selector: str) -> bool:
    """The widget is drawn whole inside the terminal, above the footer."""
    region = screen.query_one(selector).region
    footer_top = screen.query_one("PinnedFooter").region.y
    return region.height > 0 and screen.region.contains_region(region) and region.bottom <= footer_top


@asynccontextmanager
async def adjudicating(definition, a: Path, b: Path, out: Path, size: tuple[int, int] = (80, 24)):
    """carol adjudicating a against b in the app; the session is closed (as the CLI does) after."""
    session = AdjudicationSession.open(definition, a, b, out, adjudicator="carol")
    app = adjudication_app(session)
    try:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            yield app, session, pilot
    finally:
        session.close()


async def decide_all(pilot, decisions=(("0", "location only"), ("1", "CSV is an export"), ("1", "dark theme"))):
    for key, reason in decisions:
        await decide(pilot, key, reason)


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_last_decision_writes_the_qrels_and_the_reason_field_is_in_view(definition, files, size):
    a, b, out = files
    async with adjudicating(definition, a, b, out, size) as (app, session, pilot):
        screen = app.screen
        await pilot.press("1")
        reason = screen.query_one("#adjudicate-reason", Input)
        assert in_view(screen, "#adjudicate-reason") and reason.has_focus  # typed where it is seen
        assert len(reason.placeholder) < reason.content_region.width  # never cut to "...and press"
        assert in_view(screen, "#adjudicate-labels") and in_view(screen, "#adjudicate-status")
        await pilot.press("escape")
        await decide_all(pilot, (("0", "location only"), ("1", "CSV is an export")))
        assert not out.exists()
        await decide(pilot, "1", "dark theme")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert f"all 3 disagreements decided: wrote {out}" in text_of(screen, "#adjudicate-status")
        assert in_view(screen, "#adjudicate-status")
        written = read_qrels_file(out, definition)  # on disk before q is pressed
        assert {q: {d: r["final"] for d, r in row.items()} for q, row in written.adjudication.items()} == {
            "q1": {"d1": 0},
            "q2": {"d4": 1},
            "q4": {"d6": 1},
        }
        await pilot.press("q")
        await pilot.pause()
    assert app.return_value == f"wrote {out}: 30 pairs, 3 adjudicated by carol"
    assert not out.with_name(out.name + JOURNAL_SUFFIX).exists()


async def test_a_decision_changed_after_the_write_is_journaled_and_written_again(definition, files):
    a, b, out = files
    journal = out.with_name(out.name + JOURNAL_SUFFIX)
    async with adjudicating(definition, a, b, out) as (app, session, pilot):
        await decide_all(pilot)
        await app.workers.wait_for_complete()
        assert session.written and journal.exists()  # the journal stays while the app runs
        app.screen.query_one(DataTable).move_cursor(row=0)
        await pilot.pause()
        await decide(pilot, "1", "saving is downloading")  # changed: journaled first
        entries = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
        assert isinstance(entries[-1].pop("at"), float)  # every journal line is stamped (issue 31)
        assert entries[-1] == {"op": "decide", "q": "q1", "d": "d1", "final": 1, "reason": "saving is downloading"}
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert session.written
        assert read_qrels_file(out, definition).adjudication["q1"]["d1"]["final"] == 1  # written again
        await pilot.press("q")
        await pilot.pause()
    assert not journal.exists()


async def test_quit_right_after_the_last_decision_waits_for_the_file(definition, files):
    a, b, out = files
    async with adjudicating(definition, a, b, out) as (app, _, pilot):
        await decide_all(pilot)
        await pilot.press("q")  # no wait for the write worker: q waits for it
        await pilot.pause()
    assert app.return_value.startswith(f"wrote {out}")
    assert read_qrels_file(out, definition).adjudication["q4"]["d6"]["reason"] == "dark theme"


async def test_quit_on_unanimous_files_writes_them(definition, files, tmp_path):
    a, _, out = files
    same = tmp_path / "alice-again.toml"
    same.write_bytes(a.read_bytes())
    async with adjudicating(definition, a, same, out) as (app, _, pilot):
        assert "nothing to adjudicate" in text_of(app.screen, "#adjudicate-summary")
        await pilot.press("q")
        await pilot.pause()
    assert app.return_value.startswith(f"wrote {out}")
    assert read_qrels_file(out, definition).labels == read_qrels_file(a, definition).labels


def test_changed_decision_after_a_write_keeps_the_journal_until_written(definition, files):
    a, b, out = files
    session = AdjudicationSession.open(definition, a, b, out, adjudicator="carol")
    for final in (0, 1, 1):
        session.decide(final, "checked")
    session.write()
    assert session.written
    session.select(0)
    session.decide(1, "second look")
    assert not session.written  # the file holds the old decision; the journal has the new one
    session.close()
    journal = out.with_name(out.name + JOURNAL_SUFFIX)
    assert journal.exists()
    again = AdjudicationSession.open(definition, a, b, out)
    try:
        assert again.decisions[("q1", "d1")].reason == "second look" and again.complete
    finally:
        again.close()


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_help_and_quit_stay_in_the_footer_and_help_lists_every_key(definition, files, size):
    from textual.widgets._footer import FooterKey

    from rankeval_tui.tui.widgets.help_screen import HelpScreen

    a, b, out = files
    async with adjudicating(definition, a, b, out, size) as (app, session, pilot):
        screen = app.screen
        shown = {key.action for key in screen.query(FooterKey) if key.display and key.region.width}
        assert {"help", "quit_keep"} <= shown
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        listed = str(app.screen.query_one("#help-dialog Static").render())
        assert "Adjudication keys" in listed and "final label 1 for this pair" in listed
        assert "written at the last one" in listed
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
