"""The seed's 30 labels (the tutorial's fixture.py QRELS), written out on purpose.

Tests that check what the app *wrote* must not read the expected answer from a file the app
could have written or that a bug could have changed.
"""

SEED_QRELS = {
    "q1": {"d1": 0, "d2": 1, "d3": 0, "d4": 0, "d5": 0, "d6": 0},
    "q2": {"d1": 0, "d2": 0, "d3": 1, "d4": 1, "d5": 0, "d6": 0},
    "q3": {"d1": 0, "d2": 0, "d3": 0, "d4": 0, "d5": 1, "d6": 0},
    "q4": {"d1": 0, "d2": 0, "d3": 0, "d4": 0, "d5": 0, "d6": 1},
    "q5": {"d1": 0, "d2": 0, "d3": 0, "d4": 0, "d5": 0, "d6": 0},
}
