"""Any annotator whose name starts with ``model:`` is marked as a model on every output that names
an annotator or reads an annotator's labels: ``model:umbrela (a model)`` in text, and beside the
name in JSON ``annotator_kind = "model"`` (``annotator_kinds`` beside a list of names).

Every command of ``cli/commands.py`` is walked or exempted with its reason (a test checks it), so
a new command, or a new output of one, that names a model without marking it fails here. The
screens that name annotators (judging's subtitle, an assigned annotator's status line, the
adjudication summary) are walked through the functions that make their text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from rankeval_tui.cli.commands import COMMANDS
from rankeval_tui.core.annotation.adjudication import AdjudicationSession
from rankeval_tui.core.annotation.assignment import AnnotatorSession
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.annotation.prediction_powered import sample_queries
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.tomllib_compat import tomllib
from rankeval_tui.tui.adjudicate.text import summary_text
from rankeval_tui.tui.judge.messages import session_subtitle
from tests.cli.helpers import run_cli

MODEL = "model:umbrela"
UNMARKED = re.compile(re.escape(MODEL) + r"(?! \(a model\))")
"""The model's name not followed by the mark."""

EXEMPT = {
    "init": "makes a protocol from a corpus, queries and qrels: no annotator is named or read",
    "adapt": "maps a chunk run to documents: no labels",
    "run": "exports a run: no labels",
    "demo": "copies the demo: no annotator",
    "grow": "adds documents and queries as holes: no annotator is named",
    "rewrite": "rewrites TOML files in the canonical layout, saying only their paths: no annotator is named",
    "inspect": "the scoring screen: its --labels view marks a model, tested in tests/tui/test_score_labels.py",
}


def protocol_with_labels(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    """The demo, a model's complete labels (two flips), its partial labels (q1, q2), the seed
    author's labels of the other queries as alice's, a protocol whose qrels lack q1 and q2 (for
    --fill-from), and a query-level audit (for --estimate)."""
    demo = tmp_path / "demo"
    assert run_cli("demo", demo).returncode == 0
    truth = tomllib.loads((demo / "qrels.toml").read_text(encoding="utf-8"))["qrels"]
    model = {q: dict(row) for q, row in truth.items()}
    model["q1"]["d1"], model["q3"]["d2"] = 1 - model["q1"]["d1"], 1 - model["q3"]["d2"]

    def write(name: str, provenance: dict, labels: dict) -> Path:
        path = tmp_path / name
        path.write_text(tomli_w.dumps({"provenance": provenance, "qrels": labels}), encoding="utf-8")
        return path

    seen = {"q1", "q2"}
    files = {
        "model": write("model.toml", {"annotator": MODEL}, model),
        "partial": write("model-part.toml", {"annotator": MODEL, "partial": True}, {q: model[q] for q in seen}),
        "alice": write(
            "alice.toml", {"annotator": "alice", "partial": True}, {q: r for q, r in truth.items() if q not in seen}
        ),
    }
    drawn = sample_queries(load_definition(demo), 2, 3)
    files["audit"] = write(
        "audit.toml",
        {"annotator": "alice", "partial": True, "audit": {"sample_queries": 2, "seed": 3}},
        {q: truth[q] for q in drawn},
    )
    holed = tmp_path / "holed"
    assert run_cli("demo", holed).returncode == 0
    (holed / "qrels.toml").write_text(
        tomli_w.dumps({"qrels": {q: r for q, r in truth.items() if q not in seen}}), encoding="utf-8"
    )
    files["holed"] = holed
    return demo, files


Walk = Callable[[Path, dict[str, Path]], list[Any]]
WALKED: dict[str, Walk] = {
    "validate": lambda p, f: ["validate", p, "--qrels", f["model"]],
    "score": lambda p, f: ["score", p, "--qrels", f["model"]],
    "score json": lambda p, f: ["score", p, "--qrels", f["model"], "--format", "json"],
    "score fill-from": lambda p, f: ["score", f["holed"], "--fill-from", f["partial"]],
    "score fill-from json": lambda p, f: ["score", f["holed"], "--fill-from", f["partial"], "--format", "json"],
    "score estimate": lambda p, f: ["score", p, "--estimate", f["model"], "--audit", f["audit"]],
    "score estimate json": lambda p, f: [
        "score",
        p,
        "--estimate",
        f["model"],
        "--audit",
        f["audit"],
        "--format",
        "json",
    ],
    "agree": lambda p, f: ["agree", p, f["partial"], p / "qrels.toml"],
    "agree json": lambda p, f: ["agree", p, f["partial"], p / "qrels.toml", "--format", "json"],
    "agree runs": lambda p, f: ["agree", p, f["model"], p / "qrels.toml", "--runs"],
    "merge": lambda p, f: ["merge", p, f["partial"], f["alice"], "-o", p.parent / "merged.toml"],
    "qrels import": lambda p, f: ["qrels", "import", p, exported(p), "--annotator", MODEL, "-o", p.parent / "i.toml"],
    "qrels export": lambda p, f: ["qrels", "export", p, "--qrels", f["model"], "-o", p.parent / "e.txt"],
    "assign": lambda p, f: ["assign", p, "--annotators", f"{MODEL},alice", "--seed", "1"],
    "status": lambda p, f: ["status", assigned(p)],
    "status json": lambda p, f: ["status", assigned(p), "--format", "json"],
}
SCREENS = {"judge", "adjudicate", "serve"}
"""Commands whose annotator names are on a screen: walked below through the text they show
(``serve`` runs ``judge --annotator NAME`` in a browser: the judging screen's subtitle)."""


def exported(protocol: Path) -> Path:
    path = protocol.parent / "labels.txt"
    assert run_cli("qrels", "export", protocol, "-o", path).returncode == 0
    return path


def assigned(protocol: Path) -> Path:
    assert run_cli("assign", protocol, "--annotators", f"{MODEL},alice", "--seed", "1").returncode == 0
    return protocol


def unmarked_in_json(value: Any, where: str = "$") -> list[str]:
    """Where a model's name stands in JSON without ``annotator_kind(s)`` saying "model" beside it."""
    found: list[str] = []
    if isinstance(value, dict):
        name, names = value.get("annotator"), value.get("annotators")
        if isinstance(name, str) and name.startswith("model:") and value.get("annotator_kind") != "model":
            found.append(f"{where}.annotator")
        if isinstance(names, list):
            kinds = value.get("annotator_kinds") or []
            for index, each in enumerate(names):
                if isinstance(each, str) and each.startswith("model:") and (kinds[index : index + 1] != ["model"]):
                    found.append(f"{where}.annotators[{index}]")
        for key, item in value.items():
            found += unmarked_in_json(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += unmarked_in_json(item, f"{where}[{index}]")
    return found


def test_every_command_is_walked_or_exempt() -> None:
    walked = {name.split()[0] for name in WALKED} | SCREENS
    assert walked | set(EXEMPT) == set(COMMANDS) and not walked & set(EXEMPT)


@pytest.mark.parametrize("name", WALKED)
def test_a_model_is_marked(tmp_path: Path, name: str) -> None:
    protocol, files = protocol_with_labels(tmp_path)
    result = run_cli(*WALKED[name](protocol, files), cwd=tmp_path)
    assert result.returncode in (0, 1), (name, result.stderr)
    text = result.stdout + result.stderr
    assert MODEL in text, f"{name}: the model is not named at all: the walk proves nothing"
    if name.endswith("json"):
        data = json.loads(result.stdout)
        assert unmarked_in_json(data) == [], name
        assert not UNMARKED.search(result.stderr), (name, result.stderr)
    else:
        assert not UNMARKED.search(text), (name, [line for line in text.splitlines() if UNMARKED.search(line)])


def test_the_judging_screens_subtitle_and_an_assigned_annotators_status_mark_a_model(tmp_path: Path) -> None:
    protocol, _ = protocol_with_labels(tmp_path)
    definition = load_definition(protocol)
    session = JudgingSession.open(definition, tmp_path / "judged.toml", order="corpus", annotator=MODEL)
    try:
        assert f"{MODEL} (a model)" in session_subtitle(session)
    finally:
        session.close()
    queries = ("q1",)
    team = AnnotatorSession.open(definition.with_queries(queries), tmp_path / "labels.toml", annotator=MODEL)
    try:
        assert f"{MODEL} (a model)" in session_subtitle(team)
        team.label(1)
        assert team.finish().startswith(f"{MODEL} (a model): 1 of 6 assigned pairs judged")
    finally:
        team.close()


def test_the_adjudication_summary_and_its_written_line_mark_a_model(tmp_path: Path) -> None:
    protocol, files = protocol_with_labels(tmp_path)
    out = tmp_path / "adjudicated.toml"
    session = AdjudicationSession.open(
        load_definition(protocol), files["model"], protocol / "qrels.toml", out, adjudicator="model:judge"
    )
    try:
        shown = summary_text(session, 0).plain
        assert not UNMARKED.search(shown) and MODEL in shown
        assert "model:judge (a model)" in shown
        for _ in session.items:
            session.decide(1, "a reason")
        assert "adjudicated by model:judge (a model)" in session.write()
    finally:
        session.close()


def test_labels_merged_from_a_model_and_a_person_say_both(tmp_path: Path) -> None:
    protocol, files = protocol_with_labels(tmp_path)
    merged = tmp_path / "merged.toml"
    assert run_cli("merge", protocol, files["partial"], files["alice"], "-o", merged).returncode == 0
    result = run_cli("validate", protocol, "--qrels", merged)
    assert f"note: {merged}: labels of {MODEL} (a model) beside people's (alice)" in result.stdout
    model_only = run_cli("validate", protocol, "--qrels", files["model"])
    assert f"note: {files['model']}: labels of {MODEL} (a model), not people's" in model_only.stdout
    people_only = run_cli("validate", protocol)
    assert "note:" not in people_only.stdout  # people's labels: validate says what it always said
