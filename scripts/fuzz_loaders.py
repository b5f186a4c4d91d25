"""Longer fuzz run of every loader: hypothesis with many examples, same rule as the test suite.

    python scripts/fuzz_loaders.py                    # 2000 examples per kind and family
    python scripts/fuzz_loaders.py --examples 20000 --seed 7

For each loader (protocol.toml, qrels.toml, JSON run, TREC run, chunk map) two families run:
``mutated`` (random byte damage to the valid file: a report identical to the core's, or one
clean error naming an input file) and ``must_reject`` (a forbidden value in one slot: always one
clean error naming the file). Each input goes through the core loaders and through the CLI's
``main()`` in-process. Prints counts per kind and family; exits 1 on the first violation, with
the input that caused it. Hypothesis is used rather than atheris: no native build, and the
strategies are structure-aware, which is what reaches the validation code behind the parsers.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402

from tests.fuzz.harness import KINDS, check_input  # noqa: E402
from tests.fuzz.strategies import must_reject, mutated  # noqa: E402

PARTNERS = ("protocol.toml", "qrels.toml", "runs/fixture_A.json", "chunks/chunk_run.json")


def run_family(kind: str, family: str, examples: int, seed_value: int, counts: Counter) -> None:
    strategy = mutated(kind) if family == "mutated" else must_reject(kind)

    @seed(seed_value)
    @settings(
        max_examples=examples, deadline=None, database=None, print_blob=True, suppress_health_check=list(HealthCheck)
    )
    @given(strategy)
    def check(data: bytes) -> None:
        with tempfile.TemporaryDirectory() as root:
            outcome = check_input(
                kind,
                data,
                Path(root),
                must_reject=family == "must_reject",
                may_name=PARTNERS if family == "mutated" else (),
            )
        counts[(kind, family, "rejected" if outcome.error else "valid")] += 1

    check()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000, help="examples per kind and family")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kind", choices=KINDS, action="append", help="only these loaders (repeatable)")
    args = parser.parse_args()
    counts: Counter = Counter()
    start = time.perf_counter()
    for kind in args.kind or KINDS:
        for family in ("mutated", "must_reject"):
            try:
                run_family(kind, family, args.examples, args.seed, counts)
            except Exception as error:  # a violated rule: report the kind and stop
                print(f"FAIL {kind} {family}: {type(error).__name__}: {str(error)[:2000]}")
                return 1
            print(
                f"{kind:10} {family:12} rejected {counts[(kind, family, 'rejected')]:6} "
                f"valid {counts[(kind, family, 'valid')]:6}",
                flush=True,
            )
    total = sum(counts.values())
    rejected = sum(n for (_, _, outcome), n in counts.items() if outcome == "rejected")
    print(
        f"total {total} inputs ({rejected} rejected with one clean line, {total - rejected} valid "
        f"and scored identically by core and CLI), 0 violations, {time.perf_counter() - start:.0f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
