"""Issue 30 C, D, M: a grow killed half way is named and finished by the same grow, it moves
every open journal of the protocol, and two grows at once lose no addition."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import tomli_w

from rankeval_tui.core.annotation.growth import growing
from rankeval_tui.core.annotation.judging import JudgingSession, journal_progress
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import load_definition
from tests.cli.helpers import assert_one_line_error, run_cli
from tests.partial_protocol import write_partial_protocol

NEW_DOC = {"docs/sso-setup.md": {"text": "Set up SSO under Settings > Security."}}


@pytest.fixture()
def partial(tmp_path: Path) -> Path:
    return write_partial_protocol(tmp_path / "help-docs")


def corpus_file(tmp_path: Path, documents: dict = NEW_DOC, name: str = "new-docs.toml") -> Path:
    path = tmp_path / name
    path.write_text(tomli_w.dumps({"documents": documents}))
    return path


def judge_one(directory: Path, qrels: str = "qrels.toml", annotator: str = "alice") -> tuple[str, str, int]:
    session = JudgingSession.open(load_definition(directory), directory / qrels, annotator=annotator)
    try:
        query, doc = session.cursor.current
        session.label(1)
        return query, doc, 1
    finally:
        session.close()


def label_in_journal(directory: Path, qrels: str, query: str, doc: str) -> int | None:
    state = journal_progress(load_definition(directory), directory / qrels)
    assert state is not None
    return state.marks.label_of(query, doc)


def grow_killed_before_the_journals(monkeypatch: pytest.MonkeyPatch, directory: Path, corpus: Path) -> None:
    """grow in this process, killed after protocol.toml was written, before any journal moved."""
    import rankeval_tui.core.annotation.growth as growth_module
    from rankeval_tui.cli import main

    class Killed(BaseException):
        """Stands for SIGKILL: nothing after it runs (main's handlers do not catch it)."""

    def killed(*args: object, **kwargs: object) -> None:
        raise Killed

    monkeypatch.setattr(growth_module, "rebind_journal", killed)
    with pytest.raises(Killed):
        main(["grow", str(directory), "--corpus", str(corpus)])
    monkeypatch.undo()


def test_a_grow_killed_between_its_writes_is_named_and_the_same_grow_finishes_it(
    partial: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    query, doc, label = judge_one(partial)
    corpus = corpus_file(tmp_path)
    grow_killed_before_the_journals(monkeypatch, partial, corpus)
    assert "docs/sso-setup.md" in load_definition(partial).documents  # protocol.toml was written
    for command in (["judge", partial], ["validate", partial]):  # score reads no journal: it names judge
        result = run_cli(*command)
        said = result.stdout + result.stderr  # validate lists its problems on stdout
        assert result.returncode != 0 and "Traceback" not in said
        assert "run the same grow again" in said, said
        assert "restore protocol.toml or move the journal away" not in said
    again = run_cli("grow", partial, "--corpus", corpus)
    assert again.returncode == 0, again.stderr
    assert "finished an interrupted grow" in again.stdout and "qrels.toml.journal" in again.stdout
    assert label_in_journal(partial, "qrels.toml", query, doc) == label
    report = run_cli("validate", partial).stdout
    assert "judged so far" in report and "run the same grow again" not in report  # resumable again


def test_a_journal_moved_by_an_older_grow_before_protocol_toml_is_named_too(partial: Path, tmp_path: Path) -> None:
    """The old order (journal first): the journal is bound to the grown definition that
    protocol.toml does not have yet; the error says the same, and the same grow finishes it."""
    from rankeval_tui.core.annotation.binding import rebind_journal
    from rankeval_tui.core.annotation.growth import plan_growth

    query, doc, label = judge_one(partial)
    growth = plan_growth(load_definition(partial), corpus={"docs/sso-setup.md": NEW_DOC["docs/sso-setup.md"]["text"]})
    rebind_journal(partial / "qrels.toml.journal", growth.after)
    result = run_cli("judge", partial)
    assert result.returncode == 2 and "run the same grow again" in result.stderr
    assert run_cli("grow", partial, "--corpus", corpus_file(tmp_path)).returncode == 0
    assert label_in_journal(partial, "qrels.toml", query, doc) == label


def test_grow_moves_every_annotators_open_journal(partial: Path, tmp_path: Path) -> None:
    for name in ("alice", "bob"):
        (partial / f"qrels-{name}.toml").write_bytes((partial / "qrels.toml").read_bytes())
    alice = judge_one(partial, "qrels-alice.toml", "alice")
    bob = judge_one(partial, "qrels-bob.toml", "bob")
    result = run_cli("grow", partial, "--corpus", corpus_file(tmp_path), "--qrels", partial / "qrels-alice.toml")
    assert result.returncode == 0, result.stderr
    assert "qrels-alice.toml.journal" in result.stdout and "qrels-bob.toml.journal" in result.stdout
    assert label_in_journal(partial, "qrels-alice.toml", alice[0], alice[1]) == alice[2]
    assert label_in_journal(partial, "qrels-bob.toml", bob[0], bob[1]) == bob[2]  # Bob is not locked out


def test_a_journal_that_cannot_move_stops_the_grow_before_anything_is_written(partial: Path, tmp_path: Path) -> None:
    (partial / "qrels-bob.toml").write_bytes((partial / "qrels.toml").read_bytes())
    judge_one(partial, "qrels-bob.toml", "bob")
    journal = partial / "qrels-bob.toml.journal"
    journal.write_bytes(journal.read_bytes().replace(b'"definition_sha256":"', b'"definition_sha256":"0', 1))
    before = {p.name: p.read_bytes() for p in partial.iterdir() if p.is_file()}
    result = run_cli("grow", partial, "--corpus", corpus_file(tmp_path))
    assert result.returncode == 2 and "qrels-bob.toml.journal" in result.stderr
    assert {p.name: p.read_bytes() for p in partial.iterdir() if p.is_file()} == before


def test_a_second_grow_while_one_holds_the_locks_is_refused_naming_it(partial: Path, tmp_path: Path) -> None:
    with growing(partial):
        result = run_cli("grow", partial, "--corpus", corpus_file(tmp_path))
    assert result.returncode == 2 and "another rankeval-tui grow" in result.stderr
    assert "docs/sso-setup.md" not in load_definition(partial).documents


def test_two_concurrent_grows_lose_no_addition(partial: Path, tmp_path: Path) -> None:
    """Five trials: both start at once; each either grows or is refused, and every grow that
    said "grew" has its document in protocol.toml (before the fix, one addition was lost)."""
    for trial in range(5):
        corpora = [
            corpus_file(tmp_path, {f"docs/t{trial}-{i}.md": {"text": f"trial {trial} doc {i}"}}, f"c{trial}-{i}.toml")
            for i in range(2)
        ]
        command = [sys.executable, "-m", "rankeval_tui", "grow", str(partial), "--corpus"]
        procs = [
            subprocess.Popen([*command, str(c)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for c in corpora
        ]
        outputs = [p.communicate(timeout=60) for p in procs]
        documents = load_definition(partial).documents
        for i, (proc, (out, err)) in enumerate(zip(procs, outputs)):
            assert "Traceback" not in err
            if proc.returncode == 0:
                assert f"docs/t{trial}-{i}.md" in documents, (trial, i, out)
            else:
                assert "locked" in err, err


def test_lock_refusal_names_the_command_that_clears_a_wedged_owner(partial: Path) -> None:
    session = JudgingSession.open(load_definition(partial), partial / "qrels.toml", annotator="alice")
    try:
        with pytest.raises(ContractError) as caught:
            JudgingSession.open(load_definition(partial), partial / "qrels.toml", annotator="alice")
        import os

        assert f"kill {os.getpid()}" in caught.value.rule and "another rankeval-tui judge" in caught.value.rule
    finally:
        session.close()


def test_a_journal_move_that_fails_on_a_full_disk_says_to_run_the_same_grow_again(
    partial: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import errno

    import rankeval_tui.core.annotation.binding as binding
    from rankeval_tui.cli import main

    query, doc, label = judge_one(partial)
    corpus = corpus_file(tmp_path)

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(binding, "atomic_write_bytes", full)
    assert main(["grow", str(partial), "--corpus", str(corpus)]) == 2
    error = capsys.readouterr().err
    assert "protocol.toml was grown, but this open journal could not be moved to it: No space left" in error
    assert "run the same grow again" in error and "Traceback" not in error
    monkeypatch.undo()
    said = run_cli("judge", partial).stderr
    assert "run the same grow again" in said
    again = run_cli("grow", partial, "--corpus", corpus)
    assert again.returncode == 0 and "finished an interrupted grow" in again.stdout
    assert label_in_journal(partial, "qrels.toml", query, doc) == label


def test_grow_never_writes_through_a_journal_link(partial: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.journal"
    outside.write_bytes(b'{"op": "start"}\n')
    (partial / "qrels-eve.toml.journal").symlink_to(outside)
    result = run_cli("grow", partial, "--corpus", corpus_file(tmp_path))
    # refused in one line, as judge and validate refuse it (tests/security): never followed, never skipped in silence
    assert_one_line_error(result, "qrels-eve.toml.journal", "symbolic link")
    assert outside.read_bytes() == b'{"op": "start"}\n'
