"""An annotator's key in a browser page (``rankeval-tui serve``): from ``1``/``0`` sent over the
websocket to the page's bytes that show it recorded. Prints numbers, asserts only that every key
was journaled for the pair the page said.

What it drives: the real ``rankeval-tui serve`` in a subprocess, one page over textual-serve's
websocket (``tests/served_page.py``, as a browser does), on the generated documentation of
``bench_judging_latency.py`` (one query, documents of ``--lines`` lines). Per key:
- wall: the key sent -> the websocket message whose screen text shows the progress it made
  (``overall N/TOTAL``: the judge wrote the journal, drew the frame, the server relayed it); the
  first key is a warm-up. The journal is checked afterwards: key i labelled the i-th pair i % 2.
- CPU: user + system of the server, and of its children (the shell and the judge), from /proc,
  over the timed keys, divided by their number: what a key costs the machine, not only the judge
  (the judge's share includes preparing the next document while the annotator reads).
Between keys it waits ``--read`` seconds (an annotator reads): the screen prepares the next
document then, as in a terminal. Compare with ``bench_judging_latency.py`` (same documents,
headless driver, no server): the difference is the web driver, the pipes and the websocket.

    /work/venv/bin/python benchmarks/bench_served_keys.py [--lines 100,5000] [--keys 20]
        [--sizes 80x24,140x40] [--read 0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.bench_judging_latency import percentile, write_protocol
from rankeval_tui.core.files import load_definition
from tests.served_page import journal_labels, judging_server, open_page

TICKS = os.sysconf("SC_CLK_TCK")


def process_tree_cpu(root: int) -> tuple[float, float]:
    """User + system seconds of ``root`` alone, and of every process under it (from /proc)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        times[pid] = (int(fields[11]) + int(fields[12])) / TICKS
    tree = {root}
    grew = True
    while grew:
        before = len(tree)
        tree |= {pid for pid, parent in parents.items() if parent in tree}
        grew = len(tree) > before
    return times.get(root, 0.0), sum(times.get(pid, 0.0) for pid in tree - {root})


async def key_latencies(
    url: str, server_pid: int, keys: int, total: int, size: tuple[int, int], read: float
) -> tuple[list[float], float, float]:
    """Wall seconds of each timed key (``keys`` of them after a warm-up, on a protocol of ``total``
    pairs), and the CPU seconds of all of them: the server's, its children's (the judge). Key i labels the i-th pair i % 2."""
    walls: list[float] = []
    async with open_page(url, *size) as page:
        await page.wait_for("judging latency-")
        cpu_start = (0.0, 0.0)
        for index in range(keys + 1):
            if index == 1:
                cpu_start = process_tree_cpu(server_pid)
            value = index % 2
            await asyncio.sleep(read)
            mark = page.mark
            sent = time.monotonic()
            await page.press(str(value))
            shown = await page.wait_for(f"overall {index + 1}/{total} ", since=mark)
            if index >= 1:
                walls.append(shown - sent)
        server_cpu, judge_cpu = process_tree_cpu(server_pid)
    return walls, server_cpu - cpu_start[0], judge_cpu - cpu_start[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lines", default="100,5000", help="document lengths, comma-separated")
    parser.add_argument("--keys", type=int, default=20, help="keys timed per length and size (after one warm-up)")
    parser.add_argument("--sizes", default="80x24,140x40", help="page sizes, COLSxROWS, comma-separated")
    parser.add_argument("--read", type=float, default=0.2, help="seconds between a frame and the next key")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-served-keys-"))
    try:
        print(f"{args.keys} keys per row (after one warm-up), {args.read} s between keys; {os.cpu_count()} cpus")
        print(f"{'page':>7} {'lines':>6} {'p50 ms':>8} {'p90 ms':>8} {'max ms':>8}  CPU ms/key: server + judge")
        for size in args.sizes.split(","):
            cols, rows = (int(n) for n in size.split("x"))
            for lines in (int(n) for n in args.lines.split(",")):
                directory = root / f"{size}-{lines}"
                write_protocol(directory, lines, docs=args.keys + 2)
                definition = load_definition(directory)
                query = next(iter(definition.queries))
                pairs = [(query, doc) for doc in list(definition.documents)[: args.keys + 1]]
                with judging_server(directory, log=root / f"{size}-{lines}.log") as served:
                    walls, server_cpu, judge_cpu = asyncio.run(
                        key_latencies(
                            served.url, served.server.pid, args.keys, len(definition.documents), (cols, rows), args.read
                        )
                    )
                journaled = journal_labels(directory)
                assert journaled == [(q, d, i % 2) for i, (q, d) in enumerate(pairs)], journaled
                ms = [wall * 1000 for wall in walls]
                print(
                    f"{size:>7} {lines:>6} {statistics.median(ms):>8.1f} {percentile(ms, 0.9):>8.1f} "
                    f"{max(ms):>8.1f}  {server_cpu * 1000 / len(ms):.1f} + {judge_cpu * 1000 / len(ms):.1f}"
                )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
