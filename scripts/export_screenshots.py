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
from pathlib import Path
from typing import Any, Awaitable, Callable

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


SHOTS: list[tuple[str, Shot, dict[str, Any]]] = [
    ("score_single.svg", score_single,
     {"run_specs": [(None, DEMO / "runs" / "fixture_A.json")]}),
    ("score_compare.svg", score_compare,
     {"run_specs": [(None, DEMO / "runs" / "fixture_A.json"), (None, DEMO / "runs" / "fixture_B.json")]}),
    ("query_drilldown.svg", query_drilldown,
     {"run_specs": [(None, DEMO / "runs" / "fixture_A.json"), (None, DEMO / "runs" / "fixture_B.json")]}),
]


async def export(name: str, shot: Shot, kwargs: dict[str, Any]) -> Path:
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
