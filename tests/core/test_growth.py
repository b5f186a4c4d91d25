"""Growing a protocol keeps every label and every journal entry; new pairs are holes; a failed
grow writes nothing."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from rankeval_tui.core.annotation.binding import definition_sha256
from rankeval_tui.core.annotation.growth import apply_growth, growing, plan_growth
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.evaluate import Run, check_run
from rankeval_tui.core.evaluation.protocol import Query
from rankeval_tui.core.files import load_definition, read_qrels_file
from rankeval_tui.core.files.demo import BUNDLED_DEMO
from rankeval_tui.core.files.holes import holes_per_query
from rankeval_tui.core.files.tomlio import read_toml
from tests.partial_protocol import DOCUMENTS, IMPORTED, write_partial_protocol

NEW_DOC = ("docs/sso-setup.md", "Set up SSO: an administrator adds the identity provider under Settings.")
NEW_QUERY = ("q:1004", Query(text="configure single sign-on", split="test"))
NOW = datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc)


@pytest.fixture()
def partial(tmp_path: Path) -> Path:
    return write_partial_protocol(tmp_path / "help-docs")


def files_of(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def open_session(directory: Path) -> JudgingSession:
    return JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="alice")


def grow(directory: Path, **what) -> list[Path]:
    """What ``rankeval-tui grow`` does: read and plan under the locks, then write."""
    with growing(directory):
        growth = plan_growth(load_definition(directory), **what)
        return apply_growth(directory, growth, now=NOW)


def test_grow_keeps_every_label_and_leaves_exactly_the_new_pairs_as_holes(partial: Path) -> None:
    old_text = (partial / "protocol.toml").read_text()
    old_qrels = (partial / "qrels.toml").read_bytes()
    before = load_definition(partial)
    grow(partial, corpus={**DOCUMENTS, NEW_DOC[0]: NEW_DOC[1]}, queries=dict([NEW_QUERY]))
    after = load_definition(partial)
    assert list(after.documents) == [*before.documents, NEW_DOC[0]]
    assert list(after.queries) == [*before.queries, NEW_QUERY[0]]
    assert (partial / "protocol.toml").read_text().startswith(old_text)  # the old file byte for byte, comments kept
    assert (partial / "qrels.toml").read_bytes() == old_qrels  # no label touched
    labels = read_qrels_file(partial / "qrels.toml", after, exhaustive=False).labels
    assert labels == IMPORTED
    # old holes (5) + the new document in 3 old queries + 4 pairs of the new query
    assert holes_per_query(after, labels) == {"q:1001": 2, "q:1002": 3, "q:1003": 3, "q:1004": 4}
    assert definition_sha256(after) != definition_sha256(before)


def test_grow_records_what_when_and_from_where(partial: Path) -> None:
    growth = plan_growth(
        load_definition(partial),
        corpus={NEW_DOC[0]: NEW_DOC[1]},
        sources={"corpus": ["incoming/new-docs.toml"], "queries": [], "runs": []},
    )
    apply_growth(partial, growth, now=NOW)
    data = read_toml(partial / "protocol.toml")
    (record,) = data["provenance"]["growth"]
    assert record["at"] == "2026-12-03T12:00:00+00:00"
    assert record["added_documents"] == [NEW_DOC[0]] and record["added_queries"] == []
    assert record["from"] == {"corpus": ["incoming/new-docs.toml"]}
    assert record["definition_sha256_before"] == definition_sha256(growth.before)
    assert record["definition_sha256_after"] == definition_sha256(load_definition(partial))


def test_an_open_journal_is_carried_over_with_every_entry(partial: Path) -> None:
    session = open_session(partial)
    session.label(0)  # q:1001 / msmarco hole
    session.goto("q:1002", "docs/export.md")
    session.label(0)
    session.goto("q:1002", "docs/export.md")
    session.set_note("mentions SSO only in the footer")
    session.close()  # quit (or killed) before finishing: the journal stays
    journal = partial / "qrels.toml.journal"
    old_lines = journal.read_bytes().split(b"\n")
    assert grow(partial, corpus={NEW_DOC[0]: NEW_DOC[1]}) == [journal]
    new_lines = journal.read_bytes().split(b"\n")
    assert new_lines[1:] == old_lines[1:]  # every entry after the header byte for byte
    resumed = open_session(partial)
    try:
        assert resumed.marks.label_of("q:1001", "msmarco_v2.1_doc_00_12345") == 0
        assert resumed.marks.label_of("q:1002", "docs/export.md") == 0
        assert resumed.marks.note_of("q:1002", "docs/export.md") == "mentions SSO only in the footer"
        assert all(resumed.marks.is_imported(q, d) for q, row in IMPORTED.items() for d in row)
        assert all(
            resumed.marks.label_of(q, NEW_DOC[0]) is None for q in resumed.cursor.query_ids
        )  # new pairs are holes
        assert resumed.marks.total == 12 and resumed.marks.judged == 6
        resumed.changes.undo()  # the undo history survived the migration too
        assert resumed.marks.note_of("q:1002", "docs/export.md") is None
    finally:
        resumed.close()


def test_a_run_adds_only_its_unknown_documents_with_text_from_the_corpus(partial: Path, tmp_path: Path) -> None:
    run = Run("dense", {"q:1002": [NEW_DOC[0], "docs/login.md"]}, source=tmp_path / "dense.json")
    definition = load_definition(partial)
    with pytest.raises(ContractError, match="rankeval-tui grow") as caught:  # score's rule names the command
        check_run(definition, run)
    assert "unknown document ID: not in the corpus" in caught.value.rule
    corpus = {NEW_DOC[0]: NEW_DOC[1], "docs/unrelated.md": "not retrieved by the run"}
    growth = plan_growth(definition, corpus=corpus, runs=[run])
    assert growth.documents == {NEW_DOC[0]: NEW_DOC[1]}
    apply_growth(partial, growth, now=NOW)
    check_run(load_definition(partial), run)  # the run is now valid against the grown protocol


@pytest.mark.parametrize(
    "what, message",
    [
        ({"corpus": {"docs/export.md": "Export, rewritten"}}, "already in the protocol with another text"),
        ({"queries": {"q:1001": Query(text="changed", split="test")}}, "already in the protocol with another"),
        (
            {"corpus": {}, "runs": [Run("dense", {"q:1001": ["docs/nowhere.md"]}, source=Path("dense.json"))]},
            "in neither the protocol nor --corpus",
        ),
        (
            {"queries": {"q:1001": Query(text="how do I export a report as csv", split="dev")}},
            "already in the protocol with another text, split or need",
        ),
    ],
)
def test_a_failed_grow_writes_nothing(partial: Path, what: dict, message: str) -> None:
    before = files_of(partial)
    with pytest.raises(ContractError, match=message):
        grow(partial, **what)
    assert files_of(partial) == before


def test_grow_is_refused_while_a_judge_holds_the_lock(partial: Path) -> None:
    session = open_session(partial)
    try:
        before = files_of(partial)
        with pytest.raises(ContractError, match="locked"):
            grow(partial, corpus={NEW_DOC[0]: NEW_DOC[1]})
        assert files_of(partial) == before
    finally:
        session.close()


def test_a_journal_of_another_protocol_version_is_refused_not_migrated(partial: Path) -> None:
    open_session(partial).close()
    journal = partial / "qrels.toml.journal"
    lines = journal.read_bytes().split(b"\n", 1)
    header = json.loads(lines[0])
    header["definition_sha256"] = "0" * 64
    journal.write_bytes(json.dumps(header).encode() + b"\n" + lines[1])
    before = files_of(partial)
    with pytest.raises(ContractError, match="another version of protocol.toml"):
        grow(partial, corpus={NEW_DOC[0]: NEW_DOC[1]})
    assert files_of(partial) == before


def test_the_bundled_demo_is_never_grown() -> None:
    before = files_of(BUNDLED_DEMO)
    with pytest.raises(ContractError, match="rankeval-tui demo DIR"):
        grow(BUNDLED_DEMO, corpus={NEW_DOC[0]: NEW_DOC[1]})
    assert files_of(BUNDLED_DEMO) == before


def test_the_demo_is_refused_before_a_lock_file_is_written_there(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lock taken first put ``.qrels.toml.lock.*.tmp`` and ``qrels.toml.lock`` in the installed
    demo until the refusal (a kill in between left them; a test copying the demo meanwhile failed)."""
    from rankeval_tui.core.annotation import lock

    def no_lock_in_the_demo(self: lock.Lock, **_: object) -> None:
        raise AssertionError(f"a lock was taken in the demo: {self.path}")

    monkeypatch.setattr(lock.Lock, "acquire", no_lock_in_the_demo)
    with pytest.raises(ContractError, match="rankeval-tui demo DIR"):
        with growing(BUNDLED_DEMO):
            pass
