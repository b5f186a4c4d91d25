"""The collector pause around bulk loads: off inside, restored after, counted across threads."""

from __future__ import annotations

import gc
import threading

import pytest

from rankeval_tui.core.gc_pause import paused_gc


@pytest.fixture(autouse=True)
def collector_enabled():
    gc.enable()
    yield
    gc.enable()


def test_the_collector_is_off_inside_and_back_on_after() -> None:
    with paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_it_is_back_on_after_an_error() -> None:
    with pytest.raises(ValueError), paused_gc():
        raise ValueError("bad input")
    assert gc.isenabled()


def test_nested_pauses_resume_only_at_the_outermost_end() -> None:
    with paused_gc():
        with paused_gc():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_the_caller_disabled_stays_disabled() -> None:
    gc.disable()
    with paused_gc():
        pass
    assert not gc.isenabled()


def test_overlapping_pauses_from_two_threads_resume_when_the_last_ends() -> None:
    inside, release = threading.Event(), threading.Event()

    def hold() -> None:
        with paused_gc():
            inside.set()
            release.wait(10)

    other = threading.Thread(target=hold)
    other.start()
    inside.wait(10)
    with paused_gc():
        pass
    assert not gc.isenabled(), "the other thread's load is still running"
    release.set()
    other.join(10)
    assert gc.isenabled()


def test_a_session_load_runs_with_the_collector_paused(tmp_path, monkeypatch) -> None:
    """The load is where the pause pays (core.gc_pause); seen from inside its first file read."""
    from rankeval_tui.core import session
    from rankeval_tui.core.files import demo

    directory = demo.copy_demo(tmp_path / "demo")
    seen: list[bool] = []
    real = session.load_protocol_and_qrels

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(session, "load_protocol_and_qrels", spy)
    session.ScoringSession.load(directory)
    assert seen == [False]
    assert gc.isenabled()


def test_a_freezing_pause_freezes_what_is_alive_and_the_next_one_unfreezes_first() -> None:
    gc.unfreeze()
    with paused_gc(freeze=True):
        kept = [{"q:1001": ["docs/export.md"]} for _ in range(100)]
    frozen = gc.get_freeze_count()
    assert frozen > 100
    with paused_gc(freeze=True):
        assert gc.get_freeze_count() == 0, "the last load's objects are collectable again"
    assert gc.get_freeze_count() >= frozen - 10
    del kept
    gc.unfreeze()


def test_a_plain_pause_neither_freezes_nor_unfreezes() -> None:
    gc.unfreeze()
    with paused_gc():
        pass
    assert gc.get_freeze_count() == 0
