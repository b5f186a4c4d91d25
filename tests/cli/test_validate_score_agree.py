"""``validate`` and ``score`` give one verdict on every protocol: what ``score`` refuses,
``validate`` names as a problem (exit 2), with the same reason; what ``validate`` calls ok,
``score`` scores (exit 0).

The cases: every file of the fixed nasty corpus (tests/fuzz/corpus) put in place in a copy of
the demo, the hostile protocols of tests/security, and the cases where the two disagreed:
``runs/BASELINE`` naming a missing run, leading out of the protocol or nowhere, a ``runs/``
entry that is a link loop, a dangling link or a device, a label left after its pool was emptied.
One deliberate difference stays: a pooled run with top-k pairs outside the pools is a warning
of ``validate`` (exit 0: the gap is work, ``grow --gap`` adds it) and a refusal of ``score``
(tests/cli/test_pools_cli.py); no case here has one.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.cli.helpers import run_cli
from tests.fuzz.harness import DEMO, PLACE, cli_in_process
from tests.fuzz.test_fuzz_corpus import CASES
from tests.security import hostile
from tests.security.test_one_line_fields import exhaustive, pooled


def verdicts(protocol: Path) -> tuple[tuple[int, list[str]], tuple[int, list[str]]]:
    """(exit code, error lines) of ``validate`` and of ``score``, in process."""
    outcomes = []
    for command in ("validate", "score"):
        code, stdout, stderr = cli_in_process([command, str(protocol)])
        assert "Traceback" not in stderr
        errors = [line for line in (stdout + stderr).splitlines() if line.startswith("error:")]
        outcomes.append((code, errors))
    return outcomes[0], outcomes[1]


def assert_agree(protocol: Path) -> tuple[int, list[str]]:
    """Both ok (0), or both refuse (2) with score's one error among validate's."""
    (valid, problems), (scored, refusal) = verdicts(protocol)
    assert (valid == 0) == (scored == 0), (protocol, problems, refusal)
    if scored != 0:
        assert valid == 2 and scored == 2 and len(refusal) == 1, (problems, refusal)
        assert refusal[0] in problems or scored_holes(refusal[0]), (problems, refusal)
    return scored, refusal


def scored_holes(line: str) -> bool:
    """score's refusal of a qrels file with holes, which validate lists as holes, not problems."""
    return "unjudged" in line or "hole" in line


def copy_of_demo(tmp_path: Path) -> Path:
    target = tmp_path / "p"
    shutil.copytree(DEMO, target, ignore=shutil.ignore_patterns("*.journal", "*.lock"))
    return target


@pytest.mark.parametrize(
    ("kind", "name", "data"),
    [case for case in CASES if case[0] != "chunk_map"],  # neither command reads a chunk map unasked
    ids=[f"{k}/{n}" for k, n, _ in CASES if k != "chunk_map"],
)
def test_the_nasty_corpus(tmp_path: Path, kind: str, name: str, data: bytes) -> None:
    protocol = copy_of_demo(tmp_path)
    (protocol / PLACE[kind]).write_bytes(data)
    assert_agree(protocol)


@pytest.mark.parametrize("build", [hostile.build, lambda t: exhaustive(t.parent), lambda t: pooled(t.parent)])
def test_the_hostile_protocols(tmp_path: Path, build) -> None:
    assert_agree(build(tmp_path / "p"))


def baseline_cases(protocol: Path) -> dict[str, str]:
    """runs/BASELINE variants -> the reason both must give."""
    return {
        "missing run": "names run 'nothere', which is not one of the runs",
        "link out": "leading out of protocol directory",
        "dangling link": "is a symbolic link to 'nowhere', which does not exist",
    }


@pytest.mark.parametrize(("case", "reason"), list(baseline_cases(Path()).items()))
def test_a_baseline_file_score_refuses_is_a_problem_of_validate(tmp_path: Path, case: str, reason: str) -> None:
    protocol = copy_of_demo(tmp_path)
    baseline = protocol / "runs" / "BASELINE"
    baseline.unlink(missing_ok=True)
    if case == "missing run":
        baseline.write_text("nothere\n")
    elif case == "link out":
        outside = tmp_path / "outside.txt"
        outside.write_text("fixture_A\n")
        baseline.symlink_to(outside)
    else:
        baseline.symlink_to("nowhere")
    code, refusal = assert_agree(protocol)
    assert code == 2 and reason in refusal[0] and str(baseline) in refusal[0]


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ("loop", "is a symbolic link that loops (it never reaches a file)"),
        ("dangling", "is a symbolic link to 'nowhere', which does not exist"),
        ("fifo", "is a FIFO (named pipe), expected a regular file"),
        ("device", "is a character device, expected a regular file"),
    ],
)
def test_a_runs_entry_that_is_no_file_is_named(tmp_path: Path, entry: str, reason: str) -> None:
    """Skipped without a word by score before (validate said "extension not one of ...")."""
    protocol = copy_of_demo(tmp_path)
    path = protocol / "runs" / "odd.json"
    if entry == "loop":
        path.symlink_to("odd.json")
    elif entry == "dangling":
        path.symlink_to("nowhere")
    elif entry == "fifo":
        os.mkfifo(path)
    else:
        try:
            os.mknod(path, 0o600 | 0o020000, os.makedev(1, 3))  # a character device, as /dev/null
        except PermissionError:
            pytest.skip("making a device needs root")
    code, refusal = assert_agree(protocol)
    assert code == 2 and refusal == [f"error: {path}: {reason}"]


def test_a_label_left_after_its_pool_was_emptied_is_outside_the_pool(tmp_path: Path) -> None:
    """Not "not in the corpus": the corpus of a pooled protocol is its pools' union."""
    protocol = pooled(tmp_path)
    text = (protocol / "protocol.toml").read_text(encoding="utf-8")
    assert '\nq2 = "**FORGED**"\n' in text
    (protocol / "protocol.toml").write_text(text.replace('\nq2 = "**FORGED**"\n', '\nq2 = ""\n'), encoding="utf-8")
    code, refusal = assert_agree(protocol)
    assert code == 2 and "'**FORGED**': label outside the query's pool" in refusal[0]


def test_init_from_labels_names_grow_gap_for_a_run_score_would_refuse(tmp_path: Path) -> None:
    (tmp_path / "qrels.trec").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n")
    (tmp_path / "bm.trec").write_text("q1 Q0 d1 1 3 bm\nq1 Q0 dX 2 2 bm\nq2 Q0 d3 1 1 bm\n")
    target = tmp_path / "p"
    made = run_cli("init", target, "--qrels", tmp_path / "qrels.trec", "--run", tmp_path / "bm.trec", "--k", "2")
    assert made.returncode == 0, made.stderr
    command = f"rankeval-tui grow {target} --gap {target / 'runs' / 'bm.trec'}"
    assert made.stdout.splitlines()[-1] == f"next: {command} (score refuses bm.trec until then)"
    assert run_cli("score", target).returncode == 2
    assert run_cli(*command.split()[1:]).returncode == 0
