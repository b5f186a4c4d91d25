"""``rankeval-tui serve`` in a subprocess and a page of it driven over the websocket, as a browser
does: textual-serve's messages (``["stdin", key]``, ``["resize", ...]``) in, the screen's bytes out.

Used by tests/cli/test_serve_cli.py and benchmarks/bench_served_keys.py. Every wait has a deadline
(a loaded 2-core machine starts a judge in seconds, not milliseconds), the server gets a free port,
and it is stopped with its judges (its own process group) whatever happens.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import aiohttp

REPO = Path(__file__).resolve().parent.parent
START_SECONDS = 60.0
"""Deadline for the server to answer, and for a page's screen to show a text."""

ESCAPE = re.compile(r"\x1b(\[[0-9;?<>=$]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78])")
"""Terminal control sequences (CSI, OSC, charset, keypad): what the page's text is left without."""


def screen_text(raw: str) -> str:
    """What the page shows, as text: the app's output without its control sequences (each line
    Textual redraws is written whole, so a status line stays one run of characters)."""
    return ESCAPE.sub("", raw)


def journal_labels(protocol: Path) -> list[tuple[str, str, int]]:
    """(query, document, label) of every label the judging journal of PROTOCOL/qrels.toml holds."""
    lines = (protocol / "qrels.toml.journal").read_text(encoding="utf-8").splitlines()
    entries = [json.loads(line) for line in lines]
    return [(entry["q"], entry["d"], entry["v"]) for entry in entries if entry["op"] == "label"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Served:
    url: str
    server: subprocess.Popen[bytes]


@contextmanager
def judging_server(protocol: Path, *args: str, log: Path) -> Iterator[Served]:
    """``rankeval-tui serve PROTOCOL ARGS`` on a free port, once it answers. Stopped with SIGINT
    (pages closed, each judge ends as after ``q``), killed with its judges if it does not end."""
    port = free_port()
    with log.open("w") as log_file:
        server = subprocess.Popen(
            [sys.executable, "-m", "rankeval_tui", "serve", str(protocol), "--port", str(port), *args],
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        try:
            url = f"http://localhost:{port}"
            wait_until_answering(server, url, log)
            yield Served(url, server)
        finally:
            stop(server)


def wait_until_answering(server: subprocess.Popen[bytes], url: str, log: Path) -> None:
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"serve ended with {server.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.1)
    raise AssertionError(f"serve did not answer within {START_SECONDS} s:\n{log.read_text()}")


def stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(server.pid, signal.SIGKILL)  # its judges too, if any outlived it
    except ProcessLookupError:
        pass
    server.wait(timeout=30)


class Page:
    """One browser page: its websocket and everything the app has drawn on it so far."""

    def __init__(self, websocket: aiohttp.ClientWebSocketResponse) -> None:
        self.websocket = websocket
        self.raw: list[str] = []
        self.arrivals: list[float] = []
        """``time.monotonic()`` when each part of ``raw`` arrived."""
        self.closed = asyncio.Event()
        self.drawn = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.websocket:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.arrivals.append(time.monotonic())
                self.raw.append(message.data.decode("utf-8", "replace"))
                self.drawn.set()
        self.closed.set()

    @property
    def mark(self) -> int:
        """A position in the output: ``wait_for(..., since=mark)`` looks only at what came after."""
        return len(self.raw)

    def text(self, since: int = 0, end: int | None = None) -> str:
        return screen_text("".join(self.raw[since:end]))

    async def wait_for(self, text: str, since: int = 0, timeout: float = START_SECONDS) -> float:
        """Until ``text`` is drawn (after ``since``); fails with what the page showed. Returns when
        the part that completed it arrived (``time.monotonic()``)."""
        deadline = time.monotonic() + timeout
        while text not in self.text(since):
            left = deadline - time.monotonic()
            if left <= 0 or self.closed.is_set():
                raise AssertionError(f"{text!r} never shown; the page showed:\n{self.text(since)[-3000:]}")
            self.drawn.clear()
            try:
                await asyncio.wait_for(self.drawn.wait(), min(left, 1.0))
            except asyncio.TimeoutError:
                pass
        end = next(end for end in range(since + 1, len(self.raw) + 1) if text in self.text(since, end))
        return self.arrivals[end - 1]

    async def press(self, key: str) -> None:
        """A key as the browser sends it: the characters its terminal emulator types."""
        await self.websocket.send_json(["stdin", key])

    async def wait_closed(self, timeout: float = START_SECONDS) -> None:
        await asyncio.wait_for(self.closed.wait(), timeout)


@asynccontextmanager
async def open_page(url: str, width: int = 80, height: int = 24) -> AsyncIterator[Page]:
    """A page of the server at ``url`` (a new judge process); closed like a browser tab after."""
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=START_SECONDS)
    async with aiohttp.ClientSession(timeout=timeout) as client:
        async with client.ws_connect(f"{url}/ws?width={width}&height={height}") as websocket:
            page = Page(websocket)
            try:
                yield page
            finally:
                await websocket.close()
                page._reader.cancel()
