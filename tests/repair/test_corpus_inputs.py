"""Issue 30 H, I, J, O: what init and grow read from a corpus is refused in one clear line or
listed as skipped with the reason, never a traceback, never silently dropped."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.folder_walk import walk_folder
from tests.cli.helpers import REPO, assert_one_line_error, run_cli
from tests.partial_protocol import write_partial_protocol

DATA = REPO / "tests" / "data" / "own_data"
QUERIES = ("--queries", str(DATA / "queries.tsv"), "--k", "2")


def folder_corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "docs"
    shutil.copytree(DATA / "help-docs", corpus)
    return corpus


def jsonl(tmp_path: Path, line: str, name: str = "corpus.jsonl") -> Path:
    path = tmp_path / name
    path.write_text('{"id": "docs/ok.md", "text": "fine"}\n' + line + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "line",
    [
        '{"id": "docs/bad\\ud800.md", "text": "x"}',
        '{"id": "docs/bad.md", "text": "half a pair \\udc00 here"}',
        '{"id": "docs/bad.md", "text": "x", "title": "\\ud83d"}',
    ],
)
def test_a_lone_surrogate_in_a_jsonl_corpus_is_refused_before_anything_is_written(tmp_path: Path, line: str) -> None:
    corpus = jsonl(tmp_path, line)
    assert_one_line_error(
        run_cli("init", tmp_path / "p", "--corpus", corpus, *QUERIES), f"{corpus}: line 2", "lone surrogate"
    )
    assert not (tmp_path / "p").exists() and not list(tmp_path.glob(".p.init-*"))


def test_a_lone_surrogate_in_a_query_need_is_refused(tmp_path: Path) -> None:
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"id": "q:1001", "text": "export", "need": "csv \\ud800"}\n', encoding="utf-8")
    result = run_cli("init", tmp_path / "p", "--corpus", DATA / "help-docs", "--queries", queries, "--k", "2")
    assert_one_line_error(result, f"{queries}: line 1", "lone surrogate")
    assert not (tmp_path / "p").exists()


def test_grow_refuses_a_lone_surrogate_and_writes_nothing(tmp_path: Path) -> None:
    protocol = write_partial_protocol(tmp_path / "help")
    before = (protocol / "protocol.toml").read_bytes()
    corpus = jsonl(tmp_path, '{"id": "docs/new.md", "text": "x \\ud800"}')
    assert_one_line_error(run_cli("grow", protocol, "--corpus", corpus), f"{corpus}: line 2", "lone surrogate")
    assert (protocol / "protocol.toml").read_bytes() == before


def test_a_document_whose_file_name_is_not_utf8_is_refused(tmp_path: Path) -> None:
    corpus = folder_corpus(tmp_path)
    (corpus / os.fsdecode(b"caf\xe9.md")).write_text("Caf\u00e9 opening hours.", encoding="utf-8")
    result = run_cli("init", tmp_path / "p", "--corpus", corpus, *QUERIES)
    assert_one_line_error(result, "file name caf\\xe9.md is not valid UTF-8", "rename the file")
    assert not (tmp_path / "p").exists()


def test_a_skipped_non_utf8_file_name_prints_on_a_strict_utf8_stdout(tmp_path: Path) -> None:
    corpus = folder_corpus(tmp_path)
    (corpus / os.fsdecode(b"logo\xff.png")).write_bytes(b"\x89PNG")
    result = run_cli(
        "init",
        tmp_path / "p",
        "--corpus",
        corpus,
        *QUERIES,
        env={"PYTHONIOENCODING": "utf-8:strict", "LC_ALL": "C.UTF-8"},
    )
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert f"corpus {corpus}: skipped logo\\xff.png (not .md or .txt)" in result.stdout


def test_a_folder_1500_levels_deep_is_walked_without_recursion_error(tmp_path: Path) -> None:
    corpus = folder_corpus(tmp_path)
    fd = os.open(corpus, os.O_RDONLY)
    for _ in range(1500):  # one level at a time (dir_fd): no path-length or recursion limit here
        os.mkdir("d", dir_fd=fd)
        fd, parent = os.open("d", os.O_RDONLY, dir_fd=fd), fd
        os.close(parent)
    os.close(os.open("scan.png", os.O_CREAT | os.O_WRONLY, dir_fd=fd))
    os.close(fd)
    try:
        result = run_cli("init", tmp_path / "p", "--corpus", corpus, *QUERIES)
        assert result.returncode == 0 and "RecursionError" not in result.stderr, result.stderr[-300:]
        assert "/".join(["d"] * 1500) + "/scan.png (not .md or .txt)" in result.stdout
    finally:
        remove_deep(corpus / "d")


def remove_deep(top: Path) -> None:
    """rmtree recurses once per level: 1,500 levels are removed from the bottom up instead."""
    levels = [top]
    while (levels[-1] / "d").is_dir():
        levels.append(levels[-1] / "d")
    for level in reversed(levels):
        for child in level.iterdir():
            if not child.is_dir():
                child.unlink()
        level.rmdir()


def test_fifos_dangling_links_and_unreadable_folders_are_listed_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = folder_corpus(tmp_path)
    os.mkfifo(corpus / "pipe.md")
    os.symlink(corpus / "missing.md", corpus / "gone.md")
    (corpus / "private").mkdir()
    (corpus / "private" / "secret.md").write_text("secret", encoding="utf-8")
    real_scandir = os.scandir

    def scandir(path):  # as for a folder without read permission (the tests may run as root)
        if Path(path).name == "private":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    skipped = dict(walk_folder(corpus, (".md", ".txt")).skipped)
    assert skipped["pipe.md"] == "not a regular file (a FIFO, socket or device)"
    assert skipped["gone.md"] == "a link to nothing"
    assert skipped["private"] == "folder not readable: Permission denied"
    monkeypatch.undo()
    result = run_cli("init", tmp_path / "p", "--corpus", corpus, *QUERIES, "--name", "help")
    assert result.returncode == 0, result.stderr
    assert (
        "skipped pipe.md (not a regular file" in result.stdout
        and "skipped gone.md (a link to nothing)" in result.stdout
    )


def test_grow_lists_the_files_it_skips(tmp_path: Path) -> None:
    protocol = write_partial_protocol(tmp_path / "help")
    corpus = tmp_path / "new-docs"
    corpus.mkdir()
    (corpus / "sso.md").write_text("Set up SSO under Settings.", encoding="utf-8")
    (corpus / "diagram.png").write_bytes(b"\x89PNG")
    os.mkfifo(corpus / "pipe.md")
    result = run_cli("grow", protocol, "--corpus", corpus)
    assert result.returncode == 0, result.stderr
    assert f"notice: corpus {corpus}: skipped diagram.png (not .md or .txt)" in result.stdout
    assert f"notice: corpus {corpus}: skipped pipe.md (not a regular file" in result.stdout
    assert "sso.md" in load_definition(protocol).documents


def test_init_refuses_a_run_with_a_repeated_document_in_one_line(tmp_path: Path) -> None:
    run = tmp_path / "dense.json"  # a JSON run: its reader does not look for repeats, check_run does
    run.write_text('{"q:1001": ["docs/export.md", "docs/sync.md", "docs/export.md"]}\n', encoding="utf-8")
    result = run_cli("init", tmp_path / "p", "--corpus", DATA / "help-docs", *QUERIES, "--run", run)
    assert_one_line_error(result, f"{run}", "query 'q:1001', document 'docs/export.md'", "duplicate document ID")
    assert not (tmp_path / "p").exists()
