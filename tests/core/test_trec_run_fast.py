"""The C-speed TREC run reader answers exactly as the line-by-line one, or leaves the text to it."""

from __future__ import annotations

import random
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

LONG = "".join(
    f"{q} Q0 d{q[-1]}{d} {d} {9 - d} t\n" for q in ("query-one-0123456789a", "query-one-0123456789b") for d in (1, 2)
)
BLOCK_CASES = [
    # queries whose IDs begin alike, where a block may end
    "".join(f"{q} Q0 d{d} {d} {9 - d} t\n" for q in ("q:1", "q:10", "q:2", "q:20") for d in (1, 2)),
    "".join(f"{q} Q0 d{d} {d} {9 - d} t\n" for q in ("abcdefgh", "abcdefgi", "abcdefghi") for d in (1, 2)),
    "".join(f"{q} Q0 d{d} {d} {9 - d} t\n" for q in ("abcdefgh1", "abcdefgh2", "bbcdefgh2") for d in (1, 2)),
    LONG,  # two queries differing in their 21st byte (a third word)
    LONG.replace("query-one-0123456789b", "q" * 999 + "b").replace("query-one-0123456789a", "q" * 999 + "a", 1),
    LONG.replace("0123456789b", "0123456789a"),  # ... or not at all: one query
    LONG.replace("0123456789b Q0 d", "0123456789a Q0 d").replace("a Q0 da2 2 ", "b Q0 da2 2 "),  # two places
    GOOD.replace("q:1003", "q:1002", 2),  # a query's first lines with the one before
    GOOD.replace("q:1001 Q0", "q:1003 Q0"),  # a query's lines in two places
    # the ranks: digits only, at most 18
    GOOD.replace(" 3 97.5 ", " 3x 97.5 "),
    GOOD.replace(" 3 97.5 ", " x3 97.5 "),
    GOOD.replace(" 5 95.5 ", " 123456789012345678 95.5 "),
    GOOD.replace(" 5 95.5 ", " 000000000000000005 95.5 "),
    GOOD.replace(" 5 95.5 ", " -0 95.5 "),
    GOOD.replace(" 2 98.5 ", " 20 98.5 ").replace(" 5 95.5 ", " 10 95.5 "),  # out of order, twice
    GOOD.replace(" 1 99.5 ", " 4 99.5 ", 1),  # out of order and a clash
    GOOD.replace(" 1 99.5 ", " 5 99.5 ", 1).replace(" 5 95.5 ", " 1 95.5 ", 1),  # swapped: no clash
    GOOD.replace(" 1 99.5 ", " 9 99.5 ", 1).replace(" 2 98.5 ", " 9 98.5 ", 1),  # a clash, not in order
    # the scores
    GOOD.replace(" 3 97.5 ", " 3 -97.5 "),
    GOOD.replace(" 3 97.5 ", " 3 +97 "),
    GOOD.replace(" 3 97.5 ", " 3 97. "),
    GOOD.replace(" 3 97.5 ", " 3 .975e2 "),
    GOOD.replace(" 3 97.5 ", " 3 97.5000000000001 "),  # 16 digits: float()
    GOOD.replace(" 3 97.5 ", " 3 97.50000000000001 "),  # 16 digits: 97.5 to float() (a tie)
    GOOD.replace(" 3 97.5 ", " 3 98.49999999999999 "),
    GOOD.replace(" 3 97.5 ", " 3 0.123456789012345 "),
    GOOD.replace(" 3 97.5 ", " 3 123456789012345 "),
    GOOD.replace(" 3 97.5 ", " 3 1234567890123456789 "),
    GOOD.replace(" 3 97.5 ", " 3 98.5000 "),  # a tie, written otherwise
    GOOD.replace(" 2 98.5 ", " 2 -0 ").replace(" 3 97.5 ", " 3 0 "),  # -0 and 0: a tie
    GOOD.replace(" 3 97.5 ", " 3 9-7 "),
    GOOD.replace(" 3 97.5 ", " 3 -+9 "),
    GOOD.replace(" 3 97.5 ", " 3 - "),
    GOOD.replace(" 3 97.5 ", " 3 .5. "),
    GOOD.replace(" 3 97.5 ", " 3 1e5 ").replace(" 4 96.5 ", " 4 1_0 "),
    GOOD.replace(" 3 97.5 ", " 3 1e5 ").replace(" 4 96.5 ", " 4 1e999 "),
    GOOD.replace(" 3 97.5 ", " 3 1e5 ").replace(" 4 96.5 ", " 4 1e "),
    GOOD.replace(" 3 97.5 ", " 3 1e5 ").replace(" 4 96.5 ", " 4 x "),
    GOOD.replace(" 4 96.5 ", " 4 99.5 ").replace("q:1003 Q0 msmarco_v2.1_doc_00_1003001 1 99.5", "q:1003 Q0 d 1 9"),
    # the layout (plain_fields): what it leaves to the other readers
    GOOD.replace("msmarco_v2.1_doc_00_1002001", "msmarco\x7fdoc"),
    GOOD.replace(" bm25\n", " bm25 x\n", 1),
    GOOD.replace(" bm25\n", "\n", 1),
    GOOD.replace(" Q0 ", " Q0  ", 1),
    GOOD.rstrip("\n") + " ",
    GOOD.rstrip("\n").rsplit(" ", 1)[0],
    GOOD.replace(" Q0 ", "\rQ0 ", 1),
    GOOD.replace("\n", " ", 1),
    "q:1 Q0 d 1 1 t\n\n",
    "q:1 Q0 d 1 1 t\nq:1 Q0 e 2 1 t",
    "q:1 Q0 d 1 1 t\nq:1 Q0 d 2 1 t",
    " " + GOOD.replace(" bm25\n", "\n", 1),  # a leading space and five fields
    " q:1 d 1 2 t\nq:1 Q0 e 2 1 t\n",  # ... every column still plausible, one to the right
]


def outcome(text: str, by_score: bool = False) -> object:
    try:
        return runs.parse_trec_run(text, Path("runs/A.run"), by_score)
    except ContractError as error:
        return str(error)


def careful_outcome(text: str, by_score: bool = False) -> object:
    with mock.patch.object(runs, "read_well_formed_run", return_value=None):
        return outcome(text, by_score)


def blocks_outcome(text: str, by_score: bool = False) -> object:
    """The answer with the text read in blocks of one query each (``BLOCK_CHARACTERS`` of 1), so
    a block's end meets every query's."""
    with mock.patch.object(trec_run_fast, "BLOCK_CHARACTERS", 1):
        return outcome(text, by_score)


@pytest.mark.parametrize("text", CASES)
def test_same_answer_as_the_line_by_line_reader(text: str) -> None:
    assert outcome(text) == careful_outcome(text)


@pytest.mark.parametrize("text", CASES + BLOCK_CASES)
@pytest.mark.parametrize("by_score", [False, True])
def test_read_a_query_a_block_the_answer_is_the_line_by_line_readers(text: str, by_score: bool) -> None:
    assert blocks_outcome(text, by_score) == careful_outcome(text, by_score)
    assert outcome(text, by_score) == careful_outcome(text, by_score)


def test_a_well_formed_run_reads_without_a_python_step_per_line() -> None:
    with mock.patch.object(runs, "parse_integer_field", side_effect=AssertionError("line by line")):
        rankings, warnings = runs.parse_trec_run(GOOD, Path("runs/A.run"))
    assert list(rankings) == ["q:1001", "q:1002", "q:1003"] and not warnings
    assert rankings["q:1002"][0] == "msmarco_v2.1_doc_00_1002001"


def test_a_plain_run_is_checked_without_the_line_pattern() -> None:
    """Printable ASCII with single spaces (the usual run) is checked without the whole-text regex
    (most of the read); what it leaves, the pattern still reads (tabs, runs of blanks)."""
    with mock.patch.object(trec_run_fast, "trec_run_text", lambda: mock.Mock(fullmatch=mock.Mock(return_value=None))):
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


@pytest.mark.parametrize(
    "text",
    [
        GOOD,
        GOOD.rstrip("\n"),
        BLOCK_CASES[0],
        LONG,
        GOOD.replace(" 1 99.5 ", " 5 99.5 ", 1).replace(" 5 95.5 ", " 1 95.5 ", 1),  # ranks out of order
        GOOD.replace(" 3 97.5 ", " 3 .975e2 "),
        GOOD.replace(" 3 97.5 ", " 3 98.5 "),  # a tie
        "q:1 A d1 1 9 t\nq:1 B d2 2 8 t\nq:2 A d3 1 7 t\n",  # equal queries, other bytes after them
        "q:1 Q0 d1 1 9 t\nq:1\tQ0 d2 2 8 t\nq:10 Q0 d3 1 7 t\nq:10 Q0 d4 2 6 t",  # a tab, the last line unended
    ],
)
@pytest.mark.parametrize("block", [1, 40, 1 << 18])
def test_the_split_reader_reads_a_well_formed_run_itself_block_by_block(text: str, block: int) -> None:
    """Not by leaving it to another reader: these get an answer from ``read_well_formed_run``
    whatever the block size, each query's lines in one block."""
    with mock.patch.object(trec_run_fast, "BLOCK_CHARACTERS", block):
        pieces = list(trec_run_fast.query_blocks(text))
        assert trec_run_fast.read_well_formed_run(text) == trec_run_fast.read_block(text)
    assert pieces[0][0] == 0 and pieces[-1][1] == len(text)
    assert all(end == start for (_, end), (start, _) in zip(pieces, pieces[1:]))
    queries = [{line.split()[0] for line in text[start:end].splitlines()} for start, end in pieces]
    assert sum(map(len, queries)) == len(set().union(*queries)) and len(pieces) <= len(set().union(*queries))
    assert trec_run_fast.read_block(text) is not None


def test_only_queries_with_a_tie_or_a_rise_are_left_to_the_score_order_check() -> None:
    """Both fast readers hand ``parse_trec_run`` the scores of those queries alone (the others'
    rank order is trec_eval's); a rise from one query's last line to the next's first is none."""
    tie = GOOD.replace(" 3 97.5 ", " 3 98.5 ", 1)
    assert trec_run_fast.read_well_formed_run(GOOD) == (careful_outcome(GOOD)[0], {})  # type: ignore[index]
    unsure = {"q:1001": [99.5, 98.5, 98.5, 96.5, 95.5]}
    assert trec_run_fast.read_well_formed_run(tie)[1] == unsure  # type: ignore[index]


def test_a_run_is_read_by_the_split_reader_at_any_length(tmp_path: Path) -> None:
    """``load_run`` reads a TREC run of any length with the split reader, block by block, and
    only a run it refuses line by line (which names the line)."""
    path = tmp_path / "A.run"
    path.write_text(GOOD + "".join(f"q:{q} Q0 d{d} {d} 1.{d} t\n" for q in range(20000, 40000) for d in (1, 2)))
    with mock.patch.object(runs, "read_trec_lines", side_effect=AssertionError("line by line")):
        assert len(runs.load_run(path).rankings) == 20003
    clash = GOOD.replace(" 2 98.5 ", " 1 98.5 ")
    path.write_text(clash)
    with pytest.raises(ContractError) as error:
        runs.load_run(path)
    assert str(error.value) == careful_outcome(clash).replace("runs/A.run", str(path))  # type: ignore[attr-defined]


FUZZ_CHARACTERS = " \t\n\r.-+e0159Q_x\x7f"


@pytest.mark.parametrize("seed", range(40))
def test_near_misses_of_a_plain_run_read_as_the_line_by_line_reader_reads_them(seed: int) -> None:
    """Seeded random edits of a plain run (a character replaced, put in, or taken out, one to
    three times): the split reader, a query a block or the usual blocks, answers as the careful one."""
    draw = random.Random(seed)
    base = "".join(
        f"q:{q} Q0 d{draw.randrange(40)} {r} {draw.choice(['9', '8.5', '-1', '8.25', '7'])} t\n"
        for q in (draw.choice(["1", "10", "2"]), "3")
        for r in range(1, 4)
    )
    for _ in range(25):
        text = base
        for _ in range(draw.randint(1, 3)):
            at = draw.randrange(len(text) + 1)
            new = draw.choice(FUZZ_CHARACTERS)
            text = draw.choice(
                [text[:at] + new + text[at + 1 :], text[:at] + new + text[at:], text[:at] + text[at + 1 :]]
            )
        expected = careful_outcome(text)
        assert blocks_outcome(text) == expected, text
        assert outcome(text) == expected, text
