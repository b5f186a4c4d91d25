"""Hypothesis strategies for hostile loader inputs, shared by the fuzz tests and ``scripts/fuzz_loaders.py``.

Two families: *mutations* of the demo's valid files (byte damage that may or may not leave a valid
file, so the check is "report or one clean error") and *must-reject* inputs (a slot of a valid
file filled with a value the contract forbids, so the check is "one clean error, always").
"""

from __future__ import annotations

import json
import re
from typing import Any

import tomli_w
from hypothesis import strategies as st

from rankeval_tui.core.files.tomllib_compat import tomllib  # tomli on Python 3.10
from tests.fuzz.harness import DEMO, KINDS, PLACE, valid_bytes

NASTY_TOKENS = [
    b"\xef\xbb\xbf",
    b"\x00",
    b"\xff",
    b"\xc3",
    b"\r",
    b"\n",
    b"\t",
    b" ",
    b'"',
    b"'",
    b"[",
    b"]",
    b"{",
    b"}",
    b"=",
    b",",
    b"#",
    b"\\",
    b"\x1b",
    b"\xe2\x80\xa8",
    b"[[",
    b"true",
    b"1.5",
    b"nan",
    b"-1",
    b"9" * 40,
    b"[" * 2000,
]


@st.composite
def mutated(draw: st.DrawFn, kind: str) -> bytes:
    """The valid file of ``kind`` with 1-4 random byte-level edits."""
    data = bytearray(valid_bytes(kind))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(("flip", "insert", "delete", "duplicate", "token", "truncate")))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "flip" and data:
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 16))]
        elif op == "duplicate":
            data[at:at] = data[at : at + draw(st.integers(1, 64))]
        elif op == "token":
            data[at:at] = draw(st.sampled_from(NASTY_TOKENS))
        elif op == "truncate":
            del data[at:]
    return bytes(data)


def toml_values() -> st.SearchStrategy[Any]:
    """Every kind of TOML value: the wrong-type fillers."""
    scalars = (
        st.booleans()
        | st.integers(-(2**63), 2**63 - 1)
        | st.floats(allow_nan=True, allow_infinity=True)
        | st.text(max_size=8)
        | st.datetimes()
        | st.dates()
        | st.times()
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(min_size=1, max_size=4), inner, max_size=3),
        max_leaves=6,
    )


def bad_ids() -> st.SearchStrategy[str]:
    """IDs the contract refuses: empty, or holding whitespace or a control character somewhere."""
    bad_char = st.sampled_from(
        [
            " ",
            "\t",
            "\n",
            "\r",
            "\x00",
            "\x07",
            "\x1b",
            "\x7f",
            "\x85",
            "\x9b",
            "\u00a0",
            "\u2028",
            "\u3000",
            "\x0b",
            "\x0c",
            "\x1c",
        ]
    )
    return st.just("") | st.tuples(st.text(max_size=4), bad_char, st.text(max_size=4)).map("".join)


def demo_toml(kind: str) -> dict[str, Any]:
    return tomllib.loads((DEMO / PLACE[kind]).read_text("utf-8"))


@st.composite
def must_reject(draw: st.DrawFn, kind: str) -> bytes:
    """A valid file of ``kind`` with one slot holding a forbidden value (wrong type, range or ID)."""
    return REJECTS[kind](draw)


def invalid_protocol(draw: st.DrawFn) -> bytes:
    data = demo_toml("protocol")
    slot = draw(st.sampled_from(("k", "split-type", "query-id", "document-id", "text-type", "extra-table")))
    if slot == "k":
        data["protocol"]["k"] = draw(toml_values().filter(lambda v: type(v) is not int) | st.integers(max_value=0))
    elif slot == "split-type":
        data["queries"]["q3"]["split"] = draw(toml_values().filter(lambda v: type(v) is not str))
    elif slot == "query-id":
        data["queries"][draw(bad_ids())] = {"text": "x", "split": "test"}
    elif slot == "document-id":
        data["documents"][draw(bad_ids())] = {"text": "x"}
    elif slot == "text-type":
        data["documents"]["d2"]["text"] = draw(toml_values().filter(lambda v: type(v) is not str))
    else:
        data[draw(st.text(min_size=1, max_size=6).filter(lambda k: k not in data))] = {"a": 1}
    return tomli_w.dumps(data).encode()


def invalid_qrels(draw: st.DrawFn) -> bytes:
    data = demo_toml("qrels")
    query = draw(st.sampled_from(sorted(data["qrels"])))
    doc = draw(st.sampled_from(sorted(data["qrels"][query])))
    slot = draw(st.sampled_from(("label", "drop", "unknown-doc", "extra-table")))
    if slot == "label":
        data["qrels"][query][doc] = draw(
            toml_values().filter(lambda v: type(v) is not int) | st.integers().filter(lambda v: v not in (0, 1))
        )
    elif slot == "drop":
        del data["qrels"][query][doc]
    elif slot == "unknown-doc":
        data["qrels"][query][draw(st.text(min_size=1, max_size=6).filter(lambda d: not d.startswith("d")))] = 0
    else:
        data[draw(st.text(min_size=1, max_size=6).filter(lambda k: k not in data))] = {"a": 1}
    return tomli_w.dumps(data).encode()


def invalid_chunk_map(draw: st.DrawFn) -> bytes:
    data = demo_toml("chunk_map")
    chunk = draw(st.sampled_from(sorted(data["chunk_to_doc"])))
    slot = draw(st.sampled_from(("value", "outside", "chunk-id", "doc-id")))
    if slot == "value":
        data["chunk_to_doc"][chunk] = draw(toml_values().filter(lambda v: type(v) is not str))
    elif slot == "outside":
        data["chunk_to_doc"][chunk] = draw(
            st.text(min_size=1, max_size=6).filter(lambda d: d not in {f"d{i}" for i in range(1, 7)})
        )
    elif slot == "chunk-id":
        data["chunk_to_doc"][draw(bad_ids())] = "d1"
    else:
        data["chunk_to_doc"][chunk] = draw(bad_ids())
    return tomli_w.dumps(data).encode()


def invalid_json_run(draw: st.DrawFn) -> bytes:
    rankings = json.loads((DEMO / "runs" / "fixture_B.json").read_text("utf-8"))
    slot = draw(st.sampled_from(("doc-value", "ranking-value", "query-id", "doc-id")))
    if slot == "doc-value":
        rankings["q2"][draw(st.integers(0, 2))] = draw(
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.floats(),
                lambda i: st.lists(i, max_size=2) | st.dictionaries(st.text(max_size=3), i, max_size=2),
            )
        )
    elif slot == "ranking-value":
        rankings["q3"] = draw(
            st.none() | st.booleans() | st.integers() | st.text() | st.dictionaries(st.text(), st.text())
        )
    elif slot == "query-id":
        rankings[draw(bad_ids())] = ["d1"]
    else:
        rankings["q2"].append(draw(bad_ids()))
    return json.dumps(rankings, ensure_ascii=draw(st.booleans())).encode()


def invalid_trec_run(draw: st.DrawFn) -> bytes:
    lines = valid_bytes("trec_run").decode().splitlines()
    at = draw(st.integers(0, len(lines) - 1))
    fields = lines[at].split(" ")
    slot = draw(st.sampled_from(("rank", "score", "query-id", "doc-id", "field-count")))
    if slot == "rank":
        fields[3] = draw(
            st.text(min_size=1, max_size=6).filter(
                lambda r: not re.search(r"[ \t\n]", r) and not re.fullmatch(r"-?0*[0-9]+", r)
            )
        )
    elif slot == "score":
        fields[4] = draw(
            st.sampled_from(["nan", "inf", "-inf", "1e999", "1_0", "0x10", "1,5", "½", "\u0661", "--1", "1.2.3", "e5"])
        )
    elif slot == "query-id":
        fields[0] = draw(bad_ids().filter(lambda i: i.strip(" \t") == i and i != ""))
    elif slot == "doc-id":
        fields[2] = draw(bad_ids().filter(lambda i: i.strip(" \t") == i and i != ""))
    else:
        fields = fields[: draw(st.integers(1, 5))] if draw(st.booleans()) else fields + ["x"] * draw(st.integers(1, 3))
    lines[at] = " ".join(fields)
    return ("\n".join(lines) + "\n").encode()


REJECTS = {
    "protocol": invalid_protocol,
    "qrels": invalid_qrels,
    "chunk_map": invalid_chunk_map,
    "json_run": invalid_json_run,
    "trec_run": invalid_trec_run,
}


__all__ = ["KINDS", "mutated", "must_reject", "bad_ids", "toml_values"]
