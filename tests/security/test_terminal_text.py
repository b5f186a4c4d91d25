"""``core.terminal_text.printable``: what is made visible, what is kept, and that it is stable."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.terminal_text import markdown_text, printable


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("x\x1b]52;c;UFdORURDTElQ\x1b\\", "x\\x1b]52;c;UFdORURDTElQ\\x1b\\"),  # the OSC 52
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
        ("\x9b31m", "\\x9b31m"),  # C1 CSI
        ("a\x85b\x7f", "a\\x85b\\x7f"),  # NEL, DEL
        ("\u202eevil\u202c\u2066", "\\u202eevil\\u202c\\u2066"),  # bidi controls
        ("a\u2028b\u2029", "a\\u2028b\\u2029"),
        ("d\ud800", "d\\ud800"),  # a lone surrogate cannot be written to any terminal encoding
        ("a\tb\nc\rd\x00", "a\\tb\\nc\\rd\\x00"),
    ],
)
def test_controls_are_shown_as_escapes(raw: str, shown: str) -> None:
    assert printable(raw) == shown
    assert printable(shown) == shown  # idempotent: nothing more to show


def test_multiline_keeps_newline_and_tab_only() -> None:
    assert printable("a\tb\nc\r\x1b", multiline=True) == "a\tb\nc\\r\\x1b"


@pytest.mark.parametrize(
    "text",
    ["下载操作指南", "中文\u3000缩进", "no\u00a0break", "👩\u200d💻", "[reverse]q1[/reverse]", "wiki[en]/Paris", ""],
)
def test_readable_text_and_markup_are_kept_as_they_are(text: str) -> None:
    """Letters, ideographic and no-break spaces, emoji sequences; markup is the screens' concern."""
    assert printable(text) is text or printable(text) == text


def test_error_lines_use_it() -> None:
    line = ContractError("bad name \x1b]0;t\x07", file="p\u2028q").one_line()
    assert line == "p\\u2028q: bad name \\x1b]0;t\\x07"


@pytest.mark.parametrize(
    "text", ["fixture_A", "P@10", "bm25.v2", "run 'worse' p = 1/128 (0.0078) <= alpha 0.05", "q:1001"]
)
def test_markdown_text_keeps_what_cannot_be_markup(text: str) -> None:
    """Names and our own wording read the same in the Markdown source (existing reports unchanged)."""
    assert markdown_text(text) == text


MARKDOWN_PIECES = st.sampled_from([*"ab1 _*`~[]()!<>&#:/.@-+=|\\\n", "www.", "https://", "<!--", "a@b.co"])
GITHUB = MarkdownIt("gfm-like", {"html": True})  # GitHub shows comments, <img>, <a>
GITHUB.linkify.set({"fuzzy_link": False})  # GitHub links www., http(s):// and e-mail addresses, not bare names


@settings(max_examples=400, deadline=None)
@given(st.lists(MARKDOWN_PIECES).map("".join))
def test_markdown_text_is_shown_never_read(text: str) -> None:
    """Rendered as GitHub renders a step summary (links linkified too), a field is one paragraph
    of plain text: no tag but the paragraph's, whatever it holds."""
    html = GITHUB.render("x " + markdown_text(text) + " y")
    assert html.startswith("<p>") and html.count("<") == 2, (text, markdown_text(text), html)
