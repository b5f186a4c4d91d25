"""The tables of protocol.toml checked: ``[protocol]`` and each entry of ``[documents]`` and
``[queries]`` (its ID, exactly the known keys, each of its exact type).

``valid_entries`` checks a whole table of entries column by column first (``plain_entries``):
checking entries one by one in Python was most of what a tall or wide protocol costs past
its parse (``benchmarks/bench_shapes.py`` measures those shapes). Only a table with a problem goes through the
per-entry loop, which names every problem, so the messages are what they were.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import repeat
from operator import itemgetter
from pathlib import Path

from rankeval_tui.core.errors import ContractError, Reporter, brief, quote, raise_problem
from rankeval_tui.core.files.ids import check_id, only_id_characters

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any


def id_is_valid(kind: str, value: object, *, file: Path, where: str, report: Reporter) -> bool:
    """``check_id`` for checkers that go on after a problem: the problem goes to ``report``."""
    try:
        check_id(kind, value, file=file, where=where)
    except ContractError as problem:
        report(problem)
        return False
    return True


def check_table(
    table: object,
    required: Mapping[str, type],
    optional: Mapping[str, type],
    *,
    file: Path,
    where: str,
    report: Reporter = raise_problem,
) -> dict[str, Any] | None:
    """A TOML table with exactly the known keys, each of its exact type (bool is not int).

    Every problem goes to ``report``; the table is returned only when it has none."""
    if not isinstance(table, dict):
        report(ContractError(f"must be a table, got {type(table).__name__}", file=file, where=where))
        return None
    problems = []
    for key in table:
        if key not in required and key not in optional:
            known = ", ".join([*required, *optional])
            problems.append(ContractError(f"unknown key {quote(key)} (known: {known})", file=file, where=where))
    for key in required:
        if key not in table:
            problems.append(ContractError(f"missing required key {quote(key)}", file=file, where=where))
    for key, value in table.items():
        kind = required.get(key) or optional.get(key)
        if kind is not None and type(value) is not kind:
            problems.append(
                ContractError(
                    f"key {quote(key)} must be {kind.__name__}, got {type(value).__name__} {quote(value)}",
                    file=file,
                    where=where,
                )
            )
    for problem in problems:
        report(problem)
    return None if problems else table


class _Absent:
    """The value ``plain_entries`` reads for an optional key an entry does not have: of a type
    of its own, so no value a table can hold passes for it."""


ABSENT = _Absent()


def plain_entries(table: Mapping[Any, Any], required: Mapping[str, type], optional: Mapping[str, type]) -> bool:
    """Whether every entry of ``table`` passes ``check_id`` and ``check_table``, decided per
    column in C: the IDs are nonempty strings and one search over all of them together
    finds no character ``check_id`` refuses (``only_id_characters``); every entry is a table whose keys are the required
    ones plus some optional ones (each distinct key tuple looked at once); and each key's values
    are all of its exact type (``set(map(type, ...))``). False says only "look entry by entry"."""
    if not table or set(map(type, table)) != {str} or "" in table or not only_id_characters("".join(table)):
        return False
    entries = table.values()
    if set(map(type, entries)) != {dict}:
        return False
    shapes = set(map(tuple, entries))
    for shape in shapes:
        if not required.keys() <= set(shape) <= required.keys() | optional.keys():
            return False
    for key in set().union(*shapes):
        if key in required:
            types = set(map(type, map(itemgetter(key), entries)))
            allowed = {required[key]}
        else:
            types = set(map(type, map(dict.get, entries, repeat(key), repeat(ABSENT))))
            allowed = {optional[key], _Absent}
        if not types <= allowed:
            return False
    return True


def valid_entries(
    table: dict[Any, Any],
    kind: str,
    required: Mapping[str, type],
    optional: Mapping[str, type],
    path: Path,
    report: Reporter,
) -> dict[str, dict[str, Any]]:
    """The entries of ``[documents]`` or ``[queries]`` (``kind``: document, query) whose ID and
    fields are valid, in file order; every problem is reported, so one read lists them all.
    A table without a problem is returned as it is (it is the parser's, fresh, and only read)."""
    if plain_entries(table, required, optional):
        return table
    section = "documents" if kind == "document" else "queries"
    valid: dict[str, dict[str, Any]] = {}
    for key, entry in table.items():
        where = f"[{section}.{brief(key)}]"
        valid_id = id_is_valid(kind, key, file=path, where=where, report=report)
        checked = check_table(entry, required, optional, file=path, where=where, report=report)
        if valid_id and checked is not None:
            valid[key] = checked
    return valid
