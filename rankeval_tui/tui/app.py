"""RankevalApp: loads through core and owns the screens.

The app takes core-level inputs (paths, a prepared judging session), never an argparse
Namespace, so tests and the screenshot script build it directly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from textual.app import App

StartScreen = Literal["score", "judge"]


class RankevalApp(App[int]):
    """Scoring screen by default; the judging screen is a key away (or the start, for ``judge``)."""

    CSS_PATH = "rankeval.tcss"
    TITLE = "rankeval-tui"

    def __init__(self, protocol_dir: Path, *, run_specs: list[tuple[str | None, Path]] | None = None,
                 qrels_path: Path | None = None, start: StartScreen = "score", judge_session=None) -> None:
        super().__init__()
        self.protocol_dir = protocol_dir
        self.run_specs = run_specs or []
        self.qrels_path = qrels_path
        self.start = start
        self.judge_session = judge_session

    def on_mount(self) -> None:
        # Filled in by the scoring screen (issue 4) and the judging screen (issue 3).
        pass
