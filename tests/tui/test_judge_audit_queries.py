"""``judge --audit MODEL.toml --sample-queries N``: a person judges every pair of N seeded queries
on the real judging screen (Pilot), blind; then ``score --estimate MODEL.toml --audit AUDIT.toml``
gives each run's model-only mean beside the prediction-powered estimate, every number equal to the
one evaluator's on the same labels, and the JSON valid under its schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomli_w

from rankeval_tui import api
from rankeval_tui.cli.judge_audit import audit_plan
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.annotation.prediction_powered import corrected_mean
from rankeval_tui.core.evaluation.evaluate import evaluate
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.files import load_definition, load_protocol, load_run
from rankeval_tui.core.files.tomllib_compat import tomllib  # tomli on Python 3.10
from rankeval_tui.tui.app import RankevalApp
from tests.cli.helpers import REPO, assert_one_line_error, run_cli
from tests.schema_check import validate
from tests.tui.test_judge_audit import MARK, audit_args

SCHEMA = json.loads((REPO / "rankeval_tui" / "schema" / "estimate.schema.json").read_text(encoding="utf-8"))
FLIPPED = {("q1", "d2"), ("q2", "d4"), ("q3", "d1"), ("q5", "d5")}
"""The model's labels: the seed's, with these four pairs flipped."""


def model_file(protocol: Path) -> tuple[Path, dict]:
    truth = tomllib.loads((protocol / "qrels.toml").read_text(encoding="utf-8"))["qrels"]
    labels = {q: {d: 1 - g if (q, d) in FLIPPED else g for d, g in row.items()} for q, row in truth.items()}
    notes = {q: {d: f"{MARK} {q}/{d}" for d in row} for q, row in truth.items()}
    path = protocol.parent / "model.toml"
    path.write_text(
        tomli_w.dumps({"provenance": {"annotator": "model:umbrela"}, "qrels": labels, "notes": notes}),
        encoding="utf-8",
    )
    return path, truth


async def judge_audit(protocol: Path, model: Path, audit: Path, truth: dict, size: tuple[int, int]) -> list:
    """The person judges the audit on screen as the seed's author did; returns the pairs asked."""
    args = audit_args(protocol, model, audit, sample=None, sample_queries=3, seed=4)
    definition, provenance = audit_plan(args, load_definition(protocol))
    session = JudgingSession.open(definition, audit, order="shuffled", seed=4, annotator="alice")
    session.marks.base_provenance.update(provenance)  # as judge --audit does
    app = RankevalApp(protocol, qrels_path=audit, start="judge", judge_session=session)
    asked = []
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        while session.cursor.current is not None and session.cursor.current not in asked:
            asked.append(session.cursor.current)
            screen = app.export_screenshot()
            for leak in (MARK, "model:", "umbrela", "model.toml"):
                assert leak not in screen
            query, doc = session.cursor.current
            await pilot.press(str(truth[query][doc]))
            await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    session.finish()
    return asked


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_a_query_audit_judged_on_screen_then_the_estimate(seed_copy: Path, size: tuple[int, int]) -> None:
    model, truth = model_file(seed_copy)
    audit = seed_copy.parent / "audit-alice.toml"
    asked = await judge_audit(seed_copy, model, audit, truth, size)
    written = tomllib.loads(audit.read_text(encoding="utf-8"))
    audited = list(written["qrels"])
    assert len(audited) == 3
    definition = load_definition(seed_copy)
    # every pair of each audited query, each asked once
    assert sorted(asked) == sorted((q, d) for q in audited for d in definition.documents_of(q))
    assert written["provenance"]["partial"] is True
    assert written["provenance"]["audit"]["sample_queries"] == 3 and written["provenance"]["audit"]["seed"] == 4

    result = run_cli("score", seed_copy, "--estimate", model, "--audit", audit, "--metrics", "AP", "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    validate(data, SCHEMA)
    assert data["model_labels"] == {"file": str(model), "annotator": "model:umbrela", "annotator_kind": "model"}
    assert data["audit"]["queries"] == audited and data["audit"]["split_queries"] == 4
    runs = [api.load_run(path) for path in sorted((seed_copy / "runs").glob("*.json"))]
    assert api.estimate(seed_copy, model, audit, runs, ["AP"]).to_json() == data  # the API gives the same

    # Every number from the one evaluator: the model-only mean is scoring under the model's
    # labels, and the estimate is the formula on the per-query values under each label set.
    model_labels = tomllib.loads(model.read_text(encoding="utf-8"))["qrels"]
    under_model = Protocol(definition, model_labels)
    people = load_protocol(seed_copy)  # the people judged as the seed's author did
    split = [q for q in definition.selected_queries if definition.documents_of(q)]
    for row in data["results"]:
        run = load_run(seed_copy / "runs" / f"{row['run']}.json")
        mine, theirs = evaluate(under_model, run, ("ap",)), evaluate(people, run, ("ap",))
        assert row["metric"] == "AP@2"
        metric = "ap"
        assert row["model_mean"] == (None if mine.mean(metric) is None else str(mine.mean(metric)))
        values = {r.query: v for r, v in zip(mine.rows, mine.values(metric))}
        human = {r.query: v for r, v in zip(theirs.rows, theirs.values(metric))}
        expected = corrected_mean([values[q] for q in split], {split.index(q): human[q] for q in audited})
        assert row["prediction_powered"]["estimate"] == (None if expected.point is None else str(expected.point))
        assert row["prediction_powered"]["interval"] == (None if expected.interval is None else list(expected.interval))

    table = run_cli("score", seed_copy, "--estimate", model, "--audit", audit).stdout
    assert "an estimate of the mean under people's labels, not a measurement" in table
    assert "model:umbrela (a model)" in table
    assert "model only" in table and "estimate [95% interval]" in table


def write_audit(protocol: Path, queries: dict, audit: dict) -> Path:
    path = protocol.parent / "audit.toml"
    path.write_text(
        tomli_w.dumps({"provenance": {"partial": True, "audit": audit}, "qrels": queries}), encoding="utf-8"
    )
    return path


@pytest.mark.parametrize(
    ("options", "rule"),
    [
        (["--estimate", "model.toml"], "an estimate needs both --estimate MODEL.toml and --audit AUDIT.toml"),
        (["--estimate", "model.toml", "--audit", "pairs.toml"], "not a query-level audit"),
        (
            ["--estimate", "model.toml", "--audit", "pairs.toml", "--fill-from", "model.toml"],
            "--fill-from does not apply",
        ),
        (["--estimate", "model.toml", "--audit", "pairs.toml", "--bounds"], "--bounds does not apply"),
    ],
)
def test_estimate_refusals_are_one_line(seed_copy: Path, options: list[str], rule: str) -> None:
    model_file(seed_copy)
    truth = tomllib.loads((seed_copy / "qrels.toml").read_text(encoding="utf-8"))["qrels"]
    pairs = seed_copy.parent / "pairs.toml"
    pairs.write_text(
        tomli_w.dumps(
            {
                "provenance": {"partial": True, "audit": {"sample": 2, "seed": 1}},
                "qrels": {"q1": {"d1": truth["q1"]["d1"]}},
            }
        ),
        encoding="utf-8",
    )
    assert_one_line_error(run_cli("score", seed_copy, *options, cwd=seed_copy.parent), rule)


def test_a_model_file_with_holes_is_refused(seed_copy: Path) -> None:
    model, truth = model_file(seed_copy)
    labels = tomllib.loads(model.read_text(encoding="utf-8"))
    del labels["qrels"]["q2"]["d3"]
    model.write_text(tomli_w.dumps(labels), encoding="utf-8")
    audit = write_audit(seed_copy, {"q1": truth["q1"]}, {"sample_queries": 1, "seed": 1})
    result = run_cli("score", seed_copy, "--estimate", model, "--audit", audit)
    assert_one_line_error(result, "model.toml", "first hole: query 'q2', document 'd3'", "never read as 0")


@pytest.mark.parametrize(
    ("extra", "rule"),
    [
        (["--sample", "4", "--sample-queries", "2"], "an audit samples pairs (--sample N) or whole queries"),
        (["--sample-queries", "5"], "--sample-queries 5 is more than the 4 queries of split 'test'"),
        (["--sample-queries", "0"], "--sample-queries must be an integer >= 1"),
    ],
)
def test_query_audit_options_refused_before_anything_opens(seed_copy: Path, extra: list[str], rule: str) -> None:
    model, _ = model_file(seed_copy)
    result = run_cli(
        "judge", seed_copy, "--audit", model, *extra, "--seed", "1", "--qrels", "audit.toml", cwd=seed_copy.parent
    )
    assert_one_line_error(result, rule)
    assert not (seed_copy.parent / "audit.toml").exists()
    assert not (seed_copy.parent / "audit.toml.journal").exists()
