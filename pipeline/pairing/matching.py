"""Minimum-cost perfect matching for Swiss pairing, exact and fast on large fields.

The cost of pairing positions i and j is how far the pair is from the plain pairing
(`rank_cost`), plus a penalty for a rematch and, where the ruleset asks, for teams of one
affiliation. Penalties dominate: the result has the fewest rematches, then the fewest
same-affiliation games, then the smallest total rank distance from the plain pairs.

Solved with Edmonds' blossom algorithm (networkx). On a large field the plain pairing is
kept outside windows around its conflicting pairs, and each window is solved exactly. That
is still the global optimum: the optimum differs from the plain pairing on alternating
cycles, each through a conflicting plain pair (a cycle without one could be put back to
plain pairs at no cost), and a cycle whose rank cost is C only reaches positions within
C + d of its conflict, d being the largest plain rank distance. A window is grown until it
reaches that far past every conflict in it for the cost found in it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import networkx as nx

FULL_LIMIT = 48


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
) -> list[tuple[int, int]]:
    """The perfect matching of positions 0..n-1 of least cost (see the module docstring)."""
    n = 2 * len(plain)
    partner = [0] * n
    for i, j in plain:
        partner[i], partner[j] = j, i

    def cost(i: int, j: int) -> int:
        return penalty(i, j) + rank_cost(i, j, partner)

    conflicts = [(i, j) for i, j in plain if penalty(i, j)]
    if not conflicts:
        return sorted(plain)
    if n <= full_limit:
        return _solve(list(range(n)), None, cost)

    plain_gap = max(abs(i - j) for i, j in plain)
    radius = 8
    while True:
        windows = _windows(conflicts, radius, partner, n)
        solved: dict[tuple[int, int], list[tuple[int, int]]] = {}
        need = radius
        for low, high in windows:
            nodes = list(range(low, high + 1))
            whole = low == 0 and high == n - 1
            gap = None if whole and n <= 4 * full_limit else radius + plain_gap
            pairs = _solve(nodes, gap, cost)
            solved[(low, high)] = pairs
            found = sum(cost(i, j) for i, j in pairs)
            penalties = sum(penalty(i, j) for i, j in pairs)
            rank_part = found - penalties
            if penalties and not whole:
                need = max(need, 2 * radius)  # grow until the conflict can be avoided
            else:
                need = max(need, rank_part + plain_gap + 1)
        if need <= radius or all(w == (0, n - 1) for w in windows):
            break
        radius = need
    inside = {i for low, high in solved for i in range(low, high + 1)}
    result = [p for p in plain if p[0] not in inside]
    for pairs in solved.values():
        result += pairs
    return sorted(result)


def _windows(
    conflicts: list[tuple[int, int]], radius: int, partner: Sequence[int], n: int
) -> list[tuple[int, int]]:
    """Intervals of positions around the conflicts, closed under plain partners, merged."""
    spans = sorted((max(0, min(i, j) - radius), min(n - 1, max(i, j) + radius))
                   for i, j in conflicts)
    merged: list[list[int]] = []
    for low, high in spans:
        changed = True
        while changed:  # a window holds both teams of every plain pair it touches
            new_low = min([low] + [partner[k] for k in range(low, high + 1)])
            new_high = max([high] + [partner[k] for k in range(low, high + 1)])
            changed = (new_low, new_high) != (low, high)
            low, high = new_low, new_high
        if merged and low <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], high)
        else:
            merged.append([low, high])
    return [(low, high) for low, high in merged]
