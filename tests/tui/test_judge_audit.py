"""``judge --audit``: a person judges a seeded sample of a model's pairs with the real judging
screen (Pilot), blind: nothing of the model's file (label, reasoning, name) is ever on screen;
the audit file is written when the sample is judged, partial and saying what it audits, and
``agree`` compares it with the model's file on the sample, with bootstrap intervals."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
import tomli_w

from rankeval_tui.cli.judge_audit import audit_plan
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.tomllib_compat import tomllib  # tomli on Python 3.10
from rankeval_tui.tui.app import RankevalApp
from tests.cli.helpers import REPO, assert_one_line_error, run_cli
from tests.schema_check import validate

MARK = "MODEL-REASONING-MARK"
SCHEMA = json.loads((REPO / "rankeval_tui" / "schema" / "agree.schema.json").read_text(encoding="utf-8"))


def model_file(protocol: Path) -> tuple[Path, dict]:
    """The model labels every pair as relevant, with its reasoning beside each."""
    labels = tomllib.loads((protocol / "qrels.toml").read_text(encoding="utf-8"))["qrels"]
    model = {q: {d: 1 for d in row} for q, row in labels.items()}
    notes = {q: {d: f"{MARK} {q}/{d}" for d in row} for q, row in labels.items()}
    path = protocol.parent / "model.toml"
    data = {"provenance": {"annotator": "model:umbrela", "partial": True}, "qrels": model, "notes": notes}
    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    return path, labels


def audit_args(protocol: Path, model: Path, audit: Path, **changes) -> argparse.Namespace:
    values = dict(protocol=protocol, audit=model, sample=8, seed=11, qrels=audit, order=None, holes_first=None, run=[])
    return argparse.Namespace(**{**values, **changes})


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_a_blind_sample_judged_on_screen_then_agreement_with_intervals(
    seed_copy: Path, size: tuple[int, int]
) -> None:
    model, truth = model_file(seed_copy)
    audit = seed_copy.parent / "audit-1.toml"
    definition, provenance = audit_plan(audit_args(seed_copy, model, audit), load_definition(seed_copy))
    sample = {(q, d) for q, pool in definition.pools.items() for d in pool}
    assert len(sample) == 8
    session = JudgingSession.open(definition, audit, order="shuffled", seed=11, annotator="alice")
    session.marks.base_provenance.update(provenance)  # as judge --audit does
    app = RankevalApp(seed_copy, qrels_path=audit, start="judge", judge_session=session)
    asked = []
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for _ in range(8):
            assert session.cursor.current is not None
            asked.append(session.cursor.current)
            screen = app.export_screenshot()
            for leak in (MARK, "model:", "umbrela", "model.toml"):
                assert leak not in screen, (leak, screen[screen.find(leak) - 300 : screen.find(leak) + 100])
            query, doc = session.cursor.current
            await pilot.press(str(truth[query][doc]))  # the person labels as the seed's author did
            await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    session.finish()
    assert set(asked) == sample and len(asked) == 8  # exactly the sample, each once
    written = tomllib.loads(audit.read_text(encoding="utf-8"))
    assert {(q, d) for q, row in written["qrels"].items() for d in row} == sample
    assert written["provenance"]["partial"] is True
    assert written["provenance"]["audit"]["sample"] == 8 and written["provenance"]["audit"]["seed"] == 11
    assert written["provenance"]["audit"]["annotator"] == "model:umbrela"
    assert written["provenance"]["annotator"] == "alice"
    result = run_cli("agree", seed_copy, model, audit, "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    validate(data, SCHEMA)
    assert data["coverage"]["overlap"] == 8
    relevant = sum(truth[q][d] for q, d in sample)
    assert data["agreements"] == relevant  # the model says 1 everywhere
    assert data["bootstrap"]["seed"] == 11 and set(data["bootstrap"]["intervals"]) == {"kappa"}
    table = run_cli("agree", seed_copy, model, audit).stdout
    assert "bootstrap 95% interval (2000 resamples of the 8 audited pairs, seed 11): kappa" in table


def test_the_same_seed_draws_the_same_sample(seed_copy: Path) -> None:
    model, _ = model_file(seed_copy)
    audit = seed_copy.parent / "audit.toml"
    first, _ = audit_plan(audit_args(seed_copy, model, audit), load_definition(seed_copy))
    again, _ = audit_plan(audit_args(seed_copy, model, audit), load_definition(seed_copy))
    other, _ = audit_plan(audit_args(seed_copy, model, audit, seed=12), load_definition(seed_copy))
    assert first.pools == again.pools and first.pools != other.pools


@pytest.mark.parametrize(
    ("extra", "rule"),
    [
        (["--sample", "8", "--seed", "1"], "an audit needs --audit LABELS.toml, --sample N, --seed S and --qrels"),
        (["--sample", "31", "--seed", "1", "--qrels", "audit.toml"], "--sample 31 is more than the 30 pairs"),
        (["--sample", "8", "--seed", "1", "--qrels", "audit.toml", "--order", "corpus"], "--order does not apply"),
    ],
)
def test_audit_options_refused_before_anything_opens(seed_copy: Path, extra: list[str], rule: str) -> None:
    model, _ = model_file(seed_copy)
    result = run_cli("judge", seed_copy, "--audit", model, *extra, cwd=seed_copy.parent)
    assert_one_line_error(result, rule)
    assert not (seed_copy.parent / "audit.toml.journal").exists()


def test_an_audit_is_never_written_into_the_protocols_qrels(seed_copy: Path) -> None:
    model, _ = model_file(seed_copy)
    result = run_cli(
        "judge", seed_copy, "--audit", model, "--sample", "4", "--seed", "1", "--qrels", seed_copy / "qrels.toml"
    )
    assert_one_line_error(result, "an audit sample is never the protocol's qrels.toml")
