"""A protocol with one long document whose deciding passage is far down (issue 31): the tests of
highlighting, find, next match and position, and their snapshots, read it.

``docs/export.md`` has 2,000 lines; the query's three terms (export, settings, PDF) meet only on
line 1,173, and ``zebra`` (not a query term) stands on lines 40 and 1,500 for find."""

from __future__ import annotations

from pathlib import Path

import tomli_w

PASSAGE_LINE = 1173
FILLER = (
    "The cursor moves when the stream pauses and the buffer is flushed to the terminal.",
    "A callback receives the line once the user presses return; history keeps the last ones.",
    "",
    "## Options and defaults for the interface",
    "    const rl = readline.createInterface({ input, output });",
)


def long_text(lines: int = 2000) -> str:
    text = [FILLER[i % len(FILLER)] for i in range(lines)]
    text[1] = "You can export a single note from its menu."  # one term near the top
    text[39] = "A zebra crossing is not an option here."
    text[PASSAGE_LINE - 1] = "Exporting your settings: open Settings, choose Export, and pick PDF as the format."
    text[PASSAGE_LINE] = "The PDF keeps every setting you exported, including the theme."
    text[1499] = "Another zebra, far down."
    return "\n".join(text)


def write_long_protocol(directory: Path) -> Path:
    data = {
        "protocol": {"name": "long-docs", "k": 10, "split": "test", "relevance": "1 if it answers; otherwise 0"},
        "documents": {
            "docs/export.md": {"title": "Export guide", "text": long_text()},
            "docs/sync.md": {"text": "Sync runs every hour.\nNothing here to export."},
        },
        "queries": {"q:1001": {"text": "How do I export my settings to PDF?", "split": "test"}},
    }
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "protocol.toml").write_text(tomli_w.dumps(data), encoding="utf-8")
    return directory
