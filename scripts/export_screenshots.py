"""Export SVG screenshots of the real app into ``screenshots/`` (the README shows them).

Each shot is an async function ``(pilot) -> None`` that drives a freshly built ``RankevalApp``
(size 120x36, the bundled demo protocol) to the state worth showing; ``SHOTS`` pairs it with a
file name and the app's keyword arguments. Other screens add their shots with one more entry.

    /work/venv/bin/python scripts/export_screenshots.py            # every shot
    /work/venv/bin/python scripts/export_screenshots.py score_compare   # only the named ones
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from rankeval_tui.tui.app import RankevalApp

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "protocols" / "help-docs-zh"
OUT = REPO / "screenshots"
SIZE = (120, 36)

Shot = Callable[[Pilot], Awaitable[None]]


async def settle(pilot: Pilot) -> None:
    """Wait for loading workers and pending refreshes, so the picture is the final state."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def score_single(pilot: Pilot) -> None:
    """One run's per-query table: fixture_A, with q4 missing and q5 no-relevant."""
    await settle(pilot)


async def score_compare(pilot: Pilot) -> None:
    """fixture_B against baseline fixture_A: the q2 RR@k regression the better mean hides."""
    await settle(pilot)
    await pilot.press("v")
    await settle(pilot)


async def query_drilldown(pilot: Pilot) -> None:
    """Enter on q2 in the comparison: both rankings, labels, cutoff line, document text."""
    await settle(pilot)
    await pilot.press("v")
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)
    await pilot.press("down")
    await settle(pilot)


class AnnotatorClock:
    """The journal's clock in the judging shots: 14 s between entries (a TREC assessor's pace),
    so the pace line reads as an annotator's would rather than the script's milliseconds."""

    now = 1_800_000_000.0

    def time(self) -> float:
        self.now += 14.0
        return self.now


def judging_copy() -> dict[str, Any]:
    """A judging session on a temporary copy of the demo without its qrels: never the repo's files."""
    import atexit
    import shutil
    import tempfile

    from rankeval_tui.core.annotation import journal
    from rankeval_tui.core.annotation.judging import JudgingSession
    from rankeval_tui.core.files import load_definition

    journal.time = AnnotatorClock()  # type: ignore[assignment]
    tmp = Path(tempfile.mkdtemp(prefix="rankeval-shot-"))
    atexit.register(shutil.rmtree, tmp, True)
    target = tmp / "help-docs-zh"
    shutil.copytree(DEMO, target)
    (target / "qrels.toml").unlink()
    session = JudgingSession.open(
        load_definition(target), target / "qrels.toml", order="shuffled", seed=7, annotator="alice"
    )
    return {"start": "judge", "judge_session": session, "qrels_path": target / "qrels.toml"}


async def judge_progress(pilot: Pilot) -> None:
    """Judging mid-way: q1 done (shuffled order, seed 7), q2 started, a disputed pair with a note."""
    session = pilot.app.judge_session  # type: ignore[attr-defined]
    labels = {"q1": {"d2": 1}, "q2": {"d3": 1, "d4": 1}}
    for _ in range(8):
        query, doc = session.cursor.current
        await pilot.press(str(labels.get(query, {}).get(doc, 0)))
    await pilot.press("left", "d", "n", *"covers TXT only, not every format", "enter", "right")
    await settle(pilot)


async def judge_overview(pilot: Pilot) -> None:
    """The overview matrix after judge_progress: 1 / 0 / unjudged / disputed, cursor on a cell."""
    await judge_progress(pilot)
    await pilot.press("o", "down", "right")
    await settle(pilot)


async def judge_help(pilot: Pilot) -> None:
    """``?``: every judging key, generated from the screen's bindings."""
    await settle(pilot)
    await pilot.press("question_mark")
    await settle(pilot)


def adjudication_copy() -> dict[str, Any]:
    """An adjudication session on a temporary copy of the demo: alice's file is the demo's qrels,
    bob's differs on q1/d1, q2/d4 and q4/d6, both noted q2/d4. Never the repo's files."""
    import atexit
    import shutil
    import tempfile

    import tomli_w

    from rankeval_tui.core.annotation.adjudication import AdjudicationSession
    from rankeval_tui.core.files import load_definition, read_qrels_file

    tmp = Path(tempfile.mkdtemp(prefix="rankeval-shot-"))
    atexit.register(shutil.rmtree, tmp, True)
    target = tmp / "help-docs-zh"
    shutil.copytree(DEMO, target)
    definition = load_definition(target)
    alice = read_qrels_file(target / "qrels.toml", definition).labels
    bob = {query: dict(docs) for query, docs in alice.items()}
    for query, doc in (("q1", "d1"), ("q2", "d4"), ("q4", "d6")):
        bob[query][doc] = 1 - bob[query][doc]
    files = []
    for name, labels, note in (("alice", alice, "CSV is an export format"), ("bob", bob, "a table, not a text export")):
        path = target / f"qrels-{name}.toml"
        path.write_text(
            tomli_w.dumps({"provenance": {"annotators": [name]}, "qrels": labels, "notes": {"q2": {"d4": note}}}),
            encoding="utf-8",
        )
        files.append(path)
    session = AdjudicationSession.open(definition, *files, target / "qrels-adjudicated.toml", adjudicator="carol")
    atexit.register(session.close)  # runs before the rmtree registered above (last in, first out)
    return {"start": "adjudicate", "adjudication_session": session}


async def adjudicate_progress(pilot: Pilot) -> None:
    """q1/d1 decided with its reason; the cursor moved on to q2/d4, where the two notes disagree."""
    await settle(pilot)
    await pilot.press("0", *"about download location", "enter")
    await settle(pilot)


def model_labels_copy() -> dict[str, Any]:
    """The scoring screen with ``--labels``: a model's labels of the demo (its qrels with q1/d1 and
    q2/d4 flipped, annotator ``model:demo-judge``), written to a temporary copy, never the repo's files."""
    import atexit
    import shutil
    import tempfile

    import tomli_w

    from rankeval_tui.core.files import load_definition, read_qrels_file

    tmp = Path(tempfile.mkdtemp(prefix="rankeval-shot-"))
    atexit.register(shutil.rmtree, tmp, True)
    target = tmp / "help-docs-zh"
    shutil.copytree(DEMO, target)
    labels = read_qrels_file(target / "qrels.toml", load_definition(target)).labels
    model = {query: dict(docs) for query, docs in labels.items()}
    for query, doc in (("q1", "d1"), ("q2", "d4")):
        model[query][doc] = 1 - model[query][doc]
    path = target / "model.toml"
    provenance = {"annotator": "model:demo-judge", "annotator_kind": "model", "partial": False}
    path.write_text(tomli_w.dumps({"provenance": provenance, "qrels": model}), encoding="utf-8")
    runs = [(None, DEMO / "runs" / f"{name}.json") for name in ("fixture_A", "fixture_B")]
    return {"run_specs": runs, "labels_path": path}


SHOTS: list[tuple[str, Shot, dict[str, Any]]] = [
    ("score_single.svg", score_single, {"run_specs": [(None, DEMO / "runs" / "fixture_A.json")]}),
    (
        "score_compare.svg",
        score_compare,
        {"run_specs": [(None, DEMO / "runs" / "fixture_A.json"), (None, DEMO / "runs" / "fixture_B.json")]},
    ),
    (
        "query_drilldown.svg",
        query_drilldown,
        {"run_specs": [(None, DEMO / "runs" / "fixture_A.json"), (None, DEMO / "runs" / "fixture_B.json")]},
    ),
    ("judge.svg", judge_progress, judging_copy),  # type: ignore[list-item]
    ("judge_overview.svg", judge_overview, judging_copy),  # type: ignore[list-item]
    ("judge_help.svg", judge_help, judging_copy),  # type: ignore[list-item]
    ("adjudicate.svg", adjudicate_progress, adjudication_copy),  # type: ignore[list-item]
    ("score_labels.svg", score_single, model_labels_copy),  # type: ignore[list-item]
]


async def export(name: str, shot: Shot, kwargs: dict[str, Any] | Callable[[], dict[str, Any]]) -> Path:
    kwargs = kwargs() if callable(kwargs) else kwargs  # a factory, for shots that need fresh state
    app = RankevalApp(DEMO, **kwargs)
    async with app.run_test(size=SIZE) as pilot:
        await shot(pilot)
        path = Path(app.save_screenshot(filename=name, path=str(OUT)))
    return path


def main(argv: list[str]) -> int:
    OUT.mkdir(exist_ok=True)
    wanted = {a.removesuffix(".svg") for a in argv}
    for name, shot, kwargs in SHOTS:
        if wanted and name.removesuffix(".svg") not in wanted:
            continue
        print(asyncio.run(export(name, shot, kwargs)).relative_to(REPO))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
