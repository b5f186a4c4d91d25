"""Seeded random draws for the paired statistics, identical to ``random.Random(seed)``'s, in numpy.

Why a module of its own: ``stats`` defines the tests; this is how their Monte-Carlo draws are
made fast without changing a number. numpy's legacy Mersenne Twister, given the state of
``random.Random(seed)``, yields the same 32-bit words (``getrandbits``) and the same 53-bit
doubles (``random()``, hence ``choices``), so the sign-flip masks and the bootstrap positions
are those of the one-by-one Python draws (pinned in tests/core/test_stats.py). Lists of one
length share one draw (a family's candidates and metrics: the same eligible queries, the same
seed). Sums are exact: float64 while they stay below 2^53, the Python forms past that.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any


def same_length(vectors: Sequence[Sequence[int]]) -> dict[tuple[int, ...], list[Sequence[int]]]:
    """Vectors grouped by length (positions, vectors): one group shares one seeded draw."""
    groups: dict[int, tuple[list[int], list[Sequence[int]]]] = {}
    for index, vector in enumerate(vectors):
        positions, members = groups.setdefault(len(vector), ([], []))
        positions.append(index)
        members.append(vector)
    return {tuple(positions): members for positions, members in groups.values()}


def seeded_numpy(seed: int) -> Any:
    """numpy's legacy Mersenne Twister in the state of ``random.Random(seed)``: the same 32-bit
    words, hence the same ``getrandbits`` and the same 53-bit ``random()`` doubles."""
    import numpy as np  # only Monte-Carlo statistics need it, and its import is slow

    state = random.Random(seed).getstate()[1]
    generator = np.random.RandomState()
    generator.set_state(("MT19937", np.array(state[:-1], dtype=np.uint32), state[-1], 0, 0.0))
    return generator


def masked_sums(vectors: Sequence[Sequence[int]], samples: int, seed: int) -> list[list[int]]:
    """Per vector, per sample, the sum of its entries whose bit is set in the sample's
    ``random.Random(seed).getrandbits(n)`` (samples drawn in order from one generator).

    Why numpy: 10,000 masks of 10,000 bits applied one by one in Python take seconds per metric.
    Here the same 32-bit words come from numpy's copy of the generator, unpacked into bits and
    multiplied with the vectors in float64, exact while every sum stays below 2^53; past that
    the Python form (a popcount per distinct value) keeps the result exact.
    """
    n = len(vectors[0])
    if not n:
        return [[0] * samples for _ in vectors]
    if max(abs(v) for vector in vectors for v in vector) * n >= 1 << 53:
        return [masked_sums_python(vector, samples, seed) for vector in vectors]
    import numpy as np

    generator = seeded_numpy(seed)
    words = (n + 31) // 32
    matrix = np.array(vectors, dtype=np.float64).T  # n x vectors
    rows = max(1, RESAMPLE_BLOCK // (32 * words))
    sums: list[np.ndarray] = []
    for start in range(0, samples, rows):
        block = generator.randint(0, 1 << 32, size=(min(rows, samples - start), words), dtype=np.uint32)
        if n % 32:
            block[:, -1] >>= np.uint32(32 - n % 32)  # getrandbits keeps a last word's top bits
        bits = np.unpackbits(block.view(np.uint8), axis=1, bitorder="little")[:, :n]
        sums.append(bits @ matrix)
    stacked = np.concatenate(sums)
    return [[int(x) for x in column] for column in stacked.T.tolist()]


def masked_sums_python(values: Sequence[int], samples: int, seed: int) -> list[int]:
    """``masked_sums`` for one vector in Python: per distinct value, ``value * popcount(mask & where)``."""
    positions: dict[int, int] = {}
    for index, value in enumerate(values):
        if value:
            positions[value] = positions.get(value, 0) | (1 << index)
    groups = list(positions.items())
    rng = random.Random(seed)
    return [
        sum(value * (bits & where).bit_count() for value, where in groups)
        for bits in (rng.getrandbits(len(values)) for _ in range(samples))
    ]


RESAMPLE_BLOCK = 1 << 16
"""Random numbers drawn per numpy block (512 KB of doubles): memory stays flat whatever n * B,
and a block's positions and counts stay in the cache, which ``bincount``'s scattered writes
need: the bootstrap is faster with blocks of this size than with blocks of 2^20, and sizes
around it (2^15, 2^17) are about as fast."""


def resampled_sums(vectors: Sequence[Sequence[int]], samples: int, seed: int) -> list[list[int]]:
    """Per vector (all of one length n), the sum of each of ``samples`` resamples, exactly as
    ``[sum(rng.choices(vector, k=n)) for _ in range(samples)]`` with ``rng = random.Random(seed)``.

    Why numpy: B * n draws (10^8 at 10,000 queries) one by one in Python are far too slow. numpy's
    copy of the generator (``seeded_numpy``) yields the very doubles ``choices`` turns into
    positions ``floor(random() * n)``, so the sums are identical; the positions are drawn once
    per block, counted per resample and multiplied with every vector at once. Sums that could
    pass 2^53 (float64's exact integers) keep the Python loop.
    """
    n = len(vectors[0])
    if max(abs(v) for vector in vectors for v in vector) * n >= 1 << 53:
        return [[sum(rng.choices(vector, k=n)) for _ in range(samples)] for rng, vector in seeded_pairs(vectors, seed)]
    import numpy as np

    generator = seeded_numpy(seed)
    population = np.array(vectors, dtype=np.float64).T  # n x vectors; sums exact below 2^53
    rows = max(1, RESAMPLE_BLOCK // n)
    sums: list[np.ndarray] = []
    for start in range(0, samples, rows):
        count = min(rows, samples - start)
        doubles = generator.random_sample((count, n))
        doubles *= float(n)  # floor(random() * n), as random.choices
        picks = doubles.astype(np.intp)
        picks += np.arange(0, count * n, n, dtype=np.intp)[:, None]  # row r counts in [r*n, r*n + n)
        times_drawn = np.bincount(picks.ravel(), minlength=count * n).reshape(count, n)
        sums.append(times_drawn.astype(np.float64) @ population)  # one product for every vector
    return [[int(x) for x in column] for column in np.concatenate(sums).T.tolist()]


def seeded_pairs(vectors: Sequence[Sequence[int]], seed: int) -> list[tuple[random.Random, Sequence[int]]]:
    return [(random.Random(seed), vector) for vector in vectors]
