"""Where ``score --format json`` spends its CPU on one protocol directory, stage by stage.

    python benchmarks/score_stages.py DIR [DIR ...]

Each stage is timed with ``time.process_time`` in this one process, the collector off as
``score`` runs it: imports, protocol + qrels, the first run of ``runs/`` (read here: the stage,
not ``score``'s second process), the protocol hash, evaluate, render_json. The protocols
``bench_shapes.py --keep DIR`` writes are the usual input; run it in two trees (PYTHONPATH) to
compare versions stage by stage. Issue 32's rounds used it to say where the time goes.
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path


def stages(directory: Path) -> dict[str, float]:
    """CPU seconds of each stage of scoring ``directory`` with its first run."""
    gc.disable()
    start = time.process_time()
    from rankeval_tui.core.evaluation.evaluate import evaluate
    from rankeval_tui.core.evaluation.metrics import PRIMARY
    from rankeval_tui.core.evaluation.render import render_json
    from rankeval_tui.core.files.protocol_files import load_protocol_and_qrels
    from rankeval_tui.core.files.runs import load_run, run_files

    times: dict[str, float] = {}

    def lap(name: str) -> None:
        nonlocal start
        now = time.process_time()
        times[name] = now - start
        start = now

    lap("imports")
    protocol, _ = load_protocol_and_qrels(directory)
    lap("load protocol+qrels")
    run = load_run(run_files(directory)[0])
    lap("load run")
    protocol.protocol_sha256  # noqa: B018  # cached: the stage is its first computation
    lap("hash")
    report = evaluate(protocol, run, PRIMARY)
    lap("evaluate")
    render_json(protocol, [report])
    lap("render_json")
    return times


def main() -> int:
    for argument in sys.argv[1:]:
        print(f"== {argument}")
        for name, seconds in stages(Path(argument)).items():
            print(f"{name:24} {seconds:7.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
