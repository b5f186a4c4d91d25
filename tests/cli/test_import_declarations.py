"""``qrels import --unlisted-as-zero`` and ``--relevant-from T``: a protocol made first, its
collection's qrels imported after, declares what those qrels mean exactly as ``init`` would have
(the same protocol hash, the same scores: the real Cystic Fibrosis collection, grades 0-8), and a
declaration that cannot stand is one line, exit 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import REPO, run_cli

CF = REPO / "tests" / "data" / "collections" / "cf"


def binary_protocol(tmp_path: Path, name: str = "P") -> Path:
    """A pooled protocol from CF's qrels, binarized at init (the path a user took before)."""
    directory = tmp_path / name
    made = run_cli(
        "init", directory, "--qrels", CF / "qrels.trec", "--run", CF / "bm25.run", "--k", "10", "--threshold", "1"
    )
    assert made.returncode == 0, made.stderr
    return directory


def score_json(directory: Path) -> dict:
    result = run_cli("score", directory, "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    report["protocol"].pop("name")
    for run in report["runs"].values():
        run.pop("source")
    return report


def test_import_declares_as_init_does(tmp_path: Path) -> None:
    later = binary_protocol(tmp_path)
    imported = run_cli(
        "qrels", "import", later, CF / "qrels.trec", "--relevant-from", "1", "--unlisted-as-zero",
        "-o", later / "qrels.toml", "--force",
    )  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    assert "unlisted_as_zero" in imported.stderr and "grades 0 to 8, relevant from 1" in imported.stderr
    at_init = tmp_path / "Q"
    made = run_cli(
        "init", at_init, "--qrels", CF / "qrels.trec", "--run", CF / "bm25.run", "--k", "10",
        "--relevant-from", "1", "--unlisted-as-zero",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    later_report, init_report = score_json(later), score_json(at_init)
    assert later_report["protocol"]["protocol_sha256"] == init_report["protocol"]["protocol_sha256"]
    assert later_report == init_report  # graded nDCG and the unlisted counts included
    assert later_report["protocol"]["unlisted_as_zero"] is True
    growth = (later / "protocol.toml").read_text()
    assert 'declared = "unlisted_as_zero,scale"' in growth  # recorded in [[provenance.growth]]
    # The default judging rule speaks of grades on a graded protocol, not of "1 = ...; 0 = ...".
    assert 'relevance = "the grade says how directly' in (at_init / "protocol.toml").read_text()


def test_a_declaration_already_made_is_not_made_again(tmp_path: Path) -> None:
    """Killed after protocol.toml was declared and before qrels.toml was written, the same
    import again writes the labels (and records no second declaration)."""
    directory = binary_protocol(tmp_path)
    assert run_cli("grow", directory, "--unlisted-as-zero").returncode == 0
    declared = (directory / "protocol.toml").read_bytes()
    again = run_cli("qrels", "import", directory, CF / "qrels.trec", "--unlisted-as-zero", "--threshold", "1",
                    "-o", directory / "qrels.toml", "--force")  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert "declared in" not in again.stderr
    assert (directory / "protocol.toml").read_bytes() == declared
    assert score_json(directory)["protocol"]["unlisted_as_zero"] is True


def test_refused_declarations_write_nothing(tmp_path: Path) -> None:
    directory = binary_protocol(tmp_path)
    graded = run_cli("qrels", "import", directory, CF / "qrels.trec", "--relevant-from", "1",
                     "-o", directory / "qrels.toml", "--force")  # fmt: skip
    assert graded.returncode == 0, graded.stderr
    before = {path.name: path.read_bytes() for path in directory.iterdir() if path.is_file()}
    cases = {
        ("--relevant-from", "2", "-o", "qrels.toml", "--force"): "a protocol's scale is declared once",
        ("--relevant-from", "1", "--annotator", "model:m", "-o", "m.toml"): "not with --annotator",
        ("--unlisted-as-zero", "--partial", "-o", "m.toml"): "not with --annotator, --partial",
        ("--unlisted-as-zero",): "give -o QRELS.toml",
        ("--grades", "a,b", "-o", "x.toml"): "give it with --relevant-from",
        ("--relevant-from", "1", "--threshold", "1", "-o", "qrels.toml", "--force"): "give one of them",
    }
    for options, rule in cases.items():
        argv = [str(directory / option) if option.endswith(".toml") else option for option in options]
        result = run_cli("qrels", "import", directory, CF / "qrels.trec", *argv)
        assert result.returncode == 2, (options, result.stderr)
        assert rule in result.stderr and result.stderr.count("\n") == 1, (options, result.stderr)
        assert "Traceback" not in result.stderr
    assert {path.name: path.read_bytes() for path in directory.iterdir() if path.is_file()} == before


def test_grades_above_the_named_words_are_refused(tmp_path: Path) -> None:
    directory = binary_protocol(tmp_path)
    before = (directory / "protocol.toml").read_bytes()
    result = run_cli("qrels", "import", directory, CF / "qrels.trec", "--relevant-from", "1", "--grades", "no,yes",
                     "-o", directory / "qrels.toml", "--force")  # fmt: skip
    assert result.returncode == 2
    assert "--grades names 2 grades (0 to 1) but the qrels hold grade 8" in result.stderr
    assert (directory / "protocol.toml").read_bytes() == before
