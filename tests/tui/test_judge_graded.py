"""The judging screen on a graded protocol (Pilot): the protocol's words in a legend line, keys 0
to the top grade record that grade (a key above it does nothing), and qrels.toml gets the grades;
on a protocol that declares unlisted pairs 0, an unlabelled pool pair reads as a declared 0 and
judging it replaces the declaration for that pair only."""

from __future__ import annotations

import json
from pathlib import Path

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.tomllib_compat import tomllib
from rankeval_tui.tui.app import RankevalApp
from tests.cli.helpers import run_cli

WORDS = "not relevant,marginal,relevant,highly relevant"


def shown(app: RankevalApp, widget_id: str) -> str:
    return str(app.screen.query_one(widget_id).render())


def make(tmp_path: Path, *options: str, qrels: str = "q1 0 d1 1\n") -> Path:
    (tmp_path / "corpus.jsonl").write_text(
        "".join(json.dumps({"id": f"d{i}", "text": f"text {i}"}) + "\n" for i in (1, 2, 3))
    )
    (tmp_path / "queries.tsv").write_text("q1\tone\n")
    (tmp_path / "qrels.txt").write_text(qrels)
    (tmp_path / "run.json").write_text(json.dumps({"q1": ["d1", "d2", "d3"]}))
    made = run_cli(
        "init", tmp_path / "p", "--corpus", tmp_path / "corpus.jsonl", "--queries", tmp_path / "queries.tsv",
        "--qrels", tmp_path / "qrels.txt", "--run", tmp_path / "run.json", "--k", "2", *options,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    return tmp_path / "p"


def labels(directory: Path) -> dict:
    return tomllib.loads((directory / "qrels.toml").read_text())["qrels"]


async def test_graded_keys_record_grades_and_a_key_above_the_scale_does_nothing(tmp_path: Path) -> None:
    directory = make(tmp_path, "--relevant-from", "2", "--grades", WORDS)
    session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="alice")
    app = RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        legend = shown(app, "#judge-grades")
        assert legend.startswith("Grades (relevant from 2): 0 not relevant · 1 marginal · 2 relevant")
        assert session.cursor.current == ("q1", "d2")
        await pilot.press("7")  # above the scale: nothing recorded, nothing moved
        await pilot.pause()
        assert session.cursor.current == ("q1", "d2") and session.marks.label_of("q1", "d2") is None
        await pilot.press("3")
        await pilot.pause()
        assert session.marks.label_of("q1", "d2") == 3
        await pilot.press("left")
        await pilot.pause()
        assert "label: 3  highly relevant" in shown(app, "#judge-pair")
        await pilot.press("right")
        await pilot.press("2")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    assert labels(directory) == {"q1": {"d1": 1, "d2": 3, "d3": 2}}


async def test_a_binary_protocol_ignores_grade_keys(tmp_path: Path) -> None:
    directory = make(tmp_path)
    session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="alice")
    app = RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not app.screen.query("#judge-grades")
        before = session.cursor.current
        await pilot.press("2")
        await pilot.pause()
        assert session.cursor.current == before and session.marks.label_of(*before) is None
        await pilot.press("q")
        await pilot.pause()


async def test_a_declared_zero_reads_apart_and_judging_it_replaces_the_declaration(tmp_path: Path) -> None:
    directory = make(tmp_path, "--unlisted-as-zero", "--pool-depth", "3")
    session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="alice")
    assert session.marks.complete  # every pool pair has a label: judged, or 0 by the declaration
    app = RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        session.goto("q1", "d2")
        app.screen.sync()
        await pilot.pause()
        assert "label: 0  unlisted: by the collection's declaration" in shown(app, "#judge-pair")
        await pilot.press("1")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.press("q")
        await pilot.pause()
    assert labels(directory) == {"q1": {"d1": 1, "d2": 1}}  # d3 stays 0 by declaration, unlisted
    scored = json.loads(run_cli("score", directory, "--format", "json").stdout)
    assert scored["runs"]["run"]["unlisted_pairs"] == 0  # k 2: d1, d2 both labelled now
    assert scored["runs"]["run"]["rows"][0]["relevant"] == 2


async def test_help_lists_the_grade_keys_of_the_protocols_scale_only(tmp_path: Path) -> None:
    """``?`` on a 0-3 protocol lists keys 2 and 3 and no higher; on a binary one, no grade key."""
    from rankeval_tui.tui.widgets.help_screen import HelpScreen

    for name, options, listed, absent in (
        ("graded", ("--relevant-from", "2", "--grades", WORDS), ("2", "3"), ("4", "9")),
        ("binary", (), (), ("2", "9")),
    ):
        (tmp_path / name).mkdir()
        directory = make(tmp_path / name, *options)
        session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="alice")
        app = RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            keys = {b.key for b in app.screen.bindings if hasattr(b, "key")}  # type: ignore[attr-defined]
            assert all(k in keys for k in listed) and not any(k in keys for k in absent), (name, keys)
            await pilot.press("escape", "q")
            await pilot.pause()


async def test_the_footer_and_help_name_the_keys_of_the_scale(tmp_path: Path) -> None:
    """A graded protocol's footer shows its grade keys (0 to the top, the words being the legend),
    not "1 Relevant / 0 Not relevant"; a binary one's footer is as it always was."""
    from textual.widgets._footer import FooterKey

    from rankeval_tui.tui.widgets.help_screen import HelpScreen

    for name, options, footer_has, footer_lacks in (
        ("graded", ("--relevant-from", "2", "--grades", WORDS), ("Grade",), ("Relevant", "Not relevant")),
        ("binary", (), ("Relevant", "Not relevant"), ("Grade",)),
    ):
        (tmp_path / name).mkdir()
        directory = make(tmp_path / name, *options)
        session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="alice")
        app = RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session)
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.pause()
            footer = " ".join(f"{key.key_display} {key.description}" for key in app.screen.query(FooterKey))
            group_labels = " ".join(str(label.render()) for label in app.screen.query("FooterLabel"))
            words = footer + " " + group_labels
            assert all(word in words for word in footer_has), (name, words)
            assert not any(f" {word}" in f" {footer}" for word in footer_lacks), (name, footer)
            if name == "graded":
                displays = {key.key_display for key in app.screen.query(FooterKey)}
                assert "0-3" in displays and not displays & {"0-4", "0-9", "1", "0"}, displays
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            descriptions = {getattr(b, "description", "") for b in app.screen.bindings}  # type: ignore[attr-defined]
            assert ("Relevant" in descriptions) == (name == "binary"), (name, descriptions)
            await pilot.press("escape", "q")
            await pilot.pause()
