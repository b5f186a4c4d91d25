"""An assigned annotator's labels file, following her judgments, killed (SIGKILL) before each
file operation of a session: the file is always absent or a whole, valid partial file holding
a state she was in (never half written, never ahead of the journal, its claimed count its own).

The session judges as the screen drives it: a label, then ``follow`` (the writer's thread
writes while the next label is journaled), so kills land inside the thread's writes as well as
between them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from rankeval_tui.core.annotation.assignment import (
    AnnotatorSession,
    labels_path,
    parse_annotators,
    plan_assignment,
    read_assignment,
    write_assignment,
)
from rankeval_tui.core.annotation.judging import journal_progress
from rankeval_tui.core.files import load_definition, read_qrels_file
from tests.repair.killpoints import run_in_child
from tests.seed_labels import SEED_QRELS

LABELS = 8
"""Judgments made by the killed session: several writes of the file, and the journal's lines between them."""


def assigned(blank: Path) -> Path:
    definition = load_definition(blank)
    write_assignment(blank, definition, plan_assignment(definition, parse_annotators("alice,bob"), 0.0, 7))
    (blank / "labels").mkdir()
    return blank


def judge_following(protocol: Path) -> None:
    definition = load_definition(protocol)
    queries = read_assignment(protocol, definition).queries["alice"]
    session = AnnotatorSession.open(definition.with_queries(queries), labels_path(protocol, "alice"), annotator="alice")
    for _ in range(LABELS):
        query, doc = session.cursor.current
        session.label(SEED_QRELS[query][doc])
        session.follow()
    session.labels_writer.flush()


def test_the_following_labels_file_is_whole_and_a_state_she_was_in_at_every_kill(blank: Path, tmp_path: Path) -> None:
    template = assigned(blank)
    killed, total = run_in_child(lambda: judge_following(shutil.copytree(template, tmp_path / "whole")))
    assert not killed
    definition = load_definition(template)
    states_seen = set()
    for point in range(1, total + 1):
        protocol = shutil.copytree(template, tmp_path / f"kill-{point}")
        run_in_child(lambda protocol=protocol: judge_following(protocol), kill_at=point)
        path = labels_path(protocol, "alice")
        if not path.exists():
            states_seen.add(0)
            continue
        qrels = read_qrels_file(path, definition, exhaustive=False)  # whole and valid, or this raises
        assert qrels.provenance["partial"] is True and qrels.provenance["annotator"] == "alice"
        pairs = [(q, d) for q, row in qrels.labels.items() for d in row]
        for query, doc in pairs:
            assert qrels.labels[query][doc] == SEED_QRELS[query][doc]
        if "pace" in qrels.provenance:
            assert qrels.provenance["pace"]["judgments"] == len(pairs), f"kill point {point}"
        journaled = journal_progress(
            definition.with_queries(read_assignment(protocol, definition).queries["alice"]), path
        )
        assert journaled is not None and journaled.marks.judged >= len(pairs), (
            f"kill point {point}: file ahead of journal"
        )
        assert {(q, d) for q, row in journaled.marks.labels.items() for d in row} >= set(pairs)
        states_seen.add(len(pairs))
    assert len(states_seen) > 3, states_seen  # kills landed before, between and after several writes
