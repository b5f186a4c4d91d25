"""TOML reading with file-named errors, and tomli-w writing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomli_w

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import fasttoml
from rankeval_tui.core.files.fasttoml import tomllib  # tomli on Python 3.10


def read_utf8(path: Path) -> str:
    """A file's text; unreadable, BOM-prefixed or non-UTF-8 input is a ContractError naming the file."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ContractError("file not found", file=path) from None
    except IsADirectoryError:
        raise ContractError("is a directory, expected a file", file=path) from None
    except OSError as error:
        raise ContractError(f"cannot read: {error.strerror}", file=path) from None
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
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ContractError(f"invalid TOML: {error}", file=path) from None
    except RecursionError:
        # tomllib parses nested arrays / inline tables recursively: a hostile file must not crash us
        raise ContractError("invalid TOML: arrays or inline tables nested too deeply", file=path) from None
    except ValueError as error:
        # Python refuses integers of more than 4300 digits (int_max_str_digits) with a plain ValueError
        raise ContractError(f"invalid TOML: {error}", file=path) from None


def dump_toml(data: dict[str, Any]) -> str:
    return tomli_w.dumps(data)
