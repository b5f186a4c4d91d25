"""The scoring screen's rules for cycling its choices and keeping them valid (no textual).

Kept apart from ``ScoreScreen`` so the rules (what ``b``/``c``/``m``/``s``/``f`` pick next, which
baseline and candidate survive a reload, a k or a split change) are unit-tested without a terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from rankeval_tui.core.evaluation.compare import Metric
from rankeval_tui.core.session import ScoringSession

Option = TypeVar("Option")


def next_option(options: Sequence[Option], current: Option | None) -> Option:
    """The option after ``current``, wrapping; the first one when ``current`` is not offered
    (a metric missing from ``--metrics``, a filter that vanished). ``options`` is never empty."""
    for position, option in enumerate(options):
        if option == current:
            return options[(position + 1) % len(options)]
    return options[0]


def next_run(session: ScoringSession | None, current: str | None) -> str | None:
    """The accepted run after ``current`` (``b``, ``c``); None when no run is accepted."""
    names = [s.name for s in session.accepted] if session else []
    return next_option(names, current) if names else None


@dataclass(frozen=True)
class RunChoice:
    """Baseline and candidate to show for a session, and the pair to remember as chosen."""

    baseline: str | None
    candidate: str | None
    chosen: tuple[str | None, str | None]
    """Restored when a later split or reload that lost them (runs of another split are
    rejected) gives them back."""


def choose_runs(session: ScoringSession, chosen: tuple[str | None, str | None]) -> RunChoice:
    """The chosen baseline/candidate where those runs are accepted, otherwise the session's
    default (``--baseline``, ``runs/BASELINE``, first run with results); the choice is the
    viewer's and outlives a session without them."""
    names = [s.name for s in session.accepted]
    chosen_baseline, chosen_candidate = chosen
    baseline: str | None
    if chosen_baseline in names:
        baseline = chosen_baseline
    else:
        default = session.default_baseline()
        baseline = default.name if default else None
    candidate = chosen_candidate if chosen_candidate in names else session.default_candidate(baseline)
    if chosen_baseline is None or chosen_candidate is None:
        chosen = (baseline, candidate)
    return RunChoice(baseline, candidate, chosen)


def kept_metric(current: Metric, metrics: Sequence[Metric]) -> Metric:
    """``current`` if the session still shows it, else RR@k where shown (the seed's q2), else the first."""
    if current in metrics:
        return current
    return "rr" if "rr" in metrics else metrics[0]


def drill_down_runs(comparing: bool, baseline: str | None, candidate: str | None, accepted: Sequence[str]) -> list[str]:
    """Runs the query detail shows, in order: the compared pair in a comparison, else the shown
    run first and then every accepted run (each once)."""
    if comparing and baseline and candidate:
        return list(dict.fromkeys([baseline, candidate]))
    return list(dict.fromkeys([*([candidate] if candidate else []), *accepted]))


def next_split(session: ScoringSession) -> ScoringSession:
    """The session rescored on the split after the current one (``t``), wrapping."""
    return session.with_split(next_option(session.splits, session.protocol.split))


def key_available(action: str, view: str, accepted_runs: int) -> bool | None:
    """Whether a key works now: True, or None to grey it out in the footer (Textual's
    ``check_action``). b, m and s act on the comparison only; v opens the comparison only when
    two runs were accepted, and always leads back from it."""
    if action in ("next_baseline", "next_metric", "next_sort"):
        return True if view == "compare" else None
    if action == "toggle_view":
        return True if accepted_runs >= 2 or view == "compare" else None
    return True
