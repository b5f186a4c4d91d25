"""The formats ``init`` and ``grow`` read, listed once: the commands' help and the docs follow
from this list (tests/core/test_input_formats.py checks the docs' table and the JSONL record
shapes the readers accept against it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class InputFormat:
    """One accepted format of one input: its name as users know it and its shape in words."""

    option: str
    """The command-line option that reads it: ``--corpus``, ``--queries``, ``--qrels``, ``--run``."""
    name: str
    shape: str
    record_shape: str | None = None
    """For JSONL: the name of the ``RecordShape`` in ``importers`` that reads it."""

    def described(self) -> str:
        return f"{self.name} ({self.shape})" if self.shape else self.name


INPUT_FORMATS = (
    InputFormat("--corpus", "BEIR corpus.jsonl", "_id, text, optional title, metadata", "beir-jsonl"),
    InputFormat("--corpus", "Pyserini JSONL", "id, contents", "pyserini-jsonl"),
    InputFormat("--corpus", "JSONL", "id, text, optional title", "jsonl"),
    InputFormat("--corpus", "TSV", "id<TAB>text, as MS MARCO collection.tsv"),
    InputFormat("--corpus", "a directory of .md/.txt files", "ID = the path relative to the directory"),
    InputFormat("--queries", "BEIR queries.jsonl", "_id, text, optional metadata, split", "beir-jsonl"),
    InputFormat("--queries", "JSONL", "id, text, optional split, need", "jsonl"),
    InputFormat("--queries", "TSV", "id<TAB>text"),
    InputFormat("--queries", "TREC topics", "<top> <num> Number: 301 <title> ... </top>"),
    InputFormat("--qrels", "TREC qrels", "qid 0 docid rel"),
    InputFormat("--qrels", "BEIR TSV", "header line query-id<TAB>corpus-id<TAB>score"),
    InputFormat("--run", "TREC run", "qid Q0 docid rank score tag"),
    InputFormat("--run", "MS MARCO run", "qid<TAB>docid<TAB>rank"),
    InputFormat("--run", "JSON run", '{"qid": ["docid", ...]}'),
)
OPTIONS = ("--corpus", "--queries", "--qrels", "--run")


def formats_of(option: str) -> tuple[InputFormat, ...]:
    return tuple(entry for entry in INPUT_FORMATS if entry.option == option)


def formats_help(options: tuple[str, ...] = OPTIONS) -> str:
    """``--corpus: BEIR corpus.jsonl (...), ...; --queries: ...``: for a command's description."""
    return "; ".join(f"{option} " + ", ".join(entry.described() for entry in formats_of(option)) for option in options)
