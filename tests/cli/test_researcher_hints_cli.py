"""What a researcher hit bringing classic collections: a run whose query IDs miss the qrels'
(``01`` against ``1``) is warned about by init and score, naming an ID of each side; the charts of
other cutoffs do not advertise ``--test`` when it was given (statistics are computed at k)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.helpers import REPO, run_cli

CACM = REPO / "tests" / "data" / "collections" / "cacm"
SEED = REPO / "protocols" / "help-docs-zh"


def test_query_ids_that_miss_the_qrels_are_named_by_init_and_score(tmp_path: Path) -> None:
    zeros = tmp_path / "zeros.run"
    zeros.write_text("".join("0" + line for line in (CACM / "bm25.run").read_text().splitlines(keepends=True)))
    made = run_cli(
        "init", tmp_path / "p", "--qrels", CACM / "qrels.trec", "--run", zeros, "--k", "10", "--unlisted-as-zero"
    )
    assert made.returncode == 0, made.stderr
    warning = (
        "warning: run 'zeros': 0 of its 52 query IDs are among the 52 judged queries' (the run has '01', "
        "the qrels '1'): check the IDs (leading zeros, prefixes) before reading its scores"
    )
    assert warning in made.stderr.splitlines()
    scored = run_cli("score", tmp_path / "p")
    assert scored.returncode == 0, scored.stderr
    assert warning in scored.stderr.splitlines()
    matching = run_cli("init", tmp_path / "q", "--qrels", CACM / "qrels.trec", "--run", CACM / "bm25.run", "--k", "10")
    assert matching.returncode == 0 and "warning" not in matching.stderr


def test_other_cutoffs_charts_say_the_ci_is_at_k_when_test_was_given() -> None:
    given = run_cli("score", SEED, "--metrics", "R@1,R@2", "--baseline", "fixture_A", "--test", "bootstrap")
    assert given.returncode == 0, given.stderr
    at_k1 = given.stdout.split("k 1  queries")[1]
    assert "CI: at k=2 only (--test)" in at_k1 and "CI: --test bootstrap" not in at_k1
    without = run_cli("score", SEED, "--metrics", "R@1,R@2", "--baseline", "fixture_A")
    assert "CI: --test bootstrap" in without.stdout.split("k 1  queries")[1]


def test_a_full_run_under_a_sampled_protocol_is_refused_saying_how_to_cut_it(tmp_path: Path) -> None:
    made = run_cli(
        "init", tmp_path / "s", "--qrels", CACM / "qrels.trec", "--run", CACM / "bm25.run", "--k", "10",
        "--unlisted-as-zero", "--sample-queries", "5", "--seed", "1",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    for command in (
        ("score", tmp_path / "s", "--run", CACM / "bm25.run"),
        ("grow", tmp_path / "s", "--gap", CACM / "bm25.run"),
    ):
        refused = run_cli(*command)
        assert refused.returncode == 2 and "Traceback" not in refused.stderr
        assert "not in the protocol; this protocol keeps a sample of 5 queries (init --sample-queries" in refused.stderr


def test_validate_keeps_declared_zeros_apart_from_labels(tmp_path: Path) -> None:
    made = run_cli(
        "init", tmp_path / "d", "--qrels", CACM / "qrels.trec", "--run", CACM / "bm25.run", "--k", "10",
        "--pool-depth", "10", "--unlisted-as-zero",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    listed: dict[str, set[str]] = {}
    for line in (CACM / "qrels.trec").read_text().splitlines():
        query, _, doc, _ = line.split()
        listed.setdefault(query, set()).add(doc)
    top: dict[str, list[str]] = {}
    for line in (CACM / "bm25.run").read_text().splitlines():
        query, _, doc, _, _, _ = line.split()
        top.setdefault(query, []).append(doc)
    declared = sum(1 for query, docs in top.items() for doc in docs[:10] if doc not in listed.get(query, set()))
    checked = run_cli("validate", tmp_path / "d")
    assert checked.returncode == 0, checked.stdout
    assert (
        f"unlisted: {declared} of {declared + 796} pairs without a label, each 0 by the collection's declaration "
        f"(unlisted_as_zero), kept apart from the 796 labelled; so is every pair outside the qrels"
    ) in checked.stdout.splitlines()
    assert "holes" not in checked.stdout


def test_grow_declares_unlisted_pairs_on_an_existing_protocol(tmp_path: Path) -> None:
    directory = tmp_path / "g"
    made = run_cli("init", directory, "--qrels", CACM / "qrels.trec", "--run", CACM / "bm25.run", "--k", "10")
    assert made.returncode == 0, made.stderr
    assert "383 top-10 pairs in 52 queries outside the pools" in run_cli("score", directory).stderr
    before = (directory / "qrels.toml").read_bytes()
    grown = run_cli("grow", directory, "--unlisted-as-zero")
    assert grown.returncode == 0, grown.stderr
    scored = run_cli("score", directory)
    assert scored.returncode == 0, scored.stderr
    assert "unlisted: 383 top-10 pairs of this run labelled 0 by the collection's declaration, not judged" in (
        scored.stdout.splitlines()
    )
    assert (directory / "qrels.toml").read_bytes() == before  # every label kept, none added
    markdown = run_cli("score", directory, "--format", "markdown").stdout  # the CI step summary's text
    assert "unlisted: 383 top-10 pairs of this run labelled 0 by the collection's declaration, not judged" in markdown
    again = run_cli("grow", directory, "--unlisted-as-zero")
    assert again.returncode == 0 and "nothing new" in again.stdout
    mixed = run_cli("grow", directory, "--unlisted-as-zero", "--gap", CACM / "bm25.run")
    assert mixed.returncode == 2 and "on its own" in mixed.stderr
    part = tmp_path / "part.trec"
    part.write_text("".join((CACM / "qrels.trec").read_text().splitlines(keepends=True)[:100]))
    imported = run_cli("qrels", "import", directory, part, "-o", tmp_path / "part.toml")
    assert imported.returncode == 0 and "100 judged pairs" in imported.stderr  # the rest: 0 by declaration
