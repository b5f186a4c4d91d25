"""The safe read (regular file check, size limit, no blocking) against a plain ``Path.read_bytes``.

Every input goes through ``core.files.safe_read.read_input_bytes``; it must cost nothing next to
the read itself. Alternating rounds on one file in one run, the ratio is what counts:

    /work/venv/bin/python benchmarks/bench_safe_read.py [--mib 200 --rounds 5]

A first version copied the whole file once more (an empty last chunk made it join), 2.7x slower
than ``read_bytes`` at 200 MiB; this script found it.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rankeval_tui.core.files.safe_read import read_input_bytes


def timed(read: Callable[[], bytes]) -> float:
    start = time.perf_counter()
    read()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "run.json"
        path.write_bytes(b'{"q:1001": ["msmarco_v2.1_doc_00_12345"]}'.ljust(args.mib << 20, b" "))
        plain, safe = [], []
        for _ in range(args.rounds):
            plain.append(timed(path.read_bytes))
            safe.append(timed(lambda: read_input_bytes(path)))
    p, s = statistics.median(plain), statistics.median(safe)
    print(f"{args.mib} MiB, {args.rounds} rounds, medians: Path.read_bytes {p * 1000:.0f} ms, ", end="")
    print(f"read_input_bytes {s * 1000:.0f} ms, ratio {s / p:.2f}")


if __name__ == "__main__":
    main()
