"""The prize list from the ruleset's quotas (RULES 8)."""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline import scoring
from pipeline.events import Event

AWARD_COLUMNS = ["award", "rank", "team_no", "team_name", "player1", "player2", "affiliation"]


def quotas(awards: dict, entries: int) -> list[tuple[str, int]]:
    """Each award with its count; the small-field counts apply below `small_field` entries.

    >>> quotas({"names": ["一等奖", "二等奖"], "counts": [2, 3], "small_field": 20,
    ...         "small_field_counts": [1, 1]}, 12)
    [('一等奖', 1), ('二等奖', 1)]
    """
    counts = awards["counts"]
    if awards["small_field"] and entries < awards["small_field"]:
        counts = awards["small_field_counts"]
    return list(zip(awards["names"], counts, strict=False))


def award_list(con: duckdb.DuckDBPyConnection, event: Event) -> pl.DataFrame:
    """Teams in ranking order take the awards in turn, as many as each quota allows."""
    ranking = scoring.standings(con, event)
    places = []
    for name, count in quotas(event.ruleset.awards, ranking.height):
        places += [name] * count
    places = places[: ranking.height]
    return ranking.head(len(places)).with_columns(
        pl.Series("award", places, dtype=pl.String)).select(AWARD_COLUMNS)
