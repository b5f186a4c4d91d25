"""JSON runs ``{"query": ["doc", ...]}`` -> rankings, every query ID and entry checked.

Apart from runs.py (the TREC and MS MARCO readers, the runs/ directory) to keep each module
readable. A run of 100,000 queries is checked as a whole first (``plain_json_run``), in C;
only a run with a problem is read query by query, which names the first problem as before.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import chain
from operator import eq
from pathlib import Path

from rankeval_tui.core.errors import ContractError, describe_id
from rankeval_tui.core.files.ids import check_id, only_id_characters
from rankeval_tui.core.files.tomlio import value_error_rule
from rankeval_tui.core.wording import json_error

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Any


def reject_duplicate_keys(path: Path) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """A ``json.loads`` object hook that refuses a key given twice (json keeps the last silently)."""

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) == len(pairs):
            return result  # no key twice, decided in C (a run's 100,000 queries)
        result = {}
        for key, value in pairs:
            if key in result:
                raise ContractError("duplicate key in JSON object", file=path, where=describe_id("query", key))
            result[key] = value
        return result

    return hook


def parse_json_run(text: str, path: Path) -> dict[str, list[str]]:
    try:
        data = json.loads(text, object_pairs_hook=reject_duplicate_keys(path))
    except ContractError:
        raise
    except json.JSONDecodeError as error:
        raise ContractError(f"invalid JSON: {json_error(error.msg, error.lineno, error.colno)}", file=path) from None
    except RecursionError:
        raise ContractError("invalid JSON: arrays or objects nested too deeply", file=path) from None
    except ValueError as error:  # not a JSONDecodeError: e.g. an integer of more than 4300 digits
        raise ContractError(f"invalid JSON: {value_error_rule(error)}", file=path) from None
    if not isinstance(data, dict):
        raise ContractError(
            f"a JSON run must be an object of query -> [document IDs], got {type(data).__name__}", file=path
        )
    if plain_json_run(data):
        return data
    # A run repeats a few thousand document IDs up to millions of times; checking each distinct
    # ID once is the same rule (check_id depends on the value only) and was most of the load time
    # of a 1M-entry run. A ranking of IDs all checked before is one ``issuperset`` in C (a third
    # of the time of a loop testing each entry); ``valid`` holds str only, and no other JSON
    # value equals a str, so any other entry fails it (a list or object raises TypeError) and
    # goes to check_id in the loop.
    valid: set[str] = set()
    for query, ranking in data.items():
        check_id("query", query, file=path)
        if not isinstance(ranking, list):
            raise ContractError(
                f"ranking must be a list of document IDs, got {type(ranking).__name__}",
                file=path,
                where=describe_id("query", query),
            )
        try:
            if valid.issuperset(ranking):
                continue
        except TypeError:
            pass
        for doc in ranking:
            if type(doc) is not str or doc not in valid:
                valid.add(check_id("document", doc, file=path, where=describe_id("query", query)))
    return data


def plain_json_run(data: dict[str, Any]) -> bool:
    """Whether every query ID and every entry of a JSON run passes ``check_id`` and every
    ranking is a list, decided over the whole run (``only_id_characters`` over all IDs, their
    types by ``set(map(type, ...))``); False says only "look query by query", where
    ``parse_json_run`` names the first problem."""
    rankings = data.values()
    if "" in data or not only_id_characters("".join(data)) or not set(map(type, rankings)) <= {list}:
        return False
    try:
        documents = set(chain.from_iterable(rankings))
    except TypeError:  # a list or an object in a ranking
        return False
    return set(map(type, documents)) <= {str} and "" not in documents and only_id_characters("".join(documents))


def distinct_str_rankings(rankings: dict[str, list[str]]) -> bool:
    """Whether every ranking of a JSON run (checked by ``parse_json_run``: lists of valid IDs)
    holds distinct IDs, in C; a run with a duplicate is left to ``check_run``, which names it."""
    return all(map(eq, map(len, map(set, rankings.values())), map(len, rankings.values())))
