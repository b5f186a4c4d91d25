"""``rankeval-tui serve``: judging in a browser page, driven over textual-serve's websocket as a
browser does, checked on the files judging writes (journal, lock, qrels)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from rankeval_tui.core.files import load_definition, read_qrels_file
from tests.cli.helpers import REPO, assert_one_line_error, run_cli
from tests.partial_protocol import HOLES, IMPORTED, write_partial_protocol
from tests.served_page import START_SECONDS, journal_labels, judging_server, open_page

SCREEN_TITLE = "judging help-docs"


async def until_gone(path: Path) -> None:
    """The judge of a closed page ends and releases its lock (deadline: a loaded machine)."""
    deadline = time.monotonic() + START_SECONDS
    while path.exists():
        assert time.monotonic() < deadline, f"{path} still there: the closed page's judge did not end"
        await asyncio.sleep(0.05)


async def test_a_page_judges_a_closed_page_resumes_and_the_last_key_writes_the_qrels(tmp_path: Path) -> None:
    protocol = write_partial_protocol(tmp_path / "p")
    with judging_server(protocol, "--annotator", "alice", log=tmp_path / "serve.log") as served:
        url = served.url
        async with open_page(url) as page:
            await page.wait_for(SCREEN_TITLE)
            for key, recorded in (
                ("1", "recorded q:1001 / msmarco_v2.1_doc_00_12345 = 1"),
                ("0", "recorded q:1002 / docs/export.md = 0"),
            ):
                mark = page.mark
                await page.press(key)
                await page.wait_for(recorded, since=mark)
            # Shown as recorded: already in the journal, fsynced.
            assert journal_labels(protocol) == [
                ("q:1001", "msmarco_v2.1_doc_00_12345", 1),
                ("q:1002", "docs/export.md", 0),
            ]
        await until_gone(protocol / "qrels.toml.lock")  # closing the tab ended that judge

        async with open_page(url, width=140, height=40) as page:
            await page.wait_for("where you left off")
            judged = len(IMPORTED["q:1001"]) + len(IMPORTED["q:1002"]) + len(IMPORTED["q:1003"]) + 2
            while judged < 9:  # g: the next unjudged pair, 0: not relevant
                mark = page.mark
                await page.press("g")
                await page.press("0")
                judged += 1
                await page.wait_for(f"overall {judged}/9", since=mark)
            await page.wait_for("all 9 pairs judged: wrote qrels.toml")
            await page.press("q")
            await page.wait_closed()
        await until_gone(protocol / "qrels.toml.lock")

    labels = read_qrels_file(protocol / "qrels.toml", load_definition(protocol)).labels
    expected = {query: dict(docs) for query, docs in IMPORTED.items()}
    for query, doc in HOLES:
        expected[query][doc] = 0
    expected["q:1001"]["msmarco_v2.1_doc_00_12345"] = 1
    assert {query: dict(docs) for query, docs in labels.items()} == expected
    assert not (protocol / "qrels.toml.journal").exists()
    log = (tmp_path / "serve.log").read_text()
    assert "qrels.toml is complete (9 pairs)" in log, log  # the command's last line: the log, not the packets


async def test_a_second_page_shows_the_lock_error_and_other_sites_are_refused(tmp_path: Path) -> None:
    protocol = write_partial_protocol(tmp_path / "p")
    with judging_server(protocol, "--annotator", "alice", log=tmp_path / "serve.log") as served:
        url = served.url
        async with open_page(url) as first:
            await first.wait_for(SCREEN_TITLE)
            async with open_page(url) as second:
                await second.wait_for("locked: another rankeval-tui judge")
                await second.wait_for("reload this page")
                await second.press("q")
                await second.wait_closed()
            mark = first.mark
            await first.press("1")  # the first page still judges
            await first.wait_for("recorded q:1001 / msmarco_v2.1_doc_00_12345 = 1", since=mark)
        assert journal_labels(protocol) == [("q:1001", "msmarco_v2.1_doc_00_12345", 1)]

        async with aiohttp.ClientSession() as client:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await client.ws_connect(f"{url}/ws", headers={"Origin": "http://example.com"})
            assert refused.value.status == 403
            port = url.rsplit(":", 1)[1]
            with pytest.raises(aiohttp.WSServerHandshakeError) as rebound:  # DNS rebinding: a foreign name for us
                await client.ws_connect(f"{url}/ws", headers={"Host": f"attacker.example:{port}"})
            assert rebound.value.status == 403
    assert "locked" in (tmp_path / "serve.log").read_text()  # the error line is in the log too


@pytest.mark.parametrize("driver", ["textual.drivers.headless_driver:HeadlessDriver", "web"])
def test_only_the_web_driver_counts_as_a_display(tmp_path: Path, driver: str) -> None:
    """Another TEXTUAL_DRIVER (or a near miss) with a pipe for a terminal is still refused at once."""
    protocol = write_partial_protocol(tmp_path / "p")
    result = subprocess.run(
        [sys.executable, "-m", "rankeval_tui", "judge", str(protocol)],
        capture_output=True,
        text=True,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        timeout=60,
        env={**os.environ, "TEXTUAL_DRIVER": driver},
    )
    assert_one_line_error(result, "needs a terminal")
    assert not (protocol / "qrels.toml.lock").exists() and not (protocol / "qrels.toml.journal").exists()


def test_serve_refuses_a_bad_protocol_before_serving(tmp_path: Path) -> None:
    assert_one_line_error(run_cli("serve", tmp_path / "missing", "--port", "1"), "protocol directory not found")


async def test_a_killed_server_ends_its_judges_and_their_locks(tmp_path: Path) -> None:
    """Nothing tells the app its server died but the end of its stdin: it ends as after q."""
    protocol = write_partial_protocol(tmp_path / "p")
    with judging_server(protocol, log=tmp_path / "serve.log") as served:
        async with open_page(served.url) as page:
            await page.wait_for(SCREEN_TITLE)
            mark = page.mark
            await page.press("1")
            await page.wait_for("recorded q:1001 / msmarco_v2.1_doc_00_12345 = 1", since=mark)
            served.server.kill()
            served.server.wait()
            await until_gone(protocol / "qrels.toml.lock")
        deadline = time.monotonic() + START_SECONDS
        while still_running(served.server.pid):  # the judge, and the shell textual-serve started it in
            assert time.monotonic() < deadline, "the judge outlived its server"
            await asyncio.sleep(0.1)
    assert journal_labels(protocol) == [("q:1001", "msmarco_v2.1_doc_00_12345", 1)]


def still_running(group: int) -> bool:
    """Any process left in the server's process group (the server is its leader, already reaped)."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True
