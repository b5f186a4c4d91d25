"""rankeval-tui: offline retrieval evaluation with a fixed, checkable protocol."""

__version__ = "0.1.0"
