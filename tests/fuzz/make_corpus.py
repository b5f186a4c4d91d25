"""Write the fixed corpus of nasty files under ``tests/fuzz/corpus/KIND/CATEGORY__DETAIL.EXT``.

Each file is a mutation of the demo protocol's own valid file of that kind (or a hand-written
hostile one) that must be refused with exit 2 and one line naming it. The files are committed:
``test_fuzz_corpus.py`` replays them, so a loader regression on any of them fails CI even when
nobody reruns this script. The category before ``__`` is what docs/testing.md counts by.

    python tests/fuzz/make_corpus.py        # rewrite the corpus (review the diff)
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz.harness import CORPUS, KINDS, SUFFIX, valid_bytes  # noqa: E402

HUGE = 2_000_000
"""Bytes in a 'huge line': far beyond any real ID, small enough for a test run."""
DEEP = 10_000
"""Nesting depth: ten times what Python's recursion limit lets a recursive parser reach."""
COMMITTED_MAX = 64 * 1024
"""Cases larger than this are not written to disk: the test regenerates them from this module."""


def sub(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def common(valid: bytes) -> dict[str, bytes]:
    """Byte-level damage every loader must survive, whatever its format."""
    text = valid.decode("utf-8")
    middle = len(valid) // 2
    return {
        "empty__zero-bytes": b"",
        "empty__whitespace-only": b" \n\t\n\n",
        "bom__utf8-bom-before-valid-content": b"\xef\xbb\xbf" + valid,
        "non-utf8__latin1-byte": valid[:middle] + b"\xe9" + valid[middle:],
        "non-utf8__utf16-encoded": text.encode("utf-16"),
        "non-utf8__lone-continuation-byte-at-end": valid + b"\x80",
        "non-utf8__nul-bytes": valid[:middle] + b"\x00\x00" + valid[middle:],
        "truncated__half": valid[:middle],
        "truncated__first-byte": valid[:1],
        "binary__random-bytes": bytes(range(256)) * 4,
        "huge-line__two-megabytes-of-x": b"x" * HUGE,
    }


def protocol_cases(valid: bytes) -> dict[str, bytes]:
    text = valid.decode("utf-8")
    t = {
        "wrong-type__k-bool": sub(text, "k = 2", "k = true"),
        "wrong-type__k-float": sub(text, "k = 2", "k = 2.0"),
        "wrong-type__k-string": sub(text, "k = 2", 'k = "2"'),
        "wrong-type__k-array": sub(text, "k = 2", "k = [2]"),
        "wrong-type__k-datetime": sub(text, "k = 2", "k = 1979-05-27T07:32:00Z"),
        "wrong-type__split-int": sub(text, 'split = "test"', "split = 1"),
        "wrong-type__query-split-bool": sub(text, 'split = "dev"', "split = false"),
        "wrong-type__document-text-nested-table": sub(
            text, '[documents.d2]\ntext = "', '[documents.d2]\ntext.inner = "'
        ),
        "wrong-type__document-is-string": sub(text, "[documents.d6]\ntext = ", "[documents]\nd6 = "),
        "wrong-type__documents-array": sub(text, "[documents.d1]", "[[documents]]"),
        "wrong-type__protocol-array-of-tables": sub(text, "[protocol]", "[[protocol]]"),
        "contract__k-zero": sub(text, "k = 2", "k = 0"),
        "contract__k-negative": sub(text, "k = 2", "k = -1"),
        "contract__missing-name": sub(text, 'name = "help-docs-zh"\n', ""),
        "contract__unknown-key": sub(text, "k = 2", "k = 2\ncutoff = 3"),
        "contract__split-without-queries": sub(text, 'split = "test"', 'split = "nosuch"'),
        "contract__no-documents": text.split("[documents.")[0] + '[queries.q1]\ntext = "x"\nsplit = "test"\n',
        "duplicate-key__k-twice": sub(text, "k = 2", "k = 2\nk = 3"),
        "duplicate-key__query-table-twice": text + '\n[queries.q2]\ntext = "again"\nsplit = "test"\n',
        "duplicate-key__document-text-twice": sub(text, "[documents.d1]\n", '[documents.d1]\ntext = "one"\n'),
        "unknown-table__extra-top-level": text + '\n[labels]\nq2 = "d3"\n',
        "unknown-table__qrels-inside-protocol": text + "\n[qrels.q2]\nd1 = 1\n",
        "bad-id__query-with-space": sub(text, "[queries.q2]", '[queries."q 2"]'),
        "bad-id__query-with-quote": sub(text, "[queries.q2]", "[queries.'q\"2']"),
        "bad-id__query-with-newline": sub(text, "[queries.q2]", '[queries."q\\n2"]'),
        "bad-id__document-with-bell": sub(text, "[documents.d3]", '[documents."d\\u0007"]'),
        "bad-id__document-with-c1-control": sub(text, "[documents.d3]", '[documents."d\\u009b3"]'),
        "bad-id__document-with-tab": sub(text, "[documents.d3]", '[documents."d\\t3"]'),
        "bad-id__empty-query-id": sub(text, "[queries.q2]", '[queries.""]'),
        "bad-id__nbsp-in-document-id": sub(text, "[documents.d3]", '[documents."d\\u00a03"]'),
        "truncated__inside-string": text[: text.index("导出文本指南")],
        "truncated__inside-table-header": text[: text.index("[queries.q5]") + 9],
        "deep-nesting__inline-arrays": sub(text, "k = 2", "k = " + "[" * DEEP + "]" * DEEP),
        "deep-nesting__inline-tables": sub(text, "k = 2", "k = " + "{a=" * 3_000 + "1" + "}" * 3_000),
        "huge-number__5000-digit-k": sub(text, "k = 2", "k = " + "9" * 5_000),
        "huge-line__megabyte-query-id": sub(text, "[queries.q2]", "[queries." + "q" * HUGE + "]"),
    }
    return {name: value.encode("utf-8") for name, value in t.items()}


def qrels_cases(valid: bytes) -> dict[str, bytes]:
    text = valid.decode("utf-8")
    q2 = "[qrels.q2]\nd1 = 0\n"
    t = {
        "wrong-type__label-bool": sub(text, q2, "[qrels.q2]\nd1 = false\n"),
        "wrong-type__label-float": sub(text, q2, "[qrels.q2]\nd1 = 0.0\n"),
        "wrong-type__label-string": sub(text, q2, '[qrels.q2]\nd1 = "0"\n'),
        "wrong-type__label-array": sub(text, q2, "[qrels.q2]\nd1 = [0]\n"),
        "wrong-type__label-inline-table": sub(text, q2, "[qrels.q2]\nd1 = {label = 0}\n"),
        "wrong-type__label-nested-table": sub(text, q2, "[qrels.q2]\nd1.label = 0\n"),
        "wrong-type__label-datetime": sub(text, q2, "[qrels.q2]\nd1 = 1979-05-27\n"),
        "wrong-type__qrels-array": sub(text, "[qrels.q1]", "[[qrels]]\n[qrels.q1]"),
        "wrong-type__query-row-is-int": sub(text, q2, "[qrels]\nq2 = 0\n[qrels.q2x]\nd1 = 0\n"),
        "wrong-type__notes-value-int": text + "\n[notes.q2]\nd1 = 3\n",
        "wrong-type__disputed-value-string": text + '\n[disputed.q2]\nd1 = "yes"\n',
        "wrong-type__provenance-not-table": "provenance = 3\n" + text.split("[provenance]")[1].split("\n\n", 1)[1],
        "contract__label-two": sub(text, q2, "[qrels.q2]\nd1 = 2\n"),
        "contract__label-minus-one": sub(text, q2, "[qrels.q2]\nd1 = -1\n"),
        "contract__missing-pair": sub(text, q2, "[qrels.q2]\n"),
        "contract__missing-query": sub(text, "[qrels.q5]", "[qrels_q5_gone]").split("[qrels_q5_gone]")[0],
        "contract__unknown-document": sub(text, q2, "[qrels.q2]\nd1 = 0\nd9 = 0\n"),
        "contract__unknown-query": text + "\n[qrels.q9]\nd1 = 0\n",
        "contract__notes-for-unknown-document": text + '\n[notes.q2]\nd9 = "why"\n',
        "duplicate-key__label-twice": sub(text, q2, "[qrels.q2]\nd1 = 0\nd1 = 1\n"),
        "duplicate-key__query-table-twice": text + "\n[qrels.q2]\nd1 = 0\n",
        "unknown-table__extra-top-level": text + "\n[labels.q2]\nd1 = 0\n",
        "unknown-table__misspelt-qrels": text.replace("[qrels.", "[qrel."),
        "bad-id__document-with-space": sub(text, q2, '[qrels.q2]\n"d 1" = 0\n'),
        "bad-id__document-with-newline": sub(text, q2, '[qrels.q2]\n"d\\n1" = 0\n'),
        "bad-id__query-with-control": sub(text, "[qrels.q2]", '[qrels."q\\u001b2"]'),
        "truncated__before-last-label": text[: text.rindex("d6 = 0")],
        "truncated__inside-last-value": text.rstrip("\n")[:-1],
        "deep-nesting__label-arrays": sub(text, q2, "[qrels.q2]\nd1 = " + "[" * DEEP + "]" * DEEP + "\n"),
        "huge-number__5000-digit-label": sub(text, q2, "[qrels.q2]\nd1 = " + "1" * 5_000 + "\n"),
        "huge-line__megabyte-note": text + '\n[notes.q2]\nd1 = "' + "n" * HUGE + '"\nd9 = "x"\n',
    }
    return {name: value.encode("utf-8") for name, value in t.items()}


def json_run_cases(valid: bytes) -> dict[str, bytes]:
    t: dict[str, object] = {
        "wrong-type__top-level-array": '[["d1"]]',
        "wrong-type__top-level-null": "null",
        "wrong-type__top-level-string": '"q2"',
        "wrong-type__ranking-string": '{"q2": "d1"}',
        "wrong-type__ranking-object": '{"q2": {"d1": 1}}',
        "wrong-type__document-int": '{"q2": [1]}',
        "wrong-type__document-null": '{"q2": [null]}',
        "wrong-type__document-bool": '{"q2": [true]}',
        "wrong-type__document-float-nan": '{"q2": [NaN]}',
        "wrong-type__document-nested-list": '{"q2": [["d1"]]}',
        "duplicate-key__query-twice": '{"q2": ["d1"], "q2": ["d3"]}',
        "contract__duplicate-document": '{"q2": ["d1", "d3", "d1"]}',
        "contract__unknown-document": '{"q2": ["d9"]}',
        "contract__unknown-query": '{"q9": ["d1"]}',
        "contract__wrong-split-query": '{"q1": ["d2"]}',
        "bad-id__document-with-space": '{"q2": ["d 1"]}',
        "bad-id__document-with-quote": '{"q2": ["d\\"1"]}',
        "bad-id__document-with-newline": '{"q2": ["d\\n1"]}',
        "bad-id__query-with-control": '{"q\\u00072": ["d1"]}',
        "bad-id__empty-document": '{"q2": [""]}',
        "bad-id__lone-surrogate-document": '{"q2": ["\\ud800"]}',
        "bad-id__line-separator-in-query": '{"q\\u20282": ["d1"]}',
        "truncated__unclosed-object": '{"q2": ["d1", "d3"]',
        "truncated__inside-string": '{"q2": ["d1',
        "syntax__trailing-comma": '{"q2": ["d1",]}',
        "syntax__two-documents": "{} {}",
        "syntax__single-quotes": "{'q2': ['d1']}",
        "deep-nesting__arrays": '{"q2": ' + "[" * DEEP + "]" * DEEP + "}",
        "huge-number__5000-digit-document": '{"q2": [' + "7" * 5_000 + "]}",
        "huge-number__overflowing-float": '{"q2": [1e999999]}',
        "huge-line__megabyte-document-id": '{"q2": ["' + "d" * HUGE + '"]}',
    }
    return {name: str(value).encode("utf-8") for name, value in t.items()}


def trec_run_cases(valid: bytes) -> dict[str, bytes]:
    text = valid.decode("utf-8")
    first = text.split("\n")[0]  # "q2 Q0 d1 1 99.5 B"
    rest = text[len(first) + 1 :]

    def line(new: str) -> str:
        return new + "\n" + rest

    t = {
        "wrong-type__rank-float": line("q2 Q0 d1 1.0 99.5 B"),
        "wrong-type__rank-word": line("q2 Q0 d1 one 99.5 B"),
        "wrong-type__rank-with-underscore": line("q2 Q0 d1 1_0 99.5 B"),
        "wrong-type__rank-arabic-indic-digit": line("q2 Q0 d1 \u0661 99.5 B"),
        "wrong-type__score-word": line("q2 Q0 d1 1 high B"),
        "wrong-type__score-nan": line("q2 Q0 d1 1 nan B"),
        "wrong-type__score-infinity": line("q2 Q0 d1 1 -inf B"),
        "wrong-type__score-overflow": line("q2 Q0 d1 1 1e999 B"),
        "wrong-type__score-with-underscore": line("q2 Q0 d1 1 9_9.5 B"),
        "contract__five-fields": line("q2 Q0 d1 1 99.5"),
        "contract__seven-fields": line("q2 Q0 d1 1 99.5 B extra"),
        "contract__negative-rank": line("q2 Q0 d1 -1 99.5 B"),
        "contract__rank-clash": text + "q2 Q0 d5 1 0.5 B\n",
        "contract__duplicate-document": text + "q2 Q0 d1 9 0.5 B\n",
        "contract__unknown-document": text + "q2 Q0 d9 9 0.5 B\n",
        "contract__unknown-query": text + "q9 Q0 d1 1 0.5 B\n",
        "contract__wrong-split-query": text + "q1 Q0 d2 1 0.5 B\n",
        "bad-id__document-with-bell": text + "q2 Q0 d\x079 9 0.5 B\n",
        "bad-id__document-with-line-separator": text + "q2 Q0 d\u20289 9 0.5 B\n",
        "bad-id__query-with-form-feed": text + "q\x0c2 Q0 d5 9 0.5 B\n",
        "bad-id__document-with-quote": text + 'q2 Q0 "d5" 9 0.5 B\n',
        "bad-id__document-with-nbsp": text + "q2 Q0 d\u00a05 9 0.5 B\n",
        "bad-id__cr-only-line-endings": text.replace("\n", "\r"),
        "truncated__inside-last-line": text.rstrip("\n").rsplit(" ", 2)[0],
        "huge-line__megabyte-document-id": text + "q2 Q0 " + "d" * HUGE + " 9 0.5 B\n",
        "huge-number__5000-digit-rank": line("q2 Q0 d1 " + "1" * 5_000 + " 99.5 B"),
        # overrides the common case: a TREC run cut at a line end is a valid shorter run (the
        # format has no end marker, nothing can detect that), so this cut falls inside a line
        "truncated__half": text[: text.index("97.5") + 3],
    }
    return {name: value.encode("utf-8") for name, value in t.items()}


def chunk_map_cases(valid: bytes) -> dict[str, bytes]:
    text = valid.decode("utf-8")
    t = {
        "wrong-type__document-int": sub(text, 'd3a = "d3"', "d3a = 3"),
        "wrong-type__document-bool": sub(text, 'd3a = "d3"', "d3a = true"),
        "wrong-type__document-float": sub(text, 'd3a = "d3"', "d3a = 3.0"),
        "wrong-type__document-array": sub(text, 'd3a = "d3"', 'd3a = ["d3"]'),
        "wrong-type__document-nested-table": sub(text, 'd3a = "d3"', 'd3a.doc = "d3"'),
        "wrong-type__map-array-of-tables": sub(text, "[chunk_to_doc]", "[[chunk_to_doc]]"),
        "wrong-type__map-is-string": 'chunk_to_doc = "d3"\n',
        "contract__document-outside-corpus": sub(text, 'd3a = "d3"', 'd3a = "d9"'),
        "contract__missing-table": text.replace("[chunk_to_doc]", ""),
        "duplicate-key__chunk-twice": sub(text, 'd3a = "d3"', 'd3a = "d3"\nd3a = "d4"'),
        "unknown-table__extra-top-level": text + '\n[doc_to_chunk]\nd3 = "d3a"\n',
        "bad-id__chunk-with-space": sub(text, 'd6a = "d6"', '"d6 a" = "d6"'),
        "bad-id__document-with-newline": sub(text, 'd6a = "d6"', 'd6a = "d\\n6"'),
        "bad-id__document-with-quote": sub(text, 'd6a = "d6"', "d6a = 'd\"6'"),
        "bad-id__empty-document": sub(text, 'd6a = "d6"', 'd6a = ""'),
        "bad-id__chunk-with-del": sub(text, 'd6a = "d6"', '"d6\\u007f" = "d6"'),
        "truncated__inside-string": text[: text.index('"d5"') + 2],
        "deep-nesting__inline-arrays": sub(text, 'd6a = "d6"', "d6a = " + "[" * DEEP + "]" * DEEP),
        "huge-number__5000-digit-value": sub(text, 'd6a = "d6"', "d6a = " + "6" * 5_000),
        "huge-line__megabyte-document-id": sub(text, 'd6a = "d6"', 'd6a = "' + "d" * HUGE + '"'),
    }
    return {name: value.encode("utf-8") for name, value in t.items()}


PARTNER = {
    ("protocol", "bad-id__query-with-quote"): "qrels.toml",
    ("protocol", "huge-line__megabyte-query-id"): "qrels.toml",
}
"""Cases valid on their own whose first error is in the file they disagree with.

A quote in an ID, or a very long ID, breaks no rule of protocol.toml (quotes survive TOML,
JSON and TREC); the protocol then lacks query 'q2' that qrels.toml judges, and the error
names qrels.toml. The test accepts that file for these cases and only these.
"""

CASES = {
    "protocol": protocol_cases,
    "qrels": qrels_cases,
    "json_run": json_run_cases,
    "trec_run": trec_run_cases,
    "chunk_map": chunk_map_cases,
}


def build() -> dict[str, dict[str, bytes]]:
    """Every corpus file's bytes by kind and name (common byte damage + format-specific cases)."""
    corpus: dict[str, dict[str, bytes]] = {}
    for kind in KINDS:
        valid = valid_bytes(kind)
        cases = {**common(valid), **CASES[kind](valid)}
        assert valid not in cases.values()
        corpus[kind] = cases
    return corpus


def main() -> None:
    if CORPUS.exists():
        shutil.rmtree(CORPUS)
    total = written = 0
    for kind, cases in build().items():
        folder = CORPUS / kind
        folder.mkdir(parents=True)
        for name, data in cases.items():
            if len(data) <= COMMITTED_MAX:
                (folder / f"{name}{SUFFIX[kind]}").write_bytes(data)
                written += 1
        total += len(cases)
    print(
        json.dumps({kind: len(cases) for kind, cases in build().items()}),
        f"total {total}, {written} written under {CORPUS}, {total - written} regenerated at test time",
    )


if __name__ == "__main__":
    main()
