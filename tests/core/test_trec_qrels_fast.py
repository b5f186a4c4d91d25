"""Binary TREC qrels read at C speed (``trec_qrels_fast``) are read exactly as line by line.

``read_labels`` takes the fast reading when it finds nothing to refuse, and its loop otherwise,
so the two must agree on every file: the same labels in the same order and the same counts, or
the same error naming the line. Every defect either reader must refuse or read carefully is put
at each line of a small valid file, with the queries and documents known and with the file
defining them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import importers
from rankeval_tui.core.files.importers import read_labels
from rankeval_tui.core.files.trec_qrels_fast import read_binary_qrels

BASE = ["q:1 0 d1 1", "q:1 0 d2 0", "q:2 Q0 d1 0", "q:2 0 docs/a.md 1"]
QUERIES = {"q:1", "q:2"}
DOCUMENTS = {"d1", "d2", "docs/a.md"}

DEFECTS = {
    "tabs between fields": lambda line: line.replace(" ", "\t"),
    "two spaces": lambda line: line.replace(" ", "  ", 1),
    "space before": lambda line: " " + line,
    "tab after": lambda line: line + "\t",
    "carriage return ending": lambda line: line + "\r",
    "blank line after": lambda line: line + "\n",
    "whitespace line after": lambda line: line + "\n \t",
    "graded label": lambda line: line[:-1] + "2",
    "negative label": lambda line: line[:-1] + "-1",
    "label 01": lambda line: line[:-1] + "01",
    "label not a number": lambda line: line[:-1] + "x",
    "five fields": lambda line: line + " extra",
    "three fields": lambda line: line.rsplit(" ", 1)[0],
    "unknown query": lambda line: "q:9" + line[3:],
    "unknown document": lambda line: line.replace(" d", " z", 1),
    "ID with a bidi control": lambda line: "\u202e" + line,
    "ID with a no-break space": lambda line: line.replace("q:", "q\u00a0", 1),
    "iteration with a vertical tab": lambda line: line.replace(" 0 ", " \x0b ", 1).replace(" Q0 ", " \x0b ", 1),
    "pair twice": lambda line: line + "\n" + line[:-1] + "0",
    "query again later": lambda line: line + "\nq:1 0 docs/a.md 0",
    "BEIR header": lambda line: "query-id\tcorpus-id\tscore",
}


def outcome(read: Any) -> tuple[Any, ...]:
    try:
        labels = read()
    except ContractError as error:
        return ("refused", str(error))
    rows = [(query, list(row.items())) for query, row in labels.labels.items()]
    return ("read", rows, labels.format, labels.count, labels.threshold, labels.graded, labels.rule, labels.mapped)


def line_by_line(path: Path, queries: Any, documents: Any) -> Any:
    """``read_labels`` with the fast reading turned off."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(importers, "read_binary_qrels", lambda text, queries, documents: None)
        return read_labels(path, queries, documents)


@pytest.mark.parametrize("known", [True, False])
@pytest.mark.parametrize("defect", [None, *sorted(DEFECTS)])
def test_each_defect_is_read_as_line_by_line(tmp_path: Path, defect: str | None, known: bool) -> None:
    queries, documents = (QUERIES, DOCUMENTS) if known else (None, None)
    path = tmp_path / "qrels.trec"
    for where in range(len(BASE)):
        lines = list(BASE)
        if defect is not None:
            lines[where] = DEFECTS[defect](lines[where])
        for ending in ("\n", ""):
            path.write_text("\n".join(lines) + ending, encoding="utf-8", newline="")
            fast = outcome(lambda: read_labels(path, queries, documents))
            assert fast == outcome(lambda: line_by_line(path, queries, documents))


def test_a_well_formed_binary_file_is_read_fast_and_a_graded_one_is_not() -> None:
    """The fast reading is taken for the usual file (so the comparison above compares something)."""
    text = "\n".join(BASE) + "\n"
    assert read_binary_qrels(text, QUERIES, DOCUMENTS) is not None
    assert read_binary_qrels(text.replace("d2 0", "d2 2"), QUERIES, DOCUMENTS) is None
