"""The protocol hash (``Protocol.protocol_sha256``) on protocol directories, beside another commit's
code (issue 32: the hash is recomputed on every ``score``).

    python benchmarks/bench_hash.py DIR [DIR ...] --before 98423a3 --rounds 5

Each round runs, for each code tree in turn (order alternating), one process per directory that
loads the protocol (not timed), computes the relevant sets (timed apart: the evaluator needs them
anyway, and one code may build them inside the hash), then the hash once, as ``score`` does: CPU
seconds (``time.process_time``) with the garbage collector off, as ``score`` runs. The hash is
then computed again from scratch under ``tracemalloc`` for its peak memory. Printed per directory
and tree: best / median over rounds, and the ratio of the medians (before / now: above 1, now is
faster). The digests of every tree must agree, or the script exits 1.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.sidebyside import best_median, code_env, compared_trees, run_process  # noqa: E402

CHILD = """
import gc, sys, time, tracemalloc
from pathlib import Path
from rankeval_tui.core.files.protocol_files import load_protocol_and_qrels
protocol, _ = load_protocol_and_qrels(Path(sys.argv[1]), None)
gc.disable()
start = time.process_time(); protocol.relevant; relevant = time.process_time() - start
start = time.process_time(); digest = protocol.protocol_sha256; hashing = time.process_time() - start
for name in ("protocol_sha256", "_hash_parts"):
    protocol.__dict__.pop(name, None)
tracemalloc.start(); protocol.protocol_sha256; peak = tracemalloc.get_traced_memory()[1]
print(relevant, hashing, peak / 2**20, digest)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path, metavar="DIR")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--before", metavar="REV", default=None, help="also time this commit's code, side by side")
    parser.add_argument("--pycache", type=Path, default=Path("/tmp/rankeval-bench-hash-pycache"))
    args = parser.parse_args()
    ok = True
    with compared_trees(args.before) as trees:
        for directory in args.dirs:
            samples: dict[str, list[tuple[float, float, float]]] = {label: [] for label in trees}
            digests = set()
            for round_ in range(args.rounds):
                order = list(trees.items()) if round_ % 2 == 0 else list(reversed(trees.items()))
                for label, root in order:
                    env = code_env(root, args.pycache / label)
                    out = run_process([sys.executable, "-c", CHILD, str(directory.resolve())], env, cwd=root)
                    relevant, hashing, peak, digest = out.stdout.decode().split()
                    samples[label].append((float(relevant), float(hashing), float(peak)))
                    digests.add(digest)
            print(f"== {directory}: {args.rounds} rounds")
            for label, values in samples.items():
                relevant_s = [v[0] for v in values]
                hashing_s = [v[1] for v in values]
                print(
                    f"  {label:10} hash {best_median(hashing_s)}  relevant sets {best_median(relevant_s)}  "
                    f"peak {max(v[2] for v in values):.0f} MB"
                )
            if args.before:
                now, before = (statistics.median(v[1] for v in samples[label]) for label in trees)
                print(f"  median ratio before / now: {before / now:.2f}x")
            if len(digests) != 1:
                print(f"  DIGESTS DIFFER: {sorted(digests)}")
                ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
