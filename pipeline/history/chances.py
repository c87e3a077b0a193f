"""A table's chances from the rating list (issue 52): East-West's probability of winning, a
logistic on the margin the list expects between the two pairs (Σ ratings East-West − Σ
North-South, in levels). Its calibration is measured in `make bench` (bench/associations.py:
the Brier score on held-out tables against Elo's)."""

from __future__ import annotations

import math

from pipeline.history.ratings import BASE, SCALE

WIN_SLOPE = 0.45  # the logistic's slope per level of the list's margin: a game's margin is
# the pairs' difference plus about 3.7 levels of luck (normal), and Φ(m / 3.7) ≈ logistic(0.45 m)


def win_probability(ew: list[float | None], ns: list[float | None]) -> float:
    """East-West's chance of winning a table from the list's ratings (an unrated player at
    BASE).

    >>> round(win_probability([1600, 1500], [1500, 1500]), 3), win_probability([1500], [1500])
    (0.611, 0.5)
    """
    margin = (sum(BASE if r is None else r for r in ew)
              - sum(BASE if r is None else r for r in ns)) / SCALE
    return 1 / (1 + math.exp(-WIN_SLOPE * margin))
