"""``fasttoml``'s runs of ``[PREFIX.ID]`` sections (``toml_runs``) against tomllib.

The contract is ``test_fasttoml``'s: whenever ``fasttoml.loads(t)`` returns a dict, tomllib
returns an equal one (types, key order); otherwise ``None``. Here the texts are shaped like
protocol.toml's documents and queries (sections with the same header prefix, string pairs), in
the layouts tomli-w writes and in others (blank lines, varying keys, escapes, tables before,
between and after), then damaged with near-miss lines: duplicate keys and headers, tables
implied earlier, comments, dotted keys, CRLF, a missing final newline, a run inside a
multi-line string. Tests also pin that runs are read by the run reader, not line by line.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankeval_tui.core.files import fasttoml, toml_bodies, toml_runs, toml_spans
from rankeval_tui.core.files.tomllib_compat import tomllib
from tests.core.test_fasttoml import FAST, basic_string, check_contract, check_taken, damaged, key_text, strict_equal

IDS = ["msmarco_v2.1_doc_00_12345", "q:1001", "docs/export.md", "d1", "a.b", "x y", "é", "", 'q"2', "t\\x", "ü\t"]
TEXTS = ["synthetic document", "", "tab\there", 'say "hi"', "back\\slash", "line\none", "é 导出", "\x01\x7f"]


def string_text(draw: st.DrawFn, value: str) -> str:
    """A value as tomli-w writes it (escaped only where it must be) or escaped in any form."""
    if draw(st.booleans()):
        return basic_string(draw, value)
    from rankeval_tui.core.files.toml_writer import basic_string as written

    return written(value)


@st.composite
def run_documents(draw: st.DrawFn) -> str:
    """Sections ``[PREFIX.ID]`` of string pairs: one prefix or two, keys in one order or varying
    (``title`` on some only), blank lines between or none, other tables before, between and
    after, the last newline or not."""
    prefixes = draw(st.lists(st.sampled_from(["documents.", "queries.", 'a."b c".', "x.'y'."]), min_size=1, max_size=2))
    ids = draw(st.lists(st.sampled_from(IDS), min_size=1, max_size=8, unique=True))
    key_sets = draw(st.lists(st.sampled_from([("text",), ("title", "text"), ("text", "split"), ()]), min_size=1))
    sections = []
    for name in ids:
        prefix = draw(st.sampled_from(prefixes))
        header = f"[{prefix}{key_text(draw, name) if draw(st.booleans()) else basic_string(draw, name)}]"
        keys = draw(st.sampled_from(key_sets))
        pairs = "".join(
            f"{key} = {string_text(draw, draw(st.sampled_from(TEXTS)))}\n" + draw(st.sampled_from(["", "", "\n"]))
            for key in keys
        )
        sections.append(header + "\n" + draw(st.sampled_from(["", "", "\n"])) + pairs)
    separator = draw(st.sampled_from(["\n", "", "\n\n"]))
    extra = draw(
        st.sampled_from(["", '[protocol]\nname = "x"\nk = 10\n', '[pools]\n"q:1" = "d1 d2"\n', "[documents]\n"])
    )
    sections.insert(draw(st.integers(0, len(sections))), extra)
    text = separator.join(section for section in sections if section)
    return text if draw(st.booleans()) else text.rstrip("\n")


@FAST
@given(run_documents())
def test_runs_of_sections_are_taken_and_equal(text: str) -> None:
    check_taken(text)


@FAST
@given(damaged(run_documents()))
def test_damaged_runs_keep_tomllib_s_verdict(text: str) -> None:
    check_contract(text)


SOME = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
"""For the variations of a shape the two FAST tests above already cover."""


@SOME
@given(run_documents().map(lambda text: text.replace("\n", "\r\n")))
def test_runs_with_crlf_are_taken_and_equal(text: str) -> None:
    check_taken(text)


def read_runs(text: str) -> tuple[dict[str, Any] | None, int, list[str]]:
    """``loads(text)``, how many sections runs read and the lines the line reader read itself."""
    lines: list[str] = []
    sections = [0]
    read_line, read_run = fasttoml._Reader.read_line, toml_runs.read_run

    def line_spy(self: Any, index: int, known: Any) -> int:
        lines.append(self.lines[index])
        return read_line(self, index, known)

    def run_spy(run: toml_runs.Run, namespaces: Any) -> Any:
        end, table = read_run(run, namespaces)
        sections[0] += sum(match.end() <= end for match in run.matches) if table is not None else 0
        return end, table

    with mock.patch.object(fasttoml._Reader, "read_line", line_spy), mock.patch.object(toml_runs, "read_run", run_spy):
        parsed = fasttoml.loads(text)
    return parsed, sections[0], lines


PROTOCOL = (
    '[protocol]\nname = "demo"\nk = 10\nsplit = "test"\nrelevance = "1 = relevant"\n\n'
    + "".join(f'[documents."msmarco_v2.1_doc_00_{i:05}"]\ntext = "synthetic document {i}"\n\n' for i in range(300))
    + "".join(f'[queries."q:{1001 + i}"]\ntext = "synthetic query {i}"\nsplit = "test"\n\n' for i in range(200))
)


def test_a_protocol_s_documents_and_queries_are_read_by_runs_not_line_by_line() -> None:
    """Fails without the run reader: each of the 500 sections' lines would go through read_line."""
    parsed, sections, lines = read_runs(PROTOCOL)
    assert parsed == tomllib.loads(PROTOCOL)
    assert sections == 500
    assert all(not line.startswith(("[documents", "[queries", 'text = "synthetic')) for line in lines), lines


@pytest.mark.parametrize(
    ("change", "in_runs"),
    [
        (("", ""), 500),
        (('"synthetic document 7"', '"synthetic \\"document\\" 7\\n\\u00e9"'), 500),  # escapes
        (('"synthetic document 7"\n', '"synthetic document 7"  # a comment\n'), 499),
        (('"synthetic document 7"\n', '"synthetic document 7"\ntitle = 3\n'), 499),  # not a string
        (('"synthetic document 7"\n', '"synthetic document 7"\nmeta.seen = "x"\n'), 499),  # a dotted key
        (('[documents."msmarco_v2.1_doc_00_00007"]', "[ documents . 'msmarco_v2.1_doc_00_00007' ]"), 499),
        (('"synthetic document 7"\n', '"synthetic document 7"\n\n# between\n\n'), 499),
        (('[queries."q:1001"]\n', '[queries."q:1001"]\ntitle = "Q"\n'), 500),  # a key set of its own
        (("[protocol]\n", '[documents."msmarco_v2.1_doc_00_00007".meta]\nseen = 1\n[protocol]\n'), 499),
    ],
)
def test_runs_give_back_only_the_sections_they_cannot_read(change: tuple[str, str], in_runs: int) -> None:
    """A section outside a run's grammar is read by the line reader; the others stay in runs."""
    text = PROTOCOL.replace(*change)
    parsed, sections, _ = read_runs(text)
    assert parsed is not None and check_taken(text) == parsed
    assert sections == in_runs


@pytest.mark.parametrize(
    "text",
    [
        PROTOCOL.replace('[documents."msmarco_v2.1_doc_00_00009"]', '[documents."msmarco_v2.1_doc_00_00003"]'),
        PROTOCOL + '[documents."msmarco_v2.1_doc_00_00000"]\ntext = "again"\n',  # declared twice
        PROTOCOL.replace('text = "synthetic document 5"\n', 'text = "synthetic document 5"\ntext = "x"\n'),
        PROTOCOL.replace('"synthetic document 5"', '"\\ud800"'),  # not a Unicode scalar value
        PROTOCOL.replace('"synthetic document 5"', '"\\x41"'),
        PROTOCOL.replace('"synthetic document 5"', '"a\x01"'),
        PROTOCOL + "[documents]\nx = 1\n[documents]\n",
        "documents = 1\n" + PROTOCOL,  # a value where the headers' parent would be
        "documents = {}\n" + PROTOCOL,  # an inline table: no header may enter it
        'documents."msmarco_v2.1_doc_00_00004" = {}\n' + PROTOCOL,
        PROTOCOL + "[[documents]]\n",
        PROTOCOL.replace("\n\n[queries", "\n[queries\n[queries", 1),
    ],
)
def test_runs_decline_what_tomllib_rejects(text: str) -> None:
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)
    assert fasttoml.loads(text) is None


@pytest.mark.parametrize(
    "text",
    [
        '[documents."d1".meta]\nseen = 1\n' + PROTOCOL.replace("msmarco_v2.1_doc_00_00005", "d1"),  # implied
        "[documents]\nnote = 'first'\n" + PROTOCOL,  # the parent declared first
        PROTOCOL + "[documents]\nnote = 'after'\n",  # ... or after: it was implied by the headers
        PROTOCOL + '[documents."msmarco_v2.1_doc_00_00003".meta]\nseen = 1\n',
        PROTOCOL.rstrip("\n"),  # no newline at the end
        PROTOCOL.replace("\n", "\r\n"),
        'note = """\n' + PROTOCOL + '"""\n',  # every run inside a multi-line string
        'note = """\n[documents."a"]\ntext = "x"\n"""\n' + PROTOCOL,
        "note = '''\n[documents.\"a\"]\ntext = \"x\"\n'''\n" + PROTOCOL,
        '[documents."a"]\n[documents."b"]\n' + PROTOCOL,  # sections without keys
    ],
)
def test_runs_beside_valid_constructs_are_taken(text: str) -> None:
    check_taken(text)


def test_a_run_inside_a_multi_line_string_is_read_again_without_runs() -> None:
    """The chunk before a run seen inside a string cannot be read (the string is not closed in
    it); ``loads`` then reads the text without runs, as the line reader alone read it."""
    text = 's = """\n' + PROTOCOL + '"""\n[documents."z"]\ntext = "after"\n'
    with mock.patch.object(fasttoml, "_loads", wraps=fasttoml._loads) as attempts:
        assert check_taken(text)["documents"] == {"z": {"text": "after"}}
    assert [call.kwargs["runs"] for call in attempts.call_args_list] == [True, False]


def test_sections_of_other_shapes_are_tried_a_few_times_only() -> None:
    """After a section that starts no run the next tries are further and further apart: a file of
    thousands of such sections costs a few dozen tries (``SectionRuns.MAX_GAP``)."""
    text = "".join(f"[qrels.q{i}]\nd1 = {i % 2}\nd2 = 1.5\n" for i in range(2000))
    with mock.patch.object(
        toml_runs.SectionRuns, "run_at", autospec=True, side_effect=toml_runs.SectionRuns.run_at
    ) as tries:
        check_taken(text)
    assert tries.call_count <= 2000 // toml_runs.SectionRuns.MAX_GAP + 8


# ------------------------------------------------------------------ labelled runs (qrels)


@pytest.fixture(autouse=True, scope="module")
def templates_for_every_size() -> Any:
    """Small texts get the first body's template as a file of thousands of sections does."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(toml_spans.BinaryBodies, "TEMPLATE_MIN_BODIES", 0)
        yield


@st.composite
def tall_qrels_documents(draw: st.DrawFn) -> str:
    """A qrels file of many small sections: the same documents in each (as tomli-w writes them)
    with labels 0/1, query IDs bare, quoted or escaped, blank lines between or none, a table
    before or after, sometimes a section that differs (other keys, a comment)."""
    documents = draw(st.lists(st.sampled_from(IDS[:6]), min_size=1, max_size=toml_runs.MAX_KEYS, unique=True))
    keys = [tomli_w.dumps({d: 0}).split(" = ")[0] for d in documents]
    queries = draw(st.lists(st.sampled_from(IDS), min_size=1, max_size=8, unique=True))
    separator = draw(st.sampled_from(["\n", "", "\n\n"]))
    sections = []
    for query in queries:
        pairs = [f"{key} = {draw(st.integers(0, 1))}" for key in keys]
        if draw(st.integers(0, 5)) == 0:
            pairs = draw(st.sampled_from([pairs[:-1], [*pairs, "x = 1"], [pairs[0] + " # seen", *pairs[1:]]]))
        header = f"[qrels.{key_text(draw, query) if draw(st.booleans()) else basic_string(draw, query)}]"
        sections.append(header + "\n" + "".join(pair + "\n" for pair in pairs))
    extra = draw(st.sampled_from(["", '[provenance]\nsource = "pool"\n', "[qrels]\n"]))
    sections.insert(draw(st.sampled_from([0, len(sections)])), extra)
    text = separator.join(section for section in sections if section)
    return text if draw(st.booleans()) else text.rstrip("\n")


@SOME
@given(tall_qrels_documents())
def test_tall_qrels_are_taken_and_equal(text: str) -> None:
    check_taken(text)


@FAST
@given(damaged(tall_qrels_documents()))
def test_damaged_tall_qrels_keep_tomllib_s_verdict(text: str) -> None:
    check_contract(text)


def tall_qrels(queries: int, documents: int = 10) -> str:
    return "".join(
        f'[qrels."q:{1001 + q}"]\n'
        + "".join(f'"msmarco_v2.1_doc_00_{12345 + d}" = {(q * d) % 3 == 0:d}\n' for d in range(documents))
        + "\n"
        for q in range(queries)
    )


def labelled_sections(text: str) -> tuple[dict[str, Any] | None, int]:
    """``loads(text)`` and how many sections labelled runs read."""
    read = toml_runs.read_labelled_run
    sections = [0]

    def spy(text: str, start: int, *args: Any) -> Any:
        found = read(text, start, *args)
        if found is not None and found[1] is not None:
            sections[0] += text.count("\n[", start, found[0]) + 1
        return found

    with mock.patch.object(toml_runs, "read_labelled_run", spy):
        parsed = fasttoml.loads(text)
    return parsed, sections[0]


def test_a_tall_qrels_file_is_read_by_one_labelled_run() -> None:
    """Fails without labelled runs: each section would be read on its own (header, template,
    ``Namespaces.declare``); here all but the first (which makes the template) are one run."""
    text = tall_qrels(500)
    parsed, sections = labelled_sections(text)
    assert parsed is not None and strict_equal(parsed, tomllib.loads(text))
    assert sections == 499


@pytest.mark.parametrize(
    ("change", "in_runs"),
    [
        (('[qrels."q:1101"]\n', "[qrels.q1101]\n"), 499),  # a bare ID in the run
        (('[qrels."q:1101"]\n', '[ qrels."q:1101" ]\n'), 498),  # a header spelled otherwise
        (('[qrels."q:1101"]', '[qrels."q\\u003a1101"]'), 499),  # an escape in an ID
        # a body of other pairs (a comment, other keys): from there on the other readers of
        # toml_spans read every body, as before (a file's layout does not change back)
        (
            (
                '[qrels."q:1101"]\n"msmarco_v2.1_doc_00_12345" = 1\n',
                '[qrels."q:1101"]\n"msmarco_v2.1_doc_00_12345" = 1 #\n',
            ),
            99,
        ),
        (('[qrels."q:1101"]', '[qrels."q:1101".x]\ny = 1\n[qrels."q:1101"]'), 99),  # implied earlier
    ],
)
def test_labelled_runs_give_back_the_sections_they_cannot_read(change: tuple[str, str], in_runs: int) -> None:
    text = tall_qrels(500).replace(*change)
    assert text != tall_qrels(500)
    parsed, sections = labelled_sections(text)
    assert parsed is not None and strict_equal(parsed, tomllib.loads(text))
    assert sections == in_runs


@pytest.mark.parametrize(
    "text",
    [
        tall_qrels(50) + '[qrels."q:1001"]\n"d" = 1\n',  # declared twice
        tall_qrels(50).replace('[qrels."q:1020"]', '[qrels."q:1010"]'),
        tall_qrels(50).replace(
            '"msmarco_v2.1_doc_00_12347" = 0\n', '"msmarco_v2.1_doc_00_12347" = 0\n"msmarco_v2.1_doc_00_12347" = 0\n'
        ),
        tall_qrels(50).replace('[qrels."q:1020"]', '[qrels."q:10\\ud80020"]'),
        "qrels = {}\n" + tall_qrels(50),
        tall_qrels(50).replace('\n\n[qrels."q:1020"]', '[qrels."q:1020"]'),  # a header after a label, no newline
    ],
)
def test_labelled_runs_decline_what_tomllib_rejects(text: str) -> None:
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)
    assert fasttoml.loads(text) is None


def test_sections_of_many_pairs_keep_the_template() -> None:
    """Over ``MAX_KEYS`` pairs a section, copying the template's zeros is quicker: no run."""
    text = tall_qrels(50, documents=toml_runs.MAX_KEYS + 1)
    parsed, sections = labelled_sections(text)
    assert parsed is not None and strict_equal(parsed, tomllib.loads(text))
    assert sections == 0


# ------------------------------------------------------------------ label positions (wide qrels)


def wide_qrels(queries: int, documents: int) -> str:
    return "".join(
        f'[qrels."q:{1001 + q}"]\n'
        + "".join(f'"msmarco_v2.1_doc_00_{12345 + d}" = {(q + d) % 7 == 0:d}\n' for d in range(documents))
        + "\n"
        for q in range(queries)
    )


def positions_read(text: str) -> tuple[dict[str, Any] | None, int]:
    """``loads(text)`` (the line cache reading the bodies: no regex template) and how many bodies
    ``LabelPositions`` read."""
    read = toml_bodies.LabelPositions.labels
    count = [0]

    def spy(self: toml_bodies.LabelPositions, body: str) -> Any:
        found = read(self, body)
        count[0] += found is not None
        return found

    with (
        mock.patch.object(toml_spans.BinaryBodies, "TEMPLATE_MIN_BODIES", 10**9),
        mock.patch.object(toml_bodies.LabelPositions, "labels", spy),
    ):
        return fasttoml.loads(text), count[0]


def test_a_wide_qrels_file_is_read_by_label_positions() -> None:
    """Fails without ``LabelPositions``: each body would be read by ``keyed_pairs`` again."""
    text = wide_qrels(10, 300)
    parsed, bodies = positions_read(text)
    assert parsed is not None and strict_equal(parsed, tomllib.loads(text))
    assert bodies == 9


@pytest.mark.parametrize(
    ("change", "read"),
    [
        (("", ""), 9),
        (
            (
                '"msmarco_v2.1_doc_00_12350" = 0\n\n[qrels."q:1003"]',
                '"msmarco_v2.1_doc_00_12350" = 0\n\n\n[qrels."q:1003"]',
            ),
            9,
        ),
        (('0\n\n[qrels."q:1005"]', '0 \n\n[qrels."q:1005"]'), 8),  # a blank after a label
        (('0\n\n[qrels."q:1005"]', '0 # x = 1\n\n[qrels."q:1005"]'), 8),
        # a label not 0/1, a key twice, a key changed: the body is not read here (the first two
        # are not of the binary readers at all: the line reader, or tomllib's error, from there)
        (('[qrels."q:1005"]\n"msmarco_v2.1_doc_00_12345" = 0', '[qrels."q:1005"]\n"msmarco_v2.1_doc_00_12345" = 2'), 3),
        (('[qrels."q:1005"]\n"msmarco_v2.1_doc_00_12345"', '[qrels."q:1005"]\n"msmarco_v2.1_doc_00_12349"'), 3),
        (('[qrels."q:1005"]\n"msmarco_v2.1_doc_00_12345" = 0', '[qrels."q:1005"]\n"msmarco_v2.1_doc_00_1234X" = 0'), 8),
        (('[qrels."q:1005"]\n', '[qrels."q:1005"]\n\n'), 8),  # a blank line first
        (('12644" = 0\n\n[qrels."q:1006"]', '12644" = 2\n\n[qrels."q:1006"]'), 3),  # the last label not 0/1
        (('"msmarco_v2.1_doc_00_12345" = 0\n', ""), 0),  # other keys twice in a row: dropped
    ],
)
def test_label_positions_read_only_the_first_body_s_pairs(change: tuple[str, str], read: int) -> None:
    text = wide_qrels(10, 300).replace(*change)
    try:
        expected: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        expected = None
    parsed, bodies = positions_read(text)
    assert (parsed is None) if expected is None else strict_equal(parsed, expected)
    assert bodies == read


@SOME
@given(damaged(st.builds(wide_qrels, st.integers(2, 4), st.integers(2, 6))))
def test_damaged_wide_qrels_keep_tomllib_s_verdict(text: str) -> None:
    with mock.patch.object(toml_spans.BinaryBodies, "TEMPLATE_MIN_BODIES", 10**9):
        check_contract(text)


@pytest.mark.parametrize(
    "change",
    [
        (" = 0\n", " = 1\n"),  # every label 1: each table is the zeros' copy with all set
        ('"msmarco_v2.1_doc_00_12644" = 0\n\n', '"msmarco_v2.1_doc_00_12644" = 1'),  # the end, no newline
    ],
)
def test_label_positions_set_every_label_1_of_a_body(change: tuple[str, str]) -> None:
    """The tables ``LabelPositions`` reads are its zeros with each body's 1s set: a 1 left at 0
    (or a 0 set) makes the table differ from tomllib's."""
    text = wide_qrels(10, 300)
    head, last = text.rsplit('[qrels."q:1010"]', 1)
    text = head + '[qrels."q:1010"]' + last.replace(*change)
    parsed, bodies = positions_read(text)
    assert parsed is not None and strict_equal(parsed, tomllib.loads(text))
    assert bodies == 9


def documents_run(count: int) -> str:
    return "".join(f'[documents."msmarco_v2.1_doc_00_{12345 + d}"]\ntext = "text {d}"\n\n' for d in range(count))


@pytest.mark.parametrize(
    "tail",
    [
        '[documents."msmarco_v2.1_doc_00_12348"]\n',  # a run's table declared again, empty
        '[documents."msmarco_v2.1_doc_00_12348"]\ntitle = "t"\n',
        'x = 1\n[documents."msmarco_v2.1_doc_00_12348"]\n',
    ],
)
def test_a_run_s_table_declared_again_by_a_header_is_tomllib_s_error(tail: str) -> None:
    """The tables runs declare are taken into ``Namespaces.declared`` when the next header is
    declared: without that, a header declaring one of them again would enter it."""
    text = documents_run(500) + tail
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)
    assert fasttoml.loads(text) is None
