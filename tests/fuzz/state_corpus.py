"""The judging state a judge start reads: damaged journals and lock files, with what must happen.

Each case is ``(bytes, expectation)``: ``"recovered"`` (harmless damage: judging resumes with a
notice) or ``"refused: FRAGMENT"`` (one ``error:`` line naming the file and containing FRAGMENT).
The journal cases are mutations of a real journal of the demo protocol (a review session with
two label changes), made here deterministically; ``make_corpus.py`` writes them under
``corpus/journal`` and ``corpus/lock``, ``test_fuzz_state.py`` replays them.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

from tests.fuzz.harness import DEMO

STATE_SUFFIX = {"journal": ".journal", "lock": ".lock"}
LONG_ID = "msmarco_v2.1_doc_00_" + "7" * 50_000
"""An ID far longer than any message may quote (small enough to commit)."""


def demo_journal() -> bytes:
    """A real journal: review of the demo's complete qrels, two labels changed, never finished."""
    from rankeval_tui.core.annotation.judging import JudgingSession
    from rankeval_tui.core.files import load_definition

    with tempfile.TemporaryDirectory() as scratch:
        protocol = Path(scratch) / "p"
        shutil.copytree(DEMO, protocol)
        session = JudgingSession.open(load_definition(protocol), protocol / "qrels.toml", annotator="fuzz")
        session.label(1)
        session.label(1)
        session.close()
        # Without the entries' "at" stamps (the time of the run, so never the same twice): the
        # committed corpus stays fixed, and its cases are journals from before stamps, which
        # must still resume (tests/core/test_pace.py covers stamped ones).
        return re.sub(rb',"at":[0-9.]+\}', b"}", (protocol / "qrels.toml.journal").read_bytes())


def journal_cases() -> dict[str, bytes]:
    valid = demo_journal()
    lines = valid.split(b"\n")[:-1]
    header = json.loads(lines[0])

    def with_header(**changes: object) -> bytes:
        changed = {**header, **changes}
        return b"\n".join([json.dumps(changed).encode(), *lines[1:]]) + b"\n"

    def with_binding(part: str) -> bytes:
        return with_header(binding={**header["binding"], part: "0" * 64})

    def replaced(index: int, line: bytes) -> bytes:
        return b"\n".join([*lines[:index], line, *lines[index + 1 :]]) + b"\n"

    label = json.loads(lines[-1])
    return {
        "recovered__blank-line-after-header": b"\n".join([lines[0], b"", *lines[1:]]) + b"\n",
        "recovered__blank-lines-everywhere": b"\n\n".join(lines) + b"\n\n \n",
        "recovered__torn-last-line": valid + lines[-1][: len(lines[-1]) // 2],
        "recovered__blank-line-then-torn-tail": valid + b"\n" + b'{"op":"lab',
        "recovered__no-complete-line": lines[0][:20],
        "refused__corrupt-middle-line": replaced(1, lines[1][:40]),
        "refused__nul-bytes-in-middle": replaced(2, b"\x00" * 16),
        "refused__non-utf8-middle-line": replaced(2, b'{"op":"label","q":"\xff"}'),
        "refused__array-line": replaced(2, b"[1, 2]"),
        "refused__header-not-a-start": replaced(0, b'{"op":"label","q":"q1","d":"d1","v":1}'),
        "refused__version-1-header": with_header(version=1, binding=None),
        "refused__unknown-version": with_header(version=99),
        "refused__other-relevance-criterion": with_binding("relevance"),
        "refused__other-label-scale": with_binding("labels"),
        "refused__other-documents": with_binding("documents"),
        "refused__label-two": replaced(len(lines) - 1, json.dumps({**label, "v": 2}).encode()),
        "refused__label-true": replaced(len(lines) - 1, json.dumps({**label, "v": True}).encode()),
        "refused__unknown-document-long-id": replaced(len(lines) - 1, json.dumps({**label, "d": LONG_ID}).encode()),
        "refused__unknown-entry": replaced(len(lines) - 1, b'{"op":"' + b"x" * 5000 + b'"}'),
    }


EXPECT = {
    "recovered__blank-line-after-header": "recovered",
    "recovered__blank-lines-everywhere": "recovered",
    "recovered__torn-last-line": "recovered",
    "recovered__blank-line-then-torn-tail": "recovered",
    "recovered__no-complete-line": "recovered",
    "refused__corrupt-middle-line": "refused: line 2: journal line is not valid JSON",
    "refused__nul-bytes-in-middle": "refused: line 3: journal line is not valid JSON",
    "refused__non-utf8-middle-line": "refused: line 3: journal line is not valid JSON",
    "refused__array-line": "refused: line 3: journal line is not an entry object",
    "refused__header-not-a-start": "refused: first line must be a start entry",
    "refused__version-1-header": "refused: journal version 1",
    "refused__unknown-version": "refused: first line must be a start entry",
    "refused__other-relevance-criterion": "refused: the relevance criterion changed",
    "refused__other-label-scale": "refused: the label scale changed",
    "refused__other-documents": "refused: the documents changed",
    "refused__label-two": "refused: labels must be integer 0 or 1, got 2",
    "refused__label-true": "refused: labels must be integer 0 or 1, got True",
    "refused__unknown-document-long-id": f"refused: ({len(LONG_ID)} characters)",
    "refused__unknown-entry": "refused: (5000 characters)",
}


def lock_cases() -> dict[str, tuple[bytes, str]]:
    return {
        "recovered__empty": (b"", "recovered"),
        "refused__garbage-bytes": (b"\x00\xffnot json", "refused: unreadable lock file; if no judge"),
        "refused__json-array": (b"[1, 2]", "refused: unreadable lock file"),
        "refused__5000-digit-pid": (b'{"pid": ' + b"9" * 5000 + b', "host": "h"}', "refused: unreadable lock file"),
        "refused__other-host": (
            json.dumps({"pid": 1, "host": "annotator-7.example.invalid", "started": 5}).encode(),
            "refused: lock held by pid 1 on another host annotator-7.example.invalid; if no judge process",
        ),
    }


def state_cases() -> dict[str, dict[str, tuple[bytes, str]]]:
    journals = journal_cases()
    assert journals.keys() == EXPECT.keys()
    return {"journal": {n: (data, EXPECT[n]) for n, data in journals.items()}, "lock": lock_cases()}
