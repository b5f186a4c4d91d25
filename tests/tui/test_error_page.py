"""The page a served command shows for its start-up error (``rankeval-tui serve``): the error line
whole and inert, at 80x24 and 140x40, whatever the protocol put in it; ``q`` closes it."""

from __future__ import annotations

import pytest

from rankeval_tui.tui.error_page import ErrorPage
from tests.security import hostile
from tests.security.test_hostile_screens import SIZES, check


@pytest.mark.parametrize("size", SIZES)
async def test_the_error_line_is_shown_whole_and_inert(size: tuple[int, int]) -> None:
    line = f"error: protocol.toml: query wiki[en]/Paris {hostile.ESCAPES} [reverse]q2[/reverse] is not in the split"
    app = ErrorPage(line)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        text = check(
            app, "start", expect=("wiki[en]/Paris", "\\x1b]52;c;", "[reverse]q2[/reverse]", "reload this page")
        )
        assert "the split" in text  # the end of the line too: wrapped, never cut
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0
