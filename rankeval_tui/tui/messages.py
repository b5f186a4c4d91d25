"""Messages screens post to the app, so that no screen imports the app (or knows its type).

A screen that wants something only the app can do (open another screen with the app's inputs)
posts one of these; ``RankevalApp`` handles it. Kept in one module so the contract is in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.message import Message


class OpenJudging(Message):
    """Judge this protocol's qrels over the current screen (the scoring screen's ``j``)."""


class OpenDecide(Message):
    """Judge the gap of a comparison in the order that decides it (the scoring screen's ``d``):
    ``baseline`` and ``candidate`` are the compared runs (``Run``), ``metrics`` the compared metrics;
    ``ended`` is called with the judging session once the judging screen closes."""

    def __init__(self, baseline: Any, candidate: Any, metrics: tuple[Any, ...], ended: Callable[[Any], None]) -> None:
        super().__init__()
        self.baseline = baseline
        self.candidate = candidate
        self.metrics = metrics
        self.ended = ended
