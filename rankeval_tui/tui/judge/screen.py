"""The judging screen: one query-document pair at a time, keyboard only, blind.

The screen is a view over ``core.annotation.judging.JudgingSession``: a key calls the session, the session
appends to its journal and fsyncs, and only then does the screen redraw, so whatever the screen
shows as recorded is on disk. Each key updates a handful of widgets (O(1)), never a table of all
pairs. Blind judging: no run, rank or score is ever shown here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Header, Static
from textual.worker import Worker

from rankeval_tui.core.annotation.judging import Change, JudgingSession
from rankeval_tui.core.annotation.pace import time_left
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import QRELS_FILE, QrelsFile, load_definition
from rankeval_tui.tui.hangups import exit_on_hangup, stop_exiting_on_hangup
from rankeval_tui.tui.judge.dialogs import JUDGING_FOOTNOTE, NoteScreen
from rankeval_tui.tui.judge.document_text import PreparedDocuments, neighbours
from rankeval_tui.tui.judge.document_view import DocumentView
from rankeval_tui.tui.judge.head import JudgeHead, PairRow, StatusRow, grades_legend
from rankeval_tui.tui.judge.keys import JUDGE_BINDINGS
from rankeval_tui.tui.judge.messages import (
    EVERY_PAIR_JUDGED,
    NOT_ON_SCREEN,
    NOTHING_TO_DO,
    dispute_toggled,
    journal_not_written,
    label_recorded,
    note_changed,
    position_not_saved,
    qrels_not_written,
    qrels_written,
    quit_refused,
    redone,
    scorable,
    session_subtitle,
    start_status,
    undone,
    write_refused,
)
from rankeval_tui.tui.judge.overview import QUIT, OverviewScreen
from rankeval_tui.tui.judge.reading import find_in_document, step_match
from rankeval_tui.tui.messages import OpenDecide
from rankeval_tui.tui.safe_text import plain
from rankeval_tui.tui.widgets.help_screen import HelpScreen
from rankeval_tui.tui.widgets.launch_notice import LaunchNotice
from rankeval_tui.tui.widgets.pinned_footer import PinnedFooter


class JudgeScreen(Screen[None]):
    """Judge every query-document pair of a protocol with 1 / 0."""

    BINDINGS = JUDGE_BINDINGS

    pair: reactive[tuple[str, str] | None] = reactive(None)
    """The query-document pair on screen; its watcher redraws the query and document only when
    the pair changes (labels move it), so a key press costs a few widget updates."""

    def __init__(self, session: JudgingSession, *, exit_app_on_quit: bool = True) -> None:
        super().__init__()
        self.session = session
        self.exit_app_on_quit = exit_app_on_quit
        self._write_worker: Worker[None] | None = None
        self._was_complete = session.marks.complete
        self._follow_due = False
        self.documents = PreparedDocuments(session.definition, lambda: neighbours(session))

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        definition = self.session.definition
        yield JudgeHead(definition.relevance, self.session.marks.total, grades_legend(definition))
        yield PairRow(id="judge-pair-row")
        yield Static(id="judge-note")
        yield DocumentView(id="judge-doc")
        yield LaunchNotice(id="judge-notice")
        yield StatusRow(id="judge-status-row")
        yield PinnedFooter(("help", "quit_judging"))

    def on_mount(self) -> None:
        session = self.session
        self.title, self.sub_title = f"judging {session.definition.name}", session_subtitle(session)
        self.query_one(DocumentView).focus()
        if self.exit_app_on_quit:
            exit_on_hangup(self.app)  # SIGHUP/SIGTERM: the judge command then finishes, locked
        self.query_one(LaunchNotice).say(session.warnings)  # a line under the document, never a toast over it
        self.set_status(start_status(session))
        self.sync()

    def on_unmount(self) -> None:
        # The session is not closed here: whoever opened it (the judge command, or the app's
        # owner for judging opened from the scoring screen) finishes it after the app ends, so
        # the final qrels write and the journal's removal still run under the lock.
        if self.exit_app_on_quit:
            stop_exiting_on_hangup()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The keys of the protocol's scale only: 1 / 0 on a binary protocol, the grades 0 to
        the top one on a graded protocol (a key past the scale does nothing, and its footer
        entry and help line are not shown)."""
        return scale_allows(
            self.session.definition.scale is not None, self.session.definition.top_grade, action, parameters
        )

    # ------------------------------------------------------------ drawing

    def sync(self) -> None:
        """Show the session's state: the pair (redrawn only if it changed), its label and progress."""
        session = self.session
        self.pair = session.cursor.current
        self.query_one(PairRow).show(session, self.query_one("#judge-note", Static))
        self.query_one(JudgeHead).show_progress(
            *session.cursor.query_progress(session.cursor.current[0]), session.marks.judged
        )
        self.query_one("#judge-pace", Static).update(time_left(session.marks.remaining, session.clock.recent_seconds()))
        if session.marks.complete and not self._was_complete:
            self.write_when_complete()
        self._was_complete = session.marks.complete

    def watch_pair(self, pair: tuple[str, str] | None) -> None:
        if pair is None:
            return
        query, doc = pair
        self.query_one(JudgeHead).show_query(query, self.session)
        self.query_one(DocumentView).show(self.documents.get(query, doc))
        self.call_after_refresh(self.documents.prepare_neighbours)  # after this frame, while the annotator reads

    def set_status(self, text: str) -> None:
        self.query_one("#judge-status", Static).update(plain(text))  # names pairs: never markup

    # ------------------------------------------------------------ recording

    def record(self, what: Callable[[], Change | None], done: Callable[[Change], str]) -> None:
        """Run a session change; the journal has it on disk when this returns, so show it then.
        A failed write (disk full, ...) changes nothing and says so."""
        try:
            change = what()
        except OSError as error:
            self.notify(journal_not_written(error), severity="error", timeout=30)
            return
        self.set_status(done(change) if change is not None else NOTHING_TO_DO)
        self.sync()
        if change is not None and not self._follow_due:  # once per frame, however many keys came
            self._follow_due = True
            self.call_after_refresh(self.follow)

    def follow(self) -> None:
        """After the frame that showed a change: the session's following file (an assigned
        annotator's labels) gets the state now, written by its own thread."""
        self._follow_due = False
        failure = self.session.follow()
        if failure is not None:
            self.notify(failure, severity="warning", timeout=10)

    def document_lines_on_screen(self) -> int:
        """How many lines of the document box the terminal shows (0: none, the box is squeezed
        out by a small terminal or an unfolded need)."""
        box = self.query_one(DocumentView)
        return box.content_region.intersection(self.region).height

    def action_grade(self, value: int, top: int | None = None) -> None:
        """A graded protocol's key: the same recording as ``label`` (``top`` only tells the
        footer entries of the scales apart)."""
        self.action_label(value)

    def action_label(self, value: int) -> None:
        if self.document_lines_on_screen() < 1:
            self.set_status(NOT_ON_SCREEN)
            self.notify(NOT_ON_SCREEN, severity="warning")
            return
        self.record(lambda: self.session.label(value), lambda change: label_recorded(change) + scorable(self.session))

    def action_undo(self) -> None:
        self.record(self.session.changes.undo, undone)

    def action_redo(self) -> None:
        self.record(self.session.redo, redone)

    def action_dispute(self) -> None:
        self.record(self.session.toggle_disputed, dispute_toggled)

    def action_note(self) -> None:
        query, doc = self.session.cursor.current

        def saved(text: str | None) -> None:
            if text is not None:
                self.record(lambda: self.session.set_note(text), note_changed)

        self.app.push_screen(NoteScreen(query, doc, self.session.marks.note_of(query, doc)), saved)

    # ------------------------------------------------------------ moving

    def move(self, how: Callable[[], object]) -> None:
        try:
            how()
        except OSError as error:
            self.notify(position_not_saved(error), severity="warning")
        self.sync()

    def action_step(self, delta: int) -> None:
        self.move(lambda: self.session.step(delta))

    def action_step_query(self, delta: int) -> None:
        self.move(lambda: self.session.step_query(delta))

    def action_next_unjudged(self) -> None:
        if self.session.marks.complete:
            self.set_status(EVERY_PAIR_JUDGED)
            return
        self.move(self.session.next_unjudged)

    def action_overview(self) -> None:
        def jump(pair: tuple[str, str] | str | None) -> None:
            if pair == QUIT:
                self.call_later(self.action_quit_judging)
            elif isinstance(pair, tuple):
                self.move(lambda: self.session.goto(*pair))
            else:
                self.sync()

        self.app.push_screen(OverviewScreen(self.session), jump)

    def action_find(self) -> None:
        find_in_document(self.app, self.query_one(DocumentView), self.set_status)

    def action_step_match(self, direction: int) -> None:
        self.set_status(step_match(self.query_one(DocumentView), direction))

    def action_toggle_need(self) -> None:
        self.query_one(JudgeHead).toggle_fold()

    def action_help(self) -> None:
        definition = self.session.definition  # the keys of another scale do nothing: not listed
        shown = [b for b in self.BINDINGS if on_scale(b, definition.scale is not None, definition.top_grade)]
        self.app.push_screen(HelpScreen(shown, title="Judging keys", footnote=JUDGING_FOOTNOTE))

    # ------------------------------------------------------------ writing

    def write_when_complete(self) -> None:
        """Every pair is judged: write the exhaustive qrels now, in a worker (it is O(pairs))."""
        snapshot = self.session.snapshot()
        self.session.marks.dirty = False  # a later change sets it again and is written on quit
        self._write_worker = self.write_snapshot(snapshot)

    @work(thread=True, exclusive=True, group="judge-write")
    def write_snapshot(self, snapshot: QrelsFile) -> None:
        try:
            self.session.write_qrels(snapshot)
        except (ContractError, OSError) as error:
            self.session.marks.dirty = True
            self.app.call_from_thread(self.notify, qrels_not_written(error), severity="error", timeout=30)
            return
        self.app.call_from_thread(self.set_status, qrels_written(self.session))

    def action_write(self) -> None:
        if not self.session.marks.complete:
            self.set_status(write_refused(self.session))
            return
        self.write_when_complete()

    async def action_quit_judging(self) -> None:
        if self._write_worker is not None:
            await self._write_worker.wait()
        try:
            message = self.session.finish()
        except (ContractError, OSError) as error:
            self.notify(quit_refused(error, self.session.journal_path), severity="error", timeout=30)
            return
        if self.exit_app_on_quit:
            self.app.exit(0)  # the judge command prints the message after the screen is gone
        else:
            self.dismiss(None)
            self.app.notify(message)


def open_judge_screen(app: App) -> None:
    """Open judging over the current screen (the scoring screen's key, via ``RankevalApp``).

    Uses the app's protocol directory and qrels path; bad input is a notification here, not a
    crash, because the app is already running."""
    session = getattr(app, "judge_session", None)
    if session is None or session.finished_message is not None:
        directory = Path(app.protocol_dir)  # type: ignore[attr-defined]  # RankevalApp's; screens never import it
        qrels_path = getattr(app, "qrels_path", None) or directory / QRELS_FILE
        try:
            session = JudgingSession.open(load_definition(directory), Path(qrels_path))
        except ContractError as error:
            app.notify(f"cannot judge: {error.one_line()}", severity="error", timeout=20)
            return
        app.judge_session = session  # type: ignore[attr-defined]  # kept on the app so `j` resumes it
    app.push_screen(JudgeScreen(session, exit_app_on_quit=False))


DECIDE_GROUP = "judge-to-decide"


def open_decide_screen(app: App, request: OpenDecide) -> None:
    """``judge --decide`` from the scoring screen's comparison on a gap: the two runs' top-k pairs
    outside the pools added to them as holes (``grow --gap``), then those holes judged in the order
    that decides the change (``core.annotation.decide_session``). The growth and the order (every
    hole's effect on the bounds: most of a second at 1,000 holes) are made in a worker; the key
    does nothing while one is. Refused with a notification, the protocol untouched, while a
    judging session opened here is still open (it holds the lock)."""
    current = getattr(app, "judge_session", None)
    if current is not None and current.finished_message is None:
        app.notify("cannot judge to decide: finish the judging opened with j first (q on it)", severity="error")
        return
    if any(worker.group == DECIDE_GROUP and worker.is_running for worker in app.workers):
        return
    directory = Path(app.protocol_dir)  # type: ignore[attr-defined]  # RankevalApp's; screens never import it
    qrels_path = Path(getattr(app, "qrels_path", None) or directory / QRELS_FILE)
    app.run_worker(
        lambda: prepare_decide(app, request, directory, qrels_path),
        thread=True,
        group=DECIDE_GROUP,
        description="growing the gap and ordering its holes",
    )


def prepare_decide(app: App, request: OpenDecide, directory: Path, qrels_path: Path) -> None:
    """The worker of ``open_decide_screen``: the session opened, then the judging screen pushed."""
    from rankeval_tui.core.annotation.decide_session import decide_from_gap

    try:
        session, queue, added = decide_from_gap(
            directory, qrels_path, request.baseline, request.candidate, request.metrics
        )
    except ContractError as error:
        app.call_from_thread(app.notify, f"cannot judge to decide: {error.one_line()}", severity="error", timeout=20)
        return

    def show() -> None:
        app.judge_session = session  # type: ignore[attr-defined]  # finished by inspect if the app ends first
        app.notify(f"grew the pools by {added} holes (grow --gap); {queue.status(session.marks.labels)}", timeout=8)
        app.push_screen(JudgeScreen(session, exit_app_on_quit=False), callback=lambda _: request.ended(session))

    app.call_from_thread(show)


def scale_allows(graded: bool, top: int, action: str, parameters: tuple[object, ...]) -> bool:
    """Whether a key's action belongs to the protocol's scale (every other action: yes)."""
    if action == "label":
        return not graded
    if action == "grade" and len(parameters) == 2:  # the footer entry "0-top Grade" of one scale
        return graded and parameters[1] == top
    if action == "grade" and parameters and isinstance(grade := parameters[0], int):
        return graded and grade <= top
    return True


def on_scale(binding: BindingType, graded: bool, top: int) -> bool:
    """Whether ``binding`` is one of the scale's keys or no label key at all (the help's list)."""
    if not isinstance(binding, Binding):
        return True
    name, _, arguments = binding.action.partition("(")
    parameters = tuple(int(value) for value in arguments.rstrip(")").split(",") if value.isdigit())
    return scale_allows(graded, top, name, parameters)
