"""Break the evaluator's and adapter's key rules one at a time; each mutant must be killed.

Each mutant replaces one unique anchor in a copy of the package, then runs the one named test
that guards that rule. The mutant counts as killed only if that test fails on an assertion
(exit 1, a FAILED line, no collection or import error): a crash is not evidence that the test
catches the bug. Exit 0 when every mutant is killed, 1 otherwise.

    python scripts/run_mutation_checks.py
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EVALUATE = "rankeval_tui/core/evaluation/evaluate.py"
RUN_CHECK = "rankeval_tui/core/evaluation/run_check.py"
ADAPTER = "rankeval_tui/core/evaluation/adapter.py"
METRICS = "tests/core/test_seed_metrics.py"
ADAPT_TESTS = "tests/core/test_seed_adapter.py"

# (name, file, anchor, replacement, test that must fail)
MUTANTS = [
    (
        "denominator_is_returned_queries",
        EVALUATE,
        "queries = protocol.selected_queries\n",
        "queries = tuple(query for query in protocol.selected_queries if query in run.rankings)\n",
        f"{METRICS}::test_missing_stays_denominator",
    ),
    (
        "no_cutoff",
        EVALUATE,
        "tops = list(map(itemgetter(slice(None, k)), rankings))",
        "tops = list(map(itemgetter(slice(None, None)), rankings))",
        f"{METRICS}::test_cutoff",
    ),
    (
        "accept_duplicates",
        RUN_CHECK,
        "if len(seen) != len(ranking):",
        "if False:",
        f"{METRICS}::test_duplicate_rejected",
    ),
    (
        "no_relevant_scores_zero",
        EVALUATE,
        "exact_ratio(found, size) if size else None",
        "exact_ratio(found, size) if size else zero",
        f"{METRICS}::test_no_relevant_explicit",
    ),
    (
        "hit_rate_as_recall",
        EVALUATE,
        "exact_ratio(found, size) if size",
        "exact_ratio(min(found, 1), 1) if size",
        f"{METRICS}::test_recall_not_hit_rate",
    ),
    (
        "sort_document_ids",
        ADAPTER,
        'document_runs[query] = [row["document_id"] for row in documents]',
        'document_runs[query] = sorted(row["document_id"] for row in documents)',
        f"{ADAPT_TESTS}::test_first_occurrence_not_sorted_document_id",
    ),
    (
        "allow_duplicate_chunk",
        ADAPTER,
        "if len(set(ranking)) != len(ranking):",
        "if False:",
        f"{ADAPT_TESTS}::test_duplicate_chunk_after_document_cutoff_rejected",
    ),
    (
        "ignore_unused_bad_mapping",
        ADAPTER,
        "if doc not in corpus:",
        "if False:",
        f"{ADAPT_TESTS}::test_mapping_outside_corpus_rejected_even_if_unused",
    ),
    (
        "fabricate_missing_query",
        ADAPTER,
        "    return Adaptation(adapter_sha256(chunk_to_doc)",
        "    document_runs.update({q: [] for q, m in queries.items() if m['split'] == split and q not in document_runs})\n"
        "    return Adaptation(adapter_sha256(chunk_to_doc)",
        f"{ADAPT_TESTS}::test_missing_and_empty_stay_different",
    ),
    (
        "overwrite_first_occurrence",
        ADAPTER,
        "if doc not in documents:",
        "if True:",
        f"{ADAPT_TESTS}::test_nonadjacent_parent_repeats_collapse",
    ),
]


def copy_project(target: Path) -> None:
    for name in ("rankeval_tui", "tests", "protocols"):
        shutil.copytree(
            REPO / name,
            target / name,
            symlinks=True,
            ignore=shutil.ignore_patterns("__pycache__", "__snapshots__", "snapshots"),
        )
    shutil.copy(REPO / "pyproject.toml", target / "pyproject.toml")


def run_mutant(name: str, file: str, anchor: str, replacement: str, test: str) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"mutant-{name}-") as tmp:
        work = Path(tmp)
        copy_project(work)
        source = (work / file).read_text(encoding="utf-8")
        if source.count(anchor) != 1:
            raise SystemExit(f"mutation anchor for {name} is not unique in {file} (found {source.count(anchor)})")
        (work / file).write_text(source.replace(anchor, replacement, 1), encoding="utf-8")
        # -I would drop the cwd; instead check below that the mutated copy is the one imported.
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", test]
        process = subprocess.run(
            command, cwd=work, capture_output=True, text=True, env={"PYTHONPATH": str(work), "PATH": "/usr/bin:/bin"}
        )
        imported = subprocess.run(
            [sys.executable, "-c", "import rankeval_tui; print(rankeval_tui.__file__)"],
            cwd=work,
            capture_output=True,
            text=True,
            env={"PYTHONPATH": str(work)},
        ).stdout
        killed = (
            process.returncode == 1
            and "1 failed" in process.stdout
            and " error" not in process.stdout
            and imported.startswith(str(work))
        )
        return {
            "mutation": name,
            "test": test,
            "killed": killed,
            **({} if killed else {"output": process.stdout[-2000:] + process.stderr[-2000:]}),
        }


def control_passes() -> bool:
    """The named tests pass on an unmutated copy; otherwise a 'kill' would prove nothing."""
    with tempfile.TemporaryDirectory(prefix="mutant-control-") as tmp:
        work = Path(tmp)
        copy_project(work)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *(m[-1] for m in MUTANTS)]
        process = subprocess.run(command, cwd=work, capture_output=True, text=True, env={"PYTHONPATH": str(work)})
        return process.returncode == 0


def main() -> int:
    if not control_passes():
        print("control failed: the named tests do not pass on the unmutated code", file=sys.stderr)
        return 1
    results = [run_mutant(*mutant) for mutant in MUTANTS]
    print(json.dumps(results, indent=2))
    survivors = [r["mutation"] for r in results if not r["killed"]]
    print(
        f"{len(results) - len(survivors)} of {len(results)} mutants killed"
        + (f"; survivors: {', '.join(survivors)}" if survivors else ""),
        file=sys.stderr,
    )
    return 1 if survivors else 0


if __name__ == "__main__":
    raise SystemExit(main())
