"""The C-speed TREC run reader answers exactly as the line-by-line one, or leaves the text to it."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import runs, trec_run_fast

GOOD = "".join(
    f"q:{q} Q0 msmarco_v2.1_doc_00_{q}{d:03d} {d} {100 - d}.5 bm25\n" for q in range(1001, 1004) for d in range(1, 6)
)
CASES = [
    GOOD,
    GOOD.rstrip("\n"),
    GOOD.replace(" Q0 ", "\tQ0\t"),
    GOOD.replace("q:1001 Q0 msmarco_v2.1_doc_00_1001001 1 ", "q:1001 Q0 msmarco_v2.1_doc_00_1001001 9 "),  # rank order
    GOOD.replace(" 2 98.5 ", " 1 98.5 "),  # a rank clash
    GOOD.replace("msmarco_v2.1_doc_00_1001002 ", "msmarco_v2.1_doc_00_1001001 "),  # a document twice
    GOOD.replace(" 3 97.5 ", " 3 1e999 "),  # an infinite score
    GOOD.replace(" 3 97.5 ", " 3 1_0 "),
    GOOD.replace(" 3 97.5 ", " -3 97.5 "),
    GOOD.replace(" 3 97.5 ", " 0 97.5 "),
    GOOD.replace(" 3 97.5 ", " 3 98.5 "),  # a tie: score order differs, a warning
    GOOD.replace(" 2 98.5 ", " 2 90.5 "),  # rank order differs from score order
    GOOD.replace("\n", "\r\n"),
    GOOD + "\n",
    " " + GOOD,
    GOOD.replace("q:1002 Q0", "q:1002\x0bQ0"),
    GOOD.replace("msmarco_v2.1_doc_00_1002001", "msmarco\x85doc"),
    GOOD.replace("q:1003", "q:1001"),  # a query's lines in two places
    GOOD + "q:1001 Q0 d9 9 1.0 bm25\n",
    GOOD.replace(" 4 96.5 ", " 4 96.5 extra "),
    GOOD.replace(" 5 95.5 ", " 0005 95.5 "),
    GOOD.replace(" 5 95.5 ", " 1234567890123456789 95.5 "),
    GOOD.replace(" Q0 ", "  Q0 \t "),  # runs of blanks between fields
    # Q0 and tag columns holding whitespace that splits on str.split() but not on spaces and tabs:
    # the line-by-line reader keeps each as one field, so the columns must not shift
    GOOD.replace(" bm25\n", " bm\xa025\n"),
    GOOD.replace("q:1002 Q0 ", "q:1002 Q\x0c0 "),
    GOOD.replace(" bm25\n", " bm\u300025\n", 1),
    # what the plain-text check (printable ASCII, single spaces) must leave to the other readers
    GOOD.replace(" 3 97.5 ", " 3 inf "),
    GOOD.replace(" 3 97.5 ", " 3 nan "),
    GOOD.replace(" 3 97.5 ", " 3 1e "),
    GOOD.replace(" 3 97.5 ", " 3 . "),
    GOOD.replace(" 3 97.5 ", " 3 1.2.3 "),
    GOOD.replace(" 3 97.5 ", " 3 +.5e-3 "),
    GOOD.replace(" 3 97.5 ", " 3 7.e1 "),
    GOOD.replace(" 3 97.5 ", " 3 +3 "),
    GOOD.replace(" 3 97.5 ", " +3 97.5 "),
    GOOD.replace(" 3 97.5 ", " 3x 97.5 "),
    GOOD.replace(" 4 96.5 ", " 40 96.5 "),  # a gap in the ranks, still in order
    GOOD.replace(" bm25\n", " bm\x0125\n", 1),  # a control character in the tag column
    GOOD.replace("q:1002 Q0", "q:1002 Q\x010"),
    GOOD.replace("msmarco_v2.1_doc_00_1002001", "msmarco_\x01doc"),
    GOOD.replace("msmarco_v2.1_doc_00_1002001", "doc_\u00e9t\u00e9"),  # non-ASCII IDs
    GOOD.replace(" bm25\nq:1001 Q0 msmarco_v2.1_doc_00_1001002 ", "\nbm25 q:1001 Q0 msmarco_v2.1_doc_00_1001002 "),
    GOOD.replace("\nq:1001 Q0 msmarco_v2.1_doc_00_1001002 ", " q:1001\nQ0 msmarco_v2.1_doc_00_1001002 "),
    GOOD.replace(" bm25\n", " \n", 1),  # a trailing space
    GOOD.replace(" Q0 ", "  ", 1),  # five spaces, five fields
    "q:1  1 1 1 1\n",  # five spaces, five fields, every column still plausible
    GOOD.replace("\nq:1002", "\n\nq:1002", 1),  # a blank line
    GOOD.replace("\n", "\n ", 1),  # a leading space
    GOOD + "\n\n",
    "q:1 Q0 d 1 1 t",
    "q:1 Q0 d 1 1 t\n",
    "\n",
    "",
]


def outcome(text: str) -> object:
    try:
        return runs.parse_trec_run(text, Path("runs/A.run"))
    except ContractError as error:
        return str(error)


@pytest.mark.parametrize("text", CASES)
def test_same_answer_as_the_line_by_line_reader(text: str) -> None:
    fast = outcome(text)
    with mock.patch.object(runs, "read_well_formed_run", return_value=None):
        assert fast == outcome(text)


def test_a_well_formed_run_reads_without_a_python_step_per_line() -> None:
    with mock.patch.object(runs, "parse_integer_field", side_effect=AssertionError("line by line")):
        rankings, warnings = runs.parse_trec_run(GOOD, Path("runs/A.run"))
    assert list(rankings) == ["q:1001", "q:1002", "q:1003"] and not warnings
    assert rankings["q:1002"][0] == "msmarco_v2.1_doc_00_1002001"


def test_a_plain_run_is_checked_without_the_line_pattern() -> None:
    """Printable ASCII with single spaces (the usual run) is checked without the whole-text regex
    (most of the read); what it leaves, the pattern still reads (tabs, runs of blanks)."""
    with mock.patch.object(trec_run_fast, "TREC_RUN_TEXT", mock.Mock(fullmatch=mock.Mock(return_value=None))):
        assert trec_run_fast.read_well_formed_run(GOOD) is not None
        assert trec_run_fast.read_well_formed_run(GOOD.replace(" Q0 ", "\tQ0\t")) is None
    assert trec_run_fast.read_well_formed_run(GOOD.replace(" Q0 ", "\tQ0\t")) is not None


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("", "trec"),
        ("\n \t\r\n", "trec"),
        ("\n\n \nq:1\tmsmarco_v2.1_doc_00_1\t1\n", "msmarco"),
        ("q:1\tmsmarco_v2.1_doc_00_1\t1\r\n", "msmarco"),
        ("\nq:1\tmsmarco_v2.1_doc_00_1\t1", "msmarco"),  # the last line, without its newline
        ("\n" + GOOD, "trec"),
        ("q:1 Q0 d 1 1.0 t\nq:1\td\t1\n", "trec"),  # the first non-blank line decides
    ],
)
def test_the_format_is_the_first_non_blank_lines(text: str, kind: str) -> None:
    assert runs.run_text_format(text) == kind
