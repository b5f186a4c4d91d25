"""Evaluation: the protocol, the one evaluator, and what is derived from its reports.

``Protocol`` (validated on construction, hashed), ``evaluate(protocol, run) -> Report`` (exact
fractions), the chunk adapter, run comparison, paired statistics and the renderers. Pure
computation on core objects: nothing here reads or writes a file, so nothing here imports
``core.files`` or ``core.annotation``.
"""
