"""The order of a Tractor group (round robin) once its matches are played. Pure.

Points first (a win is the stage's group_win_points). Teams equal on points are ordered by
their direct results among exactly themselves (matches won), then game difference, then
level difference over the whole group; whenever that leaves a smaller set still equal, the
same steps start again within it — so a three-way tie reduced to two is decided by the two
teams' own match (issue 38: our reading, the notices are silent). Team number last.

>>> rows = [{"team_no": t, "points": 2, "game_diff": g, "level_diff": 0}
...         for t, g in (("T1", 1), ("T2", 1), ("T3", 0))]
>>> matches = [("T1", "T2", "T2"), ("T2", "T3", "T3"), ("T3", "T1", "T1")]
>>> order_group(rows, matches)  # a cycle: T1, T2 ahead of T3 on games; T2 beat T1
['T2', 'T1', 'T3']
"""

from __future__ import annotations

import re


def _number(team: str) -> tuple:
    digits = re.search(r"\d+", team)
    return re.match(r"^\D*", team).group(), int(digits.group()) if digits else -1, team


def order_group(rows: list[dict], matches: list[tuple[str, str, str | None]]) -> list[str]:
    """Team numbers best first. `rows`: team_no, points, game_diff, level_diff; `matches`:
    (team_a, team_b, winner or None) of the group."""
    by_team = {r["team_no"]: r for r in rows}

    def direct_wins(team: str, tied: set[str]) -> int:
        return sum(1 for a, b, w in matches if w == team and {a, b} <= tied)

    def order(tied: list[str], by_points: bool) -> list[str]:
        if len(tied) == 1:
            return tied
        members = set(tied)

        def key(team: str) -> tuple:
            r = by_team[team]
            return ((-r["points"],) if by_points else ()) + (
                -direct_wins(team, members), -r["game_diff"], -r["level_diff"])

        if by_points:  # points first, then each set equal on points on its own
            groups: dict[tuple, list[str]] = {}
            for team in tied:
                groups.setdefault((-by_team[team]["points"],), []).append(team)
            return [t for k in sorted(groups) for t in order(groups[k], False)]
        groups = {}
        for team in tied:
            groups.setdefault(key(team), []).append(team)
        if len(groups) == 1:  # nothing separates them: team number
            return sorted(tied, key=_number)
        return [t for k in sorted(groups) for t in order(groups[k], False)]

    return order(list(by_team), True)
