"""Every screen on a hostile protocol: nothing reaches the terminal as a control sequence or markup.

The walk is generic: after each step it takes what the terminal would receive for the whole
screen (the compositor's full update, rendered as the driver would write it, toasts and modal
dialogs included: the walks run with ``notifications=True``, which Textual's test harness turns
off by default) and checks that stream, not one widget at a time, so a widget added later is
checked as soon as a step shows it. To cover a new screen or key, add a step to a WALK.

Checked at each step, at 80x24 and 140x40:
- no OSC (``ESC ]``: clipboard, title, hyperlinks from ``[link=...]`` markup), no C1 CSI
  (``\\x9b``), no BEL, no bidi override reaches the terminal, and no ESC at all in the text
  of the screen (Textual's own sequences are outside the segments' text);
- no markup was read: ``wiki/Paris`` (``wiki[en]/Paris`` read as markup) never shows, and the
  hostile IDs show literally where the step shows them;
- no crash (``q3[/]`` raised ``MarkupError`` in the scoring and adjudication screens).
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
import tomli_w

from rankeval_tui.core.annotation.adjudication import AdjudicationSession
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.tomllib_compat import tomllib
from rankeval_tui.tui.app import RankevalApp
from tests.security import hostile
from tests.tui.settling import settle

SIZES = [(80, 24), (140, 40)]
NEVER_IN_STREAM = {"\x1b]": "an OSC sequence", "\x9b": "a C1 CSI", "\x07": "BEL", "\u202e": "a bidi override"}
MARKUP_READ = ("wiki/Paris",)
"""What markup leaves: ``wiki[en]/Paris`` shows as ``wiki/Paris`` when read as markup (a read
``[link=...]`` tag is an OSC 8 hyperlink, caught in the stream)."""


def terminal_output(app: RankevalApp) -> tuple[str, str]:
    """(what the driver would write for a full repaint of the screen, the screen's text)."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    plain = "\n".join("".join(segment.text for segment in strip) for strip in update.strips)
    return update.render_segments(app.console), plain


def check(app: RankevalApp, step: str, expect: tuple[str, ...] = ()) -> str:
    stream, text = terminal_output(app)
    where = f"{type(app.screen).__name__} after {step!r} at {app.size}"
    for sequence, what in NEVER_IN_STREAM.items():
        assert sequence not in stream, f"{what} reached the terminal: {where}"
    assert "\x1b" not in text, f"ESC in the screen's text: {where}"
    for leftover in MARKUP_READ:
        assert leftover not in text, f"markup was read ({leftover!r} shown): {where}"
    for literal in expect:
        assert literal in text, f"{literal!r} not shown literally: {where}\n{text}"
    return text


@pytest.fixture()
def protocol(tmp_path: Path) -> Path:
    return hostile.build(tmp_path / "received")


Q2, Q3, Q4, D3 = (hostile.rename(name) for name in ("q2", "q3", "q4", "d3"))

SCORE_WALK: list[tuple[tuple[str, ...], tuple[str, ...]]] = [
    ((), (Q2, Q3, Q4)),  # the scoring table (single run), header with the protocol name, runs line
    (("v",), (Q2, Q3, Q4)),  # comparison: table, summary, regressions named
    (("enter",), ()),  # drill-down of the highlighted query: text, need, rankings, a document
    (("down", "enter"), ()),  # and another document's text
    (("escape",), ()),
    (("v", "f", "f"), ()),  # single run filters
    (("question_mark",), ()),  # help toast
    (("slash", *"q3[/]"), ("q3[/]",)),  # find a query by a markup ID (typed into the find box)
    (("enter", "escape"), ()),
    (("slash", *"[b]nope", "enter"), ()),  # not found: a toast naming it
    (("escape",), ()),
    (("r",), ()),  # reload
    (("j",), ()),  # judging over the scoring screen (review of the complete qrels)
    (("n",), ()),  # the note dialog on the current pair
    (("escape", "right_square_bracket", "right", "right", "n", "home"), ("a note",)),  # a hostile note, from its start
    (("escape", "o"), ()),  # overview matrix
    (("escape", "question_mark"), ()),  # judging keys
    (("escape", "right", "right"), ()),  # more pairs of the query
]


COMPARE_WALK: list[tuple[tuple[str, ...], tuple[str, ...]]] = [
    (("v",), (Q2, Q3, Q4)),  # comparison: table, summary, the delta chart
    (("enter",), ()),  # drill-down from the comparison: each ranking's explain text, rank movement
    (("m",), ()),  # the next metric explained (its terms, the documents never returned)
    (("m", "down", "down"), ()),  # another document's text beside the explanations
    (("tab",), ()),  # the other run's panel
    (("escape",), ()),
    (("right_square_bracket",), ()),  # a bin of the chart chosen: the table lists its queries
    (("right_square_bracket", "m"), ()),  # the next bin, another metric's chart
    (("s", "x"), ()),  # sorted by delta, exact fractions
    (("p",), ()),  # the paired statistics paged
    (("c", "b"), ()),  # another candidate and baseline: the run named with an OSC sequence
]
"""The comparison view with its chart and the drill-down's explain text (issue 33's additions)."""


@pytest.mark.parametrize("size", SIZES)
async def test_comparison_chart_and_drilldown_explain(protocol: Path, size: tuple[int, int]) -> None:
    app = RankevalApp(protocol)
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        for keys, expect in COMPARE_WALK:
            await pilot.press(*keys)
            await settle(pilot)
            check(app, " ".join(keys), expect if size == (140, 40) else ())
        if size == (140, 40):
            await pilot.press("escape", "left_square_bracket", "left_square_bracket")
            await settle(pilot)
            check(app, "back to every query", ("┼",))  # the chart was on screen, and checked


def pooled(protocol: Path) -> Path:
    """The hostile protocol as a pooled one: every query's pool every document, a hostile pool
    rule (the scoring header shows it), and a TREC run named with an escape whose tied scores
    trec_eval orders otherwise (the tie-order toast names it)."""
    data = tomllib.loads((protocol / "protocol.toml").read_text(encoding="utf-8"))
    data["protocol"]["kind"] = "pooled"
    data["protocol"]["pool_rule"] = hostile.hostile("top 2 of each run")
    data["pools"] = {query: " ".join(data["documents"]) for query in data["queries"]}
    (protocol / "protocol.toml").write_text(tomli_w.dumps(data), encoding="utf-8")
    split = data["protocol"]["split"]
    chosen = [q for q, query in data["queries"].items() if query["split"] == split]
    labels = tomllib.loads((protocol / "qrels.toml").read_text(encoding="utf-8"))["qrels"]
    lines = []
    for q in chosen:  # a tie trec_eval breaks the other way, so a value changes and the line is said
        relevant = [d for d, label in labels[q].items() if label]
        other = [d for d, label in labels[q].items() if not label]
        pairs = [(n, r) for r in relevant for n in other if r > n]
        if pairs:
            below, above = pairs[0]
            lines.append(f"{q} Q0 {below} 1 1.0 t\n{q} Q0 {above} 2 1.0 t\n")
    assert lines, "the hostile protocol has no tie that changes a value"
    ties = "".join(lines)
    (protocol / "runs" / "ties[b]\x1b]0;tie\x07.trec").write_text(ties, encoding="utf-8")
    return protocol


@pytest.mark.parametrize("size", SIZES)
async def test_pooled_header_tie_order_toast_and_judging_by_pool(protocol: Path, size: tuple[int, int]) -> None:
    pooled(protocol)
    app = RankevalApp(protocol)
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        text = check(app, "start", ("pooled",) if size == (140, 40) else ())
        assert "trec_eval" in text, f"the tie-order toast is not on screen:\n{text}"
        for keys in (("v",), ("enter",), ("escape", "v"), ("j",), ("o",), ("escape", "1")):
            await pilot.press(*keys)
            await settle(pilot)
            check(app, " ".join(keys))
        app.judge_session.close()


@pytest.mark.parametrize("size", SIZES)
async def test_scoring_drilldown_judging_and_toasts(protocol: Path, size: tuple[int, int]) -> None:
    app = RankevalApp(protocol)
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        for keys, expect in SCORE_WALK:
            await pilot.press(*keys)
            await settle(pilot)
            check(app, " ".join(keys) or "start", expect if size == (140, 40) else ())
        app.judge_session.close()


async def test_reload_error_toast_of_a_markup_run_name(protocol: Path, tmp_path: Path) -> None:
    """``r`` after a run named ``[/]x`` whose file went bad: the error toast crashed the app."""
    run = tmp_path / "x.json"
    shutil.copy(protocol / "runs" / f"{hostile.RUN_NAMES['fixture_A']}.json", run)
    app = RankevalApp(protocol, run_specs=[("[/]x", run), (None, protocol / "runs" / "[bold]B.json")])
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await settle(pilot)
        check(app, "start", ("[/]x",))
        run.write_text('{"' + Q2 + '": ["no-such-doc' + hostile.ESCAPES + '"]}', encoding="utf-8")
        await pilot.press("r")
        await settle(pilot)
        check(app, "r", ("[/]x",))


@pytest.mark.parametrize("size", SIZES)
async def test_adjudication_queue(protocol: Path, tmp_path: Path, size: tuple[int, int]) -> None:
    qrels = tomllib.loads((protocol / "qrels.toml").read_text(encoding="utf-8"))
    other = copy.deepcopy(qrels)
    for q, d in ((Q2, D3), (Q3, hostile.rename("d5")), (Q2, "d4")):
        other["qrels"][q][d] = 1 - other["qrels"][q][d]
    other["provenance"]["annotators"] = ["bob" + hostile.ESCAPES]
    other["notes"] = {Q3: {hostile.rename("d5"): hostile.hostile("bob's note")}}
    a, b = tmp_path / "alice.toml", tmp_path / "bob.toml"
    a.write_text(tomli_w.dumps(qrels), encoding="utf-8")
    b.write_text(tomli_w.dumps(other), encoding="utf-8")
    session = AdjudicationSession.open(load_definition(protocol), a, b, tmp_path / "final.toml", adjudicator="c")
    reason = hostile.hostile("a reason")
    session.decide(1, reason)  # a recorded reason is shown in the queue and put back in the reason field
    app = RankevalApp(protocol, start="adjudicate", adjudication_session=session)
    try:
        async with app.run_test(size=size, notifications=True) as pilot:
            await pilot.pause()
            check(app, "start", (Q2,) if size == (140, 40) else ())
            for keys in (
                ("up", "1", "home"),
                ("escape",),
                ("down",),
                ("down",),
                ("1",),
                ("escape",),
                ("question_mark",),
            ):
                await pilot.press(*keys)
                await pilot.pause()
                check(app, " ".join(keys))
            await pilot.press("escape", "up", "up", "0", "enter")  # the shown reason, unedited, recorded again
            await pilot.pause()
        assert session.decision_of(session.items[0]).reason == reason  # kept as it was, not escaped
    finally:
        session.close()


@pytest.mark.parametrize("size", SIZES)
async def test_judging_a_fresh_job(protocol: Path, size: tuple[int, int]) -> None:
    """``judge`` on the hostile protocol without qrels: every document's text and title shown in
    the document view (drawn with the line API, through ``printable``), its find caption, the pace."""
    from rankeval_tui.core.annotation.judging import JudgingSession

    (protocol / "qrels.toml").unlink()
    session = JudgingSession.open(load_definition(protocol), protocol / "qrels.toml", annotator=hostile.ANNOTATOR)
    app = RankevalApp(protocol, qrels_path=protocol / "qrels.toml", start="judge", judge_session=session)
    try:
        async with app.run_test(size=size, notifications=True) as pilot:
            await pilot.pause()
            check(app, "start")
            for keys in (
                ("1",),
                ("0",),
                ("1",),  # three judgments timed: the pace line shows
                ("e",),
                ("d",),
                ("m",),  # the document view steps to a query term: its caption, the match painted
                ("slash", *"[/]x", "enter"),  # find in the document: the caption quotes what was typed
                ("slash", *"evil", "enter"),  # a word beside the bidi override in every text
                ("o",),
                ("escape",),
                ("u",),
            ):
                await pilot.press(*keys)
                await pilot.pause()
                check(app, " ".join(keys), ("[/]x",) if keys[:2] == ("slash", "[") else ())
    finally:
        session.close()
