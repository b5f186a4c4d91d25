"""``score --baseline ... --fail-on-regression`` and ``qrels/run`` TREC commands, as CI runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomli_w

from rankeval_tui.core.files.tomllib_compat import tomllib  # tomli on Python 3.10
from tests.cli.helpers import REPO, assert_one_line_error, run_cli

SEED = REPO / "protocols" / "help-docs-zh"
A, B, EMPTY = "runs/fixture_A.json", "runs/fixture_B.json", "runs/all_empty.json"


def score_json(*args: str, env: dict | None = None):
    result = run_cli("score", SEED, "--format", "json", *args, env=env)
    return result, (json.loads(result.stdout) if result.stdout else None)


def test_seed_b_vs_a_statistics_in_json_and_gate_passes():
    result, data = score_json("--run", A, "--run", B, "--baseline", "fixture_A", "--fail-on-regression")
    assert result.returncode == 0, result.stderr
    rr = data["comparisons"][0]["metrics"]["rr"]
    assert rr["mean_delta"] == "1/3" and rr["regressions"] == ["q2"]
    stats = rr["statistics"]
    assert stats["n"] == 3 and stats["sign_flip"] == {
        "p_value": "3/4",
        "p_value_decimal": 0.75,
        "method": "exact",
        "assignments": 8,
        "seed": None,
    }
    assert stats["p_holm"] == "3/4" and stats["significant"] is False and stats["worst_query"] == "q2"
    assert stats["bootstrap"] is None  # not asked for (--test bootstrap): its draws are not made
    assert data["comparisons"][0]["metrics"]["recall"]["statistics"]["p_value"] == "1"
    assert data["statistics"]["test"] == "randomization" and data["statistics"]["alpha"] == "1/20"
    assert data["regression_gate"] == {
        "alpha": "1/20",
        "alpha_decimal": 0.05,
        "max_query_drop": "1/2",
        "max_query_drop_decimal": 0.5,
        "passed": True,
        "failures": [],
    }


def test_per_query_drop_fails_the_gate_with_the_reason():
    result, data = score_json(
        "--run", A, "--run", B, "--baseline", "fixture_A", "--fail-on-regression", "--max-query-drop", "1/4"
    )
    assert result.returncode == 1
    assert data["regression_gate"]["passed"] is False  # the report is still printed
    reasons = [line for line in result.stderr.splitlines() if line.startswith("regression:")]
    assert len(reasons) == 1
    assert "'fixture_B' RR@k on query 'q2' dropped by 1/2" in reasons[0] and "--max-query-drop 0.25" in reasons[0]


def test_reversed_comparison_fails_on_the_missing_query():
    result, _ = score_json("--run", A, "--run", B, "--baseline", "fixture_B", "--fail-on-regression")
    assert result.returncode == 1
    assert "'fixture_A' Recall@k on query 'q4' dropped by 1 vs baseline 'fixture_B'" in result.stderr
    assert "'fixture_A' RR@k on query 'q4' dropped by 1 vs baseline 'fixture_B'" in result.stderr


def test_without_the_flag_a_regression_does_not_change_the_exit_code():
    result, data = score_json("--run", A, "--run", B, "--baseline", "fixture_B", "--max-query-drop", "0")
    assert result.returncode == 0 and "regression_gate" not in data and "statistics" in data


def test_no_baseline_no_statistics():
    result, data = score_json("--run", A, "--run", B)
    assert result.returncode == 0
    assert "statistics" not in data and "statistics" not in data["comparisons"][0]["metrics"]["rr"]


def test_holm_across_two_candidates():
    result, data = score_json("--run", A, "--run", B, "--run", EMPTY, "--baseline", "fixture_A")
    assert result.returncode == 0
    by_candidate = {c["candidate"]: c["metrics"]["rr"]["statistics"] for c in data["comparisons"]}
    assert by_candidate["fixture_B"]["p_value"] == "3/4" and by_candidate["all_empty"]["p_value"] == "1/2"
    # sorted 1/2, 3/4 -> 2 * 1/2 = 1, max(1, 3/4) = 1
    assert by_candidate["fixture_B"]["p_holm"] == "1" and by_candidate["all_empty"]["p_holm"] == "1"


def test_bootstrap_test_is_seeded_and_reproducible():
    args = ("--run", A, "--run", B, "--baseline", "fixture_A", "--test", "bootstrap", "--seed", "3", "--samples", "500")
    first, data = score_json(*args)
    second, _ = score_json(*args)
    assert first.returncode == 0 and first.stdout == second.stdout
    stats = data["comparisons"][0]["metrics"]["rr"]["statistics"]
    assert stats["test"] == "bootstrap" and stats["p_value"] == stats["bootstrap"]["p_value"]
    assert stats["bootstrap"]["seed"] == 3 and stats["bootstrap"]["samples"] == 500
    assert stats["sign_flip"] is None  # only the requested test is computed
    third, _ = score_json(*args[:-3], "4", "--samples", "500")
    assert third.stdout != first.stdout


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_table_and_markdown_show_the_test(fmt):
    result = run_cli("score", SEED, "--run", A, "--run", B, "--baseline", "fixture_A", "--format", fmt, "--fractions")
    assert result.returncode == 0
    line = next(line for line in result.stdout.splitlines() if line.startswith("RR@2: n = 3"))
    assert "sign-flip p = 3/4 = 0.7500 (exact, 8 assignments)" in line
    assert "bootstrap" not in line  # only the requested test is computed and shown
    assert line.endswith("Holm-adjusted randomization p = 0.7500: not significant at alpha 0.05")


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_table_and_markdown_show_the_bootstrap_when_asked(fmt):
    args = ("--run", A, "--run", B, "--baseline", "fixture_A", "--test", "bootstrap", "--format", fmt)
    result = run_cli("score", SEED, *args)
    assert result.returncode == 0
    line = next(line for line in result.stdout.splitlines() if line.startswith("RR@2: n = 3"))
    assert "bootstrap 95% CI of the mean delta [" in line and "10000 resamples, seed 0" in line
    assert "sign-flip" not in line and "Holm-adjusted bootstrap p = " in line


def write_protocol(directory: Path, n: int) -> Path:
    """n queries with one relevant document; run 'good' ranks it first, 'worse' second."""
    directory.mkdir()
    (directory / "protocol.toml").write_text(
        tomli_w.dumps(
            {
                "protocol": {"name": "gate", "k": 2, "split": "test", "relevance": "r"},
                "documents": {d: {"text": d} for d in ("d0", "d1", "d2")},
                "queries": {f"q{i}": {"text": f"t{i}", "split": "test"} for i in range(n)},
            }
        )
    )
    (directory / "qrels.toml").write_text(
        tomli_w.dumps({"qrels": {f"q{i}": {"d0": 1, "d1": 0, "d2": 0} for i in range(n)}})
    )
    (directory / "runs").mkdir()
    (directory / "runs" / "good.json").write_text(json.dumps({f"q{i}": ["d0", "d1"] for i in range(n)}))
    (directory / "runs" / "worse.json").write_text(json.dumps({f"q{i}": ["d1", "d0"] for i in range(n)}))
    return directory


def test_significantly_lower_fails_and_appends_the_step_summary(tmp_path):
    protocol = write_protocol(tmp_path / "gate", 8)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    result = run_cli(
        "score",
        protocol,
        "--baseline",
        "good",
        "--fail-on-regression",
        "--format",
        "json",
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert result.returncode == 1
    reasons = [line for line in result.stderr.splitlines() if line.startswith("regression:")]
    assert reasons == [
        "regression: run 'worse' RR@k mean delta -1/2 (-0.5000) vs baseline 'good' is "
        "significantly lower: randomization p (Holm) = 1/128 (0.0078) <= alpha 0.05"
    ]
    text = summary.read_text()
    assert text.startswith("earlier step\n")
    assert "### worse vs baseline good" in text and "| q0 |" in text
    assert "**Regression gate: failed**" in text and f"- {reasons[0]}" in text
    # a stricter alpha than 1/128 passes the significance part (and no query drops by more than 1/2)
    strict = run_cli("score", protocol, "--baseline", "good", "--fail-on-regression", "--alpha", "0.005")
    assert strict.returncode == 0, strict.stderr


def test_step_summary_untouched_without_the_gate(tmp_path):
    summary = tmp_path / "summary.md"
    result = run_cli(
        "score", SEED, "--run", A, "--run", B, "--baseline", "fixture_A", env={"GITHUB_STEP_SUMMARY": str(summary)}
    )
    assert result.returncode == 0 and not summary.exists()


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--run", A, "--fail-on-regression"], "needs a baseline and at least one candidate"),
        (["--run", A, "--run", B, "--alpha", "0"], "--alpha"),
        (["--run", A, "--run", B, "--alpha", "1.5"], "--alpha"),
        (["--run", A, "--run", B, "--max-query-drop", "-1"], "--max-query-drop"),
        (["--run", A, "--run", B, "--samples", "0"], "--samples"),
        (["--run", A, "--run", B, "--test", "t-test"], "--test"),
    ],
)
def test_bad_statistics_options_are_one_line_errors(args, fragment):
    assert_one_line_error(run_cli("score", SEED, *args), fragment)


# ---------------------------------------------------------------- TREC commands


def test_qrels_export_import_round_trip(tmp_path):
    trec = tmp_path / "qrels.txt"
    result = run_cli("qrels", "export", SEED, "--format", "trec", "-o", trec)
    assert result.returncode == 0, result.stderr
    assert "30 judged pairs" in result.stderr and len(trec.read_text().splitlines()) == 30
    toml_path = tmp_path / "qrels.toml"
    result = run_cli("qrels", "import", SEED, trec, "-o", toml_path)
    assert result.returncode == 0, result.stderr
    imported = tomllib.loads(toml_path.read_text())
    original = tomllib.loads((SEED / "qrels.toml").read_text())
    assert imported["qrels"] == original["qrels"]
    assert imported["provenance"] == {"imported_from": "qrels.txt", "format": "trec"}
    rescored = run_cli("score", SEED, "--qrels", toml_path, "--format", "json", "--run", A)
    assert json.loads(rescored.stdout)["protocol"]["protocol_sha256"].startswith("9dd1a576")


def test_qrels_import_non_exhaustive_writes_nothing(tmp_path):
    trec = tmp_path / "partial.txt"
    trec.write_text("q2 0 d3 1\nq2 0 d4 1\n")
    out = tmp_path / "qrels.toml"
    line = assert_one_line_error(
        run_cli("qrels", "import", SEED, trec, "-o", out), "not exhaustive", "28 of 30 pairs unjudged", "first: q1/d1"
    )
    assert str(trec) in line and not out.exists()


def test_qrels_import_graded_needs_threshold(tmp_path):
    lines = run_cli("qrels", "export", SEED).stdout.replace("q3 0 d5 1", "q3 0 d5 3")
    trec = tmp_path / "graded.txt"
    trec.write_text(lines)
    assert_one_line_error(run_cli("qrels", "import", SEED, trec), "graded label 3", "--threshold")
    out = tmp_path / "qrels.toml"
    result = run_cli("qrels", "import", SEED, trec, "--threshold", "2", "-o", out)
    assert result.returncode == 0, result.stderr
    data = tomllib.loads(out.read_text())
    assert data["provenance"]["threshold"] == 2 and data["qrels"]["q3"]["d5"] == 1
    assert data["qrels"]["q2"]["d3"] == 0  # a 1 below the threshold of 2 is mapped to 0, as stated


def test_run_export(tmp_path):
    out = tmp_path / "B.trec"
    result = run_cli("run", "export", SEED, B, "--format", "trec", "-o", out)
    assert result.returncode == 0, result.stderr
    assert "warning:" in result.stderr and "'q5' has an empty ranking" in result.stderr
    assert out.read_text().splitlines()[0] == "q2 Q0 d1 1 3 fixture_B"
    scored = run_cli("score", SEED, "--run", f"B={out}", "--format", "json")
    assert scored.returncode == 0 and "warning" not in scored.stderr
    assert json.loads(scored.stdout)["runs"]["B"]["mrr_at_k"] == "5/6"
    assert_one_line_error(run_cli("run", "export", SEED, EMPTY, "-o", tmp_path / "E.trec"), "ranks no document")
    assert not (tmp_path / "E.trec").exists()


def test_unwritable_step_summary_is_a_warning_and_keeps_the_gates_exit_code(tmp_path):
    """Issue 15: the summary is a convenience; a passing gate stays 0 (it was exit 2 before)."""
    result = run_cli(
        "score",
        SEED,
        "--run",
        A,
        "--run",
        B,
        "--baseline",
        "fixture_A",
        "--fail-on-regression",
        env={"GITHUB_STEP_SUMMARY": str(tmp_path / "no-such-dir" / "summary.md")},
    )
    assert result.returncode == 0, result.stderr
    assert "fixture_B" in result.stdout and "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("warning: step summary not written: ") and "no-such-dir" in line
