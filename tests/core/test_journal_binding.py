"""The journal is bound to what a label means; harmless damage is recovered, other damage refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rankeval_tui.core.annotation.binding import definition_parts, rebind_journal
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import load_definition, read_qrels_file
from tests.seed_labels import SEED_QRELS

RELEVANCE = "1 if the document directly supports the requested operation or one of its sub-needs; otherwise 0"


def open_session(directory: Path) -> JudgingSession:
    return JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="tester")


def judge_some(directory: Path, count: int) -> list[tuple[str, str]]:
    session = open_session(directory)
    judged = []
    for _ in range(count):
        query, doc = session.cursor.current
        session.label(SEED_QRELS[query][doc])
        judged.append((query, doc))
    session.close()
    return judged


def edit_protocol(directory: Path, old: str, new: str) -> None:
    path = directory / "protocol.toml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_changed_relevance_criterion_refuses_the_journal_and_says_so(blank: Path) -> None:
    judge_some(blank, 3)
    edit_protocol(blank, RELEVANCE, "1 if the document mentions the product at all; otherwise 0")
    with pytest.raises(ContractError) as caught:
        open_session(blank)
    line = caught.value.one_line()
    assert "the relevance criterion changed" in line and "documents" not in line and "queries" not in line
    assert caught.value.file == str(blank / "qrels.toml.journal")
    assert not (blank / "qrels.toml.lock").exists()


def test_changed_documents_are_named_as_the_change(blank: Path) -> None:
    judge_some(blank, 2)
    edit_protocol(blank, "深色主题。", "浅色主题。")
    with pytest.raises(ContractError, match="the documents changed; its labels would mean something else"):
        open_session(blank)


def test_changed_label_scale_is_part_of_the_binding(blank: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    judge_some(blank, 2)
    monkeypatch.setattr("rankeval_tui.core.annotation.binding.LABEL_SCALE", (0, 1, 2))
    with pytest.raises(ContractError, match="the label scale changed"):
        open_session(blank)


def test_version_1_journal_is_refused_with_the_reason(blank: Path) -> None:
    judge_some(blank, 2)
    journal = blank / "qrels.toml.journal"
    lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["version"] = 1
    del header["binding"]
    journal.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    with pytest.raises(ContractError, match="journal version 1 .* does not record the relevance criterion"):
        open_session(blank)


@pytest.mark.parametrize("where", ["after-header", "end", "every-line"])
def test_blank_lines_are_recovered_with_a_notice(blank: Path, where: str) -> None:
    judged = judge_some(blank, 4)
    journal = blank / "qrels.toml.journal"
    lines = journal.read_bytes().split(b"\n")[:-1]
    if where == "after-header":
        lines.insert(1, b"")
    elif where == "end":
        lines.append(b"   ")
    else:
        lines = [part for line in lines for part in (line, b"")]
    journal.write_bytes(b"\n".join(lines) + b"\n")
    resumed = open_session(blank)
    try:
        assert resumed.marks.judged == 4
        assert all(resumed.marks.label_of(q, d) == SEED_QRELS[q][d] for q, d in judged)
        (notice,) = [w for w in resumed.warnings if "blank journal line" in w]
        assert str(journal) in notice and "nothing was lost" in notice
        query, doc = resumed.cursor.current
        resumed.label(SEED_QRELS[query][doc])  # appending after the blank lines still replays
    finally:
        resumed.close()
    again = open_session(blank)
    assert again.marks.judged == 5
    again.close()


def test_qrels_judged_under_another_criterion_are_never_extended(blank: Path) -> None:
    session = open_session(blank)
    while not session.marks.complete:
        query, doc = session.cursor.current
        session.label(SEED_QRELS[query][doc])
    session.finish()
    written = read_qrels_file(blank / "qrels.toml", load_definition(blank))
    assert written.provenance["binding"] == definition_parts(load_definition(blank))
    edit_protocol(blank, RELEVANCE, "1 if the document is in Chinese; otherwise 0")
    with pytest.raises(ContractError, match="would mix two criteria"):
        open_session(blank)
    assert not (blank / "qrels.toml.journal").exists() and not (blank / "qrels.toml.lock").exists()


def test_rebind_moves_a_journal_to_a_grown_protocol_and_keeps_every_label(blank: Path) -> None:
    judged = judge_some(blank, 5)
    edit_protocol(blank, "[documents.d1]", '[documents."docs/export.md"]\ntext = "Export guide."\n\n[documents.d1]')
    grown = load_definition(blank)
    with pytest.raises(ContractError, match="the documents changed"):
        open_session(blank)
    rebind_journal(blank / "qrels.toml.journal", grown)
    resumed = open_session(blank)
    try:
        assert resumed.marks.judged == 5 and resumed.marks.total == 35
        assert all(resumed.marks.label_of(q, d) == SEED_QRELS[q][d] for q, d in judged)
        assert resumed.marks.label_of("q1", "docs/export.md") is None
    finally:
        resumed.close()


def test_rebind_refuses_a_changed_criterion(blank: Path) -> None:
    judge_some(blank, 2)
    edit_protocol(blank, RELEVANCE, "1 if relevant in any way; otherwise 0")
    journal = blank / "qrels.toml.journal"
    before = journal.read_bytes()
    with pytest.raises(ContractError, match="cannot move the journal .* the relevance criterion changed"):
        rebind_journal(journal, load_definition(blank))
    assert journal.read_bytes() == before


def test_merge_and_agreement_refuse_files_judged_under_another_criterion(seed_copy: Path, tmp_path: Path) -> None:
    from rankeval_tui.core.annotation.agreement import agreement_of_files
    from rankeval_tui.core.annotation.merge import read_shards
    from rankeval_tui.core.files import QrelsFile, write_qrels

    definition = load_definition(seed_copy)
    parts = definition_parts(definition)
    same, other = tmp_path / "qrels-alice.toml", tmp_path / "qrels-bob.toml"
    write_qrels(same, QrelsFile(labels=SEED_QRELS, provenance={"annotator": "alice", "binding": parts}), definition)
    old_criterion = {**parts, "relevance": "0" * 64}
    write_qrels(
        other, QrelsFile(labels=SEED_QRELS, provenance={"annotator": "bob", "binding": old_criterion}), definition
    )
    with pytest.raises(ContractError, match="the relevance criterion changed; using them now would mix") as caught:
        agreement_of_files(definition, same, other)
    assert caught.value.file == str(other)
    with pytest.raises(ContractError, match="the relevance criterion changed"):
        read_shards(definition, [same, other])
    assert agreement_of_files(definition, same, seed_copy / "qrels.toml").overall.pairs == 30  # no binding: as before
