"""Messages screens post to the app, so that no screen imports the app (or knows its type).

A screen that wants something only the app can do (open another screen with the app's inputs)
posts one of these; ``RankevalApp`` handles it. Kept in one module so the contract is in one place.
"""

from __future__ import annotations

from textual.message import Message


class OpenJudging(Message):
    """Judge this protocol's qrels over the current screen (the scoring screen's ``j``)."""
