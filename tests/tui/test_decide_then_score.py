"""The user's path after ``judge --decide A B`` says "decided after N of M pairs": quit with holes
left (the labels stay in the journal, qrels.toml is not written), then ``score --baseline A
--bounds`` reads the open session's labels read only and gives the same verdict, saying where
the labels came from, with the gate's exit code to match. On a binary and on a graded protocol
(grade keys; Recall and RR count grades from relevant_from)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from rankeval_tui.cli.common import finish_judging
from rankeval_tui.core.annotation.decide_order import DecideQueue
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition, load_run
from rankeval_tui.tui.app import RankevalApp
from tests.cli.helpers import run_cli
from tests.cli.test_pools_cli import make

WORDS = "not relevant,marginal,relevant,highly relevant"


def status(app: RankevalApp) -> str:
    return str(app.screen.query_one("#judge-status").render())


async def judge_in_decide_order(directory: Path, base: Path, new: Path, keys: list[str]) -> tuple[list, str, dict]:
    """The judging screen in decide order, ``keys`` pressed one per asked pair, then quit; the
    session finished as ``judge`` finishes it. The pairs asked, the queue's last status and its
    bounds of the mean change per metric."""
    definition = load_definition(directory)
    session = JudgingSession.open(definition, directory / "qrels.toml", annotator="alice")
    queue = DecideQueue(definition, load_run(base), load_run(new), session.marks.labels)
    session.order_holes(queue)
    app = RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session)
    asked = []
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        for key in keys:
            asked.append(session.cursor.current)
            await pilot.press(key)
            await pilot.pause()
        said = queue.status(session.marks.labels)
        assert status(app).startswith(f"recorded {asked[-1][0]} / {asked[-1][1]} = {keys[-1]}")
        assert said.split(":")[0] in status(app)  # "decided after N of M pairs" on the screen
        await pilot.press("q")
        await pilot.pause()
    assert finish_judging(session, "rankeval-tui judge") == 0
    assert (directory / "qrels.toml.journal").exists()  # holes left: the journal keeps the labels
    means = {metric: queue.mean(metric) for metric in queue.metrics}
    return asked, said, means


def same_bounds(data: dict, candidate: str, means: dict) -> None:
    """The JSON's mean change per metric is the judging screen's, exactly."""
    for metric, bound in means.items():
        mean = data["delta_bounds"][candidate]["measures"][metric]["mean_delta"]
        assert (mean["delta_low"], mean["delta_high"]) == (str(bound.low), str(bound.high)), metric


async def test_stopping_early_then_score_bounds_gives_the_screens_verdict(tmp_path: Path) -> None:
    directory = make(tmp_path)
    dense = tmp_path / "dense.trec"
    assert run_cli("grow", directory, "--gap", dense).returncode == 0
    before = (directory / "qrels.toml").read_bytes()
    bm25 = directory / "runs" / "bm25.trec"
    asked, said, means = await judge_in_decide_order(directory, bm25, dense, ["0"])
    assert asked == [("q:1002", "docs/other.md")]
    assert said == (
        "decided after 1 of 2 pairs: dense worse than bm25 on Recall@2 and RR@2 for every labelling of the rest"
    )
    assert (directory / "qrels.toml").read_bytes() == before  # never written with holes

    args = ("score", directory, "--bounds", "--baseline", "bm25", "--run", bm25, "--run", dense)
    scored = run_cli(*args)
    assert scored.returncode == 0, scored.stderr
    assert (
        f"labels: 4 from qrels.toml and 1 from the open judging session ({directory}/qrels.toml.journal, read only); "
        "1 pool pair not judged yet, bounded, never read as 0" in scored.stdout
    )
    assert "mean change Recall@2 = [-0.5000, -0.2500]: decided worse" in scored.stdout
    assert "mean change MRR@2 = [-0.7500, -0.5000]: decided worse" in scored.stdout
    data = json.loads(run_cli(*args, "--format", "json").stdout)
    assert data["labels"] == {
        "from_qrels": 4,
        "from_open_judging_session": 1,
        "journal": f"{directory}/qrels.toml.journal",
        "unjudged_pool_pairs": 1,
    }
    assert data["delta_bounds"]["dense"]["measures"]["rr"]["mean_delta"]["verdict"] == "decided worse"
    same_bounds(data, "dense", means)
    # q:1002's RR drops by 1 under every labelling of the last hole: the gate fails (exit 1).
    gate = run_cli(*args, "--fail-on-regression", "--max-query-drop", "0.4")
    assert gate.returncode == 1, gate.stderr
    assert "RR@2 on query 'q:1002' drops by at least 1 under every labelling" in gate.stderr
    assert (directory / "qrels.toml").read_bytes() == before and (directory / "qrels.toml.journal").exists()


GRADED_QRELS = "q1 0 a 3\nq1 0 b 0\nq2 0 x 2\nq2 0 y 1\nq3 0 s 3\n"
BASE = "q1 Q0 a 1 2 base\nq1 Q0 b 2 1 base\nq2 Q0 x 1 2 base\nq2 Q0 y 2 1 base\nq3 Q0 s 1 2 base\n"
NEW = "q1 Q0 n1 1 2 new\nq1 Q0 a 2 1 new\nq2 Q0 n2 1 2 new\nq2 Q0 x 2 1 new\nq3 Q0 n3 1 2 new\nq3 Q0 s 2 1 new\n"


async def test_graded_protocol_decided_with_grade_keys_then_scored(tmp_path: Path) -> None:
    """Grades 0-3, relevant from 2: the new run puts a hole above each judged relevant document.
    A hole graded 1 (below 2) lowers RR for every labelling of the rest; one graded 3 raises
    Recall: decided after 2 of 3 pairs, and score --bounds says the same."""
    (tmp_path / "qrels.trec").write_text(GRADED_QRELS)
    (tmp_path / "base.trec").write_text(BASE)
    (tmp_path / "new.trec").write_text(NEW)
    directory = tmp_path / "p"
    made = run_cli(
        "init", directory, "--qrels", tmp_path / "qrels.trec", "--run", tmp_path / "base.trec", "--k", "2",
        "--relevant-from", "2", "--grades", WORDS,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    new = tmp_path / "new.trec"
    undecided = run_cli("score", directory, "--bounds", "--baseline", "base", "--run", directory / "runs" / "base.trec",
                        "--run", new, "--fail-on-regression", "--metrics", "R@2,RR@2,nDCG@2")  # fmt: skip
    assert undecided.returncode == 3, undecided.stderr
    assert "BOUNDS over every grade (0-3) labelling of 3 unjudged top-2 pairs" in undecided.stdout
    grow = undecided.stderr.strip().splitlines()[-1].split("decides it: ")[1].split(" && ")[0]
    assert run_cli(*shlex.split(grow)[1:]).returncode == 0

    asked, said, means = await judge_in_decide_order(directory, directory / "runs" / "base.trec", new, ["1", "3"])
    assert len(asked) == 2 and all(doc.startswith("n") for _, doc in asked)
    assert said == (
        "decided after 2 of 3 pairs: new better than base on Recall@2; new worse than base on RR@2 "
        "for every labelling of the rest"
    )
    args = ("score", directory, "--bounds", "--baseline", "base", "--run", directory / "runs" / "base.trec")
    scored = run_cli(*args, "--run", new, "--metrics", "R@2,RR@2,nDCG@2")
    assert scored.returncode == 0, scored.stderr
    out = scored.stdout
    assert "labels: 5 from qrels.toml and 2 from the open judging session" in out
    assert "1 pool pair not judged yet" in out
    assert "mean change Recall@2 = " in out and "decided better" in out.split("mean change Recall@2")[1]
    assert "decided worse" in out.split("mean change MRR@2")[1].splitlines()[0]
    # the last hole may take any grade 0-3: nDCG with grade gains stays a range
    assert "undecided (1 unjudged pair can change it)" in out.split("mean change nDCG@2")[1].splitlines()[0]
    same_bounds(json.loads(run_cli(*args, "--run", new, "--format", "json").stdout), "new", means)


def test_the_judge_command_stopped_early_names_the_score_that_reads_its_labels(tmp_path: Path) -> None:
    """The real command in a pty: decide order, one label, quit; judge prints the score --bounds
    command, which then gives the verdict the status line showed."""
    from tests.tui.test_judge_kill import Terminal

    directory = make(tmp_path)
    dense = tmp_path / "dense.trec"
    assert run_cli("grow", directory, "--gap", dense).returncode == 0
    app = Terminal(str(directory), "--decide", "bm25", str(dense), "--annotator", "alice")
    app.wait_for("Document docs/other.md")
    app.send("0")
    app.wait_for("decided after 1 of 2 pairs")
    app.send("q")
    assert app.wait_exit() == 0
    screen = app.screen.replace("\r", "")
    assert "1 of 6 pairs remain unjudged" in screen
    command = screen.split("the comparison on the labels so far: ")[1].splitlines()[0].strip()
    assert command == (
        f"rankeval-tui score {directory} --run bm25={directory / 'runs' / 'bm25.trec'} --run dense={dense} "
        "--baseline bm25 --bounds"
    )
    scored = run_cli(*shlex.split(command)[1:])
    assert scored.returncode == 0, scored.stderr
    assert "mean change Recall@2 = [-0.5000, -0.2500]: decided worse" in scored.stdout
    assert "mean change MRR@2 = [-0.7500, -0.5000]: decided worse" in scored.stdout
