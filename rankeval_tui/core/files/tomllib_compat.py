"""``tomllib``, the TOML parser of record (``tomli`` on Python 3.10), in a module of its own.

``toml_layout`` and ``tomlio`` import it inside the functions that hand a text over to it, so its
import (with ``datetime``) is paid by the reads that need it, not by every start-up:
the project's own files almost never leave the fast path.
"""

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["tomllib"]
