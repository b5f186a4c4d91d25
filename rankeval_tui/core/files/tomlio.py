"""TOML reading with file-named errors (the project's own layout fast, ``toml_layout``; any other by
tomllib), and writing (tomli-w, which writes that layout)."""

from __future__ import annotations

import sys
from pathlib import Path

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import toml_layout
from rankeval_tui.core.files.lazy_pattern import on_first_use
from rankeval_tui.core.files.safe_read import read_input_bytes

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any


def read_utf8(path: Path) -> str:
    """A regular file's text (``read_input_bytes``: bounded, never blocking); unreadable, BOM-prefixed or non-UTF-8 input is a ContractError naming the file."""
    return utf8_text(read_input_bytes(path), path)


def utf8_text(raw: bytes, path: Path) -> str:
    """The text of a file's bytes (``read_utf8`` for a reader that keeps the bytes too)."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raise ContractError("starts with a UTF-8 byte-order mark; save it as UTF-8 without BOM", file=path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ContractError(f"not valid UTF-8 at byte {error.start}", file=path) from None


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; every failure is a ContractError naming the file."""
    return parse_toml(read_utf8(path), path)


def parse_toml(text: str, path: Path) -> dict[str, Any]:
    """Parse TOML text read from (or about to be written to) ``path``."""
    reading = toml_layout.read(text)  # equal to tomllib's result whenever it is not None (test_toml_layout)
    if reading is not None:
        return reading.data
    return parse_with_tomllib(text, path)


def parse_with_tomllib(text: str, path: Path) -> dict[str, Any]:
    """tomllib's reading of a text in another layout than the project writes, or its error."""
    from rankeval_tui.core.files.tomllib_compat import tomllib  # on first need (tomllib_compat)

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ContractError(f"invalid TOML: {error}", file=path) from None
    except RecursionError:
        # tomllib parses nested arrays / inline tables recursively: a hostile file must not crash us
        raise ContractError("invalid TOML: arrays or inline tables nested too deeply", file=path) from None
    except ValueError as error:
        raise ContractError(f"invalid TOML: {value_error_rule(error)}", file=path) from None


def value_error_rule(error: ValueError) -> str:
    """What a parser's plain ValueError means. Python refuses integers of more than 4300 digits
    (int_max_str_digits) and suggests sys.set_int_max_str_digits(), which a user cannot call."""
    if "integer string conversion" in str(error):
        return f"an integer of more than {sys.get_int_max_str_digits()} digits is out of range"
    return str(error)


def dump_toml(data: dict[str, Any]) -> str:
    """``data`` as TOML, in the layout ``toml_layout`` reads fast: tomli-w's text, from the fast
    writer (``toml_writer``: byte for byte the same; tomli-w formats a qrels file's million
    lines one by one in Python, which the end of a judging session and ``init`` would wait for)."""
    from rankeval_tui.core.files import toml_writer  # by the commands that write: not at every start-up

    return toml_writer.dumps(data)


def canonical_rewrite(path: Path) -> str | None:
    """``path``'s text in the canonical layout (the same tables and values, written by tomli-w),
    or None when it is in that layout already. A ContractError when it is not TOML, or holds
    values that layout has no place for (a float, a date, an inline table in a row)."""
    if canonical_layout_notice(path) is None:
        parse_toml(read_utf8(path), path)  # not TOML at all: its error, not "already canonical"
        return None
    data = parse_with_tomllib(read_utf8(path), path)
    text = dump_toml(data)
    reading = toml_layout.read(text)
    if (
        reading is None
        or parse_with_tomllib(text, path) != data
        or any(table not in toml_layout.SMALL_TABLES for table in reading.by_tomllib)
    ):
        raise ContractError(
            "cannot be rewritten in the canonical layout: it holds values that layout has no place for", file=path
        )
    return text


def canonical_layout_notice(path: Path) -> str | None:
    """One line when ``path`` is valid TOML that ``toml_layout`` does not read whole (another
    layout than the project writes: read correctly, by tomllib, more slowly), None otherwise."""
    try:
        text = read_utf8(path)
    except ContractError:
        return None  # the loaders name that problem
    reading = toml_layout.read(text)
    slow = None if reading is None else [t for t in reading.by_tomllib if t not in toml_layout.SMALL_TABLES]
    if reading is not None and not slow:
        return None
    try:
        parse_with_tomllib(text, path)
    except ContractError:
        return None  # not TOML at all: the loaders name that problem
    tables = f" ([{'], ['.join(slow)}])" if slow else ""
    return (
        f"{path}: valid TOML but not in the canonical layout{tables}, so slower to read: "
        f"rewrite it with `rankeval-tui rewrite {path.parent}`"
    )


trec_qrels_line = on_first_use(r"[^\s=\[]+[ \t]+[^\s=]+[ \t]+[^\s=]+[ \t]+-?[0-9]+")  # errors only (lazy_pattern)


def looks_like_trec_qrels(text: str) -> bool:
    """The first non-blank line is ``qid iter docid rel``: four fields, no ``=``, an integer last
    (a qrels file that is not TOML, named where TOML was expected: the error can say how to convert it)."""
    for line in text.split("\n", 50)[:50]:
        if line.strip():
            return trec_qrels_line().fullmatch(line.strip()) is not None
    return False
