"""core.files.importers and the MS MARCO run format: every format, detection, and bad lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files.importers import read_corpus, read_labels, read_queries
from rankeval_tui.core.files.runs import load_run

DATA = Path(__file__).resolve().parents[1] / "data" / "own_data"
FORMATS = DATA / "formats"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_beir_corpus_keeps_titles_and_treats_empty_title_as_none():
    corpus = read_corpus(FORMATS / "beir_corpus.jsonl")
    assert corpus.format == "beir-jsonl"
    assert list(corpus.documents) == ["msmarco_v2.1_doc_00_12345", "wiki.Paris-2024", "faq#3"]
    assert corpus.documents["faq#3"] == "Press Retry after a dropped connection."
    assert corpus.titles == {"msmarco_v2.1_doc_00_12345": "Export to CSV", "faq#3": "Retrying downloads"}


def test_pyserini_corpus_unicode_ids():
    corpus = read_corpus(FORMATS / "pyserini_corpus.jsonl")
    assert corpus.format == "pyserini-jsonl"
    assert corpus.documents == {
        "docs/export.md": "Open File > Export and pick CSV.",
        "文档/导出.md": "点击导出并选择 CSV。",
    }
    assert corpus.titles == {}


def test_msmarco_tsv_corpus():
    corpus = read_corpus(FORMATS / "msmarco_corpus.tsv")
    assert corpus.format == "tsv"
    assert corpus.documents["msmarco_v2.1_doc_00_67890"] == "Press Retry after a dropped connection."


def test_directory_corpus_ids_are_relative_paths_and_other_files_are_listed(tmp_path):
    root = tmp_path / "help"
    (root / "docs").mkdir(parents=True)
    (root / ".git").mkdir()
    write(root / "docs" / "export.md", "Export")
    write(root / "faq#3.txt", "Retry")
    write(root / "logo.png", "not text")
    write(root / ".git" / "HEAD", "ref")
    corpus = read_corpus(root)
    assert corpus.format == "directory"
    assert corpus.documents == {"docs/export.md": "Export", "faq#3.txt": "Retry"}
    assert corpus.skipped_files == (".git/HEAD", "logo.png")


def test_a_beir_folder_given_as_a_docs_folder_names_its_corpus_file(tmp_path):
    """A BEIR download is a folder with corpus.jsonl (found by a user walkthrough: the error
    said only that there were no .md or .txt files)."""
    beir = tmp_path / "beir"
    beir.mkdir()
    write(beir / "corpus.jsonl", '{"_id": "msmarco_v2.1_doc_00_12345", "text": "a"}\n')
    write(beir / "queries.jsonl", '{"_id": "q:1001", "text": "b"}\n')
    with pytest.raises(ContractError) as error:
        read_corpus(beir)
    assert str(error.value).endswith(
        f"no .md or .txt files in the corpus directory; a corpus file is there: pass --corpus {beir / 'corpus.jsonl'}"
    )


def test_directory_corpus_refuses_a_path_with_a_space(tmp_path):
    write(tmp_path / "my notes.md", "x")
    with pytest.raises(ContractError, match="whitespace") as error:
        read_corpus(tmp_path)
    assert "my notes.md" in str(error.value)


def test_ambiguous_corpus_record_is_refused_with_its_line():
    with pytest.raises(ContractError) as error:
        read_corpus(FORMATS / "ambiguous_corpus.jsonl")
    message = str(error.value)
    assert "ambiguous_corpus.jsonl" in message and "line 1" in message and "ambiguous" in message
    assert "beir-jsonl" in message and "jsonl (id, text)" in message


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ('{"_id": "d1", "text": "a"}\n{"_id": "d2", "text": "b", "url": "x"}\n', ("line 2", "unknown key 'url'")),
        (
            '{"_id": "d1", "text": "a"}\n{"_id": "d1", "text": "b"}\n',
            ("line 2", "duplicate document ID 'd1'", "line 1"),
        ),
        ('{"_id": "d1", "text": "a"}\n{"_id": 7, "text": "b"}\n', ("line 2", "nonempty string")),
        ('{"_id": "d1", "text": "a"}\n{"_id": "d2", "text": "b"\n', ("line 2", "invalid JSON")),
        (  # a line cut mid-string: json's message ends "starting at"; the column finishes it
            '{"_id": "docs/export.md", "text": "a"}\n{"_id": "docs/b.md", "text": "cut\n',
            ("line 2", "invalid JSON line: Unterminated string starting at column 30"),
        ),
        ('{"_id": "d 1", "text": "a"}\n', ("line 1", "whitespace")),
        ('{"_id": "d1", "body": "a"}\n', ("line 1", "not a known document record")),
        ('{"_id": "d1", "text": "a"}\n{"id": "d2", "contents": "b"}\n', ("line 2", "unknown key 'id'")),
        ("id\ttext\nd1\tExport\n", ("line 1", "header")),
        ("d1\tExport\td2\n", ("line 1", "2 tab-separated fields")),
        ("just words\n", ("line 1", "cannot tell the document format")),
        ("\n\n", ("empty document file",)),
    ],
)
def test_bad_corpus_lines_name_file_and_line(tmp_path, text, fragments):
    path = write(tmp_path / "corpus.jsonl", text)
    with pytest.raises(ContractError) as error:
        read_corpus(path)
    message = str(error.value)
    assert "corpus.jsonl" in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_queries_formats_and_split_per_query():
    beir = read_queries(FORMATS / "beir_queries.jsonl", "test")
    assert beir.format == "beir-jsonl" and not beir.split_from_file
    assert {q: meta.split for q, meta in beir.queries.items()} == {"q:1001": "test", "q:1002": "test"}
    split = read_queries(FORMATS / "split_queries.jsonl", "test")
    assert split.split_from_file
    assert split.queries["q:1001"].split == "dev" and split.queries["q:1002"].split == "test"
    assert split.queries["q:1002"].need == "The host city of the 2024 Summer Olympics."
    tsv = read_queries(DATA / "queries.tsv", "dev")
    assert tsv.format == "tsv" and tsv.queries["q:1002"].text == "How do I sync by hand?"
    assert {meta.split for meta in tsv.queries.values()} == {"dev"}


def test_split_on_some_queries_only_is_refused(tmp_path):
    path = write(tmp_path / "q.jsonl", '{"id": "q:1", "text": "a", "split": "dev"}\n{"id": "q:2", "text": "b"}\n')
    with pytest.raises(ContractError, match="line 2.*every query or on none"):
        read_queries(path, "test")


QUERIES = {"q:1001", "q:1002"}
DOCUMENTS = {"msmarco_v2.1_doc_00_12345", "wiki.Paris-2024", "faq#3"}


def test_beir_qrels_graded_need_a_threshold_then_map_exactly():
    with pytest.raises(ContractError) as error:
        read_labels(FORMATS / "beir_qrels.tsv", QUERIES, DOCUMENTS)
    assert "line 2" in str(error.value) and "--threshold" in str(error.value)
    labels = read_labels(FORMATS / "beir_qrels.tsv", QUERIES, DOCUMENTS, threshold=2)
    assert labels.format == "beir-tsv" and labels.count == 3 and labels.graded == 1
    assert labels.labels == {"q:1001": {"msmarco_v2.1_doc_00_12345": 1, "faq#3": 0}, "q:1002": {"wiki.Paris-2024": 0}}


def test_trec_qrels_are_partial_labels_never_filled(tmp_path):
    path = write(tmp_path / "qrels.trec", "q:1001 0 faq#3 1\nq:1002\t0\twiki.Paris-2024\t0\n")
    labels = read_labels(path, QUERIES, DOCUMENTS)
    assert labels.format == "trec"
    # exactly the two named pairs: the four others are holes, not zeros
    assert labels.labels == {"q:1001": {"faq#3": 1}, "q:1002": {"wiki.Paris-2024": 0}}


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("q:1001 0 faq#3 1\nq:1001 0 faq#3 0\n", ("line 2", "judged twice", "line 1")),
        ("q:9 0 faq#3 1\n", ("line 1", "unknown query 'q:9'")),
        ("q:1001 0 docs/missing.md 1\n", ("line 1", "unknown document 'docs/missing.md'")),
        ("q:1001 0 faq#3 -1\n", ("line 1", "negative relevance")),
        ("q:1001 0 faq#3 1.0\n", ("line 1", "integer")),
        ("q:1001 faq#3 1\n", ("line 1", "4 fields")),
        ("query-id\tcorpus-id\tscore\nq:1001\tfaq#3\n", ("line 2", "3 tab-separated fields")),
    ],
)
def test_bad_qrels_lines(tmp_path, text, fragments):
    path = write(tmp_path / "qrels.txt", text)
    with pytest.raises(ContractError) as error:
        read_labels(path, QUERIES, DOCUMENTS)
    message = str(error.value)
    assert "qrels.txt" in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_msmarco_run_is_ordered_by_rank():
    run = load_run(FORMATS / "dense_msmarco.tsv")
    assert run.rankings == {"q:1001": ["faq#3", "msmarco_v2.1_doc_00_12345"], "q:1002": ["wiki.Paris-2024"]}


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("q:1\td1\t1\nq:1\td2\t1\n", ("line 2", "rank clash")),
        ("q:1\td1\t1\nq:1\td1\t2\n", ("line 2", "duplicate document")),
        ("q:1\td1\t0\n", ("line 1", "rank must be an integer >= 1")),
        ("q:1\td1\t1\nq:1\td2\n", ("line 2", "3 tab-separated fields")),
    ],
)
def test_bad_msmarco_run_lines(tmp_path, text, fragments):
    path = write(tmp_path / "run.tsv", text)
    with pytest.raises(ContractError) as error:
        load_run(path)
    for fragment in ("run.tsv", *fragments):
        assert fragment in str(error.value), (fragment, str(error.value))


DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
    (0x13430, 0x1343F),  # format controls (Cf) since Unicode 15, beyond this Python's unicodedata
)  # fmt: skip
"""Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt), as ranges."""


def test_id_rule_is_the_per_character_rule_on_every_code_point():
    """The rule of docs/formats.md, character by character: no whitespace, no control character,
    no bidirectional control, and (since invisible IDs are refused) no format character (Cf) and
    no other default-ignorable one."""
    import unicodedata

    from rankeval_tui.core.files.ids import NOT_IN_AN_ID

    for point in range(0x110000):
        ch = chr(point)
        bidi = point in (0x061C, 0x200E, 0x200F) or 0x202A <= point <= 0x202E or 0x2066 <= point <= 0x2069
        invisible = unicodedata.category(ch) == "Cf" or any(low <= point <= high for low, high in DEFAULT_IGNORABLE)
        forbidden = ch.isspace() or point < 32 or 127 <= point < 160 or bidi or invisible
        assert bool(NOT_IN_AN_ID.search(f"q:{ch}1")) is forbidden, hex(point)
