"""A metric is defined once (``core/evaluation/metrics.py``'s ``DEFINITIONS``) and everything that
names metrics follows from it or fails here: the JSON schema, the drill-down's formula and
explanation, the docs table, the names a user types. (The cross-checks against pytrec_eval and
ir_measures take their measure names from the same definitions: tests/core/test_crosscheck.py.)"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from rankeval_tui.core.evaluation.evaluate import Run, evaluate
from rankeval_tui.core.evaluation.explain import explain
from rankeval_tui.core.evaluation.metrics import DEFINITIONS, METRIC_IDS, parse_metric_name
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition, Query

REPO = Path(__file__).resolve().parents[2]


def test_the_schema_names_exactly_the_defined_metrics() -> None:
    schema = json.loads((REPO / "rankeval_tui" / "schema" / "report.schema.json").read_text(encoding="utf-8"))
    assert schema["$defs"]["metric_id"]["enum"] == list(METRIC_IDS)


def test_the_docs_table_has_a_row_per_metric() -> None:
    rows = re.findall(r"^\| `([^`]+)@k` \|", (REPO / "docs" / "metrics.md").read_text(encoding="utf-8"), re.M)
    assert rows == [definition.prefix for definition in DEFINITIONS.values()]


@pytest.mark.parametrize("metric", METRIC_IDS)
def test_every_metric_is_named_explained_and_recomputed_by_its_explanation(metric: str) -> None:
    definition = DEFINITIONS[metric]  # type: ignore[index]
    assert parse_metric_name(definition.name(10)) == (metric, 10)
    assert definition.formula and definition.definition
    documents = {f"d{n}": f"text {n}" for n in range(1, 6)}
    protocol = Protocol(
        ProtocolDefinition(
            name="registry", k=3, split="test", relevance="r", documents=documents, queries={"q1": Query("q", "test")}
        ),
        {"q1": {"d1": 0, "d2": 1, "d3": 0, "d4": 1, "d5": 1}},
    )
    ranking = ["d1", "d2", "d3", "d4"]
    row = evaluate(protocol, Run("A", {"q1": ranking}), (metric,)).rows[0]  # type: ignore[arg-type]
    why = explain(row, ranking, protocol.relevant["q1"], protocol.k, metric)  # type: ignore[arg-type]
    assert why.value == row.value(metric)  # type: ignore[arg-type]
    assert isinstance(why.value, Fraction)
