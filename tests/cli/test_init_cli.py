"""``rankeval-tui init`` end to end (subprocess): formats, partial labels, failures writing
nothing, IDs of every form through init -> TOML -> score -> TREC export, sampling, pooling."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.tomlio import read_toml
from tests.cli.helpers import REPO, assert_one_line_error, run_cli

DATA = REPO / "tests" / "data" / "own_data"
FORMATS = DATA / "formats"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def init(target: Path, *args: str | Path):
    return run_cli("init", target, *args)


def assert_nothing_written(parent: Path, name: str) -> None:
    assert not (parent / name).exists()
    assert not list(parent.glob(f".{name}.init-*")), "staging directory left behind"


def test_docs_folder_with_partial_qrels_and_two_run_formats(tmp_path):
    target = tmp_path / "help"
    result = init(
        target,
        *("--corpus", DATA / "help-docs", "--queries", DATA / "queries.tsv", "--qrels", DATA / "qrels.trec"),
        *("--run", DATA / "bm25.trec", "--run", f"dense={DATA / 'dense.tsv'}", "--k", "2"),
    )
    assert result.returncode == 0, result.stderr
    assert "3 imported, 12 of 15 pairs to judge" in result.stdout
    assert f"next: rankeval-tui judge {target}" in result.stdout
    definition = load_definition(target)
    assert list(definition.documents) == [
        "docs/export.md",
        "docs/sync.md",
        "faq#3.txt",
        "wiki.Paris-2024.md",
        "文档/导出.md",
    ]
    assert definition.split == "test" and definition.k == 2 and definition.name == "help"
    assert sorted(p.name for p in (target / "runs").iterdir()) == ["bm25.trec", "dense.tsv"]
    assert (target / "runs" / "dense.tsv").read_bytes() == (DATA / "dense.tsv").read_bytes()
    qrels = read_toml(target / "qrels.toml")
    # exactly the three imported pairs: every other pair is a hole, none became 0
    assert qrels["qrels"] == {"q:1001": {"docs/export.md": 1, "docs/sync.md": 0}, "q:1002": {"docs/sync.md": 1}}
    assert qrels["provenance"]["imported_from"] == str(DATA / "qrels.trec")
    assert qrels["provenance"]["imported_labels"] == 3
    assert "threshold" not in qrels["provenance"]
    provenance = definition.provenance
    assert provenance["corpus"]["format"] == "directory" and provenance["queries"]["format"] == "tsv"
    assert provenance["runs"] == {"bm25": str(DATA / "bm25.trec"), "dense": str(DATA / "dense.tsv")}


def test_refuses_an_existing_protocol_and_a_nonempty_directory(tmp_path):
    args = ("--corpus", DATA / "help-docs", "--queries", DATA / "queries.tsv", "--k", "2")
    assert init(tmp_path / "p", *args).returncode == 0
    before = (tmp_path / "p" / "protocol.toml").read_bytes()
    assert_one_line_error(init(tmp_path / "p", *args), "protocol.toml", "never overwrites")
    assert (tmp_path / "p" / "protocol.toml").read_bytes() == before
    (tmp_path / "busy").mkdir()
    write(tmp_path / "busy" / "notes.txt", "x")
    assert_one_line_error(init(tmp_path / "busy", *args), "busy", "not an empty directory")
    (tmp_path / "empty").mkdir()
    assert init(tmp_path / "empty", *args).returncode == 0


@pytest.mark.parametrize(
    ("files", "fragments"),
    [
        ({"qrels": "q:1001 0 docs/export.md 1\nq:1001 0 docs/export.md 0\n"}, ("labels.trec: line 2", "judged twice")),
        ({"qrels": "q:1001 0 docs/export.md 3\n"}, ("labels.trec: line 1", "--threshold")),
        (
            {"run": "q:1001 Q0 docs/export.md 1 2.0 t\nq:1001 Q0 docs/gone.md 2 1.0 t\n"},
            ("bm25.trec: line 2", "docs/gone.md", "not in the corpus"),
        ),
        (
            {"run": "q:1001 Q0 docs/export.md 1 2.0 t\nq:9999 Q0 docs/sync.md 1 1.0 t\n"},
            ("bm25.trec: line 2", "q:9999", "not in the queries file"),
        ),
        ({"queries": "q:1001\tExport?\nq:1001\tAgain?\n"}, ("my-queries.tsv: line 2", "duplicate query ID")),
    ],
)
def test_bad_input_is_one_line_naming_file_and_line_and_writes_nothing(tmp_path, files, fragments):
    queries = write(
        tmp_path / "my-queries.tsv", files.get("queries", (DATA / "queries.tsv").read_text(encoding="utf-8"))
    )
    args = ["--corpus", DATA / "help-docs", "--queries", queries, "--k", "2"]
    if "qrels" in files:
        args += ["--qrels", write(tmp_path / "labels.trec", files["qrels"])]
    if "run" in files:
        args += ["--run", write(tmp_path / "bm25.trec", files["run"])]
    assert_one_line_error(init(tmp_path / "new", *args), *fragments)
    assert_nothing_written(tmp_path, "new")


def test_ambiguous_corpus_writes_nothing(tmp_path):
    result = init(
        tmp_path / "new", "--corpus", FORMATS / "ambiguous_corpus.jsonl", "--queries", DATA / "queries.tsv", "--k", "1"
    )
    assert_one_line_error(result, "ambiguous_corpus.jsonl", "line 1", "ambiguous")
    assert_nothing_written(tmp_path, "new")


def test_beir_with_threshold_titles_and_a_txt_trec_run(tmp_path):
    target = tmp_path / "beir"
    result = init(
        target,
        *("--corpus", FORMATS / "beir_corpus.jsonl", "--queries", FORMATS / "beir_queries.jsonl"),
        *("--qrels", FORMATS / "beir_qrels.tsv", "--threshold", "2", "--run", FORMATS / "bm25.txt", "--k", "1"),
    )
    assert result.returncode == 0, result.stderr
    definition = load_definition(target)
    assert definition.titles == {"msmarco_v2.1_doc_00_12345": "Export to CSV", "faq#3": "Retrying downloads"}
    assert [p.name for p in (target / "runs").iterdir()] == ["bm25.trec"]  # .txt is no run suffix
    qrels = read_toml(target / "qrels.toml")
    assert qrels["qrels"] == {"q:1001": {"msmarco_v2.1_doc_00_12345": 1, "faq#3": 0}, "q:1002": {"wiki.Paris-2024": 0}}
    assert qrels["provenance"]["threshold"] == 2 and qrels["provenance"]["format"] == "beir-tsv"
    assert definition.provenance["qrels"]["threshold"] == 2


def complete_trec_qrels(path: Path, relevant: set[tuple[str, str]], queries: list[str], documents: list[str]) -> Path:
    lines = [f"{q} 0 {d} {int((q, d) in relevant)}" for q in queries for d in documents]
    return write(path, "\n".join(lines) + "\n")


ODD_DOCS = ["msmarco_v2.1_doc_00_12345", "wiki.Paris-2024", "faq#3"]


def test_odd_ids_round_trip_init_toml_score_trec_export(tmp_path):
    qrels = complete_trec_qrels(
        tmp_path / "qrels.trec",
        {("q:1001", "msmarco_v2.1_doc_00_12345"), ("q:1002", "wiki.Paris-2024")},
        ["q:1001", "q:1002"],
        ODD_DOCS,
    )
    target = tmp_path / "odd"
    result = init(
        target,
        *("--corpus", FORMATS / "beir_corpus.jsonl", "--queries", FORMATS / "beir_queries.jsonl", "--qrels", qrels),
        *("--run", f"bm25={FORMATS / 'bm25.txt'}", "--run", FORMATS / "dense_msmarco.tsv", "--k", "1"),
    )
    assert result.returncode == 0, result.stderr
    score = run_cli("score", target, "--format", "json")
    assert score.returncode == 0, score.stderr
    data = json.loads(score.stdout)
    assert data["runs"]["bm25"]["recall_at_k"] == "1" and data["runs"]["dense_msmarco"]["recall_at_k"] == "1/2"
    assert [row["query"] for row in data["runs"]["bm25"]["rows"]] == ["q:1001", "q:1002"]
    exported = run_cli("qrels", "export", target)
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout == qrels.read_text(encoding="utf-8")
    run = run_cli("run", "export", target, "runs/dense_msmarco.tsv")
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[:2] == [
        "q:1001 Q0 faq#3 1 2 dense_msmarco",
        "q:1001 Q0 msmarco_v2.1_doc_00_12345 2 1 dense_msmarco",
    ]


def many_queries(path: Path, count: int) -> Path:
    return write(path, "".join(f"q:{1000 + i}\tquestion {i}\n" for i in range(count)))


def test_sampling_is_seeded_reproducible_and_recorded(tmp_path):
    queries = many_queries(tmp_path / "queries.tsv", 20)
    args = ("--corpus", DATA / "help-docs", "--queries", queries, "--k", "2", "--sample-queries", "5")
    assert init(tmp_path / "a", *args, "--seed", "7").returncode == 0
    assert init(tmp_path / "b", *args, "--seed", "7").returncode == 0
    assert init(tmp_path / "c", *args, "--seed", "8").returncode == 0
    a, b, c = (list(load_definition(tmp_path / n).queries) for n in "abc")
    assert a == b and len(a) == 5 and a != c
    all_ids = [f"q:{1000 + i}" for i in range(20)]
    assert set(a) == set(random.Random(7).sample(all_ids, 5))  # the documented rule
    assert a == [q for q in all_ids if q in set(a)]  # file order kept
    recorded = load_definition(tmp_path / "a").provenance["queries"]
    assert (recorded["sample_size"], recorded["seed"], recorded["queries_read"]) == (5, 7, 20)
    assert_one_line_error(init(tmp_path / "d", *args), "--seed")
    assert_nothing_written(tmp_path, "d")


def test_union_pool_depth_keeps_runs_top_d_and_labelled_documents(tmp_path):
    """The union-corpus alternative (--pool-depth was this before per-query pools, issue 29)."""
    target = tmp_path / "pool"
    result = init(
        target,
        *("--corpus", DATA / "help-docs", "--queries", DATA / "queries.tsv", "--qrels", DATA / "qrels.trec"),
        *("--run", DATA / "bm25.trec", "--k", "1", "--union-pool-depth", "1"),
    )
    assert result.returncode == 0, result.stderr
    definition = load_definition(target)
    # bm25's top 1: docs/export.md (q:1001, q:1003), docs/sync.md (q:1002); labelled: the same two
    assert list(definition.documents) == ["docs/export.md", "docs/sync.md"]
    corpus = definition.provenance["corpus"]
    assert corpus["pool_depth"] == 1 and corpus["documents_read"] == 5 and "pool" in corpus["selection"]
    cut = json.loads((target / "runs" / "bm25.json").read_text(encoding="utf-8"))
    assert cut == {"q:1001": ["docs/export.md"], "q:1002": ["docs/sync.md"], "q:1003": ["docs/export.md"]}
    assert "cut" in result.stdout
    too_deep = init(
        tmp_path / "x",
        "--corpus",
        DATA / "help-docs",
        "--queries",
        DATA / "queries.tsv",
        "--run",
        DATA / "bm25.trec",
        "--k",
        "3",
        "--union-pool-depth",
        "2",
    )
    assert_one_line_error(too_deep, "--union-pool-depth 2 is below k 3")
    assert_nothing_written(tmp_path, "x")


def test_pool_depth_makes_per_query_pools_with_texts_from_the_corpus(tmp_path):
    target = tmp_path / "pooled"
    result = init(
        target,
        *("--corpus", DATA / "help-docs", "--queries", DATA / "queries.tsv", "--qrels", DATA / "qrels.trec"),
        *("--run", DATA / "bm25.trec", "--k", "1", "--pool-depth", "1"),
    )
    assert result.returncode == 0, result.stderr
    definition = load_definition(target)
    assert definition.kind == "pooled"
    labels = {q: [] for q in definition.queries}
    for line in (DATA / "qrels.trec").read_text().splitlines():
        query, _, doc, _ = line.split()
        labels[query].append(doc)
    bm25_top1 = {"q:1001": "docs/export.md", "q:1002": "docs/sync.md", "q:1003": "docs/export.md"}
    for query, pool in definition.pools.items():  # the labelled documents, then the runs' top 1
        assert pool == tuple(dict.fromkeys([*labels[query], bm25_top1[query]]))
    assert set(definition.documents) == definition.document_ids  # every pooled text read from the corpus
    assert definition.queries["q:1001"].text  # the queries file's texts


def test_run_covering_two_splits_scores_one_with_ignore_other_splits(tmp_path):
    documents = ODD_DOCS
    qrels = complete_trec_qrels(
        tmp_path / "qrels.trec", {("q:1001", "faq#3"), ("q:1002", "wiki.Paris-2024")}, ["q:1001", "q:1002"], documents
    )
    target = tmp_path / "splits"
    result = init(
        target,
        *("--corpus", FORMATS / "beir_corpus.jsonl", "--queries", FORMATS / "split_queries.jsonl", "--qrels", qrels),
        *("--run", FORMATS / "dense_msmarco.tsv", "--k", "1"),
    )
    assert result.returncode == 0, result.stderr
    assert load_definition(target).queries["q:1001"].split == "dev"
    assert_one_line_error(run_cli("score", target), "q:1001", "belongs to split 'dev'")
    scored = run_cli("score", target, "--ignore-other-splits", "--format", "json")
    assert scored.returncode == 0, scored.stderr
    report = json.loads(scored.stdout)["runs"]["dense_msmarco"]
    assert report["set_aside_queries"] == {"dev": 1} and report["total_queries"] == 1
    table = run_cli("score", target, "--ignore-other-splits")
    assert "set aside (--ignore-other-splits): 1 query of split 'dev'" in table.stdout
    markdown = run_cli("score", target, "--ignore-other-splits", "--format", "markdown")
    assert "1 query of split 'dev'" in markdown.stdout
    unknown = write(tmp_path / "unknown.tsv", "q:1002\tfaq#3\t1\nq:7777\tfaq#3\t1\n")
    assert_one_line_error(
        run_cli("score", target, "--ignore-other-splits", "--run", unknown), "q:7777", "not in the protocol"
    )


def test_notes_in_runs_are_skipped_with_a_notice_not_a_failure(seed_copy):
    write(seed_copy / "runs" / "notes.txt", "bm25 was tuned on dev\n")
    assert run_cli("score", seed_copy).returncode == 0
    validate = run_cli("validate", seed_copy)
    assert validate.returncode == 0, validate.stdout
    assert f"notice: {seed_copy / 'runs' / 'notes.txt'}: skipped, not a run" in validate.stdout


def test_adapt_output_is_a_run_score_accepts_with_the_hash_beside_it(tmp_path, seed_expected_chunk):
    seed = REPO / "protocols" / "help-docs-zh"
    out = tmp_path / "doc_run.json"
    result = run_cli(
        "adapt", seed, "--chunk-map", seed / "chunks/chunk_map.toml", seed / "chunks/chunk_run.json", "-o", out
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text(encoding="utf-8")) == seed_expected_chunk["document_runs"]
    sidecar = json.loads((tmp_path / "doc_run.json.provenance.json").read_text(encoding="utf-8"))
    assert sidecar["adapter_sha256"] == "d6706e72c8476072541a9ff6ec1ea1c86c4b7c58057b587db56acac24102cd12"
    assert sidecar["evidence"] == seed_expected_chunk["provenance"]
    scored = run_cli("score", seed, "--run", out, "--format", "json")
    assert scored.returncode == 0, scored.stderr
    report = json.loads(scored.stdout)["runs"]["doc_run"]
    expected = seed_expected_chunk["collapse_then_document_cutoff"]
    assert (report["recall_at_k"], report["mrr_at_k"]) == (expected["recall_at_2"], expected["mrr_at_2"])
    assert report["adapter_sha256"] == sidecar["adapter_sha256"]


@pytest.mark.parametrize(
    ("extra", "fragments"),
    [
        (("--threshold", "2"), ("--threshold needs --qrels",)),
        (("--seed", "3"), ("--seed is used with --sample-queries only",)),
        (("--pool-depth", "5"), ("--pool-depth needs at least one --run",)),
        (("--sample-queries", "4", "--seed", "1"), ("--sample-queries 4 is more than the 3 queries", "queries.tsv")),
        (
            ("--queries", FORMATS / "split_queries.jsonl", "--split", "train"),
            ("no query of split 'train' (the file has: dev, test)", "split_queries.jsonl"),
        ),
    ],
)
def test_option_errors_write_nothing(tmp_path, extra, fragments):
    result = init(
        tmp_path / "new", "--corpus", DATA / "help-docs", "--queries", DATA / "queries.tsv", "--k", "2", *extra
    )
    assert_one_line_error(result, *fragments)
    assert_nothing_written(tmp_path, "new")


def test_labels_of_queries_left_out_of_the_sample_are_counted_not_kept(tmp_path):
    target = tmp_path / "sample"
    result = init(
        target,
        *("--corpus", DATA / "help-docs", "--queries", DATA / "queries.tsv", "--qrels", DATA / "qrels.trec"),
        *("--k", "2", "--sample-queries", "1", "--seed", "0"),
    )
    assert result.returncode == 0, result.stderr
    (kept,) = load_definition(target).queries
    provenance = read_toml(target / "qrels.toml")["provenance"]
    in_file = {"q:1001": 2, "q:1002": 1, "q:1003": 0}
    assert provenance["imported_labels"] == in_file[kept]
    assert provenance.get("labels_outside_protocol", 0) == 3 - in_file[kept]


def test_grow_reads_the_formats_init_reads_and_keeps_titles_and_labels(tmp_path):
    target = tmp_path / "help"
    args = ("--corpus", DATA / "help-docs", "--queries", DATA / "queries.tsv", "--qrels", DATA / "qrels.trec")
    assert init(target, *args, "--k", "2").returncode == 0
    labels_before = read_toml(target / "qrels.toml")["qrels"]
    more_docs = write(
        tmp_path / "more.jsonl",
        '{"_id": "docs/sso.md", "title": "Single sign-on", "text": "Set up SSO under Settings > Security."}\n',
    )
    more_queries = write(tmp_path / "more.tsv", "q:1004\tHow do I set up SSO?\n")
    result = run_cli("grow", target, "--corpus", more_docs, "--queries", more_queries, "--split", "dev")
    assert result.returncode == 0, result.stderr
    assert "+1 documents, +1 queries" in result.stdout
    definition = load_definition(target)
    assert definition.titles == {"docs/sso.md": "Single sign-on"}
    assert definition.queries["q:1004"].split == "dev"
    assert read_toml(target / "qrels.toml")["qrels"] == labels_before  # every label kept, nothing filled
    changed = write(
        tmp_path / "retitled.jsonl",
        '{"_id": "docs/sso.md", "title": "SSO", "text": "Set up SSO under Settings > Security."}\n',
    )
    assert_one_line_error(run_cli("grow", target, "--corpus", changed), "docs/sso.md", "another text or title")
