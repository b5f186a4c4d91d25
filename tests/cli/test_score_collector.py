"""``score`` reads and scores with the cyclic collector off, and leaves it as it found it."""

from __future__ import annotations

import argparse
import gc
from unittest import mock

import pytest

from rankeval_tui.cli import score
from rankeval_tui.cli.common import collector_paused
from rankeval_tui.core.errors import ContractError


def test_score_loads_with_the_collector_off_and_restores_it_on_an_error() -> None:
    seen: list[bool] = []

    def load(args: argparse.Namespace) -> None:
        seen.append(gc.isenabled())
        raise ContractError("bad protocol")

    assert gc.isenabled()
    with mock.patch.object(score, "load_protocol_and_qrels_from_args", load), pytest.raises(ContractError):
        score.run_score(argparse.Namespace(bounds=False, protocol=None, run=None, score_order=False))
    assert seen == [False]
    assert gc.isenabled()


def test_a_collector_already_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
