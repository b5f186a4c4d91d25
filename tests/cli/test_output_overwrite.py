"""``-o`` never replaces a file silently (a user walkthrough: ``qrels export P -o P/protocol.toml``
exited 0 and destroyed the protocol).

For every command with ``-o``: an existing file is refused (exit 2, one ``error:`` line naming
it and ``--force``, the file byte-identical) and ``--force`` replaces it; the protocol's own
inputs (protocol.toml, qrels.toml, runs/*, chunks/*) and the command's inputs are refused even
with ``--force``, except what the command exists to write (qrels import, merge, adjudicate:
PROTOCOL/qrels.toml; adapt: an adapted run in runs/). The protocol here uses realistic IDs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomli_w

from rankeval_tui.core.annotation.adjudication import AdjudicationSession
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.tomllib_compat import tomllib  # tomli on Python 3.10
from tests.cli.helpers import assert_one_line_error, run_cli

QUERIES = {"q:1001": "how do I export a page as Markdown?", "q:1002": "how do I import a CSV file?"}
DOCUMENTS = {
    "docs/export.md": "Export: choose File > Export and pick Markdown.",
    "docs/import.md": "Import: choose File > Import and pick a CSV file.",
    "docs/sync.md": "Sync: turn off automatic sync to sync by hand.",
}
LABELS = {
    "q:1001": {"docs/export.md": 1, "docs/import.md": 0, "docs/sync.md": 0},
    "q:1002": {"docs/export.md": 0, "docs/import.md": 1, "docs/sync.md": 0},
}
OLD = b"old contents, q:1001 docs/export.md\n"


@pytest.fixture()
def protocol(tmp_path: Path) -> Path:
    """A complete protocol: protocol.toml, exhaustive qrels.toml, two runs, a chunk map and chunk run."""
    root = tmp_path / "help-center"
    (root / "runs").mkdir(parents=True)
    (root / "chunks").mkdir()
    data = {
        "protocol": {"name": "help-center", "k": 2, "split": "test", "relevance": "1 if it answers the query"},
        "documents": {d: {"text": t} for d, t in DOCUMENTS.items()},
        "queries": {q: {"text": t, "split": "test"} for q, t in QUERIES.items()},
    }
    (root / "protocol.toml").write_text(tomli_w.dumps(data), encoding="utf-8")
    (root / "qrels.toml").write_text(tomli_w.dumps({"qrels": LABELS}), encoding="utf-8")
    runs = {"q:1001": ["docs/export.md", "docs/sync.md"], "q:1002": ["docs/sync.md", "docs/import.md"]}
    (root / "runs" / "bm25.json").write_text(json.dumps(runs), encoding="utf-8")
    (root / "runs" / "dense.trec").write_text(
        "q:1001 Q0 docs/export.md 1 2.0 dense\nq:1002 Q0 docs/import.md 1 2.0 dense\n", encoding="utf-8"
    )
    chunk_map = {"chunk_to_doc": {"docs/export.md#1": "docs/export.md", "docs/import.md#1": "docs/import.md"}}
    (root / "chunks" / "chunk_map.toml").write_text(tomli_w.dumps(chunk_map), encoding="utf-8")
    chunk_run = {"q:1001": ["docs/export.md#1"], "q:1002": ["docs/import.md#1", "docs/export.md#1"]}
    (root / "chunks" / "chunk_run.json").write_text(json.dumps(chunk_run), encoding="utf-8")
    return root


@pytest.fixture()
def inputs(tmp_path: Path, protocol: Path) -> dict[str, Path]:
    """Files outside the protocol the commands read: TREC qrels, a shard, two annotators' files."""
    trec = tmp_path / "qrels.trec"
    trec.write_text(
        "".join(f"{q} 0 {d} {rel}\n" for q, row in LABELS.items() for d, rel in row.items()), encoding="utf-8"
    )
    shard = tmp_path / "shard-alice.toml"
    shard.write_text((protocol / "qrels.toml").read_text(encoding="utf-8"), encoding="utf-8")
    bob = {q: dict(row) for q, row in LABELS.items()}
    bob["q:1001"]["docs/sync.md"] = 1
    alice_file = tmp_path / "qrels-alice.toml"
    alice_file.write_text(tomli_w.dumps({"provenance": {"annotator": "alice"}, "qrels": LABELS}), encoding="utf-8")
    bob_file = tmp_path / "qrels-bob.toml"
    bob_file.write_text(tomli_w.dumps({"provenance": {"annotator": "bob"}, "qrels": bob}), encoding="utf-8")
    return {"trec": trec, "shard": shard, "alice": alice_file, "bob": bob_file}


def command(name: str, protocol: Path, inputs: dict[str, Path], output: Path) -> list[str | Path]:
    chunks = protocol / "chunks"
    return {
        "qrels export": ["qrels", "export", protocol, "-o", output],
        "qrels import": ["qrels", "import", protocol, inputs["trec"], "-o", output],
        "run export": ["run", "export", protocol, "runs/bm25.json", "-o", output],
        "adapt": ["adapt", protocol, chunks / "chunk_run.json", "--chunk-map", chunks / "chunk_map.toml", "-o", output],
        "merge": ["merge", protocol, inputs["shard"], "-o", output],
        "adjudicate": ["adjudicate", protocol, inputs["alice"], inputs["bob"], "-o", output],
        "judge --adjudicate": ["judge", protocol, "--adjudicate", inputs["alice"], inputs["bob"], "-o", output],
    }[name]


WRITERS = ["qrels export", "qrels import", "run export", "adapt", "merge"]
APP_WRITERS = ["adjudicate", "judge --adjudicate"]  # they write from the app: a terminal is needed to finish


def files(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name", WRITERS + APP_WRITERS)
def test_an_existing_output_is_refused_and_left_byte_identical(tmp_path, protocol, inputs, name):
    out = tmp_path / "export.json"  # adapt wants .json; the others do not mind the name
    out.write_bytes(OLD)
    before = files(tmp_path)
    line = assert_one_line_error(run_cli(*command(name, protocol, inputs, out)), f"error: {out}: exists")
    assert line.endswith("pass --force to replace it")
    assert files(tmp_path) == before  # nothing written: no output, no sidecar, lock or journal


@pytest.mark.parametrize("name", WRITERS)
def test_force_replaces_an_existing_output(tmp_path, protocol, inputs, name):
    out = tmp_path / "export.json"
    out.write_bytes(OLD)
    result = run_cli(*command(name, protocol, inputs, out), "--force")
    assert result.returncode == 0, result.stderr
    assert out.read_bytes() != OLD and f"wrote {out}" in result.stderr


@pytest.mark.parametrize("name", APP_WRITERS)
def test_force_lets_adjudication_start_over_an_existing_output(tmp_path, protocol, inputs, name):
    """Past the overwrite rule the app needs a terminal; the file is still untouched (written at the end)."""
    out = tmp_path / "qrels-final.toml"
    out.write_bytes(OLD)
    assert_one_line_error(run_cli(*command(name, protocol, inputs, out), "--force"), "needs a terminal")
    assert out.read_bytes() == OLD


@pytest.mark.parametrize("name", WRITERS + APP_WRITERS)
def test_the_protocols_protocol_toml_is_refused_even_with_force(protocol, inputs, name):
    before = files(protocol)
    target = protocol / "protocol.toml"
    line = assert_one_line_error(
        run_cli(*command(name, protocol, inputs, target), "--force"),
        f"error: {target}: is the protocol.toml of protocol {protocol}",
        "even with --force",
    )
    assert "write to another file" in line
    assert files(protocol) == before


@pytest.mark.parametrize("name", ["qrels export", "run export"])
@pytest.mark.parametrize("target", ["qrels.toml", "runs/dense.trec", "runs/bm25.json", "chunks/chunk_map.toml"])
def test_exports_never_write_over_a_protocol_input(protocol, inputs, name, target):
    before = files(protocol)
    assert_one_line_error(
        run_cli(*command(name, protocol, inputs, protocol / target), "--force"),
        f"error: {protocol / target}: is ",  # runs/bm25.json is also the run that run export reads
        "even with --force",
    )
    assert files(protocol) == before


def test_run_export_over_another_run_is_refused(protocol, inputs):
    """The walkthrough's third case: ``run export P runs/bm25.json -o P/runs/dense.trec``."""
    target = protocol / "runs" / "dense.trec"
    before = target.read_bytes()
    for force in ((), ("--force",)):
        assert_one_line_error(
            run_cli("run", "export", protocol, "runs/bm25.json", "-o", target, *force),
            f"{target}: is a run of protocol {protocol} (in its runs/)",
        )
    assert target.read_bytes() == before


def test_run_export_may_add_a_new_file(tmp_path, protocol, inputs):
    out = tmp_path / "bm25.trec"
    result = run_cli("run", "export", protocol, "runs/bm25.json", "-o", out)
    assert result.returncode == 0, result.stderr
    assert out.read_text(encoding="utf-8").startswith("q:1001 Q0 docs/export.md 1 ")


@pytest.mark.parametrize("name", ["qrels import", "merge"])
def test_writing_the_protocols_qrels_needs_force_and_says_labels(protocol, inputs, name):
    """import and merge exist to write exhaustive labels (docs/formats.md, docs/annotators.md):
    PROTOCOL/qrels.toml is a valid target, but its labels are replaced only with --force."""
    target = protocol / "qrels.toml"
    target.write_text(target.read_text(encoding="utf-8") + "# hand-judged\n", encoding="utf-8")
    before = target.read_bytes()
    assert_one_line_error(
        run_cli(*command(name, protocol, inputs, target)),
        f"error: {target}: exists and holds the labels of protocol {protocol}; pass --force to replace them",
    )
    assert target.read_bytes() == before
    result = run_cli(*command(name, protocol, inputs, target), "--force")
    assert result.returncode == 0, result.stderr
    assert target.read_bytes() != before and tomllib.loads(target.read_text(encoding="utf-8"))["qrels"] == LABELS


@pytest.mark.parametrize("name", ["qrels import", "merge"])
def test_a_qrels_file_being_judged_is_refused_even_with_force(protocol, inputs, name):
    """An open judging journal writes PROTOCOL/qrels.toml when it finishes: importing or merging
    into it now would be silently undone (found reviewing the overwrite rule)."""
    target = protocol / "qrels.toml"
    journal = protocol / "qrels.toml.journal"
    journal.write_text('{"op": "start"}\n', encoding="utf-8")
    before = files(protocol)
    assert_one_line_error(
        run_cli(*command(name, protocol, inputs, target), "--force"),
        f"error: {target}: is being judged ({journal} is open): finish that judging or move its journal away first",
    )
    assert files(protocol) == before


def test_qrels_import_creates_a_missing_protocol_qrels_without_force(protocol, inputs):
    (protocol / "qrels.toml").unlink()
    result = run_cli("qrels", "import", protocol, inputs["trec"], "-o", protocol / "qrels.toml")
    assert result.returncode == 0, result.stderr
    assert run_cli("score", protocol).returncode == 0


@pytest.mark.parametrize("name", ["qrels import", "merge", "adjudicate"])
def test_a_file_the_command_reads_is_never_its_output(tmp_path, protocol, inputs, name):
    source = {"qrels import": inputs["trec"], "merge": inputs["shard"], "adjudicate": inputs["alice"]}[name]
    before = files(tmp_path)
    assert_one_line_error(
        run_cli(*command(name, protocol, inputs, source), "--force"),
        f"error: {source}: is ",
        "this command reads",
        "even with --force",
    )
    assert files(tmp_path) == before


def test_adapt_redoes_an_adapted_run_in_runs_only_with_force(protocol, inputs):
    out = protocol / "runs" / "adapted.json"
    args = command("adapt", protocol, inputs, out)
    assert run_cli(*args).returncode == 0
    sidecar = out.with_name("adapted.json.provenance.json")
    before = (out.read_bytes(), sidecar.read_bytes())
    assert_one_line_error(run_cli(*args), f"error: {out}: exists; pass --force to replace it")
    assert (out.read_bytes(), sidecar.read_bytes()) == before
    result = run_cli(*args, "--force")
    assert result.returncode == 0, result.stderr
    assert f"wrote {sidecar}" in result.stderr and f"wrote {out}" in result.stderr


def test_adapt_never_replaces_a_run_it_did_not_write(protocol, inputs):
    before = files(protocol)
    target = protocol / "runs" / "bm25.json"
    assert_one_line_error(
        run_cli(*command("adapt", protocol, inputs, target), "--force"), f"{target}: is a run of protocol"
    )
    assert files(protocol) == before


def test_adapt_refuses_an_existing_sidecar_alone(tmp_path, protocol, inputs):
    out = tmp_path / "adapted.json"
    sidecar = tmp_path / "adapted.json.provenance.json"
    sidecar.write_bytes(OLD)
    assert_one_line_error(run_cli(*command("adapt", protocol, inputs, out)), f"error: {sidecar}: exists")
    assert not out.exists() and sidecar.read_bytes() == OLD


def test_a_directory_is_not_an_output(tmp_path, protocol, inputs):
    assert_one_line_error(run_cli("qrels", "export", protocol, "-o", tmp_path, "--force"), "is a directory")


def test_resuming_an_adjudication_needs_no_force(tmp_path, protocol, inputs):
    """An -o file beside its adjudication journal is the job's own (written, then a decision changed)."""
    out = tmp_path / "qrels-final.toml"
    session = AdjudicationSession.open(load_definition(protocol), inputs["alice"], inputs["bob"], out, lock=False)
    session.decide(1, "docs/sync.md explains sync, not export")
    session.write()
    session.decide(0, "on second thought: sync is not export")
    session.close()  # the change is journaled only: the journal stays beside the written file
    assert out.exists() and out.with_name(out.name + ".adjudication.journal").exists()
    assert_one_line_error(run_cli(*command("adjudicate", protocol, inputs, out)), "needs a terminal")


def test_force_on_judge_without_adjudicate_is_a_usage_error(protocol):
    assert_one_line_error(run_cli("judge", protocol, "--force"), "--force applies to --adjudicate only")
