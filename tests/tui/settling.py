"""The one way the scoring tests wait for the screen to be ready to read or photograph."""

from __future__ import annotations

from rankeval_tui.tui.widgets.score_footer import ScoreFooter


async def settle(pilot) -> None:
    """Workers done, the app idle, and every footer showing its screen's current keys.

    Why the footer: it rebuilds after the refresh that follows a bindings signal, which can land
    after the workers and one pause; an assertion or snapshot taken before it sees the loading
    state's greyed ``v`` (a fresh CI clone's 140x40 snapshot did, once)."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    for _ in range(250):  # at most 5 s
        footers = list(pilot.app.screen.query(ScoreFooter))
        if all(footer.showing_current_keys() for footer in footers):
            break
        await pilot.pause(0.02)
    await pilot.pause()
