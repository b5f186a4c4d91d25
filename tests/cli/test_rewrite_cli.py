"""``validate`` names a protocol file in another TOML layout; ``rewrite`` puts it back in the
canonical one (the bytes the project writes), keeping every table and value."""

from __future__ import annotations

from pathlib import Path

from rankeval_tui.core.files.tomllib_compat import tomllib
from tests.cli.helpers import assert_one_line_error, run_cli
from tests.conftest import SEED_DIR


def test_a_qrels_file_in_another_layout_is_named_then_rewritten_to_the_seeds_bytes(seed_copy: Path) -> None:
    qrels = seed_copy / "qrels.toml"
    original = qrels.read_bytes()
    qrels.write_text(original.decode().replace(" = ", "="), encoding="utf-8")  # still the same TOML
    before = run_cli("validate", seed_copy)
    assert before.returncode == 0, before.stderr
    warning = [line for line in before.stdout.splitlines() if "canonical layout" in line]
    assert warning == [
        f"warning: {qrels}: valid TOML but not in the canonical layout ([qrels]), so slower to read: "
        f"rewrite it with `rankeval-tui rewrite {seed_copy}`"
    ]
    rewritten = run_cli("rewrite", seed_copy)
    assert rewritten.returncode == 0, rewritten.stderr
    assert f"rewrote {qrels} in the canonical layout" in rewritten.stdout
    assert qrels.read_bytes() == original
    assert not (seed_copy / "qrels.toml.lock").exists()
    assert "canonical layout" not in run_cli("validate", seed_copy).stdout


def test_a_file_already_canonical_is_left_as_it_is(seed_copy: Path) -> None:
    before = {name: (seed_copy / name).stat().st_mtime_ns for name in ("protocol.toml", "qrels.toml")}
    result = run_cli("rewrite", seed_copy)
    assert result.returncode == 0 and result.stdout.count("already in the canonical layout") == 2
    assert {name: (seed_copy / name).stat().st_mtime_ns for name in before} == before


def test_values_the_layout_has_no_place_for_are_refused_and_nothing_written(seed_copy: Path) -> None:
    qrels = seed_copy / "qrels.toml"
    text = qrels.read_text(encoding="utf-8").replace("d1 = 0", "d1 = 0.0", 1)
    qrels.write_text(text, encoding="utf-8")
    assert_one_line_error(run_cli("rewrite", seed_copy), "cannot be rewritten in the canonical layout")
    assert qrels.read_text(encoding="utf-8") == text
    assert tomllib.loads(text)["qrels"]["q1"]["d1"] == 0.0


def test_the_bundled_demo_is_never_rewritten() -> None:
    assert_one_line_error(run_cli("rewrite", SEED_DIR), "would modify the bundled demo")
