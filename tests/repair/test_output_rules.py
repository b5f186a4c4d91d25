"""Issue 30 E, F, R: whatever protects a file being written is respected by every command that
writes it, and -o never makes a file that breaks the protocol (validate and score agree)."""

from __future__ import annotations

import json

import pytest

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import load_definition
from tests.cli.helpers import assert_one_line_error, run_cli
from tests.cli.test_output_overwrite import command, files, inputs, protocol  # noqa: F401 (fixtures)


@pytest.mark.parametrize("name", ["qrels import", "merge"])
def test_a_qrels_file_being_adjudicated_is_refused_even_with_force(protocol, inputs, name):  # noqa: F811
    target = protocol / "qrels.toml"
    journal = protocol / "qrels.toml.adjudication.journal"
    journal.write_text('{"op": "start", "kind": "adjudication"}\n', encoding="utf-8")
    before = files(protocol)
    assert_one_line_error(
        run_cli(*command(name, protocol, inputs, target), "--force"),
        f"error: {target}: is being adjudicated ({journal} is open)",
        "it writes this file when it ends",
    )
    assert files(protocol) == before


def test_adjudicate_refuses_a_file_being_judged_even_with_force(protocol, inputs):  # noqa: F811
    target = protocol / "qrels.toml"
    journal = protocol / "qrels.toml.journal"
    journal.write_text('{"op": "start"}\n', encoding="utf-8")
    before = files(protocol)
    assert_one_line_error(
        run_cli(*command("adjudicate", protocol, inputs, target), "--force"),
        f"error: {target}: is being judged ({journal} is open)",
    )
    assert files(protocol) == before


def test_judge_refuses_a_file_being_adjudicated(protocol):  # noqa: F811
    (protocol / "qrels.toml.adjudication.journal").write_text('{"op": "start"}\n', encoding="utf-8")
    with pytest.raises(ContractError, match="is being adjudicated"):
        JudgingSession.open(load_definition(protocol), protocol / "qrels.toml", annotator="alice")
    assert not (protocol / "qrels.toml.lock").exists() and not (protocol / "qrels.toml.journal").exists()


def test_adapt_refuses_a_sidecar_name_as_its_output(protocol, inputs):  # noqa: F811
    target = protocol / "runs" / "bm25.json.provenance.json"
    before = files(protocol)
    assert_one_line_error(
        run_cli(*command("adapt", protocol, inputs, target)), "named like the provenance sidecar", "name the run itself"
    )
    assert files(protocol) == before
    assert run_cli("score", protocol).returncode == 0


def test_a_planted_sidecar_does_not_let_adapt_replace_a_real_run(protocol, inputs):  # noqa: F811
    target = protocol / "runs" / "bm25.json"
    (protocol / "runs" / "bm25.json.provenance.json").write_text(json.dumps({"adapter_sha256": "a" * 64}))
    before = files(protocol)
    assert_one_line_error(run_cli(*command("adapt", protocol, inputs, target), "--force"), f"{target}: is a run of")
    assert files(protocol) == before


def test_adapt_still_redoes_the_run_it_wrote(protocol, inputs):  # noqa: F811
    target = protocol / "runs" / "adapted.json"
    assert run_cli(*command("adapt", protocol, inputs, target)).returncode == 0
    again = run_cli(*command("adapt", protocol, inputs, target), "--force")
    assert again.returncode == 0, again.stderr


@pytest.mark.parametrize(
    "name, target, rule",
    [
        ("run export", "runs/bm25.trec", "would be a second run named 'bm25'"),
        ("qrels export", "runs/q.trec", "is read as a run"),
        ("qrels import", "runs/labels.json", "is read as a run"),
    ],
)
def test_an_output_in_runs_that_would_break_score_is_refused(protocol, inputs, name, target, rule):  # noqa: F811
    before = files(protocol)
    assert_one_line_error(run_cli(*command(name, protocol, inputs, protocol / target)), rule)
    assert files(protocol) == before
    assert run_cli("score", protocol).returncode == 0


def test_validate_and_score_agree_on_two_runs_with_one_name(protocol):  # noqa: F811
    (protocol / "runs" / "bm25.trec").write_text("q:1001 Q0 docs/export.md 1 2.0 bm25\n", encoding="utf-8")
    score = run_cli("score", protocol)
    validate = run_cli("validate", protocol)
    assert score.returncode == 2 and "two runs are named 'bm25'" in score.stderr
    assert validate.returncode == 2 and "two runs are named 'bm25'" in validate.stdout
