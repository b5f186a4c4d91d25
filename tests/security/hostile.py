"""A hostile protocol: every text field carries escape sequences and markup, IDs carry markup.

Built from the bundled demo (the seed fixture) by renaming IDs and rewriting texts, so every
screen has its usual content to show. Extend ``ESCAPES``/``ID_RENAMES``/``TEXT`` to try more; the
tests in this folder assert on what reaches the terminal, not on one widget at a time.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import tomli_w

from rankeval_tui.core.files.demo import BUNDLED_DEMO
from rankeval_tui.core.files.tomllib_compat import tomllib

OSC52 = "\x1b]52;c;UFdORURDTElQ\x1b\\"
"""The issue's repro: writes the clipboard (``ESC \\`` ends it, which Rich does not drop)."""
ESCAPES = OSC52 + "\x1b]0;pwned-title\x07" + "\x1b[2J\x1b[31m" + "\x9b31m" + "\u202eevil\u202c" + "\r"
"""OSC 52, OSC 0 (window title), CSI clear screen and colour, a one-byte C1 CSI, a bidi override, CR."""
MARKUP = "[reverse]rev[/reverse] [/] [bold red]x[/bold red] [link=https://evil.example]l[/link]"

ID_RENAMES = {
    "q2": "[reverse]q2[/reverse]",
    "q3": "q3[/]",
    "q4": "q:thumbs_up:4",
    "d3": "wiki[en]/Paris",
    "d5": "[/]d5",
}
"""IDs the documented ID rules allow (no whitespace, no control character) that are markup
(``:thumbs_up:`` is an emoji code to Rich's markup)."""
RUN_NAMES = {"fixture_B": "[bold]B", "fixture_A": "fix[reverse]A", "all_empty": "empty[link=x]"}
"""Run names come from file names (which hold no ``/``, so no closing tag; ``--run '[/]x=PATH'``
names a run with one, which crashed the error toast)."""
RUN_WITH_ESCAPES = "esc\x1b]0;runname\x07"
"""A third run whose file name holds an OSC sequence (validate and score print run names)."""
PLANTED_FILE = "notes\x1b[2J.txt"
"""A file in runs/ that is not a run: validate names it (it named it raw)."""
ANNOTATOR = "alice" + ESCAPES


def hostile(text: str) -> str:
    return f"{text} {ESCAPES} {MARKUP}"


def rename(value: str) -> str:
    return ID_RENAMES.get(value, value)


def build(target: Path) -> Path:
    """Write the hostile protocol to ``target`` (a new directory) and return it."""
    shutil.copytree(BUNDLED_DEMO, target, ignore=shutil.ignore_patterns("*.journal", "*.lock", "__pycache__"))
    protocol = tomllib.loads((target / "protocol.toml").read_text(encoding="utf-8"))
    meta = protocol["protocol"]
    meta["name"] = "x" + OSC52
    meta["relevance"] = hostile(meta["relevance"])
    meta["description"] = hostile(meta["description"])
    protocol["documents"] = {
        rename(d): {"text": hostile(doc["text"]) + "\nline two\x1b[1A\x1b[2K", "title": hostile("title " + d)}
        for d, doc in protocol["documents"].items()
    }
    protocol["queries"] = {
        rename(q): {**query, "text": hostile(query["text"]), "need": hostile("need")}
        for q, query in protocol["queries"].items()
    }
    (target / "protocol.toml").write_text(tomli_w.dumps(protocol), encoding="utf-8")

    qrels = tomllib.loads((target / "qrels.toml").read_text(encoding="utf-8"))
    qrels["provenance"]["annotators"] = [ANNOTATOR]
    qrels["provenance"]["note"] = hostile("note")
    qrels["qrels"] = {rename(q): {rename(d): v for d, v in row.items()} for q, row in qrels["qrels"].items()}
    qrels["notes"] = {rename("q2"): {rename("d3"): hostile("a note")}}
    qrels["disputed"] = {rename("q3"): {rename("d5"): True}}
    (target / "qrels.toml").write_text(tomli_w.dumps(qrels), encoding="utf-8")

    runs = target / "runs"
    for old, new in RUN_NAMES.items():
        ranking = json.loads((runs / f"{old}.json").read_text(encoding="utf-8"))
        (runs / f"{old}.json").unlink()
        renamed = {rename(q): [rename(d) for d in docs] for q, docs in ranking.items()}
        (runs / f"{new}.json").write_text(json.dumps(renamed), encoding="utf-8")
    (runs / f"{RUN_WITH_ESCAPES}.json").write_text(
        (runs / f"{RUN_NAMES['fixture_A']}.json").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (runs / "BASELINE").write_text(RUN_NAMES["fixture_A"] + "\n", encoding="utf-8")
    (runs / PLANTED_FILE).write_text("not a run\n", encoding="utf-8")
    chunk_map = tomllib.loads((target / "chunks" / "chunk_map.toml").read_text(encoding="utf-8"))
    chunk_map["chunk_to_doc"] = {c: rename(d) for c, d in chunk_map["chunk_to_doc"].items()}
    (target / "chunks" / "chunk_map.toml").write_text(tomli_w.dumps(chunk_map), encoding="utf-8")
    chunk_run = json.loads((target / "chunks" / "chunk_run.json").read_text(encoding="utf-8"))
    (target / "chunks" / "chunk_run.json").write_text(json.dumps({rename(q): c for q, c in chunk_run.items()}))
    return target


UNSAFE_BYTES = ("\x1b", "\x9b", "\x07", "\u202e", "\r")
"""What must never reach a terminal raw from this protocol."""


def unsafe_in(text: str) -> list[str]:
    return [repr(ch) for ch in UNSAFE_BYTES if ch in text]
