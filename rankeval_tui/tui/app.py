"""RankevalApp: loads through core and owns the screens.

The app takes core-level inputs (paths, a prepared judging session), never an argparse
Namespace, so tests and the screenshot script build it directly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from textual.app import App
from textual.content import Content
from textual.driver import Driver
from textual.notifications import SeverityLevel
from textual.screen import Screen

from rankeval_tui.core.annotation.adjudication import AdjudicationSession
from rankeval_tui.core.evaluation.metrics import PRIMARY, MetricId
from rankeval_tui.core.preread import Preread
from rankeval_tui.core.session_cutoffs import NamedMetric
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.tui.hangups import app_ended, guard_lock
from rankeval_tui.tui.messages import OpenDecide, OpenJudging
from rankeval_tui.tui.score.score_screen import LoadRequest, ScoreScreen
from rankeval_tui.tui.served_driver import ending_with_its_server

StartScreen = Literal["score", "judge", "adjudicate"]


class RankevalApp(App[int | str | None]):
    """Scoring screen by default; the judging screen is a key away (or the start, for ``judge``).

    ``start="adjudicate"`` (``adjudicate``, ``judge --adjudicate``) shows only the adjudication screen
    and exits with its result: the line to tell the user, or None. The caller closes the session."""

    CSS_PATH = "rankeval.tcss"
    TITLE = "rankeval-tui"
    ENABLE_COMMAND_PALETTE = False  # every action has a key in the footer; ^p would crowd it out

    def __init__(
        self,
        protocol_dir: Path,
        *,
        run_specs: list[tuple[str | None, Path]] | None = None,
        qrels_path: Path | None = None,
        start: StartScreen = "score",
        judge_session=None,
        adjudication_session=None,
        k: int | None = None,
        split: str | None = None,
        chunk_map_path: Path | None = None,
        metrics: tuple[MetricId, ...] = PRIMARY,
        baseline: str | None = None,
        preread: Preread | None = None,
        named: tuple[NamedMetric, ...] = (),
        labels_path: Path | None = None,
    ) -> None:
        super().__init__()
        self.protocol_dir = protocol_dir
        self.run_specs = run_specs or []
        self.qrels_path = qrels_path
        self.start = start
        self.judge_session = judge_session
        self.adjudication_session = adjudication_session
        self.k = k
        self.split = split
        self.chunk_map_path = chunk_map_path
        self.metrics = metrics
        self.baseline = baseline
        self.preread = preread
        self.named = named
        """``--metrics`` with their cutoffs (``P@5,P@10``); given, they replace ``metrics``."""
        self.labels_path = labels_path
        """``--labels LABELS.toml``: the scoring screen shows each run's scores under it too."""

    def score_request(self) -> LoadRequest:
        """What the scoring screen loads (in a worker): the same inputs ``score`` would read."""
        return LoadRequest(
            Path(self.protocol_dir),
            tuple(self.run_specs),
            self.qrels_path,
            self.k,
            self.split,
            self.chunk_map_path,
            self.metrics,
            self.baseline,
            self.preread,
            self.named,
            self.labels_path,
        )

    def get_driver_class(self) -> type[Driver]:
        return ending_with_its_server(super().get_driver_class())

    def get_default_screen(self) -> Screen:
        """The scoring screen is the base screen; the judging screen is pushed over it.

        Made the default screen rather than pushed over Textual's empty one in ``on_mount``:
        that one was composed, laid out and painted for nothing at every start."""
        if self.start in ("judge", "adjudicate"):
            return super().get_default_screen()
        return ScoreScreen(self.score_request())

    # The judging and adjudication screens are imported where they open, not with the app: the
    # scoring screen, opened far more often, does not wait for their modules
    # (benchmarks/bench_score_opening.py measures its opening).

    def on_mount(self) -> None:
        if self.start == "judge":  # ``judge``: only the judging screen; nothing is scored
            from rankeval_tui.tui.judge.screen import JudgeScreen

            self.push_screen(JudgeScreen(self.judge_session))
        elif self.start == "adjudicate":  # only the adjudication screen; its dismissal ends the app
            from rankeval_tui.tui.adjudicate_screen import AdjudicateScreen

            self.push_screen(AdjudicateScreen(self.adjudication_session), callback=self.exit)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast of every screen: shown as it is, never as markup, its control characters made
        visible (``safe_text``). Toasts carry error lines and warnings with IDs, run and file names
        from the protocol: ``r`` after a run named ``[/]x`` crashed the error toast."""
        del markup  # no toast of this app is markup
        super().notify(
            printable(message, multiline=True), title=printable(title), severity=severity, timeout=timeout, markup=False
        )

    def format_title(self, title: str, sub_title: str) -> Content:
        """Every screen's title line, control characters made visible: titles name the protocol
        and the annotator, both from files the protocol's sender wrote."""
        return super().format_title(printable(title), printable(sub_title))

    def on_open_judging(self, message: OpenJudging) -> None:
        self.open_judging()

    def open_judging(self) -> None:
        """Judge this protocol's qrels over the current screen (for the scoring screen's key)."""
        from rankeval_tui.tui.judge.screen import open_judge_screen

        open_judge_screen(self)

    def on_open_decide(self, message: OpenDecide) -> None:
        """Grow the comparison's gap into the pools and judge it in the order that decides it."""
        from rankeval_tui.tui.judge.screen import open_decide_screen

        open_decide_screen(self, message)


def run_adjudication_app(protocol_dir: Path, session: AdjudicationSession) -> str | None:
    """Run ``RankevalApp`` in adjudication mode and return the line to tell the user.

    Always closes the session (journal stays unless written, lock released), also when the app fails."""
    guard_lock(session.lock)
    try:
        result = RankevalApp(protocol_dir, start="adjudicate", adjudication_session=session).run()
    finally:
        app_ended()  # a hangup's watchdog stands down: the session closes normally
        session.close()
    return result if isinstance(result, str) else None
