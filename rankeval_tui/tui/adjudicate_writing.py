"""The adjudication screen's write flow: the exhaustive qrels written in a worker when the last
decision is taken, on ``w``, and before ``q`` lets the screen go.

Why apart: the screen's own class holds layout, keys and the choice of a pair; this base class
holds what happens to the file, which changes for other reasons (atomic writes, disk errors).
"""

from __future__ import annotations

import asyncio

from textual.screen import Screen
from textual.widgets import Static
from textual.worker import Worker

from rankeval_tui.core.annotation.adjudication import AdjudicationSession, AdjudicationSnapshot
from rankeval_tui.core.errors import ContractError, describe_os_error
from rankeval_tui.core.wording import counted
from rankeval_tui.tui.hangups import stop_exiting_on_hangup
from rankeval_tui.tui.safe_text import plain


class AdjudicationWriting(Screen[str | None]):
    """Writes the session's qrels; the screen says how it went through ``set_status``."""

    def __init__(self, session: AdjudicationSession) -> None:
        super().__init__()
        self.session = session
        self._write_worker: Worker[None] | None = None
        self._written_message: str | None = None

    def on_unmount(self) -> None:
        stop_exiting_on_hangup()

    def set_status(self, text: str) -> None:
        self.query_one("#adjudicate-status", Static).update(plain(text))  # names pairs: never markup

    def action_write(self) -> None:
        if not self.session.complete:
            left = len(self.session.items) - self.session.decided
            self.notify(
                f"{counted(left, 'disagreement')} undecided; the qrels are written only when all are decided",
                severity="warning",
            )
            return
        self.write_output(self.session.snapshot())

    def write_output(self, snapshot: AdjudicationSnapshot) -> Worker[None]:
        """Write ``snapshot`` in a worker (atomic; a large protocol's TOML takes a while)."""
        self.set_status(f"writing {self.session.output.name}…")
        self._write_worker = self.run_worker(self._write(snapshot), exclusive=True, group="adjudicate-write")
        return self._write_worker

    async def _write(self, snapshot: AdjudicationSnapshot) -> None:
        try:
            self._written_message = await asyncio.to_thread(self.session.write, snapshot)
        except ContractError as error:
            self.set_status(f"qrels NOT written: {error.one_line()}")
            return
        except OSError as error:
            self.set_status(f"qrels NOT written: {describe_os_error(error)}")
            self.notify(
                f"qrels NOT written: {describe_os_error(error)}; every decision is safe in "
                f"{self.session.journal_path}; press w to retry, or quit and run adjudicate again",
                severity="error",
                timeout=30,
            )
            return
        self.set_status(f"all {counted(len(snapshot.decisions), 'disagreement')} decided: wrote {self.session.output}")

    async def action_quit_keep(self) -> None:
        """Quit. All decided: the file holds every decision first (written now if it does not)."""
        if self._write_worker is not None:
            await self._write_worker.wait()
        if self.session.complete and not self.session.written:
            await self.write_output(self.session.snapshot()).wait()
            if not self.session.written:
                return  # the write failed and says so; the adjudicator retries or ctrl+q
        if self.session.written:
            self.dismiss(self._written_message)
            return
        left = len(self.session.items) - self.session.decided
        self.dismiss(
            f"{left} of {counted(len(self.session.items), 'disagreement')} undecided; progress is kept in "
            f"{self.session.journal_path}; run adjudicate again to continue"
        )
