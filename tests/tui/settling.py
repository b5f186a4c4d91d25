"""The one way the scoring tests wait for the screen to be ready to read or photograph."""

from __future__ import annotations

from rankeval_tui.tui.score.score_footer import ScoreFooter
from rankeval_tui.tui.score.score_screen import ScoreScreen


async def settle(pilot) -> None:
    """The scoring screen loaded (its session or its problem set), workers done, the app idle,
    and every footer showing its screen's current keys. Loaded: a test may start before the
    screen has started its loading worker, and then no worker is there to wait for.

    Why the footer: it rebuilds after the refresh that follows a bindings signal, which can land
    after the workers and one pause; an assertion or snapshot taken before it sees the loading
    state's greyed ``v`` (a fresh CI clone's 140x40 snapshot did, once)."""
    for _ in range(500):  # at most ~10 s of polling (a loaded CI machine is slow; it ends when settled)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        screen = pilot.app.screen
        loaded = not isinstance(screen, ScoreScreen) or screen.session is not None or screen.problem is not None
        if loaded and all(footer.showing_current_keys() for footer in screen.query(ScoreFooter)):
            break
        await pilot.pause(0.02)
    else:
        raise AssertionError(
            f"the screen did not settle in 10 s: loaded={loaded}, footers current: "
            f"{[footer.showing_current_keys() for footer in screen.query(ScoreFooter)]}"
        )
    await pilot.pause()
