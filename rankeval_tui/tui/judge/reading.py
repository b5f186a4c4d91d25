"""Find and match steps in a ``DocumentView``, for every screen that shows one (judging,
adjudication): the dialog, the view's answer, and the status wording in one place."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App

from rankeval_tui.tui.judge.dialogs import FindScreen
from rankeval_tui.tui.judge.document_view import DocumentView
from rankeval_tui.tui.judge.messages import find_result, match_step


def find_in_document(app: App, view: DocumentView, report: Callable[[str], None]) -> None:
    """Ask for a text (``/``), find it in ``view`` and ``report`` how many matches there are."""

    def found(text: str | None) -> None:
        if text is not None:
            report(find_result(text, view.search(text)))

    app.push_screen(FindScreen(view.matches.searched or ""), found)


def step_match(view: DocumentView, direction: int) -> str:
    """Go to the next (1) or previous (-1) match in ``view``; what to say about it."""
    return match_step(view.matches.searched, view.step_match(direction), direction)
