"""``FollowingWriter``: the ordered, latest-wins writer of an assigned annotator's labels file."""

from __future__ import annotations

import threading

from rankeval_tui.core.annotation.labels_file import FollowingWriter, LabelsSnapshot
from rankeval_tui.core.files import QrelsFile


def taken(number: int) -> LabelsSnapshot:
    return LabelsSnapshot(labels={"q1": {f"d{number}": 1}}, taken=number)


def test_a_snapshot_older_than_the_one_on_disk_is_never_written() -> None:
    written: list[int] = []
    writer = FollowingWriter(lambda snapshot: written.append(snapshot.taken))  # type: ignore[attr-defined]
    assert writer.write(taken(2)) is True
    assert writer.write(taken(1)) is False  # a slow older write arriving late
    assert writer.write(taken(3)) is True
    assert written == [2, 3]


def test_the_thread_writes_the_newest_snapshot_waiting_and_skips_those_between() -> None:
    written: list[int] = []
    first_started, release = threading.Event(), threading.Event()

    def write(snapshot: QrelsFile) -> None:
        assert isinstance(snapshot, LabelsSnapshot)
        first_started.set()
        release.wait(5)
        written.append(snapshot.taken)

    writer = FollowingWriter(write)
    writer.submit(taken(1))
    assert first_started.wait(5)  # the thread is writing 1 while the annotator judges on
    writer.submit(taken(2))
    writer.submit(taken(3))
    release.set()
    writer.flush()
    assert written == [1, 3]
    writer.close()
    writer.submit(taken(4))  # after close: the session's own last write only
    assert written == [1, 3]


def test_a_failed_write_is_reported_and_the_next_one_clears_it() -> None:
    failing = [True]

    def write(snapshot: QrelsFile) -> None:
        if failing[0]:
            raise OSError(28, "No space left on device")

    writer = FollowingWriter(write)
    writer.submit(taken(1))
    writer.flush()
    assert isinstance(writer.failure, OSError)
    failing[0] = False
    writer.submit(taken(2))
    writer.flush()
    assert writer.failure is None
    writer.close()


def test_close_writes_what_is_waiting_before_the_thread_stops() -> None:
    written: list[int] = []
    release = threading.Event()

    def write(snapshot: QrelsFile) -> None:
        release.wait(5)
        written.append(snapshot.taken)  # type: ignore[attr-defined]

    writer = FollowingWriter(write)
    writer.submit(taken(1))
    writer.submit(taken(2))
    release.set()
    writer.close()
    assert written[-1] == 2
