"""How fast judging goes: seconds per judgment and active time, from the journal's timestamps.

Why: nobody could say how long a judgment takes, how long the rest will take, or how fast each
annotator is. Every journal entry carries ``"at"`` (unix seconds, millisecond
precision); older journals have none and still load, they only have no pace.

The rules (docs/judging.md): a judgment's time is the gap from the previous label (or from the
session's start, for the first) to its own label, so reading and moving around count. A gap over
``PAUSE_SECONDS`` is a pause (a break, a night, a resume next week): it counts neither in the
median nor in the active time. The progress line's pace is the median of the last ``RECENT``
judgments, so it follows the annotator's current speed; reports give the median of all.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from rankeval_tui.core.errors import ContractError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any

PAUSE_SECONDS = 300.0
"""A gap longer than five minutes between two labels is a pause, not a judgment's time."""
RECENT = 20
"""Judgments the progress line's pace is the median of."""
MIN_GAPS = 3
"""Fewer timed judgments than this give no pace (one slow first document is not a speed)."""


@dataclass(frozen=True)
class Pace:
    """An annotator's judging so far: judgments made, median seconds per judgment (None without
    enough timestamps) and active seconds (pauses excluded)."""

    judgments: int
    median_seconds: float | None
    active_seconds: float

    def as_provenance(self) -> dict[str, Any]:
        """The ``[provenance.pace]`` table of judged qrels (``agree`` reads it back)."""
        table: dict[str, Any] = {"judgments": self.judgments, "active_seconds": round(self.active_seconds, 1)}
        if self.median_seconds is not None:
            table["median_seconds"] = round(self.median_seconds, 1)
        return table

    @classmethod
    def from_provenance(cls, table: Any) -> Pace | None:
        """The pace a qrels file records, or None when it records none (or not as written)."""
        if not isinstance(table, dict):
            return None
        judgments, median, active = table.get("judgments"), table.get("median_seconds"), table.get("active_seconds")
        if type(judgments) is not int or not is_seconds(active) or (median is not None and not is_seconds(median)):
            return None
        return cls(judgments, None if median is None else float(median), float(active or 0))


def is_seconds(value: Any) -> bool:
    return type(value) in (int, float) and value >= 0


@dataclass
class PaceClock:
    """Label times as they are journaled (or replayed), turned into a ``Pace``."""

    last: float | None = None  # the previous label's time (or the session's start)
    gaps: list[float] = field(default_factory=list)  # seconds of each timed judgment, pauses left out
    judgments: int = 0

    def started(self, at: float | None) -> None:
        if at is not None:
            self.last = at

    def labelled(self, at: float | None) -> None:
        """A label made (or replayed) at ``at``; None: an entry from before timestamps."""
        self.judgments += 1
        if at is None:
            return
        if self.last is not None and 0 <= at - self.last <= PAUSE_SECONDS:
            self.gaps.append(at - self.last)
        self.last = at

    def replayed(self, entry: dict[str, Any]) -> None:
        """One journal entry read back: the start sets the clock, a label is counted at its time."""
        at = entry.get("at")
        if at is not None and not is_seconds(at):
            raise ContractError(f"journal entry's 'at' must be unix seconds, got {at!r}")
        seconds = None if at is None else float(at)
        if entry.get("op") == "start":
            self.started(seconds)
        elif entry.get("op") == "label":
            self.labelled(seconds)

    def pace(self) -> Pace:
        median = statistics.median(self.gaps) if len(self.gaps) >= MIN_GAPS else None
        return Pace(self.judgments, median, sum(self.gaps))

    def recent_seconds(self) -> float | None:
        """Median seconds of the last ``RECENT`` timed judgments (None: too few yet)."""
        recent = self.gaps[-RECENT:]
        return statistics.median(recent) if len(recent) >= MIN_GAPS else None


def duration(seconds: float) -> str:
    """``40 s``, ``41 min``, ``3 h 5 min``: a time a person plans by (rounded, never ``0 min``)."""
    if seconds < 60:
        return f"{round(seconds)} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


def time_left(remaining: int, seconds_per_judgment: float | None) -> str:
    """``~41 min left at 14 s/judgment``; empty until there is a pace (or when nothing is left)."""
    if seconds_per_judgment is None or remaining <= 0:
        return ""
    per = f"{seconds_per_judgment:.1f}" if seconds_per_judgment < 10 else f"{round(seconds_per_judgment)}"
    return f"~{duration(remaining * seconds_per_judgment)} left at {per} s/judgment"


def pace_line(pace: Pace) -> str:
    """``30 judgments, median 14.0 s per judgment, active 7 min``: one annotator's report."""
    judgments = f"{pace.judgments} judgment{'s' if pace.judgments != 1 else ''}"
    if pace.median_seconds is None:
        return f"{judgments}, no pace (fewer than {MIN_GAPS} timed judgments; journals before 'at' have none)"
    return f"{judgments}, median {pace.median_seconds:.1f} s per judgment, active {duration(pace.active_seconds)}"
