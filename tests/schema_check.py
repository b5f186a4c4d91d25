"""A small JSON Schema validator for the subset of draft 2020-12 that report.schema.json uses.

jsonschema is not a dependency of the project (nor installed), and the schema needs only a few
keywords. Any keyword outside the subset is an error, not silently ignored, so the schema cannot
rely on a rule this validator would skip and a test pass without checking it.
"""

from __future__ import annotations

import re
from typing import Any

ANNOTATIONS = {"$schema", "$id", "$defs", "title", "description"}
KEYWORDS = {
    "$ref",
    "type",
    "const",
    "enum",
    "pattern",
    "minimum",
    "properties",
    "required",
    "additionalProperties",
    "propertyNames",
    "items",
}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class SchemaError(AssertionError):
    """The instance breaks the schema; the message names the JSON path and the keyword."""


def validate(instance: Any, schema: dict[str, Any], root: dict[str, Any] | None = None, path: str = "$") -> None:
    root = schema if root is None else root
    unknown = set(schema) - KEYWORDS - ANNOTATIONS
    if unknown:
        raise ValueError(f"{path}: schema keywords outside the validator's subset: {sorted(unknown)}")
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/"):
            raise ValueError(f"{path}: only local #/$defs/ references are supported, got {ref!r}")
        validate(instance, root["$defs"][ref.removeprefix("#/$defs/")], root, path)
    check_value(instance, schema, path)
    if isinstance(instance, dict):
        validate_object(instance, schema, root, path)
    if isinstance(instance, list) and "items" in schema:
        for index, item in enumerate(instance):
            validate(item, schema["items"], root, f"{path}[{index}]")


def check_value(instance: Any, schema: dict[str, Any], path: str) -> None:
    """The keywords on the instance itself: type, const, enum, pattern, minimum."""
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](instance) for t in types):
            raise SchemaError(f"{path}: {instance!r:.80} is not of type {types}")
    if "const" in schema and (instance != schema["const"] or type(instance) is not type(schema["const"])):
        raise SchemaError(f"{path}: {instance!r:.80} is not the constant {schema['const']!r}")
    if "enum" in schema and instance not in schema["enum"]:
        raise SchemaError(f"{path}: {instance!r:.80} is not one of {schema['enum']}")
    if isinstance(instance, str) and "pattern" in schema and not re.search(schema["pattern"], instance):
        raise SchemaError(f"{path}: {instance!r:.80} does not match {schema['pattern']!r}")
    if TYPES["number"](instance) and "minimum" in schema and instance < schema["minimum"]:
        raise SchemaError(f"{path}: {instance!r} is below the minimum {schema['minimum']}")


def validate_object(instance: dict[str, Any], schema: dict[str, Any], root: dict[str, Any], path: str) -> None:
    """The keywords on an object's keys and values: required, propertyNames, properties, additionalProperties."""
    for key in schema.get("required", ()):
        if key not in instance:
            raise SchemaError(f"{path}: required key {key!r} is missing")
    properties = schema.get("properties", {})
    for key, value in instance.items():
        if "propertyNames" in schema:
            validate(key, schema["propertyNames"], root, f"{path}.{key}(name)")
        if key in properties:
            validate(value, properties[key], root, f"{path}.{key}")
        elif schema.get("additionalProperties") is False:
            raise SchemaError(f"{path}: key {key!r} is not allowed")
        elif isinstance(schema.get("additionalProperties"), dict):
            validate(value, schema["additionalProperties"], root, f"{path}.{key}")
