"""A corpus file read at C speed (``well_formed_corpus``) is read exactly as line by line.

``read_corpus`` takes the fast reading when it finds nothing to refuse, and the line-by-line
reader otherwise, so the two must agree on every file: the same documents in the same order,
the same titles and format, or the same error (the line-by-line reader's, naming the line).
Generated corpora mix valid records with everything either reader must refuse or read
carefully: repeated keys (also inside ``metadata``), repeated and malformed IDs, wrong types,
unknown keys, records of another shape, blank and whitespace lines, carriage returns, text after
a record, a byte-order mark, surrogate escapes, header-like TSV lines, lines with two tabs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files.importers import corpus_line_by_line, read_corpus, well_formed_corpus
from rankeval_tui.core.files.tomlio import read_utf8

DATA = Path(__file__).resolve().parents[1] / "data" / "own_data" / "formats"

good_ids = st.sampled_from(["d1", "d2", "d3", "msmarco_v2.1_doc_00_7", "docs/export.md", "文档/1", "id", "DocId"])
texts = st.sampled_from(["t", "", "line\nbreak", 'say "hi"', "tab\there", "\u2028", "\U0001f600", "text"])
SHAPES = {"beir-jsonl": ("_id", "text"), "pyserini-jsonl": ("id", "contents"), "jsonl": ("id", "text")}

JSONL_DEFECTS = {
    "key twice": lambda line, keys: line[:-1] + f', "{keys[1]}": "again"}}',
    "key twice, nested": lambda line, keys: line[:-1] + ', "metadata": {"a": 1, "a": 2}}',
    "space before": lambda line, keys: " " + line,
    "tab after": lambda line, keys: line + "\t",
    "carriage return ending": lambda line, keys: line + "\r",
    "carriage return inside": lambda line, keys: line.replace(", ", ",\r", 1),
    "a second value": lambda line, keys: line + ' {"_id": "d9", "text": "t"}',
    "byte-order mark": lambda line, keys: "\ufeff" + line,
    "lone surrogate": lambda line, keys: line[:-1] + ', "title": "\\ud800"}',
    "surrogate pair": lambda line, keys: line[:-1] + ', "title": "\\ud83d\\ude00"}',
    "blank line": lambda line, keys: line + "\n",
    "whitespace line": lambda line, keys: line + "\n  ",
    "split in two": lambda line, keys: line.replace(", ", ",\n", 1),
    "not an object": lambda line, keys: "[1]",
    "another shape": lambda line, keys: (
        '{"id": "d8", "contents": "c"}' if keys[0] == "_id" else '{"_id": "d8", "text": "t"}'
    ),
    "two shapes at once": lambda line, keys: line[:-1] + ', "_id": "d8", "id": "d8", "text": "t"}',
    "unknown key": lambda line, keys: line[:-1] + ', "url": "u"}',
    "no text": lambda line, keys: json.dumps({keys[0]: "d8"}),
    "empty ID": lambda line, keys: json.dumps({keys[0]: "", keys[1]: "t"}),
    "ID with a space": lambda line, keys: json.dumps({keys[0]: "a b", keys[1]: "t"}),
    "ID with a bidi control": lambda line, keys: json.dumps({keys[0]: "x\u202ey", keys[1]: "t"}),
    "ID a number": lambda line, keys: json.dumps({keys[0]: 3, keys[1]: "t"}),
    "text a number": lambda line, keys: json.dumps({keys[0]: "d8", keys[1]: 5}),
    "text null": lambda line, keys: json.dumps({keys[0]: "d8", keys[1]: None}),
    "title a number": lambda line, keys: line[:-1] + ', "title": 3}',
    "title a list": lambda line, keys: line[:-1] + ', "title": ["t"]}',
    "ID repeated": lambda line, keys: line + "\n" + line.replace("}", " }"),
    "an empty array": lambda line, keys: "[]",
    "a string": lambda line, keys: '"_id"',
    "fits two shapes": lambda line, keys: json.dumps({"_id": "d8", "id": "d8", "text": "t"}),
}


@st.composite
def jsonl_file(draw: st.DrawFn) -> str:
    """Valid records of one shape (titles given, empty, null or absent; metadata), then at most
    one defect on one line: each check of the fast reading is what must catch it."""
    shape = draw(st.sampled_from(sorted(SHAPES)))
    keys = SHAPES[shape]
    lines = []
    for doc in draw(st.lists(good_ids, min_size=1, max_size=6, unique=True)):
        record: dict[str, Any] = {keys[0]: doc, keys[1]: draw(texts)}
        if shape != "pyserini-jsonl" and draw(st.booleans()):
            record["title"] = draw(st.sampled_from(["Title", "", None]))
        if shape == "beir-jsonl" and draw(st.booleans()):
            record["metadata"] = draw(st.sampled_from([{}, {"a": [1]}, "m", None]))
        if draw(st.booleans()):
            record = dict(reversed(list(record.items())))
        lines.append(json.dumps(record, ensure_ascii=draw(st.booleans())))
    defect = draw(st.sampled_from([None, *JSONL_DEFECTS]))
    if defect is not None:
        where = draw(st.integers(0, len(lines) - 1))
        lines[where] = JSONL_DEFECTS[defect](lines[where], keys)
    return "\n".join(lines) + draw(st.sampled_from(["\n", ""]))


TSV_DEFECTS = {
    "two tabs": lambda line: line + "\tmore",
    "no tab": lambda line: line.replace("\t", " "),
    "header": lambda line: "docid\ttext",
    "blank line": lambda line: line + "\n",
    "whitespace line": lambda line: line + "\n \t ",
    "carriage return ending": lambda line: line + "\r",
    "empty ID": lambda line: "\t" + line.split("\t")[1],
    "ID with a space": lambda line: "a " + line,
    "ID with a bidi control": lambda line: "\u202e" + line,
    "ID repeated": lambda line: line + "\n" + line,
    "a tab moved to the next line": lambda line: line.replace("\t", "") + "\nd9\tx\ty",
}


@st.composite
def tsv_file(draw: st.DrawFn) -> str:
    body = texts.filter(lambda text: "\n" not in text and "\t" not in text)
    lines = [f"{doc}\t{draw(body)}" for doc in draw(st.lists(good_ids, min_size=1, max_size=6, unique=True))]
    defect = draw(st.sampled_from([None, *TSV_DEFECTS]))
    if defect is not None:
        where = draw(st.integers(0, len(lines) - 1))
        lines[where] = TSV_DEFECTS[defect](lines[where])
    return "\n".join(lines) + draw(st.sampled_from(["\n", ""]))


def assert_read_alike(path: Path) -> None:
    """``read_corpus`` (fast when it can) reads ``path`` as the line-by-line reader does."""
    assert outcome(lambda: read_corpus(path)) == outcome(lambda: corpus_line_by_line(read_utf8(path), path))


def outcome(read: Any) -> tuple[Any, ...]:
    try:
        corpus = read()
    except ContractError as error:
        return ("refused", str(error))
    return ("read", list(corpus.documents.items()), list(corpus.titles.items()), corpus.format, corpus.skipped_files)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(jsonl_file() | tsv_file())
def test_the_fast_reading_and_the_line_by_line_reading_agree(tmp_path: Path, text: str) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text(text, encoding="utf-8", newline="")
    assert_read_alike(path)


BASES = {
    "jsonl " + shape: [json.dumps({keys[0]: doc, keys[1]: "t"}) for doc in ("d1", "d2", "d3")]
    for shape, keys in SHAPES.items()
}


@pytest.mark.parametrize("base", sorted(BASES))
@pytest.mark.parametrize("defect", sorted(JSONL_DEFECTS))
def test_each_defect_of_a_jsonl_corpus_is_read_as_line_by_line(tmp_path: Path, base: str, defect: str) -> None:
    keys = SHAPES[base.removeprefix("jsonl ")]
    for where in range(3):
        lines = list(BASES[base])
        lines[where] = JSONL_DEFECTS[defect](lines[where], keys)
        path = tmp_path / "corpus.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="")
        assert_read_alike(path)


@pytest.mark.parametrize("defect", sorted(TSV_DEFECTS))
def test_each_defect_of_a_tsv_corpus_is_read_as_line_by_line(tmp_path: Path, defect: str) -> None:
    for where in range(3):
        lines = ["d1\tone", "d2\ttwo", "d3\tthree"]
        lines[where] = TSV_DEFECTS[defect](lines[where])
        path = tmp_path / "corpus.tsv"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="")
        assert_read_alike(path)


def test_well_formed_files_are_read_fast_and_others_line_by_line(tmp_path: Path) -> None:
    """The fast reading is taken for the formats as users have them (so the comparison above
    compares something), and left for a file with anything to refuse."""
    for name in ("beir_corpus.jsonl", "pyserini_corpus.jsonl", "msmarco_corpus.tsv"):
        text = (DATA / name).read_text(encoding="utf-8")
        assert well_formed_corpus(text, DATA / name) == corpus_line_by_line(text, DATA / name)
    repeated = '{"_id": "d1", "text": "a", "text": "b"}\n'
    for text in (repeated, '{"_id": "d1", "text": "a"}\n{"_id": "d1", "text": "b"}\n', "d1\ta\nd1\tb\n"):
        assert well_formed_corpus(text, tmp_path / "c") is None
