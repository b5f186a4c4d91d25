"""Whether an annotator is a model, and how every output says so.

Why a module of its own: every output that names an annotator or reads a labels file marks a
model (a name starting ``model:``) the same way, ``model:umbrela (a model)`` in text and
``annotator_kind`` in JSON, and a plain ``score`` or ``validate`` must be able to ask without
importing the label importers (start-up time).
"""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: a plain score reads this module
if TYPE_CHECKING:
    from typing import Any

MODEL_PREFIX = "model:"
"""An annotator whose name starts with this is a model: every output marks it so."""


def is_model(annotator: str) -> bool:
    return annotator.startswith(MODEL_PREFIX)


def annotator_words(annotator: str) -> str:
    """``model:umbrela (a model)`` or ``alice``: the name as every output shows it."""
    return f"{annotator} (a model)" if is_model(annotator) else annotator


def annotator_names(provenance: Mapping[str, Any]) -> list[str]:
    """Who labeled a file, as its provenance says: ``annotator = "model:x"`` or ``annotators =
    ["alice", "model:x"]`` (a merge's, an adjudication's); empty when it says neither."""
    single = provenance.get("annotator")
    if isinstance(single, str) and single:
        return [single]
    names = provenance.get("annotators")
    if isinstance(names, list) and all(isinstance(name, str) for name in names):
        return [name for name in names if name]
    return []


def model_notice(provenance: Mapping[str, Any], file: object) -> str | None:
    """``model.toml: labels of model:umbrela (a model), not people's`` (or, when people labeled
    some of it too, ``qrels.toml: labels of model:umbrela (a model) beside people's (alice)``), for
    an output that reads a labels file a model made or helped make; None when no model did, so
    outputs stay as they were."""
    names = annotator_names(provenance)
    models = [name for name in names if is_model(name)]
    if not models:
        return None
    shown = ", ".join(map(annotator_words, models))
    people = [name for name in names if not is_model(name)]
    return f"{file}: labels of {shown}" + (f" beside people's ({', '.join(people)})" if people else ", not people's")


def kind_field(annotator: str | None) -> dict[str, str]:
    """``{"annotator_kind": "model"}`` beside a model's name in JSON, nothing beside a person's:
    JSON that names people stays as it was."""
    return {"annotator_kind": "model"} if annotator is not None and is_model(annotator) else {}
