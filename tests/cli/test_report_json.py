"""``score --format json``: every output validates against the packaged schema, every exact value
has its decimal beside it, and the header names the tool's version and the metrics' definitions."""

from __future__ import annotations

import copy
import json
import re
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

import rankeval_tui
from rankeval_tui.core.files.tomllib_compat import tomllib
from tests.cli.helpers import REPO, run_cli
from tests.schema_check import SchemaError, validate

SEED = REPO / "protocols" / "help-docs-zh"
A, B = "runs/fixture_A.json", "runs/fixture_B.json"
ALL = "R,RR,P,Success,AP,nDCG"
FRACTION = re.compile(r"^-?[0-9]+(/[0-9]+)?$")
SEED_EXACT_ONLY = {"recall_at_k", "mrr_at_k", "recall", "rr"}
"""The seed's report keys keep the seed's exact strings alone (their decimals are in ``measures``)."""


def schema() -> dict[str, Any]:
    """Read through the package, as an installed copy would: the schema must be package data."""
    return json.loads(resources.files(rankeval_tui).joinpath("schema/report.schema.json").read_text("utf-8"))


OUTPUTS = {
    "seed default": ("score", SEED, "--format", "json"),
    "one run": ("score", SEED, "--run", "runs/all_empty.json", "--format", "json"),
    "every metric, statistics, gate": (
        "score", SEED, "--metrics", ALL, "--baseline", "fixture_A", "--fail-on-regression", "--format", "json",
    ),
    "bootstrap, k 3": ("score", SEED, "--run", A, "--run", B, "--k", "3", "--test", "bootstrap", "--format", "json"),
    "chunk adapter": (
        "score", SEED, "--chunk-map", "chunks/chunk_map.toml", "--run", "chunks/chunk_run.json",
        "--metrics", "nDCG@2,AP@2", "--format", "json",
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def outputs() -> dict[str, dict[str, Any]]:
    results = {}
    for name, args in OUTPUTS.items():
        result = run_cli(*args[:2], *(str(SEED / a) if a.startswith("chunks/") else a for a in map(str, args[2:])))
        assert result.returncode in (0, 1), result.stderr  # 1: the regression gate may fail; JSON still printed
        results[name] = json.loads(result.stdout)
    return results


@pytest.mark.parametrize("name", OUTPUTS)
def test_every_output_validates_against_the_schema(outputs: dict[str, dict[str, Any]], name: str) -> None:
    validate(outputs[name], schema())


def exact_pairs(node: Any, path: str = "$") -> list[tuple[str, str | None, float | None]]:
    """Every ``KEY`` / ``KEY_decimal`` pair in the document."""
    pairs = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key.endswith("_decimal"):
                exact_key = key.removesuffix("_decimal")
                assert exact_key in node, f"{path}.{key} has no exact sibling"
                pairs.append((f"{path}.{exact_key}", node[exact_key], value))
            elif isinstance(value, str) and FRACTION.match(value) and key not in SEED_EXACT_ONLY:
                assert f"{key}_decimal" in node, f"{path}.{key} = {value!r} has no decimal beside it"
            pairs += exact_pairs(value, f"{path}.{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            pairs += exact_pairs(item, f"{path}[{index}]")
    return pairs


@pytest.mark.parametrize("name", OUTPUTS)
def test_every_exact_value_has_its_decimal_beside_it(outputs: dict[str, dict[str, Any]], name: str) -> None:
    pairs = exact_pairs(outputs[name])
    assert len(pairs) >= 10  # 2 metrics x (mean + 4 queries) at the least
    for path, exact, number in pairs:
        if exact is None:
            assert number is None, path
        else:
            assert number == float(Fraction(exact)), path  # the nearest double, not a rounded display


def test_measures_repeat_the_seed_keys_and_rows(outputs: dict[str, dict[str, Any]]) -> None:
    for report in outputs["seed default"]["runs"].values():
        assert report["metrics"] == ["recall", "rr"]
        assert report["measures"]["recall"]["mean"] == report["recall_at_k"]
        assert report["measures"]["rr"]["mean"] == report["mrr_at_k"]
        assert [(v["query"], v["value"]) for v in report["measures"]["rr"]["per_query"]] == [
            (row["query"], row["rr"]) for row in report["rows"]
        ]


def test_header_names_the_version_and_the_metric_definitions(outputs: dict[str, dict[str, Any]]) -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    for data in outputs.values():
        assert data["tool"] == {"name": "rankeval-tui", "version": pyproject["project"]["version"]}
        assert data["schema"] == "rankeval_tui/schema/report.schema.json" and data["schema_version"] == 1
    every = outputs["every metric, statistics, gate"]["metrics"]
    assert [m["name"] for m in every.values()] == ["R@2", "RR@2", "P@2", "Success@2", "AP@2", "nDCG@2"]
    assert "rounded half-even to 12 decimal places" in every["ndcg"]["definition"]
    assert list(outputs["seed default"]["metrics"]) == ["recall", "rr"]
    assert outputs["bootstrap, k 3"]["metrics"]["rr"]["name"] == "RR@3"


def test_the_validator_can_fail(outputs: dict[str, dict[str, Any]]) -> None:
    """Each break of the layout is caught, so the validation above is a real check."""
    good = outputs["every metric, statistics, gate"]

    def broken(edit: Any) -> dict[str, Any]:
        data = copy.deepcopy(good)
        edit(data)
        return data

    breaks = [
        lambda d: d["runs"]["fixture_B"]["measures"]["ndcg"].pop("mean_decimal"),
        lambda d: d["runs"]["fixture_B"]["measures"]["ndcg"].update(mean=0.79),  # a float where a fraction goes
        lambda d: d["runs"]["fixture_B"]["rows"][0].update(ndcg="1"),  # the seed's rows stay the seed's
        lambda d: d["runs"]["fixture_B"]["measures"].update(map={}),  # not a metric id
        lambda d: d["comparisons"][0]["metrics"]["ap"].update(mean_delta_decimal="0.4"),
        lambda d: d["comparisons"][0]["metrics"]["ap"]["statistics"]["sign_flip"].update(method="guess"),
        lambda d: d["tool"].pop("version"),
        lambda d: d.update(schema_version=True),
        lambda d: d["protocol"].update(protocol_sha256="9dd1a576"),
    ]
    for edit in breaks:
        with pytest.raises(SchemaError):
            validate(broken(edit), schema())
    with pytest.raises(ValueError, match="outside the validator's subset"):
        validate({}, {"type": "object", "oneOf": []})


def test_long_fractions_have_a_usable_number(tmp_path: Path) -> None:
    """The issue's complaint: a mean as an 88-digit fraction string that float() cannot read.
    nDCG's means are such fractions; the decimal beside them is a plain JSON number."""
    data = json.loads(run_cli("score", SEED, "--metrics", "nDCG", "--format", "json").stdout)
    mean = data["runs"]["fixture_A"]["measures"]["ndcg"]
    assert len(mean["mean"]) > 40
    assert isinstance(mean["mean_decimal"], float) and abs(mean["mean_decimal"] - 0.41469231544554347) < 1e-15
