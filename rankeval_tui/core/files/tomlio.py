"""TOML reading with file-named errors, and writing (tomli-w's text, from ``toml_writer``)."""

from __future__ import annotations

import sys
from pathlib import Path

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import fasttoml
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
    fast = fasttoml.loads(text)  # equal to tomllib's result whenever it is not None (test_fasttoml)
    if fast is not None:
        return fast
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
    """tomli-w's text for ``data``, from the fast writer (``toml_writer``: byte for byte the same)."""
    from rankeval_tui.core.files import toml_writer  # by the commands that write: start-up of score

    return toml_writer.dumps(data)


trec_qrels_line = on_first_use(r"[^\s=\[]+[ \t]+[^\s=]+[ \t]+[^\s=]+[ \t]+-?[0-9]+")  # errors only (lazy_pattern)


def looks_like_trec_qrels(text: str) -> bool:
    """The first non-blank line is ``qid iter docid rel``: four fields, no ``=``, an integer last
    (a qrels file that is not TOML, named where TOML was expected: the error can say how to convert it)."""
    for line in text.split("\n", 50)[:50]:
        if line.strip():
            return trec_qrels_line().fullmatch(line.strip()) is not None
    return False
