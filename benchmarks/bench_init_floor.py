"""``init`` against its floor (read, check, write the same files), at growing corpus sizes.

    python benchmarks/bench_init_floor.py [--documents 25000 100000] [--runs 5] [--before REV]

Inputs as benchmarks/bench_init.py makes them (a BEIR corpus.jsonl with realistic IDs, 200
queries, a partial TREC qrels, two 100-deep TREC runs). Each run is a fresh process per version,
in turn, timing in that process:

- init: ``plan_protocol`` + ``write_protocol`` (what ``rankeval-tui init`` does after parsing
  its arguments);
- floor: the least any init must do with the same files, in plain Python: read every line
  (``json.loads`` per corpus line, ``split`` per TSV and TREC line), check that the IDs are
  unique and that the qrels and runs name known queries and documents, write protocol.toml and
  qrels.toml as TOML (strings through ``json.dumps``, which for these texts is valid TOML) and
  copy the runs, each file fsynced, into a staging directory renamed into place.

Printed: best / median seconds per version, wall and CPU (``process_time``: on a shared machine
the wall clock also counts waiting for a core), init / floor for each (median over runs of the
ratio within one process; issue 32 item 4: at most 2x at 100,000 documents), and microseconds
per document (flat when init is linear in the corpus).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sidebyside import best_median, code_env, compared_trees, run_process  # noqa: E402

INPUTS = ("corpus.jsonl", "queries.tsv", "qrels.trec", "bm25.trec", "dense.trec")


def write_synced(path: Path, data: bytes) -> None:
    with path.open("wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def floor(source: Path, target: Path) -> None:
    """Read, check and write what init reads, checks and writes, with nothing but the work."""
    documents: dict[str, tuple[str | None, str]] = {}
    with (source / "corpus.jsonl").open(encoding="utf-8") as corpus:
        for line in corpus:
            record = json.loads(line)
            documents[record["_id"]] = (record.get("title"), record["text"])
    queries = dict(line.split("\t", 1) for line in (source / "queries.tsv").read_text(encoding="utf-8").splitlines())
    labels = [line.split() for line in (source / "qrels.trec").read_text(encoding="utf-8").splitlines()]
    runs = {name: (source / name).read_bytes() for name in ("bm25.trec", "dense.trec")}
    for query, _, doc, label in labels:
        assert query in queries and doc in documents and label in ("0", "1")
    for content in runs.values():
        for line in content.decode("utf-8").splitlines():
            fields = line.split()
            assert fields[0] in queries and fields[2] in documents
    dump = json.dumps
    protocol = ['[protocol]\nname = "bench"\nk = 10\nsplit = "test"\nrelevance = "1 if it answers"\n']
    protocol += [f'\n[queries.{dump(q)}]\ntext = {dump(text)}\nsplit = "test"\n' for q, text in queries.items()]
    for doc, (title, text) in documents.items():
        title_line = "" if title is None else f"title = {dump(title, ensure_ascii=False)}\n"
        protocol.append(f"\n[documents.{dump(doc)}]\n{title_line}text = {dump(text, ensure_ascii=False)}\n")
    qrels: dict[str, list[str]] = {}
    for query, _, doc, label in labels:
        qrels.setdefault(query, []).append(f"{dump(doc)} = {label}\n")
    staging = target.with_name(target.name + ".staging")
    staging.mkdir()
    write_synced(staging / "protocol.toml", "".join(protocol).encode("utf-8"))
    write_synced(
        staging / "qrels.toml", "".join(f"[qrels.{dump(q)}]\n{''.join(r)}\n" for q, r in qrels.items()).encode()
    )
    (staging / "runs").mkdir()
    for name, content in runs.items():
        write_synced(staging / "runs" / name, content)
    os.replace(staging, target)


def worker(source: Path, work: Path) -> None:
    """One init and one floor, timed in this process (the package from PYTHONPATH)."""
    from rankeval_tui.core.files.protocol_init import InitRequest, plan_protocol, write_protocol

    assert Path(sys.modules["rankeval_tui"].__file__ or "").parent.parent == Path.cwd()  # the version asked for
    times = {}
    target = work / "floor"
    start, cpu = time.perf_counter(), time.process_time()
    floor(source, target)
    times["floor"], times["floor_cpu"] = time.perf_counter() - start, time.process_time() - cpu
    shutil.rmtree(target)
    target = work / "init"
    request = InitRequest(
        directory=target,
        corpus=source / "corpus.jsonl",
        queries=source / "queries.tsv",
        k=10,
        qrels=source / "qrels.trec",
        runs=[(None, source / "bm25.trec"), (None, source / "dense.trec")],
    )
    start, cpu = time.perf_counter(), time.process_time()
    write_protocol(plan_protocol(request))
    times["init"], times["init_cpu"] = time.perf_counter() - start, time.process_time() - cpu
    written = [(target / name).read_bytes() for name in ("protocol.toml", "qrels.toml")]
    times["protocol_bytes"] = len(written[0])
    # the versions must write the same files, but for the time init records
    same_time = re.sub(rb'\ncreated_at = "[^"\n]*"\n', b'\ncreated_at = ""\n', b"".join(written), count=1)
    times["sha256"] = hashlib.sha256(same_time).hexdigest()
    shutil.rmtree(target)
    print(json.dumps(times))


def measure(documents: int, roots: dict[str, Path], work: Path, runs: int) -> None:
    from benchmarks.bench_init import make_files

    source = work / f"src-{documents}"
    source.mkdir()
    make_files(source, documents, 200, 100)
    envs = {label: code_env(root, work / f"pyc-{label}") for label, root in roots.items()}
    stages = ("init", "floor", "init_cpu", "floor_cpu")
    times: dict[str, dict[str, list[float]]] = {label: {stage: [] for stage in stages} for label in roots}
    sizes, digests = set(), set()
    for _ in range(runs):
        for label, root in roots.items():
            out = work / f"out-{label}"
            out.mkdir()
            result = json.loads(
                run_process([sys.executable, __file__, "--worker", str(source), str(out)], envs[label], cwd=root).stdout
            )
            out.rmdir()
            for stage in stages:
                times[label][stage].append(result[stage])
            sizes.add(result["protocol_bytes"])
            digests.add(result["sha256"])
    print(f"\n{documents:,} documents (protocol.toml {max(sizes) / 1e6:.1f} MB)")
    for label in roots:
        for clock, suffix in (("wall", ""), ("CPU", "_cpu")):
            init, floor_times = times[label]["init" + suffix], times[label]["floor" + suffix]
            ratio = statistics.median(i / f for i, f in zip(init, floor_times))
            per_doc = min(init) / documents * 1e6
            print(
                f"  {label:12} {clock:4} init {best_median(init)}   floor {best_median(floor_times)}   "
                f"init / floor {ratio:.2f}x (median of pairs)   {per_doc:.1f} us per document (best)"
            )
    if len(digests) > 1:
        raise SystemExit("the versions wrote different protocol.toml or qrels.toml files")
    print("  protocol.toml and qrels.toml: byte-identical across versions and runs (but created_at)")


def main() -> int:
    if sys.argv[1:2] == ["--worker"]:
        sys.path.remove(str(ROOT))  # the package comes from PYTHONPATH: this checkout or --before's
        worker(Path(sys.argv[2]), Path(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", nargs="+", type=int, default=[25_000, 100_000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", metavar="REV", default=None, help="also run this commit's code, side by side")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-init-floor-") as tmp, compared_trees(args.before) as trees:
        for documents in args.documents:
            measure(documents, trees, Path(tmp), args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
