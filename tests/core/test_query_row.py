"""``QueryRow``: the typed view mypy reads (under TYPE_CHECKING) and the run-time named tuple agree."""

from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

from rankeval_tui.core.evaluation import evaluate
from rankeval_tui.core.evaluation.evaluate import ROW_FIELDS, QueryRow

SOURCE = Path(evaluate.__file__)


def typed_fields() -> list[str]:
    """The annotated names of ``_RowFields`` in the TYPE_CHECKING block of evaluate.py, in order."""
    for node in ast.walk(ast.parse(SOURCE.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef) and node.name == "_RowFields":
            return [item.target.id for item in node.body if isinstance(item, ast.AnnAssign)]  # type: ignore[union-attr]
    raise AssertionError("no class _RowFields in evaluate.py")


def test_the_typed_view_names_the_run_time_fields_in_order() -> None:
    assert typed_fields() == list(ROW_FIELDS) == list(QueryRow._fields)


def test_a_row_is_an_immutable_tuple_named_query_row_with_extra_defaulting_to_empty() -> None:
    row = QueryRow("q:1", False, 10, 2, 1, 3, Fraction(1, 2), Fraction(1, 3))
    assert row.extra == () and row.recall == Fraction(1, 2) and row.eligible
    assert repr(row).startswith("QueryRow(query='q:1'")
    assert row == QueryRow(*row) and hash(row) == hash(QueryRow(*row))
    try:
        row.hits = 2  # type: ignore[misc]
    except AttributeError:
        pass
    else:
        raise AssertionError("a QueryRow field could be set")
    assert not hasattr(row, "__dict__")


def test_score_rows_cut_every_ranking_at_k_when_one_is_deeper() -> None:
    """Rankings no longer than k are their own tops; one deeper ranking (k + 1, its one relevant
    document last) must still be cut: no hit, no first rank, RR 0."""
    k = 3
    deep = ["d1", "d2", "d3", "r"]
    rows = evaluate.score_rows(
        ["q:1", "q:2", "q:3"], [["r"], deep, deep[:k]], [frozenset({"r"})] * 3, k, [False] * 3, ("p", "ap")
    )
    assert [(row.returned, row.hits, row.first_relevant_rank, row.rr) for row in rows] == [
        (1, 1, 1, Fraction(1)),
        (4, 0, None, Fraction(0)),
        (3, 0, None, Fraction(0)),
    ]
    assert [row.extra for row in rows][1] == (("p", Fraction(0)), ("ap", Fraction(0)))
    assert all(type(row) is QueryRow for row in rows)
