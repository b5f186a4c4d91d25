"""Which tables a TOML header or dotted key may still define or enter, for ``fasttoml``'s reader.

Why a module of its own: the rules are TOML's (as tomllib applies them), not the line parser's,
and they are subtle enough to read on their own. What made a table decides:

- ``[a.b]`` declares ``a.b`` once; it may walk through tables a header implied, a header
  declared or a dotted key made, but may not declare a table a dotted key made
  (``a.b = 1`` then ``[a]``), nor enter an inline table or an array;
- ``a.b.c = 1`` makes or extends ``a`` and ``a.b`` under the current table; it may extend tables
  dotted keys made in the same section and tables a header only implied (``[x.a.y]`` then
  ``[x]``, ``a.z = 1``), never a table a header declared, one dotted keys made in an earlier
  section, an inline table or a value;
- tables tomllib made (inline tables, the tables of a section or line it read) are entered by
  neither.

A table is known by its id, and every one recorded is kept alive here, so no new table of the
parse can reuse the id of one a section re-read dropped. Anything these rules refuse raises
``Unsupported``: the whole text then goes to tomllib, which gives its own error (or, for the few
valid constructs ``fasttoml``'s docstring lists, its answer).
"""

from __future__ import annotations

from collections.abc import Iterable

from rankeval_tui.core.files.toml_grammar import Unsupported

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any


def tables_in(value: Any) -> Iterable[dict[str, Any]]:
    """Every dictionary inside a value tomllib produced (inline tables, dotted-key tables)."""
    if type(value) is dict:
        yield value
        for inner in value.values():
            yield from tables_in(inner)
    elif type(value) is list:
        for inner in value:
            yield from tables_in(inner)


class Namespaces:
    """What made each table of one parse, and so what a header or a dotted key may do with it."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.declared: dict[int, dict[str, Any]] = {}
        """Tables ``[headers]`` declared: declared once, never extended by a dotted key."""
        self.declared_in_runs: list[list[dict[str, Any]]] = []
        """Tables runs of sections declared (``toml_runs``), put into ``declared`` when the next
        header is declared (``_take_runs``): a file that is one run (a tall qrels file's 100,000
        tables) never needs them there, and a dict by id of every table was a tenth of reading it.
        (A dotted key reaches a run's table only below a header of one of its parents, declared
        first: ``assign`` never needs them.)"""
        self.dotted: dict[int, dict[str, Any]] = {}
        """Tables dotted keys made or extended: a header may walk through them, not declare them."""
        self.open: set[int] = set()
        """The ones of ``dotted`` that the current section's dotted keys made: still extensible."""
        self.opaque: dict[int, dict[str, Any]] = {}
        """Tables tomllib made: neither a header nor a dotted key may enter them."""
        self.arrays: set[int] = set()
        """ids of the arrays ``[[...]]`` headers made (alive in ``root``): the only arrays a
        later ``[[...]]`` of the same path may append to."""

    def _take_runs(self) -> None:
        """Put the tables of ``declared_in_runs`` into ``declared``."""
        for tables in self.declared_in_runs:
            self.declared.update(zip(map(id, tables), tables))
        self.declared_in_runs.clear()

    def walk(self, path: tuple[str, ...]) -> dict[str, Any]:
        """The table at ``path`` from the root for a header, made where missing."""
        table = self.root
        for part in path:
            table = table.setdefault(part, {})
            if type(table) is not dict or id(table) in self.opaque:
                raise Unsupported
        return table

    def declare(self, path: tuple[str, ...]) -> dict[str, Any]:
        """The table a ``[path]`` header declares; the dotted keys' tables so far close."""
        table = self.walk(path)
        if self.declared_in_runs:
            self._take_runs()
        if id(table) in self.declared or id(table) in self.dotted:
            raise Unsupported  # tomllib: "Cannot declare ... twice"
        self.declared[id(table)] = table
        self.open = set()
        return table

    def append(self, path: tuple[str, ...], table: dict[str, Any]) -> None:
        """Append ``table`` (tomllib's reading of a ``[[path]]`` section) to the array of ``path``."""
        parent = self.walk(path[:-1])
        array = parent.get(path[-1])
        if array is None:
            array = parent[path[-1]] = []
            self.arrays.add(id(array))
        elif id(array) not in self.arrays:
            raise Unsupported  # a value, a table, or an array a [[...]] did not make
        array.append(table)
        self.freeze(table)
        self.open = set()

    def assign(self, table: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
        """Put ``value`` at the dotted key ``path`` under ``table`` (the current section's)."""
        for part in path[:-1]:
            inner = table.setdefault(part, {})
            known = id(inner)
            if known not in self.open:
                if type(inner) is not dict or known in self.declared or known in self.dotted or known in self.opaque:
                    raise Unsupported  # tomllib: "Cannot redefine namespace", "... immutable ..."
                self.open.add(known)
                self.dotted[known] = inner
            table = inner
        if path[-1] in table:
            raise Unsupported  # tomllib: "Cannot overwrite a value"
        table[path[-1]] = value
        self.freeze(value)

    def freeze(self, value: Any) -> None:
        """Record the tables inside a value tomllib read as opaque."""
        self.opaque.update((id(table), table) for table in tables_in(value))
