"""An archive's finishes (issue 52): the rank of every team of many Swiss events, each after
its round given, ranked set-based — the same layers as `scoring.standings`, one pass over
all the events that share the ranking's parameters (ruleset settings, round, keys) instead
of one query per event. The history's cache of finishes; a live event is ranked by
`scoring.standings`."""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.base import db
from pipeline.base.events import Event
from pipeline.ranking.scoring import (
    bind,
    compose,
    published_keys,
    ranking_layers,
    ranking_params,
    ranking_query,
)


def final_ranks(con: duckdb.DuckDBPyConnection, ranked: list[tuple[Event, int]]
                ) -> list[tuple[str, str, int]]:
    """(event_id, team_no, rank) of many Swiss events, each after its round given: the same
    layers as `standings`, one pass over all the events that share the ranking's parameters
    (ruleset settings, round, keys) instead of one query per event — the history's cache
    of finishes (a live event is ranked by `standings`)."""
    return final_rank_frame(con, ranked).rows()


FINAL_RANK_SCHEMA = {"event_id": pl.String, "team_no": pl.String, "rank": pl.Int64}


def final_rank_frame(con: duckdb.DuckDBPyConnection, ranked: list[tuple[Event, int]]
                     ) -> pl.DataFrame:
    """`final_ranks` as a frame (event_id, team_no, rank), read through Arrow: no Python
    tuple made per team, so a thread ranking an archive holds Python's lock the less."""
    groups: dict[str, tuple[str, dict, list[str]]] = {}
    for event, max_round in ranked:
        keys = published_keys(event, max_round)
        query = final_rank_query(keys)
        params = bind(query, ranking_params(event, max_round, keys))
        # the query as well as its parameters: the keys are written into its text
        shared = repr((query, sorted((k, v) for k, v in params.items() if k != "event_ids")))
        groups.setdefault(shared, (query, params, []))[2].append(event.event_id)
    found = [db.frame(con, f"select event_id, team_no, rank::bigint as rank from ({query})",
                      {**params, "event_ids": event_ids})
             for query, params, event_ids in groups.values()]
    return pl.concat(found) if found else pl.DataFrame(schema=FINAL_RANK_SCHEMA)


BY_KEY_COLUMNS = 8  # final_ranks.sql sorts by key_list[1] … key_list[8]


def by_key_columns(keys: list[str]) -> bool:
    """Whether final_ranks.sql ranks by these keys (a column a key): at most BY_KEY_COLUMNS
    of them, none head-to-head (three values).

    >>> by_key_columns(["match_points", "level_diff_score", "team_no"])
    True
    >>> by_key_columns(["level_points", "head_to_head", "net_levels", "team_no"])
    False
    """
    return len(keys) <= BY_KEY_COLUMNS and "head_to_head" not in keys


def final_rank_query(keys: list[str]) -> str:
    """The ranks alone (event_id, team_no, rank) of `standings`' ranking by `keys`:
    final_ranks.sql where it ranks by these keys, else standings.sql's."""
    if not by_key_columns(keys):
        return ranking_query(keys, "event_id, rank, team_order")
    layers = [layer for layer in ranking_layers(keys)
              if (layer if isinstance(layer, str) else layer[0]) != "head_to_head"]
    return compose(layers, "final_ranks", "event_id, rank", keys)
