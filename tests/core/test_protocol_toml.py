"""protocol.toml writer: IDs of every form round-trip, titles and provenance; the hash rule."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import pickle
from pathlib import Path

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition, Query
from rankeval_tui.core.files import load_definition, load_protocol, toml_layout
from rankeval_tui.core.files.protocol_files import definition_to_toml

SEED_HASH = "9dd1a576cc830736a0884e847845f31f2390843c27a250abf3bafaf8fa72cadb"
ODD_IDS = ["docs/export.md", "wiki.Paris-2024", "faq#3", "文档/导出.md", "msmarco_v2.1_doc_00_12345", 'say"hi\\']


def odd_definition(**overrides: object) -> ProtocolDefinition:
    fields: dict = dict(
        name="help center",
        k=2,
        split="test",
        relevance="1 = answers it",
        documents={doc: f"text of {doc}" for doc in ODD_IDS},
        queries={
            "q:1001": Query("export csv", "test", need="The CSV export steps."),
            "q.1002#b": Query("sync", "dev"),
            "查询/3": Query("主题", "test"),
        },
        titles={"faq#3": "Retrying downloads"},
        provenance={"corpus": {"source": "corpus.jsonl", "documents": 6}, "created_by": "test"},
    )
    fields.update(overrides)
    return ProtocolDefinition(**fields)


def test_every_id_form_round_trips_with_titles_and_provenance(tmp_path):
    definition = odd_definition()
    (tmp_path / "protocol.toml").write_text(definition_to_toml(definition), encoding="utf-8")
    again = load_definition(tmp_path)
    assert again == definition
    assert list(again.documents) == ODD_IDS and list(again.queries) == list(definition.queries)
    assert again.titles == {"faq#3": "Retrying downloads"}
    assert again.provenance == definition.provenance
    text = (tmp_path / "protocol.toml").read_text(encoding="utf-8")
    assert '[queries."q:1001"]' in text and '[documents."wiki.Paris-2024"]' in text
    assert toml_layout.read(text) is not None  # quoted IDs stay on the fast path (issue 13)


def test_seed_rewritten_by_the_writer_keeps_the_seed_hash(seed_dir, seed_copy):
    (seed_copy / "protocol.toml").write_text(definition_to_toml(load_definition(seed_dir)), encoding="utf-8")
    assert load_protocol(seed_copy).protocol_sha256 == SEED_HASH


def canonical_sha(corpus: dict, queries: dict, qrels: dict, split: str, k: int) -> str:
    text = json.dumps(
        {"corpus": corpus, "queries": queries, "qrels": qrels, "split": split, "k": k},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_a_title_enters_the_hash_only_where_given():
    definition = odd_definition(provenance={})
    qrels = {q: dict.fromkeys(definition.documents, 0) for q in definition.queries}
    queries = {q: meta.canonical() for q, meta in definition.queries.items()}
    corpus = {
        d: {"text": t, "title": "Retrying downloads"} if d == "faq#3" else t for d, t in definition.documents.items()
    }
    titled = Protocol(definition, qrels)
    assert titled.protocol_sha256 == canonical_sha(corpus, queries, qrels, "test", 2)
    untitled = Protocol(odd_definition(titles={}), qrels)
    assert untitled.protocol_sha256 == canonical_sha(dict(definition.documents), queries, qrels, "test", 2)
    assert titled.protocol_sha256 != untitled.protocol_sha256
    # provenance describes how the protocol was made; it never changes what is scored
    assert Protocol(odd_definition(titles={}, provenance={"x": 1}), qrels).protocol_sha256 == untitled.protocol_sha256


def test_a_title_of_an_unknown_document_is_refused():
    with pytest.raises(ContractError, match="title of an unknown document 'docs/gone.md'"):
        odd_definition(titles={"docs/gone.md": "Gone"})


@pytest.mark.parametrize(
    ("table", "fragment"),
    [
        ('[documents."docs/a.md"]\ntext = "a"\ntitle = 3\n', "key 'title' must be str"),
        ('[documents."docs/a.md"]\ntext = "a"\nurl = "x"\n', "unknown key 'url'"),
        ("provenance = 3\n", "[provenance] must be a table"),
    ],
)
def test_strict_reader_on_titles_and_provenance(tmp_path: Path, table: str, fragment: str):
    head = (
        '[protocol]\nname = "p"\nk = 1\nsplit = "test"\nrelevance = "r"\n[queries."q:1"]\ntext = "t"\nsplit = "test"\n'
    )
    if table.startswith("provenance"):
        text = table + head + '[documents."docs/a.md"]\ntext = "a"\n'
    else:
        text = head + table
    (tmp_path / "protocol.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ContractError) as error:
        load_definition(tmp_path)
    assert fragment in str(error.value)


def test_partial_rows_are_written_in_corpus_order_with_nothing_filled():
    from rankeval_tui.core.files import QrelsFile, qrels_to_toml
    from rankeval_tui.core.files.tomlio import parse_toml

    definition = odd_definition()
    labels = {"q:1001": {"文档/导出.md": 1, "faq#3": 0, "docs/export.md": 1}, "查询/3": {"wiki.Paris-2024": 0}}
    written = parse_toml(qrels_to_toml(QrelsFile(labels=labels), definition), Path("qrels.toml"))["qrels"]
    assert written == labels  # the same pairs, none added
    assert list(written["q:1001"]) == ["docs/export.md", "faq#3", "文档/导出.md"]  # corpus order
    assert list(written) == ["q:1001", "查询/3"]


def test_full_rows_are_written_in_corpus_order_whatever_order_they_were_judged_in():
    """A full row judged in corpus order is written as it is, one judged in another order is
    put in corpus order: both give the text tomli-w gives for the rows in corpus order."""
    import tomli_w

    from rankeval_tui.core.files import QrelsFile, qrels_to_toml

    definition = odd_definition()
    corpus = list(definition.documents)
    in_order = {doc: i % 2 for i, doc in enumerate(corpus)}
    reversed_row = {doc: in_order[doc] for doc in reversed(corpus)}
    labels = {"q:1001": in_order, "q.1002#b": reversed_row, "查询/3": dict(reversed_row)}
    expected = tomli_w.dumps({"qrels": {q: dict(in_order) for q in labels}})
    assert qrels_to_toml(QrelsFile(labels=labels), definition) == expected


def test_queries_read_from_protocol_toml_are_the_queries_written(tmp_path: Path) -> None:
    """An exhaustive protocol's queries are its ``[queries.ID]`` tables adopted as they are
    (``Query.adopting``): with and without ``need`` they compare, hash, copy, pickle and read
    exactly as queries built from their fields."""
    queries = {"q:1001": Query("a", "test", "why"), "q:1002": Query("b", "dev"), "q:1003": Query("c", "test")}
    definition = ProtocolDefinition("p", 2, "test", "r", {"docs/a.md": "x"}, queries)
    (tmp_path / "protocol.toml").write_text(definition_to_toml(definition), encoding="utf-8")
    read = load_definition(tmp_path).queries
    assert read == queries and list(read) == list(queries)
    for query_id, query in read.items():
        built = queries[query_id]
        assert (query.text, query.split, query.need) == (built.text, built.split, built.need)
        assert hash(query) == hash(built) and repr(query) == repr(built) and query.canonical() == built.canonical()
        assert pickle.loads(pickle.dumps(query)) == copy.copy(query) == dataclasses.replace(query) == built
        with pytest.raises(dataclasses.FrozenInstanceError):
            query.text = "changed"  # type: ignore[misc]
