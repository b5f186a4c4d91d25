"""The formats init and grow read are listed once (``core/files/input_formats.py``): the readers'
JSONL record shapes, the commands' help and the docs' table follow from that list or fail here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rankeval_tui.core.files.importers import CORPUS_SHAPES, QUERY_SHAPES
from rankeval_tui.core.files.input_formats import INPUT_FORMATS, OPTIONS, formats_help, formats_of

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("option", "shapes"), [("--corpus", CORPUS_SHAPES), ("--queries", QUERY_SHAPES)])
def test_every_jsonl_shape_a_reader_accepts_is_listed(option: str, shapes: tuple) -> None:
    listed = {entry.record_shape for entry in formats_of(option) if entry.record_shape}
    assert listed == {shape.name for shape in shapes}


def test_the_docs_table_names_every_format_of_each_input() -> None:
    text = (REPO / "docs" / "own-data.md").read_text(encoding="utf-8")
    for option in OPTIONS:
        row = re.search(rf"^\| `{option}` \|(.*)\|$", text, re.M)
        assert row, option
        listed = [name.split(" (")[0].strip() for name in row.group(1).replace("`", "").split("; ")]
        assert listed == [entry.name for entry in formats_of(option)], option


def test_init_help_is_the_list() -> None:
    assert all(entry.described() in formats_help() for entry in INPUT_FORMATS)
