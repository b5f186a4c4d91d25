"""The default baseline on the command line: the demo tells its story (fixture_A -> fixture_B)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import assert_one_line_error, run_cli


def test_the_demo_compares_fixture_b_with_fixture_a_without_flags() -> None:
    result = run_cli("score")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "baseline fixture_A (runs/BASELINE)" in out
    assert "fixture_B vs baseline fixture_A" in out and "all_empty vs baseline fixture_A" in out
    assert "vs baseline all_empty" not in out
    q2 = next(line for line in out[out.index("fixture_B vs") :].splitlines() if line.startswith("q2 "))
    assert q2.split()[-1] == "WORSE"  # the regression the README is about


def test_the_demo_json_names_the_baseline_and_its_source() -> None:
    result = run_cli("score", "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["baseline"] == {"run": "fixture_A", "source": "runs/BASELINE"}
    assert [(c["baseline"], c["candidate"]) for c in data["comparisons"]] == [
        ("fixture_A", "all_empty"),
        ("fixture_A", "fixture_B"),
    ]
    assert data["protocol"]["protocol_sha256"].startswith("9dd1a576")  # BASELINE is not part of the hash


def test_baseline_flag_wins_and_is_named() -> None:
    result = run_cli("score", "--baseline", "fixture_B", "--format", "json")
    assert json.loads(result.stdout)["baseline"] == {"run": "fixture_B", "source": "--baseline"}


def test_without_the_file_the_first_run_with_results(seed_copy: Path) -> None:
    (seed_copy / "runs" / "BASELINE").unlink()
    out = run_cli("score", seed_copy).stdout
    assert "baseline fixture_A (first run with results; all_empty empty for every query)" in out
    given = run_cli("score", seed_copy, "--run", "runs/fixture_B.json", "--run", "runs/fixture_A.json").stdout
    assert "baseline fixture_B (first run)" in given and "fixture_A vs baseline fixture_B" in given


def test_one_run_has_no_baseline_line() -> None:
    result = run_cli("score", "--run", "runs/fixture_B.json")
    assert result.returncode == 0 and "baseline fixture_" not in result.stdout and " vs baseline " not in result.stdout


def test_a_file_naming_an_unknown_run_is_one_error_line(seed_copy: Path) -> None:
    (seed_copy / "runs" / "BASELINE").write_text("fixture_C\n", encoding="utf-8")
    for command in (("score", seed_copy), ("score", seed_copy, "--format", "json"), ("inspect", seed_copy)):
        assert_one_line_error(
            run_cli(*command), str(seed_copy / "runs" / "BASELINE"), "'fixture_C'", "not one of the runs"
        )


def test_inspect_refuses_an_unknown_baseline_before_the_app(seed_copy: Path) -> None:
    assert_one_line_error(
        run_cli("inspect", seed_copy, "--baseline", "fixture_C"), "--baseline 'fixture_C' is not one of the runs"
    )


def test_demo_copies_the_baseline_file_and_validate_does_not_flag_it(tmp_path: Path) -> None:
    target = tmp_path / "my-demo"
    assert run_cli("demo", target).returncode == 0
    assert (target / "runs" / "BASELINE").read_text(encoding="utf-8").strip() == "fixture_A"
    (target / "runs" / "notes.txt").write_text("tried k=5\n", encoding="utf-8")
    validate = run_cli("validate", target)
    assert validate.returncode == 0, validate.stderr
    assert "notes.txt: skipped, not a run" in validate.stdout  # the notice still works ...
    assert "runs/BASELINE" not in validate.stdout + validate.stderr  # ... but BASELINE is no stray file
    assert "baseline fixture_A (runs/BASELINE)" in run_cli("score", target).stdout
