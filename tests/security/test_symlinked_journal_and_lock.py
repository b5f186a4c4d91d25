"""Issue 30 A: a received protocol's planted links never make the tool write outside it.

The attack: ``qrels.toml.journal -> ~/.bash_aliases`` (a file that does not exist yet, so
``exists()`` says False and ``O_CREAT|O_APPEND`` would create it through the link) plus a
protocol ``name = "$(touch PWNED)"``: the first label appended the sender's command to a file the
user's shell sources. Every file the tool writes in place (judging and adjudication journals,
locks) is opened without following links, and a link there is refused with one line naming it.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest
import tomli_w

from rankeval_tui.core.annotation.adjudication import JOURNAL_SUFFIX, AdjudicationSession
from rankeval_tui.core.annotation.journal import Journal
from rankeval_tui.core.annotation.judging import JudgingSession, journal_progress
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.tomllib_compat import tomllib
from tests.cli.helpers import assert_one_line_error, run_cli


@pytest.fixture()
def outside(tmp_path: Path) -> Path:
    """Where the attacker's link points: a file of the user's, outside the protocol, not yet there."""
    home = tmp_path / "home"
    home.mkdir()
    return home / ".bash_aliases"


def hostile_name(protocol: Path) -> None:
    text = (protocol / "protocol.toml").read_text(encoding="utf-8")
    start = text.index('name = "')
    end = text.index('"', start + len('name = "')) + 1
    (protocol / "protocol.toml").write_text(text[:start] + 'name = "$(touch PWNED)"' + text[end:], encoding="utf-8")


def test_dangling_journal_link_is_refused_and_nothing_is_written_outside(blank: Path, outside: Path) -> None:
    hostile_name(blank)
    journal = blank / "qrels.toml.journal"
    journal.symlink_to(outside)
    with pytest.raises(ContractError) as raised:
        JudgingSession.open(load_definition(blank), blank / "qrels.toml", annotator="victim")
    assert raised.value.file == str(journal)
    assert "symbolic link" in raised.value.rule and str(outside) in raised.value.rule
    assert not outside.exists() and journal.is_symlink()  # nothing written through it, the link left alone
    assert not (blank / "qrels.toml.lock").exists()  # the lock taken for the attempt is given back


def test_the_cli_says_it_in_one_line(blank: Path, outside: Path) -> None:
    hostile_name(blank)
    (blank / "qrels.toml.journal").symlink_to(outside)
    result = run_cli("judge", blank)
    assert_one_line_error(result, "qrels.toml.journal", "symbolic link", "remove the link")
    assert not outside.exists()
    result = run_cli("validate", blank)
    assert "qrels.toml.journal" in result.stdout + result.stderr and "symbolic link" in result.stdout + result.stderr
    assert not outside.exists()


def test_journal_linked_to_a_file_inside_the_protocol_is_refused_too(blank: Path) -> None:
    """Appending through a link to protocol.toml would corrupt the protocol: any link is refused."""
    before = (blank / "protocol.toml").read_bytes()
    (blank / "qrels.toml.journal").symlink_to("protocol.toml")
    definition = load_definition(blank)
    with pytest.raises(ContractError, match="symbolic link"):
        JudgingSession.open(definition, blank / "qrels.toml", annotator="victim")
    with pytest.raises(ContractError, match="symbolic link"):
        journal_progress(definition, blank / "qrels.toml")
    assert (blank / "protocol.toml").read_bytes() == before


def test_journal_open_never_follows_a_link_made_after_the_check(tmp_path: Path, outside: Path) -> None:
    """The open itself refuses a link (O_NOFOLLOW), not only the lstat before it."""
    path = tmp_path / "qrels.toml.journal"
    path.symlink_to(outside)
    with pytest.raises(ContractError, match="symbolic link"):
        Journal(path).open_for_append()
    assert not outside.exists()


def test_journal_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    path = tmp_path / "qrels.toml.journal"
    os.mkfifo(path)
    with pytest.raises(ContractError, match="FIFO"):
        Journal(path).open_for_append()


def test_linked_lock_is_refused_and_not_broken(blank: Path, outside: Path) -> None:
    lock = blank / "qrels.toml.lock"
    lock.symlink_to(outside)
    for break_lock in (False, True):
        with pytest.raises(ContractError) as raised:
            JudgingSession.open(load_definition(blank), blank / "qrels.toml", annotator="x", break_lock=break_lock)
        assert raised.value.file == str(lock) and "symbolic link" in raised.value.rule
    assert lock.is_symlink() and not outside.exists()
    assert not (blank / "qrels.toml.journal").exists()


def test_adjudication_journal_link_is_refused(seed_copy: Path, tmp_path: Path, outside: Path) -> None:
    labels = tomllib.loads((seed_copy / "qrels.toml").read_text(encoding="utf-8"))["qrels"]
    other = copy.deepcopy(labels)
    other["q1"]["d1"] = 1 - other["q1"]["d1"]
    a, b = tmp_path / "alice.toml", tmp_path / "bob.toml"
    a.write_text(tomli_w.dumps({"qrels": labels}), encoding="utf-8")
    b.write_text(tomli_w.dumps({"qrels": other}), encoding="utf-8")
    output = seed_copy / "adjudicated.toml"
    journal = output.with_name(output.name + JOURNAL_SUFFIX)
    journal.symlink_to(outside)
    with pytest.raises(ContractError, match="symbolic link") as raised:
        AdjudicationSession.open(load_definition(seed_copy), a, b, output, adjudicator="carol")
    assert raised.value.file == str(journal)
    assert not outside.exists()
    result = run_cli("adjudicate", seed_copy, a, b, "-o", output)
    assert_one_line_error(result, str(journal), "symbolic link")
    assert not outside.exists()


def test_grow_refuses_a_linked_journal(seed_copy: Path, tmp_path: Path, outside: Path) -> None:
    outside.write_text("alias ll='ls -l'\n", encoding="utf-8")
    (seed_copy / "qrels.toml.journal").symlink_to(outside)
    corpus = tmp_path / "more.jsonl"
    corpus.write_text('{"_id": "d99", "text": "new"}\n', encoding="utf-8")
    result = run_cli("grow", seed_copy, "--corpus", corpus)
    assert_one_line_error(result, "qrels.toml.journal", "symbolic link")
    assert outside.read_text(encoding="utf-8") == "alias ll='ls -l'\n"


def test_hard_linked_journal_is_refused_and_the_other_name_is_unchanged(blank: Path, tmp_path: Path) -> None:
    """A second name of the journal (a planted hard link, or a ``cp -al`` backup of the protocol)
    would be appended to and truncated along with it: refused, neither name changed."""
    session = JudgingSession.open(load_definition(blank), blank / "qrels.toml", annotator="alice")
    session.close()
    journal = blank / "qrels.toml.journal"
    backup = tmp_path / "backup.journal"
    os.link(journal, backup)
    before = backup.read_bytes()
    with pytest.raises(ContractError) as raised:
        JudgingSession.open(load_definition(blank), blank / "qrels.toml", annotator="alice")
    assert raised.value.file == str(journal) and "2 hard links" in raised.value.rule
    assert backup.read_bytes() == before == journal.read_bytes()
    assert not (blank / "qrels.toml.lock").exists()
    assert_one_line_error(run_cli("judge", blank), "qrels.toml.journal", "hard links")
    with pytest.raises(ContractError, match="hard links"):
        Journal(journal).open_for_append()
    assert backup.read_bytes() == before
