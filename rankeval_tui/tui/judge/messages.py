"""What the judging screen says after each change, move, write and quit: pure wording, no textual.

Why a module: the status lines are the annotator's only confirmation of what reached the journal
(and the notices the only word that it did not), so their wording is tested here without a
terminal, and the screen only picks which one to show.
"""

from __future__ import annotations

from pathlib import Path

from rankeval_tui.core.annotation.change_log import Change
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.errors import ContractError, describe_os_error
from rankeval_tui.core.files.annotator_kind import annotator_words
from rankeval_tui.core.wording import counted, pairs_unjudged

NOT_ON_SCREEN = "NOT recorded: the document is not on screen; enlarge the terminal or fold the need (e)"
"""Refusal to label a document the annotator cannot see (judging blind to the text is no judgment)."""
NOTHING_TO_DO = "nothing to do"
"""An undo or redo with nothing left to take back, or a note saved as it was."""
EVERY_PAIR_JUDGED = "every pair is judged"
"""What ``g`` (next unjudged) says when there is none left, here and on the overview."""


def journal_not_written(error: OSError) -> str:
    """A change the journal could not take (disk full, ...): nothing changed, and the annotator is told."""
    return f"NOT recorded: the journal could not be written: {error}"


def position_not_saved(error: OSError) -> str:
    """A move whose position could not be journaled: the screen still moves, only a resume would not."""
    return f"position not saved: {error}"


def label_recorded(change: Change) -> str:
    """``recorded q1 / d2 = 1 (was 0)``: the new label, and the old one when it replaced one."""
    was = f" (was {change.before})" if change.before is not None else ""
    return f"recorded {change.query} / {change.doc} = {change.after}{was}"


def scorable(session: JudgingSession) -> str:
    """`` · scorable now: every top-k pair is judged``, or how many top-k holes are left to that
    point; nothing when judging does not follow the runs' top k. With ``judge --decide``, the
    comparison's verdict instead: whether the labels so far decide it."""
    queue = session.cursor.hole_queue
    decision = queue.status(session.marks.labels) if queue is not None else None
    if decision is not None:
        return f" · {decision}"
    left = session.top_k_left
    if left is None:
        return ""
    if left:
        return f" · {counted(left, 'top-k pair')} left to scorable"
    if session.marks.remaining:  # below every top k, but in the pools: they decide Recall's denominator
        return f" · every top-k pair is judged; {counted(session.marks.remaining, 'pair')} below k left before scoring"
    return " · scorable now: every top-k pair is judged"


def undone(change: Change) -> str:
    """``undid label of q1 / d2 (now unjudged)``."""
    return f"undid {describe(change, change.before)}"


def redone(change: Change) -> str:
    """``redid label of q1 / d2 (now 1)``."""
    return f"redid {describe(change, change.after)}"


def dispute_toggled(change: Change) -> str:
    """``q1 / d2 marked disputed`` or ``... no longer disputed``."""
    return f"{change.query} / {change.doc} {'marked disputed' if change.after else 'no longer disputed'}"


def note_changed(change: Change) -> str:
    """``note on q1 / d2 saved`` or ``... removed`` (an empty note removes it)."""
    return f"note on {change.query} / {change.doc} " + ("saved" if change.after else "removed")


def describe(change: Change, now: object) -> str:
    """``label of q1 / d2 (now 1)``: what an undo or redo changed, and the value it left."""
    if change.kind == "label":
        shown = "unjudged" if now is None else now
    elif change.kind == "note":
        shown = "no note" if now is None else repr(now)
    else:
        shown = "disputed" if now else "not disputed"
    return f"{change.kind} of {change.query} / {change.doc} (now {shown})"


def session_subtitle(session: JudgingSession) -> str:
    """``qrels.toml · alice · shuffled, seed 7``: which file, who (a model marked as one), and in
    what order."""
    order = "corpus order" if session.order == "corpus" else f"shuffled, seed {session.seed}"
    return f"{session.qrels_path.name} · {annotator_words(session.annotator)} · {order}"


def start_status(session: JudgingSession) -> str:
    """The first status line: review of a complete file, or what the annotator starts from."""
    if session.marks.review and session.marks.imported.source is None:
        return "review: the qrels file is complete; changes are journaled and written on quit"
    return session.start_summary(compact=True)


def write_failure(error: ContractError | OSError) -> str:
    """Why the qrels were not written, in one line (the journal still holds every label)."""
    return error.one_line() if isinstance(error, ContractError) else describe_os_error(error)


def qrels_not_written(error: ContractError | OSError) -> str:
    """``qrels NOT written: qrels.toml: No space left on device``: the write after the last label failed."""
    return f"qrels NOT written: {write_failure(error)}"


def quit_refused(error: ContractError | OSError, journal_path: Path) -> str:
    """The final write failed on quit: the screen stays open, and says where the labels are safe
    and the two ways on (retry here, or quit and let ``judge`` finish the write)."""
    return (
        f"{qrels_not_written(error)}; every label is safe in {journal_path}; "
        "press q to retry, or quit (ctrl+q) and run judge again to finish the write"
    )


def qrels_written(session: JudgingSession) -> str:
    """``all 30 pairs judged: wrote qrels.toml``: the exhaustive qrels are on disk (judging by
    the runs' top k: ``· scorable now``)."""
    return f"all {counted(session.marks.total, 'pair')} judged: wrote {session.qrels_path.name}{scorable(session)}"


def write_refused(session: JudgingSession) -> str:
    """``w`` before the end: qrels are exhaustive, so they are only written once every pair is judged."""
    return f"{pairs_unjudged(session.marks.remaining)}; qrels are written when all are judged"


def find_result(text: str, count: int) -> str:
    """What ``/`` found: how many matches, and how to step through them or back to the query's terms."""
    if not text.strip():
        return "find cleared: m/M step through the query's terms again"
    if not count:
        return f"no match for “{text.strip()}” in this document (/ then Enter on nothing: the query's terms)"
    return f"{count} match{'es' if count != 1 else ''} for “{text.strip()}”: m next, M previous"


def match_step(searched: str | None, wrapped: bool | None, direction: int) -> str:
    """What ``m``/``M`` did: nothing to step through, wrapped round the document, or a step."""
    what = f"“{searched}”" if searched is not None else "the query's terms"
    if wrapped is None:
        return f"no match for {what} in this document"
    if wrapped:
        return f"wrapped round to the {'first' if direction > 0 else 'last'} match of {what}"
    return f"{'next' if direction > 0 else 'previous'} match of {what}"
