"""Issue 30, "Also": ``-o ... --force`` onto a FIFO, a device or a symbolic link, and links in a
docs folder given to ``init --corpus``.

The write is a rename onto the ``-o`` name, so ``--force`` replaced a link or a device node itself
with a regular file (as root it replaced /dev/full); it is refused now, even with ``--force``. In a
docs folder a linked ``.md`` leading outside was read while linked subfolders were skipped silently;
now every link is skipped, never followed, and named in a notice.
"""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

import pytest

from rankeval_tui.core.files import load_definition
from tests.cli.helpers import REPO, assert_one_line_error, run_cli
from tests.cli.test_output_overwrite import APP_WRITERS, WRITERS, command, inputs, protocol  # noqa: F401

DATA = REPO / "tests" / "data" / "own_data"


@pytest.mark.parametrize("special", ["fifo", "socket", "link", "dangling link"])
@pytest.mark.parametrize("name", WRITERS + APP_WRITERS)
def test_force_never_replaces_a_special_file_or_a_link(tmp_path, protocol, inputs, name, special):  # noqa: F811
    out = tmp_path / "export.json"
    kept = tmp_path / "kept.json"
    kept.write_bytes(b"the file the link points to\n")
    server = None
    if special == "fifo":
        os.mkfifo(out)
    elif special == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(out))
    else:
        out.symlink_to(kept if special == "link" else tmp_path / "nowhere.json")
    try:
        result = run_cli(*command(name, protocol, inputs, out), "--force")
    finally:
        if server is not None:
            server.close()
    what = {"fifo": "is a FIFO", "socket": "is a socket"}.get(special, "is a symbolic link")
    assert_one_line_error(result, str(out), what, "even with --force")
    assert out.is_symlink() if "link" in special else not out.is_file()
    assert kept.read_bytes() == b"the file the link points to\n"


def test_docs_folder_links_are_skipped_named_and_never_read(tmp_path: Path) -> None:
    corpus = tmp_path / "docs-folder"
    shutil.copytree(DATA / "help-docs", corpus)
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("the user's private notes\n", encoding="utf-8")
    (corpus / "docs" / "notes.md").symlink_to(secret)
    (corpus / "shared").symlink_to(secret.parent, target_is_directory=True)
    (corpus / "docs" / "same.md").symlink_to("export.md")  # inside the folder: still not followed
    target = tmp_path / "p"
    result = run_cli("init", target, "--corpus", corpus, "--queries", DATA / "queries.tsv", "--k", "2")
    assert result.returncode == 0, result.stderr
    for name in ("docs/notes.md", "shared", "docs/same.md"):
        assert f"skipped {name} (a symbolic link" in result.stdout, result.stdout
    documents = load_definition(target).documents
    assert {"docs/notes.md", "docs/same.md", "shared/secret.md"}.isdisjoint(documents)
    assert "docs/export.md" in documents
    assert "private notes" not in (target / "protocol.toml").read_text(encoding="utf-8")
