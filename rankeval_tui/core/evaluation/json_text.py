"""``json.dumps(value, ensure_ascii=False, indent=2)``, byte for byte, at a fraction of its time.

Why: with ``indent`` the standard library leaves its C encoder for the pure-Python one (CPython
3.11 and 3.12), which walks every value through nested generators; a report of 100,000 queries has
1.4M values, and that walk was over half of ``score --format json`` on a tall protocol
(benchmarks/bench_shapes.py). Here each container is one loop and each scalar one C call (strings
by the standard library's own C escaper), so the text is the same while the work per value is a few
calls.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from itertools import chain, islice, repeat
from json.encoder import encode_basestring

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

INDENT = "  "
_MARK = "\x00"


def _float(value: float) -> str:
    """As ``json`` writes a float (``allow_nan``: NaN and the infinities as JavaScript spells them)."""
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == float("-inf"):
        return "-Infinity"
    return float.__repr__(value)


_SCALARS: dict[type, Callable[[Any], str]] = {
    str: encode_basestring,
    int: int.__repr__,
    float: _float,
    bool: lambda value: "true" if value else "false",
    type(None): lambda _: "null",
}
"""The text of each scalar type ``json`` writes, by exact type (a subclass goes to ``json``)."""


_TEXT_IN_C: dict[type, Callable[[Any], str]] = {
    str: encode_basestring,
    int: int.__repr__,
    bool: {True: "true", False: "false"}.__getitem__,
    type(None): {None: "null"}.__getitem__,
}
"""The scalar types whose texts a column or list of that type alone gets from one ``map`` in C."""


class Columns:
    """A list of flat objects with the same keys, given column by column: what ``dumps_indented``
    writes for the list of dicts ``[{key: value, ...}, ...]``, from one join in C. The first
    column (a report's query IDs) comes as each value's JSON text (``column_text``), the others
    as the values themselves, each written as ``column_text`` writes it (a value that is not a
    JSON scalar as its column's ``convert`` turns it into one).

    Why: a report of 100,000 queries has 100,000 rows and 200,000 per-query values; building a
    dict per row and encoding it was most of ``score --format json`` on a tall protocol, and
    then a text per value and a join of 17 pieces a row (benchmarks/bench_shapes.py). The evaluator
    shares one object per value (and Python one per small int), so the rows' values after the
    first column repeat as a few hundred distinct rows of objects: each is written once (told
    apart by identity, every object alive in its column meanwhile, so ids differ) and every row
    is its query's text and that row's text."""

    __slots__ = ("converts", "first", "keys", "others")

    def __init__(
        self,
        keys: Sequence[str],
        first: Sequence[str],
        others: Sequence[Sequence[Any]] = (),
        converts: Sequence[Callable[[Any], Any] | None] | None = None,
    ) -> None:
        converts = [None] * len(others) if converts is None else converts
        if len(keys) != 1 + len(others) or len(converts) != len(others):
            raise ValueError("one column per key, all of one length")
        if any(len(column) != len(first) for column in others):
            raise ValueError("one column per key, all of one length")
        self.keys = tuple(keys)
        self.first = first
        self.others = tuple(others)
        self.converts = tuple(converts)

    def text(self, newline: str) -> list[str]:
        """The list's text in pieces for one join, its brackets on lines indented as ``newline``:
        each row's first text and the text of its row of other values, interleaved in C."""
        if not self.first:
            return ["[]"]
        inner = newline + INDENT
        deeper = inner + INDENT
        names = [f"{encode_basestring(key)}: " for key in self.keys]
        keyed: dict[int, tuple[Sequence[Any], dict[Any, Any]]] = {}  # a column given twice (a measure's) once
        keys, texts = [], []
        for column, convert in zip(self.others, self.converts):
            column_keys, values = keyed.get(id(column)) or keyed.setdefault(id(column), _distinct(column))
            keys.append(column_keys)
            texts.append({key: _value_text(value, convert) for key, value in values.items()})
        separator = "," + deeper

        def tail(row: tuple[Any, ...]) -> str:
            """The text of a row after its first value, to the closing brace."""
            pairs = zip(names[1:], map(dict.__getitem__, texts, row))
            return "".join(f"{separator}{name}{text}" for name, text in pairs) + inner + "}"

        tails = _Memo(tail)
        rows = zip(*keys) if keys else repeat(())
        pieces = zip(repeat("," + inner), repeat("{" + deeper + names[0]), self.first, map(tails.__getitem__, rows))
        return ["[" + inner, *islice(chain.from_iterable(pieces), 1, None), newline + "]"]


class _Memo(dict[tuple[object, ...], str]):
    """``function`` of each key, made on its first look-up (one pass over the rows, in C)."""

    def __init__(self, function: Callable[[tuple[object, ...]], str]) -> None:
        super().__init__()
        self.function = function

    def __missing__(self, key: tuple[object, ...]) -> str:
        text = self[key] = self.function(key)
        return text


_KEYED_BY_VALUE = (frozenset({int, type(None)}), frozenset({bool, type(None)}), frozenset({str, type(None)}))
"""Column types whose equal values have one JSON text (and a hash in C): ``True == 1`` but is
written ``true``, ``0.0 == -0.0`` but is written ``-0.0``, so a column mixing those (or holding
floats or values to ``convert``) is told apart by identity."""


def _distinct(column: Sequence[Any]) -> tuple[Sequence[Any], dict[Any, Any]]:
    """What tells ``column``'s values apart in ``Columns.text``, and a value for each: the
    values themselves, where equal ones have one text; else their ids (every object alive in
    the column, so ids differ)."""
    kinds = set(map(type, column))
    if any(kinds <= allowed for allowed in _KEYED_BY_VALUE):
        return column, {value: value for value in dict.fromkeys(column)}
    ids = list(map(id, column))
    return ids, dict(zip(ids, column))


def _value_text(value: Any, convert: Callable[[Any], Any] | None) -> str:
    """A value's JSON text as ``column_text`` writes it."""
    if type(value) in _SCALARS or convert is None:
        return _scalar_text(value)
    return _scalar_text(convert(value))


def column_text(values: Sequence[Any], convert: Callable[[Any], Any] | None = None) -> list[str]:
    """Each value's JSON text, as ``dumps_indented`` writes it: a column of one type in C. A
    column of several types is written once per distinct object: the evaluator shares one
    object per value (and Python one per small int), so 100,000 rows hold a few hundred, every
    one alive in ``values`` meanwhile, so their ids differ. Values that are not JSON scalars (the
    evaluator's Fractions) are written as ``convert`` turns them into one."""
    kinds = set(map(type, values))
    if len(kinds) == 1 and (text_of := _TEXT_IN_C.get(next(iter(kinds)))) is not None:
        return list(map(text_of, values))
    if convert is None and not kinds <= _SCALARS.keys():
        raise TypeError(f"a column holds scalars only, not {', '.join(sorted(k.__name__ for k in kinds))}")
    return map_distinct(lambda value: _value_text(value, convert), values)


def map_distinct(function: Callable[[Any], T], values: Sequence[Any]) -> list[T]:
    """``function`` of every value, called once per distinct object (every one alive in
    ``values`` meanwhile, so their ids differ): a column of a report holds a few hundred of the
    evaluator's shared Fractions, not 100,000 values, so each text is made once."""
    ids = list(map(id, values))
    results = {key: function(value) for key, value in dict(zip(ids, values)).items()}
    return list(map(results.__getitem__, ids))


def _scalar_text(value: Any) -> str:
    scalar = _SCALARS.get(type(value))
    if scalar is None:
        raise TypeError(f"a column holds scalars only, not {type(value).__name__}")
    return scalar(value)


def dumps_indented(value: Any) -> str:
    """The text ``json.dumps(value, ensure_ascii=False, indent=2)`` returns for ``value``."""
    out: list[str] = []
    _encode(value, out, "\n")
    return "".join(out)


def _encode(value: Any, out: list[str], newline: str) -> None:
    """Append the text of ``value``, whose container starts on a line indented as ``newline``."""
    scalar = _SCALARS.get(type(value))
    if scalar is not None:
        out.append(scalar(value))
    elif type(value) is dict:
        _dict(value, out, newline)
    elif type(value) in (list, tuple):
        _list(value, out, newline)
    elif type(value) is Columns:
        out += value.text(newline)  # its pieces: the text is copied once, by the final join
    else:  # anything else (a subclass, a type json refuses): json's own answer, error included
        out.append(json.dumps(value, ensure_ascii=False, indent=2).replace("\n", newline))


def _dict(value: dict[Any, Any], out: list[str], newline: str) -> None:
    if not value:
        out.append("{}")
        return
    inner = newline + INDENT
    separator = "{" + inner
    scalars = _SCALARS
    for key, item in value.items():
        name = encode_basestring(key) if type(key) is str else _key(key)
        scalar = scalars.get(type(item))
        if scalar is not None:
            out.append(f"{separator}{name}: {scalar(item)}")
        else:
            out.append(f"{separator}{name}: ")
            _encode(item, out, inner)
        separator = "," + inner
    out.append(newline + "}")


def _list(value: list[Any] | tuple[Any, ...], out: list[str], newline: str) -> None:
    if not value:
        out.append("[]")
        return
    inner = newline + INDENT
    if set(map(type, value)) <= _SCALARS.keys():  # a list of IDs or numbers: one join
        out.append("[" + inner + ("," + inner).join(column_text(value)) + newline + "]")
        return
    if _flat_rows(value):
        out.append(_rows(value, newline))
        return
    separator = "[" + inner
    for item in value:
        out.append(separator)
        _encode(item, out, inner)
        separator = "," + inner
    out.append(newline + "]")


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(_MARK, ": "))
"""The C encoder (no indent), with a mark between items that no encoded string can hold (a NUL
is written as ``\\u0000``), so the text of every item separator can be put in afterwards."""


def _flat_rows(value: list[Any] | tuple[Any, ...]) -> bool:
    """Whether ``value`` is a list of non-empty dicts with string keys and scalar values (a
    report's per-query rows), checked in C: a map of ``type`` over every key and value."""
    return (
        set(map(type, value)) == {dict}
        and all(value)
        and set(map(type, chain.from_iterable(value))) == {str}
        and set(map(type, chain.from_iterable(map(dict.values, value)))) <= _SCALARS.keys()
    )


def _rows(value: list[dict[str, Any]] | tuple[dict[str, Any], ...], newline: str) -> str:
    """The indented text of flat rows from one C encoding: a row's items end ``}`` + mark + ``{``
    (a scalar value cannot end with ``}``, nor a string hold the mark), every other mark
    separates two items of one row."""
    inner = newline + INDENT
    deeper = inner + INDENT
    core = _COMPACT.encode(value)[2:-2]
    core = core.replace("}" + _MARK + "{", f"{inner}}},{inner}{{{deeper}").replace(_MARK, "," + deeper)
    return f"[{inner}{{{deeper}{core}{inner}}}{newline}]"


def _key(key: Any) -> str:
    """A key that is not a string, as ``json`` turns it into one (its rules, its errors)."""
    text = json.dumps({key: 0}, ensure_ascii=False)
    return text[1 : text.rindex(":")]
