"""The banded matching's dynamic programme compiled by numba, loop by loop as it is written:
the tests' independent reference for `matching.band_solve` (numpy, which pairs every field:
it copies the plain order's repeated steps instead of computing them, and needs no compiler
at run time). Compiled once and cached on disk (numba's cache beside this file, or the
user's cache folder)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def band_dp(pair_cost: np.ndarray, band: int, never: int) -> np.ndarray:
    """choices[a, state] as matching._band_choices makes them: at place a, for each state
    (which of the next `band` places are taken), the offset k of a's partner (0: a was
    taken already). Ties go to the smallest k, as numpy's argmin does."""
    n = pair_cost.shape[0]
    width = band + 1
    states = 1 << width
    best = np.full(states, never, dtype=np.int64)
    best[0] = 0
    new = np.empty(states, dtype=np.int64)
    choices = np.zeros((n, states), dtype=np.int8)
    for a in range(n):
        new[:] = never
        for k in range(width):
            cost = pair_cost[a, k]
            for s in range(states):
                b = best[s]
                if b >= never:
                    continue
                if k == 0:
                    if s & 1 == 0:
                        continue
                    t = s >> 1
                else:
                    if s & 1 or (s >> k) & 1:
                        continue
                    t = (s | (1 << k)) >> 1
                c = min(b + cost, never)
                if c < new[t]:
                    new[t] = c
                    choices[a, t] = k
        best, new = new, best
    return choices


@njit(cache=True)
def band_pairs(pair_cost: np.ndarray, band: int, never: int) -> np.ndarray:
    """The best banded matching's pairs (a, a + k), as `matching._backtrack` reads them from
    `band_dp`'s choices, from the last place back (ordered by the caller)."""
    choices = band_dp(pair_cost, band, never)
    n = choices.shape[0]
    pairs = np.empty((n // 2, 2), dtype=np.int64)
    found = 0
    state = 0
    for a in range(n - 1, -1, -1):
        k = choices[a, state]
        if k == 0:
            state = (state << 1) | 1
        else:
            pairs[found, 0] = a
            pairs[found, 1] = a + k
            found += 1
            state = (state & ~(1 << (k - 1))) << 1
    return pairs[:found]
