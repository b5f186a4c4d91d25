"""Every text output of the CLI on a hostile protocol: no control sequence reaches the terminal.

``tests/security/hostile.py`` puts OSC 52 (clipboard), OSC 0 (title), CSI, a one-byte C1 CSI, a
bidi override and CR into every text field, markup into IDs, run names and file names. Each
command's stdout and stderr must hold none of those characters raw (they are shown escaped:
``\\x1b``), and JSON output must stay exact (the name round-trips). Add a command to COMMANDS
when you add one.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

import pytest
import tomli_w

from rankeval_tui.core.files.tomllib_compat import tomllib
from tests.cli.helpers import run_cli
from tests.security import hostile


@pytest.fixture()
def protocol(tmp_path: Path) -> Path:
    return hostile.build(tmp_path / "received")


def annotators(protocol: Path) -> tuple[Path, Path]:
    """Two annotators' files with hostile names and notes, disagreeing on one pair."""
    qrels = tomllib.loads((protocol / "qrels.toml").read_text(encoding="utf-8"))
    other = copy.deepcopy(qrels)
    q, d = hostile.rename("q2"), hostile.rename("d3")
    other["qrels"][q][d] = 1 - other["qrels"][q][d]
    other["provenance"]["annotators"] = ["bob" + hostile.ESCAPES]
    a, b = protocol.parent / "alice.toml", protocol.parent / "bob.toml"
    a.write_text(tomli_w.dumps(qrels), encoding="utf-8")
    b.write_text(tomli_w.dumps(other), encoding="utf-8")
    return a, b


def hostile_docs(protocol: Path) -> Path:
    """A docs folder (init --corpus) whose skipped file names hold escape sequences."""
    folder = protocol.parent / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("a document " + hostile.ESCAPES, encoding="utf-8")
    (folder / "image\x1b]0;title\x07.png").write_bytes(b"\x89PNG")
    queries = protocol.parent / "queries.tsv"
    queries.write_text("q1\tquestion\n", encoding="utf-8")
    return folder


Args = Callable[[Path], list[str | Path]]
COMMANDS: dict[str, Args] = {
    "score table": lambda p: ["score", p],
    "score markdown": lambda p: ["score", p, "--format", "markdown"],
    "score fractions": lambda p: ["score", p, "--fractions"],
    "score with markup run name": lambda p: ["score", p, "--run", f"[reverse]x={p / 'runs' / '[bold]B.json'}"],
    "validate": lambda p: ["validate", p],
    "rewrite": lambda p: ["rewrite", p],
    "agree": lambda p: ["agree", p, *annotators(p)],
    "merge": lambda p: ["merge", p, annotators(p)[0], "-o", p.parent / "merged.toml"],
    "merge conflict": lambda p: ["merge", p, *annotators(p), "-o", p.parent / "merged.toml"],
    "qrels export": lambda p: ["qrels", "export", p, "-o", p.parent / "q.trec"],
    "run export": lambda p: ["run", "export", p, p / "runs" / "[bold]B.json", "-o", p.parent / "r.trec"],
    "adapt": lambda p: [
        "adapt",
        p,
        p / "chunks" / "chunk_run.json",
        "--chunk-map",
        p / "chunks" / "chunk_map.toml",
        "-o",
        p.parent / "adapted.json",
    ],
    "init skipped names": lambda p: [
        "init",
        p.parent / "new",
        "--corpus",
        hostile_docs(p),
        "--queries",
        p.parent / "queries.tsv",
        "--k",
        "1",
    ],
    "grow": lambda p: ["grow", p, "--corpus", hostile_docs(p)],
    "error line": lambda p: ["score", p, "--run", f"bad={p / 'protocol.toml'}"],
    "bad run with hostile ID": lambda p: ["score", p, "--run", bad_run(p)],
}


def bad_run(protocol: Path) -> Path:
    path = protocol.parent / "bad.json"
    path.write_text(json.dumps({"[/]unknown": ["d1"], "q" + hostile.ESCAPES: ["d1"]}), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", COMMANDS)
def test_no_control_character_reaches_the_terminal(protocol: Path, name: str) -> None:
    result = run_cli(*COMMANDS[name](protocol))
    assert "Traceback" not in result.stderr, result.stderr
    for stream, text in (("stdout", result.stdout), ("stderr", result.stderr)):
        assert not hostile.unsafe_in(text), (name, stream, hostile.unsafe_in(text), text[:2000])
    assert result.stdout + result.stderr, "the command said nothing: the test would prove nothing"


def test_the_issue_repro_shows_the_osc_escaped(protocol: Path) -> None:
    """``name = "x\\u001b]52;c;UFdORURDTElQ\\u001b\\\\"``, ``score X | cat -v``: visible, not sent."""
    result = run_cli("score", protocol)
    assert result.returncode == 0, result.stderr
    assert "protocol x\\x1b]52;c;UFdORURDTElQ\\x1b\\" in result.stdout
    for literal in ("[reverse]q2[/reverse]", "q3[/]", "fix[reverse]A"):
        assert literal in result.stdout


def test_json_stays_exact(protocol: Path) -> None:
    result = run_cli("score", protocol, "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["protocol"]["name"] == "x" + hostile.OSC52
    assert "\x1b" not in result.stdout  # JSON escapes C0 itself (\u001b), so this is exact and safe
    agree = run_cli("agree", protocol, *annotators(protocol), "--format", "json")
    assert agree.returncode == 0, agree.stderr
    assert json.loads(agree.stdout)["annotators"][1] == "bob" + hostile.ESCAPES
