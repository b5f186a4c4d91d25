"""Start-up: a CI step on a small protocol against a bare ``python -c pass``, whole processes.

    python benchmarks/bench_startup.py [--runs 20] [--before REV]

Each round runs, in turn (the order rotated every round): ``python -c pass``; two floors: the
standard library the specification itself needs (exact fractions, the sha256 of canonical JSON:
``re, fractions, json, hashlib``, below which no start-up of this tool can go) and that with what
a command line of paths needs (argparse, pathlib); and ``rankeval-tui score`` of the
bundled demo (table and ``--format json``), ``validate`` of it, and ``score`` and ``validate`` of a
50-query pooled protocol (pools of 100 TREC-like document IDs, 5,000 labels, one TREC run, made
by ``init --qrels --run`` as bench_shapes.py makes its pooled shape), from this checkout and,
with ``--before REV``, from that commit (``git archive``) beside it. Bytecode is cached as an installed
package has it (PYTHONPYCACHEPREFIX in a temporary directory, one warm-up run of each command).

Printed per command: best / median wall and CPU (user + system) seconds, peak RSS, and the
median over rounds of the ratio to ``python -c pass`` in the same round (issue 32 item 2: at
most 2x). Outputs of the two versions are compared: they must be byte-identical.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_shapes import made_apart  # noqa: E402
from benchmarks.sidebyside import Sample, best_median, code_env, compared_trees, run_process  # noqa: E402

FLOORS = {
    "spec floor (re, fractions, json, hashlib)": "import re, fractions, json, hashlib",
    "CLI floor (+ argparse, pathlib)": "import re, fractions, json, hashlib, argparse, pathlib",
}
DEMO = "rankeval_tui/demo/help-docs-zh"
POOLED = "{pooled}"
"""Replaced by the directory of the 50-query pooled protocol made for the run (``pooled_protocol``)."""
COMMANDS = {
    "score DEMO": ["score", DEMO],
    "score DEMO --format json": ["score", DEMO, "--format", "json"],
    "validate DEMO": ["validate", DEMO],
    "score POOLED50": ["score", POOLED],
    "score POOLED50 --format json": ["score", POOLED, "--format", "json"],
    "validate POOLED50": ["validate", POOLED],
}


def pooled_protocol(tmp: Path) -> Path:
    """A CI step's pooled protocol: 50 queries, pools of 100 (bench_shapes.py's pooled shape at
    1/200 of its queries), made by ``init`` from TREC qrels and a run, as a user makes it; in a
    child process, so no measured process inherits the generator's memory as its peak."""
    return made_apart("pooled", 50 / 10_000, tmp).directory


def cases(roots: dict[str, Path], pooled_dir: Path) -> dict[str, tuple[list[str], Path]]:
    """Every measured command: its argv and the checkout it runs from (``cwd`` and PYTHONPATH)."""
    python = sys.executable
    table: dict[str, tuple[list[str], Path]] = {
        "python -c pass": ([python, "-c", "pass"], ROOT),
        **{name: ([python, "-c", statement], ROOT) for name, statement in FLOORS.items()},
    }
    for label, root in roots.items():
        for name, args in COMMANDS.items():
            argv = [str(pooled_dir) if arg == POOLED else arg for arg in args]
            table[f"{name} ({label})"] = ([python, "-m", "rankeval_tui", *argv], root)
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="rounds (each command once per round)")
    parser.add_argument("--before", metavar="REV", default=None, help="also run this commit's code, side by side")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rankeval-pyc-") as tmp, compared_trees(args.before) as trees:
        return measure(trees, Path(tmp), args.runs)


def measure(roots: dict[str, Path], tmp: Path, runs: int) -> int:
    table = cases(roots, pooled_protocol(tmp))
    pycache = tmp / "pycache"
    envs = {name: code_env(root, pycache / name.replace(" ", "_")) for name, (_, root) in table.items()}
    outputs: dict[str, bytes] = {}
    for name, (argv, root) in table.items():  # warm-up: bytecode written, files in the page cache
        outputs[name] = run_process(argv, envs[name], cwd=root).stdout
    names = list(table)
    samples: dict[str, list[Sample]] = {name: [] for name in names}
    for round_ in range(runs):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            argv, root = table[name]
            samples[name].append(run_process(argv, envs[name], cwd=root))
    bare = samples["python -c pass"]
    print(f"{runs} rounds; best / median; ratio = median over rounds of (command / python -c pass), wall and CPU")
    print(f"{'command':44} {'wall s':>17} {'CPU s':>17} {'peak MB':>8} {'x bare wall':>11} {'x bare CPU':>10}")
    for name in names:
        got = samples[name]
        wall_ratio = statistics.median(s.wall / b.wall for s, b in zip(got, bare))
        cpu_ratio = statistics.median(s.cpu / max(b.cpu, 1e-3) for s, b in zip(got, bare))
        print(
            f"{name:44} {best_median([s.wall for s in got]):>17} {best_median([s.cpu for s in got]):>17} "
            f"{max(s.peak_mb for s in got):8.1f} {wall_ratio:11.2f} {cpu_ratio:10.2f}"
        )
    if len(roots) > 1:
        (now, *_), (before, *_) = list(roots), list(roots)[1:]
        for command in COMMANDS:
            if outputs[f"{command} ({now})"] != outputs[f"{command} ({before})"]:
                print(f"OUTPUT DIFFERS: {command}")
                return 1
        print("outputs of the two versions: byte-identical")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
