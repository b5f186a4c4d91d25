"""Regular expressions compiled the first time they are asked for, not at import.

Why: a module-level ``re.compile`` is paid at every start-up of every command that imports the
module, whether or not it reads a file that needs the pattern (a large pattern can cost more than
scoring the demo; ``benchmarks/bench_startup.py`` measures start-up). Patterns every read needs
stay compiled at import; the ones only some files or some errors need use ``on_first_use``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache


def on_first_use(source: str) -> Callable[[], re.Pattern[str]]:
    """A function returning ``re.compile(source)``, compiled on its first call and kept."""
    return cache(lambda: re.compile(source))
