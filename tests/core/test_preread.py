"""The command line's preread (core/preread.py): runs read by a forked child are the runs the
session would read itself, a failed child costs nothing but time, and a session built from the
preread is the session built from the files.

The fork is tried in a fresh interpreter: ``start_run_prefetch`` refuses to fork a process that
runs other threads (a pytest-xdist worker does), so that is where the command's case is.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from rankeval_tui.core.files import load_protocol_and_qrels
from rankeval_tui.core.preread import Preread, RunPrefetch, start_run_prefetch
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.core.session_runs import LoadedRun, read_runs

ROOT = Path(__file__).resolve().parents[2]


def run_files(directory: Path) -> tuple[tuple[None, Path], ...]:
    """Two good runs with real-world IDs and a malformed one, in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    good = {"q:1001": ["docs/export.md", "msmarco_v2.1_doc_00_12345", "d.1"], "q:1002": ["d.1", "docs/export.md"]}
    (directory / "A.json").write_text(json.dumps(good), encoding="utf-8")
    (directory / "B.json").write_text(json.dumps({"q:1001": ["d.1"], "q:1002": []}), encoding="utf-8")
    (directory / "C.json").write_text('{"q:1001": ["d.1", ', encoding="utf-8")
    (directory / "D.json").write_text(json.dumps({"q:1001": ["d.1", "docs/export.md", "d.1"]}), encoding="utf-8")
    return tuple((None, directory / f"{name}.json") for name in "ABCD")


def in_fresh_interpreter(body: str, tmp_path: Path) -> str:
    """Run ``body`` in a new single-threaded Python (where the command forks) and return its stdout."""
    script = textwrap.dedent(
        f"""
        import os, signal, sys, time
        from pathlib import Path
        sys.path.insert(0, {str(ROOT)!r})
        from rankeval_tui.core.preread import start_run_prefetch
        from rankeval_tui.core.session_runs import read_runs
        specs = tuple((None, Path({str(tmp_path)!r}) / f"{{n}}.json") for n in "ABCD")
        """
    ) + textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_child_reads_what_read_runs_reads_with_each_id_one_object(tmp_path: Path) -> None:
    run_files(tmp_path)
    out = in_fresh_interpreter(
        """
        prefetch = start_run_prefetch(specs)
        assert prefetch is not None
        loaded = prefetch.loaded()
        assert loaded == read_runs(specs), (loaded, read_runs(specs))
        assert prefetch.loaded() is loaded  # waited for once
        from rankeval_tui.core.preread import read_here
        assert read_here(specs) == prefetch.here == 1  # A is read here, B, C and D by the child
        d = loaded[3].run.rankings
        assert d["q:1001"][0] is d["q:1001"][2]  # 'd.1' from the child: one string, not two
        assert loaded[2].run is None and "invalid JSON" in loaded[2].error
        # what check_run can check without the protocol, checked by the child (B) and by the
        # JSON reader here (A): D repeats a document, left to check_run whole
        assert [l.run.distinct_str_entries for l in loaded if l.run] == [True, True, False]
        try:
            os.waitpid(prefetch.pid, os.WNOHANG)
            print("child not reaped")
        except ChildProcessError:
            print("ok")
        """,
        tmp_path,
    )
    assert out.strip() == "ok"


def test_a_killed_child_means_the_files_are_read_here(tmp_path: Path) -> None:
    run_files(tmp_path)
    out = in_fresh_interpreter(
        """
        prefetch = start_run_prefetch(specs)
        os.kill(prefetch.pid, signal.SIGKILL)
        assert prefetch.loaded() == read_runs(specs)
        print("ok")
        """,
        tmp_path,
    )
    assert out.strip() == "ok"


def test_a_cancelled_child_is_stopped_and_reaped(tmp_path: Path) -> None:
    run_files(tmp_path)
    out = in_fresh_interpreter(
        """
        prefetch = start_run_prefetch(specs)
        prefetch.cancel()
        try:
            os.kill(prefetch.pid, 0)
            print("child still there")
        except ProcessLookupError:
            print("ok")
        """,
        tmp_path,
    )
    assert out.strip() == "ok"


def test_an_interrupted_receive_then_cancel_closes_the_pipe_once(tmp_path: Path) -> None:
    """Ctrl-C while the parent reads the child's pickle, then the cancel on the way out: the pipe's
    descriptor was closed by the interrupted read, and its number, reused by a file opened since,
    must not be closed a second time."""
    run_files(tmp_path)
    out = in_fresh_interpreter(
        """
        import pickle
        prefetch = start_run_prefetch(specs)
        pipe_number = prefetch.pipe
        def interrupted(data):
            raise KeyboardInterrupt
        pickle.loads = interrupted
        try:
            prefetch.loaded()
        except KeyboardInterrupt:
            pass
        reused = os.open(os.devnull, os.O_RDONLY)
        assert reused == pipe_number, (reused, pipe_number)
        prefetch.cancel()
        os.fstat(reused)  # raises EBADF if cancel closed the reused number
        print("ok")
        """,
        tmp_path,
    )
    assert out.strip() == "ok"


def test_no_fork_while_other_threads_run(tmp_path: Path) -> None:
    specs = run_files(tmp_path)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert start_run_prefetch(specs) is None
    finally:
        release.set()
        other.join()
    assert start_run_prefetch(()) is None  # nothing to read


class FailingPrefetch(RunPrefetch):
    """A prefetch whose child must not be asked (the runs asked for are others)."""

    cancelled = False

    def loaded(self):  # type: ignore[override]
        raise AssertionError("the prefetched runs were used for other specs")

    def cancel(self) -> None:
        self.cancelled = True


def test_other_runs_than_the_prefetched_ones_are_read_here(tmp_path: Path) -> None:
    specs = run_files(tmp_path)
    base, qrels = load_protocol_and_qrels(ROOT / "protocols" / "help-docs-zh", None)
    prefetch = FailingPrefetch(specs, pid=-1, pipe=-1)
    assert Preread(base, qrels, prefetch).runs_for(specs[:2]) == read_runs(specs[:2])
    assert prefetch.cancelled


@pytest.mark.parametrize("names", [("fixture_A", "fixture_B"), ()])
def test_a_session_from_the_preread_is_the_session_from_the_files(seed_dir: Path, names: tuple[str, ...]) -> None:
    specs = tuple((None, seed_dir / "runs" / f"{name}.json") for name in names)
    base, qrels = load_protocol_and_qrels(seed_dir, None)
    from_files = ScoringSession.load(seed_dir, specs)
    preread = Preread(base, qrels, None)  # runs read in-process: this process has threads
    from_preread = ScoringSession.load(seed_dir, specs, preread=preread)
    assert [s.report.to_json() for s in from_preread.accepted] == [s.report.to_json() for s in from_files.accepted]
    assert from_preread.protocol.protocol_sha256 == from_files.protocol.protocol_sha256
    assert [s.name for s in from_preread.scored] == [s.name for s in from_files.scored]


def test_a_session_from_the_child_rejects_what_a_session_from_the_files_rejects(seed_dir: Path, tmp_path: Path) -> None:
    """The seed's two runs, one with a document outside the corpus and one with a repeated
    document: from the child (its checks done there) the session rejects the same runs with
    the same reasons, and scores the others the same."""
    runs = json.loads((seed_dir / "runs" / "fixture_A.json").read_text(encoding="utf-8"))
    query, ranking = next(iter(runs.items()))
    (tmp_path / "unknown.json").write_text(json.dumps({**runs, query: [*ranking, "not-in-corpus"]}), encoding="utf-8")
    (tmp_path / "repeated.json").write_text(json.dumps({**runs, query: [*ranking, ranking[0]]}), encoding="utf-8")
    out = in_fresh_interpreter(
        f"""
        import json
        from rankeval_tui.core.files import load_protocol_and_qrels
        from rankeval_tui.core.preread import Preread
        from rankeval_tui.core.session import ScoringSession
        seed = Path({str(seed_dir)!r})
        specs = tuple((None, p) for p in (seed / "runs" / "fixture_A.json", seed / "runs" / "fixture_B.json",
                                          Path({str(tmp_path)!r}) / "unknown.json", Path({str(tmp_path)!r}) / "repeated.json"))
        base, qrels = load_protocol_and_qrels(seed, None)
        prefetch = start_run_prefetch(specs)
        assert prefetch is not None
        def summary(session):
            return [(s.name, s.error, s.report.to_json() if s.report else None) for s in session.scored]
        from_child = summary(ScoringSession.load(seed, specs, preread=Preread(base, qrels, prefetch)))
        from_files = summary(ScoringSession.load(seed, specs))
        assert from_child == from_files, (from_child, from_files)
        print(json.dumps([(name, error) for name, error, _ in from_child]))
        """,
        tmp_path,
    )
    outcome = dict(json.loads(out))
    assert outcome["fixture_A"] is None and outcome["fixture_B"] is None
    assert "unknown document ID" in outcome["unknown"] and "not-in-corpus" in outcome["unknown"]
    assert "duplicate document ID" in outcome["repeated"]


@pytest.mark.parametrize(
    ("rankings", "expected"),
    [
        ({"q:1": ["d.1", "docs/a.md"], "q:2": []}, True),
        ({"q:1": ["d.1", "d.1"]}, False),  # a repeated document
        ({"q:1": ("d.1",)}, False),  # not a list
        ({"q:1": ["d.1", 1]}, False),  # not a str
        ({"q:1": ["d.1", type("Name", (str,), {})("d.2")]}, False),  # a str subclass: the rule is the exact type
    ],
)
def test_what_the_child_checks_without_the_protocol(rankings: dict, expected: bool) -> None:
    from rankeval_tui.core.evaluation.evaluate import Run
    from rankeval_tui.core.preread import for_the_parent
    from rankeval_tui.core.session_runs import LoadedRun

    sent = for_the_parent(LoadedRun("bm25.run", Path("bm25.run.json"), Run("bm25.run", rankings)))
    assert sent.run is not None and sent.run.distinct_str_entries is expected
    assert sent.run.rankings == rankings


def checked_run(rankings: dict) -> LoadedRun:
    """A run as a text reader returns it: IDs checked str and distinct per query."""
    from rankeval_tui.core.evaluation.evaluate import Run

    return LoadedRun("A", Path("A.run"), Run("A", rankings, distinct_str_entries=True))


def test_a_run_whose_ids_repeat_goes_with_each_id_one_string() -> None:
    """A corpus of 200 ranked for many queries: interned, so pickle writes each ID once."""
    from rankeval_tui.core.preread import for_the_parent, ids_repeat

    rankings = {f"q:{q}": [f"docs/{(q + i) % 200}.md" for i in range(100)] for q in range(1000)}
    assert ids_repeat(rankings)
    sent = for_the_parent(checked_run(rankings))
    assert sent.run is not None and sent.run.rankings == rankings and sent.run.distinct_str_entries
    assert sent.run.rankings["q:0"][5] is sent.run.rankings["q:1"][4]  # docs/5.md: one object


def test_a_run_whose_ids_do_not_repeat_goes_as_it_is() -> None:
    """A pooled run (each query its own documents): interning would cost the child, save nothing."""
    from rankeval_tui.core.preread import for_the_parent, ids_repeat

    rankings = {f"q:{q}": [f"msmarco_v2.1_doc_00_{q * 100 + i}" for i in range(100)] for q in range(1000)}
    assert not ids_repeat(rankings)
    loaded = checked_run(rankings)
    assert for_the_parent(loaded) is loaded
    half = {q: ranking[:50] + ranking[:50] for q, ranking in list(rankings.items())[:10]}  # every other seen before
    assert ids_repeat({q: r for q, r in half.items()})


def test_a_protocol_ordered_by_score_is_read_ahead_by_score(tmp_path: Path) -> None:
    """``inspect`` reads the runs ahead in the tie order protocol.toml declares (from its first
    bytes), so a ``tie_order = "score"`` protocol's runs are read once, not once per order; text
    that merely mentions it elsewhere in the file is not the declaration."""
    from rankeval_tui.core.preread import declared_by_score
    from tests.cli.helpers import REPO, run_cli

    cacm = REPO / "tests" / "data" / "collections" / "cacm"
    for order in ("score", "rank"):
        made = run_cli("init", tmp_path / order, "--qrels", cacm / "qrels.trec", "--run", cacm / "bm25.run",
                       "--k", "10", "--unlisted-as-zero", "--tie-order", order)  # fmt: skip
        assert made.returncode == 0, made.stderr
    assert declared_by_score(tmp_path / "score") and not declared_by_score(tmp_path / "rank")
    text = (tmp_path / "rank" / "protocol.toml").read_text()
    (tmp_path / "rank" / "protocol.toml").write_text(text + '\n[notes]\nwhy = """\ntie_order = "score"\n"""\n')
    assert not declared_by_score(tmp_path / "rank")
    assert not declared_by_score(tmp_path / "missing")  # the full read names it

    body = f"""
        from rankeval_tui.cli import build_parser
        from rankeval_tui.cli.inspect import preread_files
        preread = preread_files(build_parser().parse_args(["inspect", {str(tmp_path / "score")!r}]))
        session_runs = preread.runs_for(preread.runs.specs, by_score=True)
        print(preread.runs.by_score, preread.runs._result is not None, len(session_runs))
        preread.close()
    """
    assert in_fresh_interpreter(body, tmp_path).split() == ["True", "True", "1"]
