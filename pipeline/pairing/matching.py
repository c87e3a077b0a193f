"""Minimum-cost perfect matching for Swiss pairing: exact on small fields, banded on large.

The cost of pairing positions i and j is how far the pair is from the plain pairing
(`rank_cost`), plus a penalty for a rematch and, where the ruleset asks, for teams of one
affiliation. Penalties dominate: the result has the fewest rematches, then the fewest
same-affiliation games, then the smallest total rank distance from the plain pairs.

- Up to `FULL_LIMIT` teams: Edmonds' blossom algorithm (networkx) over every possible pair,
  the exact global optimum.
- Larger fields: the teams are laid out in plain-pair order (each plain pair side by side,
  pairs in order of their better-ranked team) and the exact optimum is found, by dynamic
  programming over the whole field at once, among the pairings in which partners stand at
  most `BAND` places apart in that order, i.e. re-pairings among neighbouring plain tables.
  Still a global optimisation (one best answer for the whole field, no greedy swaps, no
  retries), in time linear in the field size. When a plain pair has no acceptable partner
  within the band, the rematch is kept and reported.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

FULL_LIMIT = 48
BAND = 8
NEVER = 1 << 60  # the cost of a move that cannot be made; sums of real costs stay far below


@dataclass(frozen=True)
class Penalties:
    """What pairing positions i and j costs beyond its rank distance: named pairs (a rematch)
    and pairs of one group (one affiliation). Callable like any penalty function, and able to
    give a whole band of costs at once for large fields.

    >>> p = Penalties({(0, 3): 100}, groups=[0, 0, 1, -1], group_cost=10)
    >>> p(3, 0), p(0, 1), p(2, 3), p(1, 2)
    (100, 10, 0, 0)
    """

    pairs: Mapping[tuple[int, int], int] = field(default_factory=dict)  # (low, high) → cost
    groups: Sequence[int] | None = None  # group number of each position, −1 for none
    group_cost: int = 0

    def __call__(self, i: int, j: int) -> int:
        cost = self.pairs.get((i, j) if i < j else (j, i), 0)
        if self.groups is not None and self.groups[i] >= 0 and self.groups[i] == self.groups[j]:
            cost += self.group_cost
        return cost

    def band(self, order: np.ndarray, band: int) -> np.ndarray:
        """costs[a, k]: the penalty of pairing order[a] with order[a + k] (k = 1..band)."""
        n = len(order)
        costs = np.zeros((n, band + 1), dtype=np.int64)
        if self.groups is not None:
            groups = np.asarray(self.groups, dtype=np.int64)[order]
            for k in range(1, min(band, n - 1) + 1):
                same = (groups[:-k] >= 0) & (groups[:-k] == groups[k:])
                costs[: n - k, k] += same * self.group_cost
        if self.pairs:
            place = np.empty(n, dtype=np.int64)
            place[order] = np.arange(n)
            ends = np.array(list(self.pairs), dtype=np.int64).reshape(-1, 2)
            cost = np.fromiter(self.pairs.values(), dtype=np.int64, count=len(self.pairs))
            first = np.minimum(place[ends[:, 0]], place[ends[:, 1]])
            gap = np.abs(place[ends[:, 0]] - place[ends[:, 1]])
            near = gap <= band
            np.add.at(costs, (first[near], gap[near]), cost[near])
        return costs


def rank_cost(i: int, j: int, partner: Sequence[int]) -> int:
    """Rank distance of the pair (i, j) from the plain pairing: 0 for a plain pair.

    >>> partner = [2, 3, 0, 1]
    >>> rank_cost(0, 2, partner), rank_cost(0, 1, partner)
    (0, 4)
    """
    return abs(j - partner[i]) + abs(i - partner[j])


def _solve(
    nodes: list[int], max_gap: int | None, cost: Callable[[int, int], int]
) -> list[tuple[int, int]]:
    """Exact minimum-cost perfect matching on the given positions (edges up to max_gap apart)."""
    import networkx as nx  # only small fields come here; importing it takes most of a second

    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    costs = {}
    for a, i in enumerate(nodes):
        for j in nodes[a + 1 :]:
            if max_gap is not None and j - i > max_gap:
                break
            costs[(i, j)] = cost(i, j)
    if not costs:
        return []
    top = max(costs.values()) + 1
    for (i, j), c in costs.items():
        graph.add_edge(i, j, weight=top - c)
    matched = nx.max_weight_matching(graph, maxcardinality=True)
    return sorted(tuple(sorted(pair)) for pair in matched)


def min_cost_matching(
    plain: list[tuple[int, int]],
    penalty: Callable[[int, int], int],
    full_limit: int = FULL_LIMIT,
    band: int = BAND,
) -> list[tuple[int, int]]:
    """The perfect matching of positions 0..n-1 of least cost (see the module docstring)."""
    n = 2 * len(plain)
    partner = [0] * n
    for i, j in plain:
        partner[i], partner[j] = j, i

    def cost(i: int, j: int) -> int:
        return penalty(i, j) + rank_cost(i, j, partner)

    if not any(penalty(i, j) for i, j in plain):
        return sorted(plain)
    if n <= full_limit:
        return _solve(list(range(n)), None, cost)
    order = np.array([k for pair in sorted(plain) for k in pair], dtype=np.int64)
    if isinstance(penalty, Penalties):
        costs = _band_costs(order, np.array(partner, dtype=np.int64), band) \
            + penalty.band(order, band)
        found = band_solve(np.minimum(costs, NEVER), band)
    else:
        found = band_matching(n, band, lambda a, b: cost(int(order[a]), int(order[b])))
    return sorted(tuple(sorted((int(order[a]), int(order[b])))) for a, b in found)


def _band_costs(order: np.ndarray, partner: np.ndarray, band: int) -> np.ndarray:
    """costs[a, k]: the rank cost of pairing order[a] with order[a + k]; NEVER past the end."""
    n = len(order)
    costs = np.full((n, band + 1), NEVER, dtype=np.int64)
    costs[:, 0] = 0
    for k in range(1, min(band, n - 1) + 1):
        i, j = order[: n - k], order[k:]
        costs[: n - k, k] = np.abs(j - partner[i]) + np.abs(i - partner[j])
    return costs


def band_matching(
    n: int, band: int, cost: Callable[[int, int], int]
) -> list[tuple[int, int]]:
    """Exact minimum-cost perfect matching of 0..n-1 using only pairs at most `band` apart.

    >>> band_matching(4, 2, lambda a, b: {(0, 1): 5, (2, 3): 5}.get((a, b), 1))
    [(0, 2), (1, 3)]
    """
    pair_cost = np.full((n, band + 1), NEVER, dtype=np.int64)
    pair_cost[:, 0] = 0
    for a in range(n):
        for k in range(1, min(band, n - 1 - a) + 1):
            pair_cost[a, k] = cost(a, a + k)
    return band_solve(pair_cost, band)


COMPILED_FROM = 30_000  # places: from here the compiled loop (its start-up pays for itself)


def band_solve(pair_cost: np.ndarray, band: int) -> list[tuple[int, int]]:
    """The banded matching of least cost, given pair_cost[a, k] = cost of (a, a + k)
    (column 0 is 0: place a already taken; NEVER where a + k is past the end).

    Dynamic programming left to right; the state is which of the next `band` places are
    already taken, so the work is n × 2**band × band. Vectorised over the states with numpy;
    for large fields the same loop compiled by numba (`band_dp`: importing and loading it
    takes about half a second, the loop then runs ten times faster). Both choose the same
    among equal costs: the smallest partner offset k.
    """
    if pair_cost.shape[0] >= COMPILED_FROM:
        from pipeline.pairing.compiled import band_pairs

        found = band_pairs(np.ascontiguousarray(pair_cost, dtype=np.int64), band, NEVER)
        return sorted(zip(found[:, 0].tolist(), found[:, 1].tolist(), strict=True))
    return _backtrack(_band_choices(pair_cost, band))


def warm_compiled(places: int) -> threading.Thread | None:
    """For a field that will use the compiled loop: load it on a thread now (about a second
    of importing numba and reading its cache) while the caller reads the field's history."""
    if places < COMPILED_FROM:
        return None
    thread = threading.Thread(target=_warm, daemon=True)
    thread.start()
    return thread


def _warm() -> None:
    from pipeline.pairing import compiled  # the import itself is most of the wait

    compiled.warm()


def _band_choices(pair_cost: np.ndarray, band: int) -> np.ndarray:
    """choices[a, state]: the partner offset chosen at place a in each state (numpy).

    Each step is one gather of the states' costs through a static table of moves (for each
    state and offset k, the state it comes from when place a takes partner a + k, or a last
    slot standing for "no such move", whose cost is NEVER), the pair costs added, and the
    least of each row kept: a few array operations a place. A state that cannot be reached
    (cost NEVER or more) keeps an arbitrary choice: no best matching passes through it."""
    n = pair_cost.shape[0]
    width = band + 1
    states = 1 << width
    never = np.int64(NEVER)
    every = np.arange(states)
    source = np.full((states, width), states, dtype=np.int64)  # `states`: no such move
    taken = every[every & 1 == 1]
    source[taken >> 1, 0] = taken  # place a was taken already: move on
    for k in range(1, width):
        ok = every[(every & 1 == 0) & ((every >> k) & 1 == 0)]
        source[(ok | (1 << k)) >> 1, k] = ok  # a pairs with a + k
    rows = np.arange(states)
    best = np.full(states + 1, never, dtype=np.int64)  # the last: the missing move's cost
    best[0] = 0
    choices = np.zeros((n, states), dtype=np.int8)
    costs = np.minimum(pair_cost.astype(np.int64), never)
    for a in range(n):
        grid = best[source] + costs[a]  # ≤ 2 × NEVER: no overflow
        choice = grid.argmin(axis=1)
        np.minimum(grid[rows, choice], never, out=best[:states])
        choices[a] = choice
    return choices


def _backtrack(choices: np.ndarray) -> list[tuple[int, int]]:
    """The pairs of the best matching, from the last place's empty state back."""
    n = choices.shape[0]
    pairs = []
    state = 0
    for a in range(n - 1, -1, -1):
        k = int(choices[a, state])
        if k == 0:
            state = (state << 1) | 1
        else:
            pairs.append((a, a + k))
            state = (state & ~(1 << (k - 1))) << 1
    return sorted(pairs)
