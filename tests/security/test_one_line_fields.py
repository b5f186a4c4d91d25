"""A field a protocol supplies stays one line, and inert in Markdown: every command, every format.

The protocol's name, run file names, the pool rule, annotator names, notes, the qrels file's name
and the IDs below hold newlines followed by what a forger would print: an ``ok:`` line, bold
text, an image loading an external URL, a link and an unclosed HTML comment (which hid the real
"Regression gate: failed" of the CI step summary). Line-based output (table, validate, agree,
every message) must show each such newline escaped (``\\n``), so no line of the output starts
with what the protocol wrote; Markdown (``--format markdown``, ``$GITHUB_STEP_SUMMARY``) is
rendered as GitHub would (markdown-it, GFM tables and links) and must hold no image, link, comment
or bold text a field made. Every command of ``cli/commands.py`` is walked (a test checks it).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from markdown_it import MarkdownIt

from rankeval_tui.cli.commands import COMMANDS as CLI_COMMANDS
from rankeval_tui.core.files.tomllib_compat import tomllib
from tests.cli.helpers import run_cli
from tests.security import hostile

FORGED = "\nok: FORGED line\n\n**FORGED bold**\n\n![pixel](https://evil.example/track.png) [FORGED](https://evil.example)\n\n<!--"
"""A field's text (names, notes, annotators, the pool rule): lines a forger wants printed."""
FORGED_FILE = "\nok: run FORGED (FORGED.json): 4 queries\n**FORGED bold**\n<!--![pixel](x)"
"""The same in a file name (which holds no ``/``)."""
FORGED_STARTS = (
    "ok: FORGED",
    "ok: run FORGED",
    "**FORGED bold",
    "![pixel](https://evil.example/track.png) [",
    "<!--![",
)
"""How the forged lines start (an ID alone may start a table's row with markup: it is an ID there)."""
MARKUP_IDS = {
    "q1": "<!--q1",
    "q5": "<!--q5",
    "d1": "![pixel](https://evil.example/track.png)",
    "d2": "[FORGED](https://evil.example)",
    "d4": "**FORGED**",
}
"""IDs the ID rules allow (no whitespace, no control character) that are Markdown or HTML."""
RUN_FILE = "fixB" + FORGED_FILE + ".json"
GITHUB = MarkdownIt("gfm-like", {"html": True})
"""Markdown as GitHub renders a step summary: tables, links, and HTML (comments, images) too."""


def renamed(value: Any) -> Any:
    """``value`` with every key and string equal to an old ID renamed (``MARKUP_IDS``)."""
    if isinstance(value, dict):
        return {MARKUP_IDS.get(key, key): renamed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [renamed(item) for item in value]
    return MARKUP_IDS.get(value, value) if isinstance(value, str) else value


def rewrite_toml(path: Path, change: Callable[[dict], None]) -> None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(tomli_w.dumps(data), encoding="utf-8")


def exhaustive(tmp_path: Path) -> Path:
    """The hostile demo (tests/security/hostile.py) with newlines in every one-line field."""
    target = hostile.build(tmp_path / "received")
    for path in (target / "protocol.toml", target / "qrels.toml", target / "chunks" / "chunk_map.toml"):
        rewrite_toml(path, lambda data: data.update(renamed(data)))
    for path in [*(target / "runs").glob("*.json"), target / "chunks" / "chunk_run.json"]:
        path.write_text(json.dumps(renamed(json.loads(path.read_text(encoding="utf-8")))), encoding="utf-8")

    def protocol(data: dict) -> None:
        data["protocol"]["name"] = "help" + FORGED

    def qrels(data: dict) -> None:
        data["provenance"]["annotators"] = ["alice" + FORGED]
        data["provenance"]["note"] = "note" + FORGED
        query = next(iter(data["qrels"]))
        data["notes"] = {query: {next(iter(data["qrels"][query])): "a note" + FORGED}}

    rewrite_toml(target / "protocol.toml", protocol)
    rewrite_toml(target / "qrels.toml", qrels)
    runs = target / "runs"
    shutil.copy(runs / f"{hostile.RUN_NAMES['fixture_A']}.json", runs / RUN_FILE)
    return target


def pooled(tmp_path: Path) -> Path:
    """A pooled protocol made by ``init`` from a qrels file whose name forges lines (it is in the
    pool rule), a run file named the same way and markup IDs; its pool rule forges lines too."""
    source = tmp_path / "sources"
    source.mkdir()
    d1, d2, d4, q1 = MARKUP_IDS["d1"], MARKUP_IDS["d2"], MARKUP_IDS["d4"], MARKUP_IDS["q1"]
    qrels = source / ("qrels" + FORGED_FILE + ".trec")
    qrels.write_text(f"{q1} 0 {d1} 1\n{q1} 0 {d2} 0\nq2 0 {d4} 1\n", encoding="utf-8")
    run = source / "bm<!--**FORGED**![pixel](x).trec"  # a run's name is an ID: no newline
    run.write_text(f"{q1} Q0 {d1} 1 3 bm\n{q1} Q0 {d2} 2 2 bm\nq2 Q0 {d4} 1 1 bm\n", encoding="utf-8")
    gap = tmp_path / "gap<!--**FORGED**![pixel](x).trec"  # beside the protocol: top-2 pairs outside its pools
    gap.write_text(f"{q1} Q0 {d1} 1 3 gap\nq2 Q0 gap 1 2 gap\nq2 Q0 {d4} 2 1 gap\n", encoding="utf-8")
    target = tmp_path / "pooled"
    made = run_cli("init", target, "--qrels", qrels, "--run", run, "--k", "2")
    assert made.returncode == 0, made.stderr
    check_lines("init (pooled)", made.stdout + made.stderr)

    def rule(data: dict) -> None:
        data["protocol"]["pool_rule"] = "the rule" + FORGED
        data["protocol"]["name"] = "pooled" + FORGED

    rewrite_toml(target / "protocol.toml", rule)
    return target


def annotators(protocol: Path) -> tuple[Path, Path]:
    """Alice's qrels and Bob's, who disagrees on one pair and notes it."""
    data = tomllib.loads((protocol / "qrels.toml").read_text(encoding="utf-8"))
    a = protocol.parent / ("alice" + FORGED_FILE + ".toml")
    a.write_text(tomli_w.dumps(data), encoding="utf-8")
    query = next(iter(data["qrels"]))
    document = next(iter(data["qrels"][query]))
    data["qrels"][query][document] = 1 - data["qrels"][query][document]
    data["provenance"]["annotators"] = ["bob" + FORGED]
    data["notes"] = {query: {document: "bob's note" + FORGED}}
    b = protocol.parent / ("bob" + FORGED_FILE + ".toml")
    b.write_text(tomli_w.dumps(data), encoding="utf-8")
    return a, b


def texts(protocol: Path) -> tuple[Path, Path]:
    """A docs folder and a queries file for init and grow, their names and contents forging lines."""
    folder = protocol.parent / ("docs" + FORGED_FILE)
    folder.mkdir(exist_ok=True)
    (folder / ("new" + FORGED_FILE + ".md")).write_text("# title" + FORGED, encoding="utf-8")
    (folder / ("skipped" + FORGED_FILE + ".png")).write_bytes(b"\x89PNG")
    queries = protocol.parent / ("queries" + FORGED_FILE + ".tsv")
    queries.write_text("qnew\ta question\n", encoding="utf-8")
    return folder, queries


def assigned(protocol: Path, forged_name: bool = False) -> Path:
    """``protocol`` split between two annotators (``assign``); ``forged_name``: the file then
    edited by hand so that one annotator's name forges lines."""
    assert run_cli("assign", protocol, "--annotators", "alice,bob", "--overlap", "0.5", "--seed", "1").returncode == 0
    if forged_name:
        rewrite_toml(
            protocol / "assignments.toml",
            lambda data: data["annotators"].update({"bob" + FORGED: data["annotators"].pop("bob")}),
        )
    return protocol


def estimate_files(protocol: Path) -> list[Any]:
    """``--estimate`` and ``--audit``: the qrels as a model's labels (its name and file name forging
    lines), and a query-level audit of the queries seed 1 draws (a file name forging lines)."""
    from rankeval_tui.core.annotation.prediction_powered import sample_queries
    from rankeval_tui.core.files import load_definition

    data = tomllib.loads((protocol / "qrels.toml").read_text(encoding="utf-8"))
    model = protocol.parent / ("model" + FORGED_FILE + ".toml")
    model.write_text(tomli_w.dumps({"provenance": {"annotator": "model:x" + FORGED}, "qrels": data["qrels"]}))
    drawn = sample_queries(load_definition(protocol), 2, 1)
    audit = protocol.parent / ("audit" + FORGED_FILE + ".toml")
    provenance = {"partial": True, "audit": {"sample_queries": 2, "seed": 1}}
    audit.write_text(tomli_w.dumps({"provenance": provenance, "qrels": {q: data["qrels"][q] for q in drawn}}))
    return ["--estimate", model, "--audit", audit]


Args = Callable[[Path], list[Any]]
EXHAUSTIVE: dict[str, Args] = {
    "score table": lambda p: ["score", p],
    "score markdown": lambda p: ["score", p, "--format", "markdown"],
    "score fractions": lambda p: ["score", p, "--fractions", "--metrics", "P@1,nDCG@3"],
    "score json": lambda p: ["score", p, "--format", "json"],
    "score named run": lambda p: ["score", p, "--run", f"x{FORGED}={p / 'runs' / RUN_FILE}"],
    "score gate": lambda p: ["score", p, "--fail-under", "recall=1"],
    "score regression gate": lambda p: ["score", p, "--fail-on-regression", "--baseline", "fix[reverse]A"],
    "validate": lambda p: ["validate", p],
    "validate named run": lambda p: ["validate", p, "--run", f"x{FORGED}={p / 'runs' / RUN_FILE}"],
    "agree": lambda p: ["agree", p, *annotators(p)],
    "agree json": lambda p: ["agree", p, *annotators(p), "--format", "json"],
    "merge": lambda p: ["merge", p, annotators(p)[0], "-o", p.parent / "merged.toml"],
    "merge conflict": lambda p: ["merge", p, *annotators(p), "-o", p.parent / "merged.toml"],
    "qrels export": lambda p: ["qrels", "export", p, "-o", p.parent / ("q" + FORGED_FILE + ".trec")],
    "qrels import": lambda p: ["qrels", "import", p, qrels_trec(p), "-o", p.parent / "imported.toml"],
    "run export": lambda p: ["run", "export", p, p / "runs" / RUN_FILE, "-o", p.parent / "r.trec"],
    "adapt": lambda p: [
        "adapt",
        p,
        p / "chunks" / "chunk_run.json",
        "--chunk-map",
        p / "chunks" / "chunk_map.toml",
        "-o",
        p.parent / ("adapted" + FORGED_FILE + ".json"),
    ],
    "init": lambda p: ["init", p.parent / ("new" + FORGED_FILE), "--corpus", texts(p)[0], "--queries", texts(p)[1]],
    "grow": lambda p: ["grow", p, "--corpus", texts(p)[0], "--queries", texts(p)[1]],
    "inspect": lambda p: ["inspect", p],
    "rewrite": lambda p: ["rewrite", p],
    "judge": lambda p: ["judge", p],
    "adjudicate": lambda p: ["adjudicate", p, *annotators(p)],
    "demo": lambda p: ["demo", p.parent / ("demo" + FORGED_FILE)],
    "assign": lambda p: ["assign", p, "--annotators", "alice,bob", "--overlap", "0.5", "--seed", "1"],
    "assign forged name": lambda p: ["assign", p, "--annotators", "alice,bob" + FORGED, "--seed", "1"],
    "status": lambda p: ["status", assigned(p)],
    "status json": lambda p: ["status", assigned(p), "--format", "json"],
    "status forged name": lambda p: ["status", assigned(p, forged_name=True)],
    "score estimate": lambda p: ["score", p, *estimate_files(p)],
    "score estimate markdown": lambda p: ["score", p, *estimate_files(p), "--format", "markdown"],
    "serve forged name": lambda p: ["serve", p, "--annotator", "alice" + FORGED],  # refused before serving
}
POOLED: dict[str, Args] = {
    "score table": lambda p: ["score", p],
    "score markdown": lambda p: ["score", p, "--format", "markdown"],
    "score bounds": lambda p: ["score", p, "--bounds", "--run", gap_run(p)],
    "score bounds markdown": lambda p: ["score", p, "--bounds", "--format", "markdown", "--run", gap_run(p)],
    "validate": lambda p: ["validate", p],
    "grow gap": lambda p: ["grow", p, "--gap", "--run", gap_run(p)],
    "judge": lambda p: ["judge", p],
}


def gap_run(protocol: Path) -> Path:
    return protocol.parent / "gap<!--**FORGED**![pixel](x).trec"


def qrels_trec(protocol: Path) -> Path:
    exported = protocol.parent / ("export" + FORGED_FILE + ".trec")
    assert run_cli("qrels", "export", protocol, "-o", exported).returncode == 0
    return exported


def check_lines(name: str, text: str) -> None:
    """No line of ``text`` is one a field wrote."""
    forged = [
        line for line in text.splitlines() if line.lstrip(" -#|").startswith(FORGED_STARTS) or line.strip() == "<!--"
    ]
    assert not forged, (name, forged, text[:3000])


def check_markdown(name: str, text: str) -> None:
    """``text`` rendered as GitHub renders a step summary: nothing a field wrote is markup."""
    html = GITHUB.render(text)
    for markup in ("<img", "<a ", "<!--", "FORGED</strong>", "FORGED</em>", "<h1", "<blockquote"):
        assert markup not in html, (name, markup, html[:3000])
    assert "evil.example" in html and "FORGED" in html, "the hostile fields were not shown: the test proves nothing"


def run_and_check(name: str, args: list[Any], summary: Path | None = None) -> None:
    env = {"GITHUB_STEP_SUMMARY": str(summary)} if summary is not None else None
    result = run_cli(*args, env=env)
    assert "Traceback" not in result.stderr, (name, result.stderr)
    assert result.stdout + result.stderr, f"{name}: said nothing"
    if "json" in name:
        json.loads(result.stdout)  # data, exact: JSON escapes the newlines itself
    else:
        check_lines(name, result.stdout)
    check_lines(name, result.stderr)
    if "markdown" in name:
        check_markdown(name, result.stdout)
    if summary is not None and summary.exists():
        check_markdown(name + " (step summary)", summary.read_text(encoding="utf-8"))
        assert "failed</strong>" in GITHUB.render(summary.read_text(encoding="utf-8"))


def test_every_command_is_walked() -> None:
    assert {name.split()[0] for name in EXHAUSTIVE} == set(CLI_COMMANDS)


@pytest.mark.parametrize("name", EXHAUSTIVE)
def test_no_field_forges_a_line_or_markup(tmp_path: Path, name: str) -> None:
    protocol = exhaustive(tmp_path)
    summary = tmp_path / "summary.md" if "gate" in name else None
    run_and_check(name, EXHAUSTIVE[name](protocol), summary)


@pytest.mark.parametrize("name", POOLED)
def test_no_pooled_field_forges_a_line_or_markup(tmp_path: Path, name: str) -> None:
    run_and_check(name, POOLED[name](pooled(tmp_path)))


def test_the_issue_summary_shows_the_real_verdict(tmp_path: Path) -> None:
    """The issue's name: the summary says "failed", with no forged "passed", image or comment."""
    protocol = exhaustive(tmp_path)
    name = "help\n\n**Regression gate: passed**\n\n![pixel](https://evil.example/track.png)\n\n<!--"
    rewrite_toml(protocol / "protocol.toml", lambda data: data["protocol"].update(name=name))
    summary = tmp_path / "summary.md"
    result = run_cli("score", protocol, "--fail-under", "recall=1", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.returncode == 1, result.stderr
    html = GITHUB.render(summary.read_text(encoding="utf-8"))
    assert "<strong>Threshold gate (--fail-under): failed</strong>" in html
    assert "<strong>Regression gate: passed</strong>" not in html and "<img" not in html and "<!--" not in html
