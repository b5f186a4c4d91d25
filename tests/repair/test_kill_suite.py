"""The seeded kill suite: grow, qrels import, merge and adjudicate killed (SIGKILL) at seeded
points between their file operations, then the same command run again: the state is repaired
and no label is lost (issue 30: every multi-file change completes, or leaves a state the next
run of the same command repairs).

Each kill runs in a forked child (``killpoints``), so a kill costs milliseconds, not an
interpreter start: about a second for the whole suite. Seeds are fixed; a failure names its kill
point, so it is reproduced by running that one point again.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
import tomli_w

from rankeval_tui.cli import main
from rankeval_tui.core.annotation.adjudication import AdjudicationSession
from rankeval_tui.core.annotation.judging import JudgingSession, journal_progress
from rankeval_tui.core.files import load_definition, read_qrels_file
from rankeval_tui.core.files.tomllib_compat import tomllib
from tests.partial_protocol import write_partial_protocol
from tests.repair.killpoints import kill_points, run_in_child

POINTS = 8
"""Kill points per command (plus the last operation): enough to land between every pair of
writes of these small runs, few enough for a CI budget of a second or two."""


def fresh_copy(template: Path, tmp_path: Path, point: int) -> Path:
    target = tmp_path / f"kill-{point}"
    shutil.copytree(template, target)
    return target


def files_of(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def temporaries(directory: Path) -> list[str]:
    """Temp files under ``directory`` (``.qrels.toml.HOST.PID.RANDOM.tmp``: an atomic write's
    before its rename): after the repairing run, none may be left."""
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*") if p.name.endswith(".tmp"))


# ------------------------------------------------------------------ grow


@pytest.fixture()
def grow_template(tmp_path: Path) -> tuple[Path, dict[str, tuple[str, str, int]], Path]:
    protocol = write_partial_protocol(tmp_path / "template" / "help")
    labels = {}
    for name in ("alice", "bob"):
        (protocol / f"qrels-{name}.toml").write_bytes((protocol / "qrels.toml").read_bytes())
        session = JudgingSession.open(load_definition(protocol), protocol / f"qrels-{name}.toml", annotator=name)
        query, doc = session.cursor.current
        session.label(1)
        session.close()
        labels[f"qrels-{name}.toml"] = (query, doc, 1)
    corpus = tmp_path / "template" / "new-docs.toml"
    corpus.write_text(tomli_w.dumps({"documents": {"docs/sso.md": {"text": "Set up SSO under Settings."}}}))
    return protocol, labels, corpus


def test_grow_killed_anywhere_is_finished_by_the_same_grow(grow_template, tmp_path: Path) -> None:
    template, labels, corpus = grow_template
    command = ["grow", None, "--corpus", str(corpus), "--qrels", None]

    def grow(directory: Path) -> None:
        argv = [str(directory) if a is None and i == 1 else a for i, a in enumerate(command)]
        argv[-1] = str(directory / "qrels-alice.toml")
        assert main(argv) == 0

    counted = fresh_copy(template, tmp_path, 0)
    _, total = run_in_child(lambda: grow(counted))
    for point in kill_points(total, seed=30, most=POINTS):
        directory = fresh_copy(template, tmp_path, point)
        killed, _ = run_in_child(lambda directory=directory: grow(directory), kill_at=point)
        assert killed, point
        grow(directory)  # the same grow again
        definition = load_definition(directory)
        assert "docs/sso.md" in definition.documents, point
        for qrels, (query, doc, label) in labels.items():
            state = journal_progress(definition, directory / qrels)  # bound to the grown protocol
            assert state is not None and state.marks.label_of(query, doc) == label, (point, qrels)
        assert temporaries(directory) == [], point


def test_grow_gap_killed_anywhere_is_finished_by_the_same_grow(tmp_path: Path) -> None:
    """A pooled protocol's gap joins its pools; a kill leaves no label lost and, after the
    same grow again, no temp file (37 of 185 kills left ``.protocol.toml.*.tmp`` for good)."""
    sources = tmp_path / "sources"
    sources.mkdir()
    (sources / "qrels.trec").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n")
    (sources / "bm.trec").write_text("q1 Q0 d1 1 3 bm\nq1 Q0 d2 2 2 bm\nq2 Q0 d3 1 1 bm\n")
    (sources / "gap.trec").write_text("q1 Q0 new1 1 3 gap\nq1 Q0 d1 2 2 gap\nq2 Q0 new2 1 1 gap\n")
    template = tmp_path / "template"
    init = ["init", str(template), "--qrels", str(sources / "qrels.trec"), "--run", str(sources / "bm.trec")]
    assert main([*init, "--k", "2"]) == 0
    labels = read_qrels_file(template / "qrels.toml", load_definition(template)).labels

    def grow(directory: Path) -> None:
        assert main(["grow", str(directory), "--gap", str(sources / "gap.trec")]) == 0

    counted = fresh_copy(template, tmp_path, 0)
    _, total = run_in_child(lambda: grow(counted))
    for point in kill_points(total, seed=34, most=POINTS):
        directory = fresh_copy(template, tmp_path, point)
        killed, _ = run_in_child(lambda directory=directory: grow(directory), kill_at=point)
        assert killed, point
        grow(directory)  # the same grow again (which finds nothing new if the kill came after the write)
        definition = load_definition(directory)
        assert {"new1", "new2"} <= set(definition.documents_of("q1")) | set(definition.documents_of("q2")), point
        assert read_qrels_file(directory / "qrels.toml", definition, exhaustive=False).labels == labels, point
        assert temporaries(directory) == [], point


# ------------------------------------------------------------------ qrels import and merge


def test_qrels_import_and_merge_killed_anywhere_leave_old_or_new_and_the_rerun_finishes(
    seed_copy: Path, tmp_path: Path
) -> None:
    labels = tomllib.loads((seed_copy / "qrels.toml").read_text(encoding="utf-8"))["qrels"]
    trec = tmp_path / "qrels.trec"
    trec.write_text("".join(f"{q} 0 {d} {v}\n" for q, row in labels.items() for d, v in row.items()))
    shard = tmp_path / "shard.toml"
    shard.write_text(tomli_w.dumps({"qrels": labels}))
    old = b"# an older qrels file\n" + (seed_copy / "qrels.toml").read_bytes()
    (seed_copy / "qrels.toml").write_bytes(old)
    for name, argv in (
        ("qrels import", ["qrels", "import", None, str(trec), "-o", None, "--force"]),
        ("merge", ["merge", None, str(shard), "-o", None, "--force"]),
    ):

        def run(directory: Path, argv: list = argv) -> None:
            filled = [str(directory) if a is None else a for a in argv]
            filled[filled.index("-o") + 1] = str(directory / "qrels.toml")
            assert main(filled) == 0

        counted = fresh_copy(seed_copy, tmp_path, 0)
        _, total = run_in_child(lambda counted=counted, run=run: run(counted))
        shutil.rmtree(counted)
        for point in kill_points(total, seed=31, most=POINTS):
            directory = fresh_copy(seed_copy, tmp_path, point)
            killed, _ = run_in_child(lambda directory=directory, run=run: run(directory), kill_at=point)
            assert killed, (name, point)
            written = (directory / "qrels.toml").read_bytes()
            complete = read_qrels_file(directory / "qrels.toml", load_definition(directory)).labels
            assert written == old or complete == labels, (name, point)  # old or new, never half
            run(directory)
            assert read_qrels_file(directory / "qrels.toml", load_definition(directory)).labels == labels
            assert temporaries(directory) == [], (name, point)
            shutil.rmtree(directory)


# ------------------------------------------------------------------ adjudicate


def test_adjudication_killed_anywhere_keeps_every_acknowledged_decision(seed_copy: Path, tmp_path: Path) -> None:
    labels = tomllib.loads((seed_copy / "qrels.toml").read_text(encoding="utf-8"))["qrels"]
    bob = copy.deepcopy(labels)
    for query, doc in (("q1", "d1"), ("q2", "d4"), ("q4", "d6")):
        bob[query][doc] = 1 - bob[query][doc]
    alice_file, bob_file = tmp_path / "alice.toml", tmp_path / "bob.toml"
    alice_file.write_text(tomli_w.dumps({"provenance": {"annotators": ["alice"]}, "qrels": labels}))
    bob_file.write_text(tomli_w.dumps({"provenance": {"annotators": ["bob"]}, "qrels": bob}))
    (seed_copy / "qrels.toml").unlink()
    acknowledged = tmp_path / "acknowledged"

    def adjudicate(directory: Path, record: bool) -> None:
        session = AdjudicationSession.open(
            load_definition(directory), alice_file, bob_file, directory / "qrels.toml", adjudicator="carol"
        )
        try:
            while (index := session.first_undecided()) is not None:
                session.select(index)
                item = session.current
                assert item is not None
                session.decide(labels[item.query][item.document], "alice read the page right")
                if record:  # what the screen would have shown as recorded
                    with acknowledged.open("a") as seen:
                        seen.write(f"{item.query} {item.document}\n")
            session.write()
        finally:
            session.close()

    counted = fresh_copy(seed_copy, tmp_path, 0)
    _, total = run_in_child(lambda: adjudicate(counted, record=True))
    for point in kill_points(total, seed=32, most=POINTS):
        directory = fresh_copy(seed_copy, tmp_path, point)
        acknowledged.write_text("")
        killed, _ = run_in_child(lambda directory=directory: adjudicate(directory, record=True), kill_at=point)
        assert killed, point
        shown = acknowledged.read_text().split("\n")[:-1]
        resumed = AdjudicationSession.open(
            load_definition(directory), alice_file, bob_file, directory / "qrels.toml", adjudicator="carol"
        )
        try:
            kept = {f"{i.query} {i.document}" for i in resumed.items if resumed.decision_of(i) is not None}
            if (directory / "qrels.toml").exists():  # written (atomically: whole) before the kill
                written = read_qrels_file(directory / "qrels.toml", load_definition(directory)).labels
                kept |= {f"{i.query} {i.document}" for i in resumed.items if written == labels}
        finally:
            resumed.close()
        assert set(shown) <= kept, point  # every decision the screen showed as recorded is kept
        adjudicate(directory, record=False)  # the same adjudication again finishes it
        assert read_qrels_file(directory / "qrels.toml", load_definition(directory)).labels == labels, point
        assert not (directory / "qrels.toml.adjudication.journal").exists(), point
        assert temporaries(directory) == [], point


# ------------------------------------------------------------------ init


@pytest.mark.parametrize("existing", [False, True], ids=["new directory", "existing empty directory"])
def test_init_killed_anywhere_leaves_nothing_the_next_init_does_not_clean(tmp_path: Path, existing: bool) -> None:
    data = Path(__file__).resolve().parents[1] / "data" / "own_data"
    inputs = ["--corpus", str(data / "help-docs"), "--queries", str(data / "queries.tsv"), "--k", "2"]
    inputs += ["--run", str(data / "bm25.trec"), "--qrels", str(data / "qrels.trec")]

    def init(parent: Path) -> None:
        assert main(["init", str(parent / "help"), *inputs]) == 0

    def fresh(point: int) -> Path:
        parent = tmp_path / f"kill-{point}"
        (parent / "help" if existing else parent).mkdir(parents=True)
        return parent

    counted = fresh(0)
    _, total = run_in_child(lambda: init(counted))
    expected = files_of(counted / "help")
    for point in kill_points(total, seed=33, most=POINTS):
        parent = fresh(point)
        killed, _ = run_in_child(lambda parent=parent: init(parent), kill_at=point)
        assert killed, point
        if (parent / "help" / "protocol.toml").exists():  # killed after the protocol was complete:
            assert files_of(parent / "help").keys() >= expected.keys(), point
            assert main(["init", str(parent / "help"), *inputs]) == 2  # the same init: "already exists",
        else:  # and the staging directory the kill left is removed all the same
            init(parent)  # the same init again
        assert sorted(p.name for p in parent.iterdir()) == ["help"], point  # no staging left beside
        assert files_of(parent / "help").keys() == expected.keys(), point  # none inside either
        assert temporaries(parent) == [], point
