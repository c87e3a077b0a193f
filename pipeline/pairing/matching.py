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

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np

FULL_LIMIT = 48
BAND = 8
NEVER = 1 << 60  # the cost of a move that cannot be made; sums of real costs stay far below


class PlacePairs(Mapping):
    """Pairs of places (low, high) → cost, held as arrays: a large field's history (350,000
    pairs at 100,000 teams) goes to `Penalties.band` without a Python tuple per pair; the
    dict that a lookup pair by pair needs is made on the first lookup.

    >>> met = PlacePairs(np.array([0, 1]), np.array([3, 2]), 100)
    >>> met[(0, 3)], (1, 3) in met, len(met), sorted(met)
    (100, False, 2, [(0, 3), (1, 2)])
    """

    def __init__(self, low: np.ndarray, high: np.ndarray, cost: int):
        self.low = np.asarray(low, dtype=np.int64)  # each pair once (`_met_places`)
        self.high = np.asarray(high, dtype=np.int64)
        self.cost = cost
        self._pairs: dict[tuple[int, int], int] | None = None
        self._codes: np.ndarray | None = None

    def _dict(self) -> dict[tuple[int, int], int]:
        if self._pairs is None:
            self._pairs = dict.fromkeys(zip(self.low.tolist(), self.high.tolist(),
                                            strict=True), self.cost)
        return self._pairs

    def __getitem__(self, pair: tuple[int, int]) -> int:
        return self._dict()[pair]

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter(self._dict())

    def __len__(self) -> int:  # (also `if pairs:`, which must not make the dict)
        return len(self.low)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pairs' two ends and their costs (one pair once)."""
        return self.low, self.high, np.full(len(self.low), self.cost, dtype=np.int64)

    def among(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """Which of the pairs (low[i], high[i]) are here (a mask): looked up by binary search
        in the pairs' sorted codes (numpy's `isin` hashes both sides: 0.26 s at 100,000)."""
        size = 1 << 31  # places are below 2**31: a pair's code is low × size + high
        if self._codes is None:
            self._codes = np.sort(self.low * size + self.high)
        wanted = np.asarray(low, dtype=np.int64) * size + np.asarray(high, dtype=np.int64)
        at = np.minimum(np.searchsorted(self._codes, wanted), max(len(self._codes) - 1, 0))
        return self._codes[at] == wanted if len(self._codes) else np.zeros(len(wanted), bool)


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
            if isinstance(self.pairs, PlacePairs):
                low, high, cost = self.pairs.arrays()
            else:
                ends = np.array(list(self.pairs), dtype=np.int64).reshape(-1, 2)
                low, high = ends[:, 0], ends[:, 1]
                cost = np.fromiter(self.pairs.values(), dtype=np.int64, count=len(self.pairs))
            first = np.minimum(place[low], place[high])
            gap = np.abs(place[low] - place[high])
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

    if n > full_limit and isinstance(penalty, Penalties):  # a whole band of costs at once
        order = np.array(sorted(plain), dtype=np.int64).reshape(-1)
        extra = penalty.band(order, band)
        if not extra[0::2, 1].any():  # each plain pair side by side in `order`: none costs
            return sorted(plain)
        costs = _band_costs(order, np.array(partner, dtype=np.int64), band) + extra
        found = order[np.array(band_solve(np.minimum(costs, NEVER), band),
                               dtype=np.int64).reshape(-1, 2)]
        low, high = found.min(axis=1), found.max(axis=1)
        ranked = np.argsort(low, kind="stable")  # each place in one pair: by the lower alone
        return list(zip(low[ranked].tolist(), high[ranked].tolist(), strict=True))
    if not any(penalty(i, j) for i, j in plain):
        return sorted(plain)
    if n <= full_limit:
        return _solve(list(range(n)), None, cost)
    order = np.array([k for pair in sorted(plain) for k in pair], dtype=np.int64)
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


def band_solve(pair_cost: np.ndarray, band: int) -> list[tuple[int, int]]:
    """The banded matching of least cost, given pair_cost[a, k] = cost of (a, a + k)
    (column 0 is 0: place a already taken; NEVER where a + k is past the end).

    Dynamic programming left to right; the state is which of the next `band` places are
    already taken, so the work is n × 2**band × band at most. Vectorised over the states
    with numpy, and a step that repeats the plain order's earlier one copied (see
    `_band_choices`): 100,000 places in well under a second, without the half second and
    more that importing a compiler costs. Among equal costs the smallest partner offset k
    (`compiled.band_dp`, the same programme compiled by numba, is the tests' reference).
    """
    return _backtrack(_band_choices(pair_cost, band))


PERIOD = 4  # the plain orders repeat every 4 places (snake4) or 2 (monrad, dutch)
UNREACHED = np.int64(1 << 61)  # a state no pairing reaches: above NEVER, twice it < 2**63


@cache
def _moves(band: int) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]:
    """The programme's moves from a place of even and of odd number. The places before a
    are paired among themselves or with the next `band` − 1 places, so a state at place a
    is one of the 2**(band − 1) sets of places taken ahead whose size has a's parity: the
    states are numbered in that order for each parity. For each parity: `source[t, c]`, the
    state a move comes from to reach the next place's state t, `offset[t, c]` its partner
    offset k (moves of a state in order of k; `band + 1` pads a row: a move that does not
    exist), and `targets`, the next place's states by their bits."""
    width = band + 1

    def states(parity: int) -> list[int]:
        return [s for s in range(1 << band) if s.bit_count() % 2 == parity]

    found = []
    for parity in (0, 1):
        number = {state: i for i, state in enumerate(states(parity))}
        into: dict[int, list[tuple[int, int]]] = {}
        for state in number:
            if state & 1:  # place a was taken already: move on
                into.setdefault(state >> 1, []).append((0, state))
            else:  # a pairs with a + k
                for k in range(1, width):
                    if not (state >> k) & 1:
                        into.setdefault((state | (1 << k)) >> 1, []).append((k, state))
        targets = states(1 - parity)
        wide = max(len(moves) for moves in into.values())
        source = np.zeros((len(targets), wide), dtype=np.int64)
        offset = np.full((len(targets), wide), width, dtype=np.int64)
        for row, target in enumerate(targets):
            for column, (k, state) in enumerate(sorted(into[target])):
                source[row, column], offset[row, column] = number[state], k
        found.append((source, offset, np.array(targets, dtype=np.int64)))
    return tuple(found)


def _band_choices(pair_cost: np.ndarray, band: int) -> np.ndarray:
    """choices[a, state]: the partner offset chosen at place a for each state it leads to
    (numpy; 0 where the state cannot be reached: no best matching passes through it).

    Each step gathers, for each state of the next place, the costs of its moves (the
    source's cost and the pair's), keeps the least (ties to the smallest k, as argmin
    does) and keeps the costs relative to the least state's. A plain order repeats every
    `PERIOD` places: where a place's pair costs and the states' relative costs are those of
    `PERIOD` places before, every step until the pair costs change repeats the ones before
    it and is copied instead of computed — most of a large field, whose rematches and units
    are a place here and there."""
    n = pair_cost.shape[0]
    width = band + 1
    moves = _moves(band)
    rows = np.arange(len(moves[0][2]))
    costs = np.full((n, width + 1), UNREACHED, dtype=np.int64)  # the last: a padded move
    costs[:, :width] = np.minimum(pair_cost, NEVER)
    same = np.zeros(n + 1, dtype=bool)  # place a's costs are those PERIOD places before
    same[PERIOD:n] = (costs[PERIOD:] == costs[:-PERIOD]).all(axis=1)
    changed = np.where(same, n, np.arange(n + 1))
    # the next place whose costs change; both as lists: read one place at a time
    run_end = np.minimum.accumulate(changed[::-1])[::-1].tolist()
    repeated = same.tolist()
    chosen = np.zeros((n, len(rows)), dtype=np.int8)  # by the next place's state number
    best = np.full(len(rows), UNREACHED, dtype=np.int64)
    best[0] = 0  # place 0: nothing taken
    before = [b""] * PERIOD  # the states' relative costs at the PERIOD places before
    # each parity's moves, with the flat positions of its rows' first moves: a state's chosen
    # move read as one index into the flattened grid (fewer numpy calls in a step)
    steps = [(source, offset, offset.ravel(), rows * source.shape[1])
             for source, offset, _ in moves]
    a = 0
    while a < n:
        seen = best.tobytes()
        if repeated[a] and seen == before[a % PERIOD]:
            end = run_end[a]  # places a … end − 1 repeat the PERIOD places before a
            repeats = -(-(end - a) // PERIOD)
            chosen[a:end] = np.tile(chosen[a - PERIOD:a], (repeats, 1))[: end - a]
            best = np.frombuffer(before[end % PERIOD], dtype=np.int64)
            a = end
            continue
        before[a % PERIOD] = seen
        source, offset, offsets, first = steps[a & 1]
        grid = best[source]  # a new array: added to in place
        grid += costs[a][offset]  # ≤ 2 × UNREACHED: no overflow
        at = first + grid.argmin(axis=1)
        least = grid.ravel()[at]
        chosen[a] = offsets[at]
        unreached = least >= UNREACHED
        least -= least.min()
        least[unreached] = UNREACHED
        best = least
        a += 1
    choices = np.zeros((n, 1 << width), dtype=np.int8)
    for parity in (0, 1):
        choices[parity::2, moves[parity][2]] = chosen[parity::2]
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
