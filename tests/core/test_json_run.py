"""A JSON run checked as a whole (``plain_json_run``) answers exactly as query by query, and
what its readers checked is not checked again per entry (``Run.distinct_str_entries``)."""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import json_run
from rankeval_tui.core.files.runs import load_run

GOOD = ["docs/export.md", "msmarco_v2.1_doc_00_12345", "d\u00e9j\u00e0"]
BAD_RUNS = [
    {"q 1": GOOD},
    {"": GOOD},
    {"q\u202e1": GOOD},
    {"q:1": "docs/export.md"},
    {"q:1": {"docs/export.md": 1}},
    {"q:1": [*GOOD, 7]},
    {"q:1": [*GOOD, None]},
    {"q:1": [*GOOD, True]},
    {"q:1": [*GOOD, 1.5]},
    {"q:1": [*GOOD, ""]},
    {"q:1": [*GOOD, "a b"]},
    {"q:1": [*GOOD, "a\x85b"]},
    {"q:1": [*GOOD, ["docs/export.md"]]},
    {"q:1": [*GOOD, {"docs/export.md": 1}]},
]


def outcome(text: str) -> object:
    try:
        return json_run.parse_json_run(text, Path("runs/A.json"))
    except ContractError as error:
        return str(error)


@pytest.mark.parametrize("bad", BAD_RUNS)
def test_a_bad_run_is_named_as_query_by_query(bad: dict) -> None:
    text = json.dumps({"q:1000": GOOD, **bad, "q:1002": GOOD}, ensure_ascii=False)
    fast = outcome(text)
    with mock.patch.object(json_run, "plain_json_run", return_value=False):
        assert fast == outcome(text)
    assert isinstance(fast, str)


def test_a_key_twice_is_named_as_before() -> None:
    assert (
        outcome('{"q:1": [], "q:2": ["a"], "q:1": ["b"]}') == "runs/A.json: query 'q:1': duplicate key in JSON object"
    )


def test_a_good_run_is_read_whole_and_known_distinct(tmp_path: Path) -> None:
    path = tmp_path / "A.json"
    path.write_text(json.dumps({"q:1000": GOOD, "q:1001": GOOD[::-1], "q:1002": []}))
    with mock.patch.object(json_run, "check_id", side_effect=AssertionError("query by query")):
        run = load_run(path)
    assert run.rankings == {"q:1000": GOOD, "q:1001": GOOD[::-1], "q:1002": []} and run.distinct_str_entries
    path.write_text(json.dumps({"q:1000": GOOD, "q:1001": [*GOOD, GOOD[0]]}))
    assert not load_run(path).distinct_str_entries  # check_run names the duplicate


@pytest.mark.parametrize("text", ["q:1 Q0 d1 1 2.0 t\nq:1 Q0 d2 2 1.0 t\n", "q:1\td1\t1\nq:1\td2\t2\n"])
def test_text_runs_are_known_distinct(tmp_path: Path, text: str) -> None:
    path = tmp_path / "A.run"
    path.write_text(text)
    run = load_run(path)
    assert run.rankings == {"q:1": ["d1", "d2"]} and run.distinct_str_entries
