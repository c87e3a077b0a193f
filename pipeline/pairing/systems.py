"""The plain pairing of each system, as pairs of positions in the ranking (0 = first).

The table of systems is the one place a new system is added (brackets-manager.js keeps
its orderings the same way).

>>> snake4(6)
[(0, 2), (1, 3), (4, 5)]
>>> monrad(4)
[(0, 1), (2, 3)]
>>> dutch([3, 3, 3, 3, 0, 0])
[(0, 2), (1, 3), (4, 5)]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def snake4(n: int, scores: Sequence[float] | None = None) -> list[tuple[int, int]]:
    """Seed 004: blocks of four by rank play 1–3 and 2–4; a last block of two plays 1–2."""
    pairs = []
    start = 0
    while n - start >= 4:
        pairs += [(start, start + 2), (start + 1, start + 3)]
        start += 4
    if n - start == 2:
        pairs.append((start, start + 1))
    return pairs


def monrad(n: int, scores: Sequence[float] | None = None) -> list[tuple[int, int]]:
    """1–2, 3–4, …"""
    return [(i, i + 1) for i in range(0, n - 1, 2)]


def dutch(scores: Sequence[float], _: object = None) -> list[tuple[int, int]]:
    """Top half against bottom half of each score group; an odd group's last team floats down."""
    groups: list[list[int]] = []
    for position, score in enumerate(scores):
        if groups and scores[groups[-1][0]] == score:
            groups[-1].append(position)
        else:
            groups.append([position])
    pairs = []
    carried: list[int] = []
    for group in groups:
        members = carried + group
        carried = [members.pop()] if len(members) % 2 else []
        half = len(members) // 2
        pairs += [(members[i], members[i + half]) for i in range(half)]
    return sorted(pairs)


def plain_pairs(system: str, scores: Sequence[float]) -> list[tuple[int, int]]:
    """The plain pairing of an even field ranked best first, with its scores."""
    if system == "dutch":
        return dutch(scores)
    return SYSTEMS[system](len(scores))


SYSTEMS: dict[str, Callable[..., list[tuple[int, int]]]] = {
    "snake4": snake4,
    "monrad": monrad,
    "dutch": dutch,
}
