"""The names of the journals beside a file being written, in one place.

A judging journal (``qrels.toml.journal``) and an adjudication journal
(``out.toml.adjudication.journal``) each mean "a session is writing this file when it ends".
``judge``, ``adjudicate``, ``grow`` and the ``-o`` rule (``outputs.py``) must agree on the names,
or one of them would write over a file another is still writing.
"""

from __future__ import annotations

import os
from pathlib import Path

JUDGING_JOURNAL_SUFFIX = ".journal"
ADJUDICATION_JOURNAL_SUFFIX = ".adjudication.journal"
"""Not the judging journal's suffix: ``judge`` on the same output must never replay these entries."""


def open_journals_of(path: Path) -> dict[str, Path]:
    """The journals open beside ``path``, by kind (``judging``, ``adjudication``)."""
    names = {"judging": JUDGING_JOURNAL_SUFFIX, "adjudication": ADJUDICATION_JOURNAL_SUFFIX}
    found = {kind: path.with_name(path.name + suffix) for kind, suffix in names.items()}
    # lexists: a journal that is a (dangling) symbolic link is open too; judging refuses the link itself
    return {kind: journal for kind, journal in found.items() if os.path.lexists(journal)}
