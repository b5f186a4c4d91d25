"""Our evaluator against pytrec_eval (trec_eval), ir_measures and ranx, side by side in one run.

    python benchmarks/bench_evaluator.py                 # the issue's two sizes
    python benchmarks/bench_evaluator.py --sizes 200x100x50 --repeat 2   # a quick look

For each size QxDxR (queries x documents x run depth) it writes a seeded synthetic protocol
(benchmarks/synth.py) and measures every tool in its own fresh process, so peak memory (the
process's max RSS) is that tool's alone:

- evaluator-only: inputs already in memory in each tool's own shape (our Protocol + Run; the
  peers' qrels/run dicts). "cold" is the first call (our per-protocol caches, pytrec_eval's
  RelevanceEvaluator, ranx's Qrels/Run objects built inside it); "warm" the best of the
  repeats with those reused. ranx's numba JIT is warmed on a tiny input first.
- end-to-end: a process from start to exit: ours is ``rankeval-tui score DIR --run A.json
  --format json``; the peers read the same judgments and run as TREC files with their readers.

Every tool's means are printed after adjusting the conventions (benchmarks/peers.py): they must
agree with ours to 1e-9 or the script exits 1. Ratios are ours / peer: < 1 means we are faster.
Timings on a shared machine are noisy; run it twice before believing a ratio near a target.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.synth import LAYOUTS, SynthSpec, make_data, write_protocol  # noqa: E402

TOOLS = ("ours", "pytrec_eval", "ir_measures", "ranx")
OURS_ALL = "ours_all"
"""Evaluator-only row: our evaluator asked for all six metrics (R, RR, P, Success, AP, nDCG); its
ratio column is the default path's time over that one, i.e. what the four extra metrics cost."""
SIZES = ("1000x1000x100", "10000x200x100")


# ----------------------------------------------------------------- workers (one tool, one process)


def max_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def eligible_of(qrels: dict[str, dict[str, int]]) -> set[str]:
    return {q for q, row in qrels.items() if 1 in row.values()}


def worker_eval(tool: str, directory: Path, repeat: int) -> dict:
    """Load inputs untimed, then time the evaluator alone."""
    from rankeval_tui.core.evaluation.evaluate import evaluate
    from rankeval_tui.core.files import load_protocol, load_run

    protocol = load_protocol(directory)
    run = load_run(directory / "runs" / "A.json")
    k = protocol.k
    times: list[float] = []
    if tool in ("ours", OURS_ALL):
        from rankeval_tui.core.evaluation.metrics import METRIC_IDS, PRIMARY

        metrics = METRIC_IDS if tool == OURS_ALL else PRIMARY
        del_rss = max_rss_mb()
        for _ in range(repeat):
            start = time.perf_counter()
            report = evaluate(protocol, run, metrics)
            times.append(time.perf_counter() - start)
        return {
            "times": times,
            "rss_before": del_rss,
            "rss_peak": max_rss_mb(),
            "recall": float(report.recall_at_k),
            "rr": float(report.mrr_at_k),
        }

    from benchmarks import peers

    qrels = {q: dict(row) for q, row in protocol.qrels.items() if q in set(protocol.selected_queries)}
    peer_run = peers.score_dict(run.rankings)
    selected = list(protocol.selected_queries)
    present = set(run.rankings)
    prepared = None
    __import__(tool)  # import time is not evaluation time (it is in the end-to-end numbers)
    if tool == "ranx":
        from ranx import Qrels, Run

        sample = list(qrels)[:5]  # numba compiles on first use: warm it on a slice, untimed
        peers.ranx_scores({q: qrels[q] for q in sample}, {q: peer_run[q] for q in sample if q in peer_run}, k)
    del protocol, run
    rss_before = max_rss_mb()
    adjust_time = 0.0
    for i in range(repeat):
        start = time.perf_counter()
        if tool == "pytrec_eval":
            import pytrec_eval  # already imported, untimed

            if i == 0:
                prepared = pytrec_eval.RelevanceEvaluator(qrels, {f"recall.{k}", "recip_rank"})
            per_query = peers.pytrec_eval_scores(qrels, peer_run, k, evaluator=prepared)
        elif tool == "ranx":
            if i == 0:
                prepared = (Qrels(qrels), Run(peer_run))
            per_query = peers.ranx_scores(qrels, peer_run, k, prepared=prepared)
        else:
            per_query = peers.ir_measures_scores(qrels, peer_run, k)
        times.append(time.perf_counter() - start)
        start = time.perf_counter()
        _, recall, rr = peers.adjust(per_query, selected, eligible_of(qrels), present)
        adjust_time = time.perf_counter() - start
    return {
        "times": times,
        "rss_before": rss_before,
        "rss_peak": max_rss_mb(),
        "recall": recall,
        "rr": rr,
        "adjust": adjust_time,
    }


def worker_e2e(tool: str, directory: Path, k: int) -> dict:
    """A whole process as its users run it: read the TREC files, score, adjust, print."""
    from benchmarks import peers

    qrels_path, run_path = str(directory / "trec" / "qrels.txt"), str(directory / "trec" / "A.run")
    if tool == "pytrec_eval":
        import pytrec_eval

        with open(qrels_path) as f:
            qrels = pytrec_eval.parse_qrel(f)
        with open(run_path) as f:
            run = pytrec_eval.parse_run(f)
        per_query = peers.pytrec_eval_scores(qrels, run, k)
    elif tool == "ir_measures":
        import ir_measures

        qrels_list = list(ir_measures.read_trec_qrels(qrels_path))
        run_list = list(ir_measures.read_trec_run(run_path))
        per_query = peers.ir_measures_scores(qrels_list, run_list, k)
        qrels, run = {}, {}
        for qrel in qrels_list:
            qrels.setdefault(qrel.query_id, {})[qrel.doc_id] = qrel.relevance
        for entry in run_list:
            run.setdefault(entry.query_id, {})[entry.doc_id] = entry.score
    else:
        from ranx import Qrels, Run

        ranx_qrels, ranx_run = Qrels.from_file(qrels_path, kind="trec"), Run.from_file(run_path, kind="trec")
        qrels = ranx_qrels.to_dict()
        run = ranx_run.to_dict()
        per_query = peers.ranx_scores(qrels, run, k, prepared=(ranx_qrels, ranx_run))
    _, recall, rr = peers.adjust(per_query, sorted(qrels), eligible_of(qrels), set(run))
    return {"recall": recall, "rr": rr}


# ----------------------------------------------------------------- parent


def spawn(argv: list[str]) -> tuple[float, float, str]:
    """Run a process; wall seconds, its own peak RSS in MB (wait4), stdout."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    out = proc.stdout.read()  # type: ignore[union-attr]
    err = proc.stderr.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{err.decode()[-2000:]}")
    return wall, usage.ru_maxrss / 1024, out.decode()


def parse_size(text: str) -> tuple[int, int, int]:
    q, d, r = (int(x) for x in text.lower().split("x"))
    return q, d, r


def agree(name: str, ours: tuple[float, float], theirs: tuple[float, float]) -> str:
    ok = all(abs(a - b) <= 1e-9 for a, b in zip(ours, theirs))
    if not ok:
        print(f"DISAGREEMENT {name}: ours {ours} theirs {theirs}", file=sys.stderr)
    return "yes" if ok else "NO"


def bench_size(size: str, layout: str, args: argparse.Namespace, tmp: Path) -> bool:
    q, d, r = parse_size(size)
    repeat, k, seed, tools = args.repeat, args.k, args.seed, args.tools
    directory = tmp / f"q{q}-d{d}-r{r}-{layout}"
    start = time.perf_counter()
    data = make_data(SynthSpec(q, d, r, k=k, seed=seed, layout=layout))
    write_protocol(directory, data)
    missing = q - len(data.runs["A"])
    no_rel = sum(1 for row in data.qrels.values() if 1 not in row.values())
    print(
        f"\n== Q={q} D={d} R={r} k={k} seed={seed}, {layout} keys: {q * d:,} judged pairs, "
        f"{len(data.runs['A']) * r:,} run entries, {missing} missing, {no_rel} no-relevant queries (generated in "
        f"{time.perf_counter() - start:.1f} s)"
    )
    del data
    ok = True
    if "eval" in args.parts:
        ok &= bench_evaluator_only(directory, repeat, tools)
    if "e2e" in args.parts:
        ok &= bench_end_to_end(directory, repeat, k, tools, q * d)
    return ok


def bench_evaluator_only(directory: Path, repeat: int, tools: list[str]) -> bool:
    ok = True
    me = [sys.executable, str(Path(__file__).resolve())]

    print(f"-- evaluator-only (inputs in memory; best of {repeat}; RSS = the process's peak, +eval = growth during it)")
    print(
        f"{'tool':<12} {'cold s':>8} {'ours/tool':>10} {'warm s':>8} {'ours/tool':>10} {'peak MB':>8} "
        f"{'+eval MB':>9}  agree"
    )
    results = {}
    eval_tools = ["ours", OURS_ALL, *(tool for tool in tools if tool != "ours")]
    for tool in eval_tools:
        _, _, out = spawn(me + ["--worker", "eval", tool, str(directory), str(repeat)])
        results[tool] = json.loads(out)
    ours = results["ours"]
    for tool in eval_tools:
        res = results[tool]
        cold, warm = res["times"][0], min(res["times"])
        ratio = "" if tool == "ours" else f"{min(ours['times']) / warm:.2f}x"
        cold_ratio = "" if tool == "ours" else f"{ours['times'][0] / cold:.2f}x"
        same = "" if tool == "ours" else agree(tool, (ours["recall"], ours["rr"]), (res["recall"], res["rr"]))
        ok &= same != "NO"
        print(
            f"{tool:<12} {cold:>8.3f} {cold_ratio:>10} {warm:>8.3f} {ratio:>10} {res['rss_peak']:>8.0f} "
            f"{res['rss_peak'] - res['rss_before']:>9.0f}  {same}"
        )
    print(
        "   (ratios: ours / peer, cold with cold, warm with warm; peers' convention adjustment not timed, at most "
        f"{max(results[t].get('adjust', 0) for t in tools):.3f} s; ours_all: every metric, ours/ours_all = "
        "the default path over the six-metric one)"
    )
    return ok


def bench_end_to_end(directory: Path, repeat: int, k: int, tools: list[str], pairs: int) -> bool:
    """Each tool's whole process, best of ``repeat`` (the repeats interleaved across tools, so a
    burst of load on the shared machine hits every tool alike); peak RSS of the best run."""
    ok = True
    me = [sys.executable, str(Path(__file__).resolve())]
    print(f"-- end-to-end (one process each: start, imports, read files, score, exit; best of {repeat})")
    print(f"{'tool':<12} {'wall s':>8} {'ours/tool':>10} {'peak MB':>8} {'s/M pairs':>10} {'MB/M pairs':>11}  agree")
    e2e: dict[str, tuple[float, float, tuple[float, float]]] = {}
    for _ in range(repeat):
        for tool in tools:
            result = run_end_to_end(me, tool, directory, k)
            if tool not in e2e or result[0] < e2e[tool][0]:
                e2e[tool] = result
    for tool in tools:
        wall, rss, means = e2e[tool]
        ratio = "" if tool == "ours" else f"{e2e['ours'][0] / wall:.2f}x"
        same = "" if tool == "ours" else agree(tool, e2e["ours"][2], means)
        ok &= same != "NO"
        millions = pairs / 1e6
        print(
            f"{tool:<12} {wall:>8.2f} {ratio:>10} {rss:>8.0f} {wall / millions:>10.2f} {rss / millions:>11.0f}  {same}"
        )
    return ok


def run_end_to_end(me: list[str], tool: str, directory: Path, k: int) -> tuple[float, float, tuple[float, float]]:
    """(wall seconds, peak MB, the two means) of one process of ``tool``."""
    if tool == "ours":
        run = directory / "runs" / "A.json"
        argv = [sys.executable, "-m", "rankeval_tui", "score", str(directory), "--run", str(run), "--format", "json"]
        wall, rss, out = spawn(argv)
        report = json.loads(out)["runs"]["A"]
        return wall, rss, (float(Fraction(report["recall_at_k"])), float(Fraction(report["mrr_at_k"])))
    wall, rss, out = spawn(me + ["--worker", "e2e", tool, str(directory), str(k)])
    res = json.loads(out)
    return wall, rss, (res["recall"], res["rr"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=list(SIZES), metavar="QxDxR")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--layouts", nargs="+", choices=LAYOUTS, default=list(LAYOUTS), help="key layouts of the TOML")
    parser.add_argument("--tools", nargs="+", choices=TOOLS, default=list(TOOLS), help="ours is always measured")
    parser.add_argument("--parts", nargs="+", choices=("eval", "e2e"), default=["eval", "e2e"])
    parser.add_argument("--keep", type=Path, default=None, help="write the protocols here and keep them")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        mode, tool, directory, extra = args.worker
        result = (
            worker_eval(tool, Path(directory), int(extra))
            if mode == "eval"
            else worker_e2e(tool, Path(directory), int(extra))
        )
        print(json.dumps(result))
        return 0
    import platform

    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.keep or Path(scratch)
        if "ours" not in args.tools:
            args.tools.insert(0, "ours")
        ok = all([bench_size(size, layout, args, tmp) for size in args.sizes for layout in args.layouts])
    print("\nall tools agree with ours after adjusting conventions" if ok else "\nDISAGREEMENT: see above")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
