"""Pace (issue 31): every journal entry says when it was made; old journals without it resume;
seconds per judgment, pauses left out; time left; the pace in judged qrels, in validate and agree."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rankeval_tui.core.annotation import journal as journal_module
from rankeval_tui.core.annotation.judging import JudgingSession, journal_progress
from rankeval_tui.core.annotation.pace import PAUSE_SECONDS, Pace, PaceClock, duration, pace_line, time_left
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import load_definition, read_qrels_file

ROOT = Path(__file__).resolve().parents[2]


class Clock:
    """Stands in for the journal's ``time`` module: each call returns the next planned second."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def time(self) -> float:
        return self.now


@pytest.fixture()
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(journal_module, "time", fake)
    return fake


def entries(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def open_session(directory: Path, annotator: str = "alice") -> JudgingSession:
    return JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator=annotator)


def test_every_entry_carries_at_in_unix_seconds_with_ms_precision(blank: Path) -> None:
    session = open_session(blank)
    session.label(1)
    session.toggle_disputed()
    session.changes.undo()
    session.step(1)
    session.close()
    lines = entries(blank / "qrels.toml.journal")
    assert [e["op"] for e in lines] == ["start", "label", "disputed", "undo", "goto"]
    for entry in lines:
        assert isinstance(entry["at"], float) and round(entry["at"], 3) == entry["at"]
        assert 1_700_000_000 < entry["at"] < 4_000_000_000
    assert [e["at"] for e in lines] == sorted(e["at"] for e in lines)


def test_a_journal_from_before_timestamps_resumes_with_its_labels(blank: Path) -> None:
    session = open_session(blank)
    session.label(1)
    session.label(0)
    session.close()
    journal = blank / "qrels.toml.journal"
    old = [{k: v for k, v in e.items() if k != "at"} for e in entries(journal)]
    journal.write_text("".join(json.dumps(e) + "\n" for e in old), encoding="utf-8")
    resumed = open_session(blank)
    assert resumed.marks.judged == 2 and resumed.resumed
    assert resumed.clock.pace() == Pace(judgments=2, median_seconds=None, active_seconds=0)
    resumed.label(1)  # new entries are stamped; the old ones stay as they were
    resumed.close()
    assert "at" not in entries(journal)[1] and "at" in entries(journal)[-1]


def test_a_bad_at_is_refused_with_the_journal_line(blank: Path) -> None:
    session = open_session(blank)
    session.label(1)
    session.close()
    journal = blank / "qrels.toml.journal"
    lines = entries(journal)
    lines[1]["at"] = "yesterday"
    journal.write_text("".join(json.dumps(e) + "\n" for e in lines), encoding="utf-8")
    with pytest.raises(ContractError) as raised:
        open_session(blank)
    assert "line 2" in raised.value.one_line() and "'at' must be unix seconds" in raised.value.one_line()


def test_pauses_count_neither_in_the_median_nor_in_active_time() -> None:
    clock = PaceClock()
    clock.started(0.0)
    for at in (10.0, 24.0, 38.0, 38.0 + PAUSE_SECONDS + 1, 38.0 + PAUSE_SECONDS + 21):
        clock.labelled(at)
    assert clock.gaps == [10.0, 14.0, 14.0, 20.0]
    assert clock.pace() == Pace(judgments=5, median_seconds=14.0, active_seconds=58.0)
    assert clock.recent_seconds() == 14.0


def test_no_pace_until_three_judgments_are_timed() -> None:
    clock = PaceClock()
    clock.started(0.0)
    clock.labelled(5.0)
    clock.labelled(9.0)
    assert clock.recent_seconds() is None and clock.pace().median_seconds is None
    assert time_left(10, None) == ""


def test_time_left_reads_as_a_person_plans() -> None:
    assert time_left(176, 14.0) == "~41 min left at 14 s/judgment"
    assert time_left(3, 2.5) == "~8 s left at 2.5 s/judgment"
    assert time_left(1000, 14.0) == "~3 h 53 min left at 14 s/judgment"
    assert time_left(0, 14.0) == ""
    assert duration(59.4) == "59 s" and duration(60) == "1 min"


def test_recent_pace_follows_the_annotator(clock: Clock, blank: Path) -> None:
    session = open_session(blank)
    for gap in [30.0] * 5 + [10.0] * 20:  # slow at first, then 10 s a judgment
        clock.now += gap
        session.label(0)
    assert session.clock.recent_seconds() == 10.0
    assert session.clock.pace().median_seconds == 10.0
    assert session.clock.pace().active_seconds == 350.0
    session.close()


def judge_all(directory: Path, clock: Clock, annotator: str, seconds: float) -> None:
    session = open_session(directory, annotator)
    while not session.marks.complete:
        clock.now += seconds
        session.label(1)
    session.finish()


def test_the_pace_goes_into_judged_qrels_and_validate_and_agree_report_it(
    clock: Clock, blank: Path, tmp_path: Path
) -> None:
    judge_all(blank, clock, "alice", 14.0)
    pace = read_qrels_file(blank / "qrels.toml", load_definition(blank)).provenance["pace"]
    assert pace == {"judgments": 30, "median_seconds": 14.0, "active_seconds": 420.0}
    (blank / "qrels.toml").rename(blank / "qrels-alice.toml")
    judge_all(blank, clock, "bob", 6.0)
    (blank / "qrels.toml").rename(blank / "qrels-bob.toml")

    def cli(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "rankeval_tui", *args], capture_output=True, text=True, cwd=ROOT, check=False
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    agreed = cli("agree", str(blank), "qrels-alice.toml", "qrels-bob.toml")
    assert "pace A: 30 judgments, median 14.0 s per judgment, active 7 min\n" in agreed
    assert "pace B: 30 judgments, median 6.0 s per judgment, active 3 min\n" in agreed
    data = json.loads(cli("agree", str(blank), "qrels-alice.toml", "qrels-bob.toml", "--format", "json"))
    assert data["pace"][1] == {"judgments": 30, "median_seconds": 6.0, "active_seconds": 180.0}
    checked = cli("validate", str(blank), "--qrels", str(blank / "qrels-alice.toml"))
    assert "pace: alice: 30 judgments, median 14.0 s per judgment, active 7 min (qrels-alice.toml)" in checked


def test_validate_reports_an_open_journal_s_pace(clock: Clock, blank: Path) -> None:
    session = open_session(blank)
    for _ in range(4):
        clock.now += 12.0
        session.label(0)
    session.close()
    done = subprocess.run(
        [sys.executable, "-m", "rankeval_tui", "validate", str(blank)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert "pace: alice: 4 judgments, median 12.0 s per judgment, active 48 s (this journal)" in done.stdout


def test_pace_line_without_timestamps_says_why() -> None:
    assert pace_line(Pace(2, None, 0.0)).startswith("2 judgments, no pace (fewer than 3 timed judgments")


def test_judgments_count_each_pair_whose_label_stands_once(clock: Clock, blank: Path) -> None:
    """A relabelled pair is one judgment; an undone label is none (in the qrels' provenance and
    in what ``validate`` reads from an open journal)."""
    session = open_session(blank)
    first = session.cursor.current
    for _ in range(5):
        clock.now += 10.0
        session.label(1)
    clock.now += 10.0
    session.label(0)  # a sixth pair...
    session.changes.undo()  # ...undone: unjudged again
    session.goto(*first)
    clock.now += 10.0
    session.label(0)  # the first pair relabelled: still one pair
    assert session.marks.judged == 5
    assert session.provenance()["pace"]["judgments"] == 5
    session.close()
    progress = journal_progress(load_definition(blank), blank / "qrels.toml")
    assert progress is not None and progress.pace().judgments == 5
