"""The days a player's rating history is fitted at (issue 52): the last event day of each
day, month, quarter or year — the finest grain with at most HISTORY_POINTS points. Used by
the stored history (`ratings.refresh`) and by the fits made ahead (`fits_ahead`)."""

from __future__ import annotations

import datetime as dt

HISTORY_POINTS = 40  # a history of more event days is refitted at this many, evenly spread
GRAINS = ("day", "month", "quarter", "year")  # the finest with ≤ HISTORY_POINTS points is used


def bucket(day: dt.date, grain: str) -> tuple:
    return {"day": (day,), "month": (day.year, day.month),
            "quarter": (day.year, (day.month - 1) // 3), "year": (day.year,)}[grain]


def history_points(days: list[dt.date]) -> tuple[str, dict[tuple, dt.date]]:
    """The days the history is fitted at: the last event day of each day, month, quarter or
    year, the finest of these with at most HISTORY_POINTS of them. A grain's points only
    change where events are added, so the history before a change is kept."""
    for grain in GRAINS:
        points: dict[tuple, dt.date] = {}
        for day in sorted(days):
            points[bucket(day, grain)] = day
        if len(points) <= HISTORY_POINTS or grain == GRAINS[-1]:
            return grain, points
    raise AssertionError("unreachable")
