"""Group draws, round-robin schedules and knockout draws. Pure.

>>> round_robin(["T1", "T2", "T3"])
[('T1', 'T2'), ('T1', 'T3'), ('T2', 'T3')]
>>> bracket_order(8)
[1, 8, 4, 5, 2, 7, 3, 6]
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

GROUP_NAMES = "ABCDEFGHIJKLMNOP"


def group_name(index: int) -> str:
    return f"{GROUP_NAMES[index]}组"


def draw_groups(
    teams: Sequence[str], groups: int, seeds: Sequence[str] = (),
    affiliations: Mapping[str, str | None] | None = None, rng: random.Random | None = None,
) -> list[list[str]]:
    """Seeded teams snake across the groups (1→A, 2→B, …, then back); the others are drawn
    by lot into the smallest groups, away from their own affiliation where possible."""
    rng = rng or random.Random(0)
    affiliations = affiliations or {}
    result: list[list[str]] = [[] for _ in range(groups)]
    for index, team in enumerate(seeds):
        lap, place = divmod(index, groups)
        result[place if lap % 2 == 0 else groups - 1 - place].append(team)
    others = [t for t in teams if t not in set(seeds)]
    rng.shuffle(others)
    for team in others:
        unit = affiliations.get(team)
        smallest = min(len(g) for g in result)
        candidates = [i for i, g in enumerate(result) if len(g) == smallest]
        clash = [sum(1 for t in result[i] if unit and affiliations.get(t) == unit)
                 for i in candidates]
        best = min(clash)
        result[rng.choice([i for i, c in zip(candidates, clash, strict=True) if c == best])
               ].append(team)
    return result


def round_robin(group: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of the group once, in the group's order."""
    return [(a, b) for i, a in enumerate(group) for b in group[i + 1:]]


def bracket_order(size: int) -> list[int]:
    """Seed positions of a fixed bracket: 1 meets `size`, and 1 and 2 meet only in the final."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [x for seed in order for x in (seed, total - seed)]
    return order


def knockout_first_round(
    qualifiers: Sequence[str], redraw: bool, rng: random.Random | None = None,
) -> list[tuple[str, str | None]]:
    """Matches of the first knockout round (team_b None: a bye), qualifiers best first.

    The field is filled to a power of two with byes, which go to the best qualifiers. In a
    fixed bracket the seeds stand at their bracket positions; with redraw the others are
    drawn by lot."""
    size = 1
    while size < len(qualifiers):
        size *= 2
    byes = size - len(qualifiers)
    if not redraw:
        seeded = {i + 1: team for i, team in enumerate(qualifiers)}
        order = bracket_order(size)
        return [(seeded[order[i]], seeded.get(order[i + 1])) for i in range(0, size, 2)]
    rng = rng or random.Random(0)
    matches: list[tuple[str, str | None]] = [(team, None) for team in qualifiers[:byes]]
    rest = list(qualifiers[byes:])
    rng.shuffle(rest)
    matches += [(rest[i], rest[i + 1]) for i in range(0, len(rest), 2)]
    return matches


def next_round(winners: Sequence[str], redraw: bool,
               rng: random.Random | None = None) -> list[tuple[str, str | None]]:
    """The next knockout round: a fresh draw of the winners, or the fixed tree (1–2, 3–4)."""
    winners = list(winners)
    if redraw:
        (rng or random.Random(0)).shuffle(winners)
    return [(winners[i], winners[i + 1] if i + 1 < len(winners) else None)
            for i in range(0, len(winners), 2)]


def knockout_name(teams: int) -> str:
    """决赛 for 2 teams, 半决赛 for 4, 1/4决赛 for 8, 1/8决赛 for 16 …"""
    if teams <= 2:
        return "决赛"
    if teams <= 4:
        return "半决赛"
    return f"1/{teams // 2}决赛"
