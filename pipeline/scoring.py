"""Standings and round points, computed in DuckDB from the stored results.

The SQL lives in `pipeline/sql/` in layers (stg_results → team_rounds → standings); this
module only stacks the layers as CTEs and binds the ruleset's values as parameters.
"""

from __future__ import annotations

import re

import duckdb
import polars as pl

from pipeline import db
from pipeline.events import Event

STANDINGS_COLUMNS = [
    "rank", "team_no", "team_name", "played", "wins", "draws", "losses",
    "match_points", "level_diff_score", "levels", "net_levels",
]


def compose(layers: list[str], final: str, order_by: str) -> str:
    """One query: each layer, then the final model, a CTE named after its file."""
    ctes = ",\n".join(f"{name} as (\n{db.sql(name)}\n)" for name in [*layers, final])
    return f"with {ctes}\nselect * from {final} order by {order_by}"


def latest_round(con: duckdb.DuckDBPyConnection, event_id: str) -> int:
    """The latest round with any result (0 before the first)."""
    found = db.scalar(con, "select max(round) from results where event_id = ?", [event_id])
    return int(found or 0)


def _params(event: Event, max_round: int, keys: list[str]) -> dict:
    return {
        "event_id": event.event_id,
        "max_round": max_round,
        "ranking_keys": keys,
        **event.ruleset.sql_params,
    }


def bind(query: str, params: dict) -> dict:
    """The parameters a query uses (DuckDB refuses any it does not).

    >>> bind("select $a + $ab", {"a": 1, "ab": 2, "b": 3})
    {'a': 1, 'ab': 2}
    """
    return {k: v for k, v in params.items() if re.search(rf"\${k}\b", query)}


def team_rounds(con: duckdb.DuckDBPyConnection, event: Event, max_round: int) -> pl.DataFrame:
    """One row per team per round up to max_round, with the round's points."""
    query = compose(["stg_results"], "team_rounds", "round, team_no")
    return db.frame(con, query, bind(query, _params(event, max_round, [])))


def standings(
    con: duckdb.DuckDBPyConnection,
    event: Event,
    max_round: int | None = None,
    keys: list[str] | None = None,
) -> pl.DataFrame:
    """The ranking after round max_round (default: the latest round with a result).

    `keys` defaults to the ruleset's ranking keys; pairing passes its own chain.
    """
    if max_round is None:
        max_round = latest_round(con, event.event_id)
    query = compose(["stg_results", "team_rounds"], "standings", "rank, team_order")
    ranking = db.frame(con, query, bind(query, _params(
        event, max_round, keys or event.ruleset.ranking["keys"])))
    if not event.ruleset.fractional_points:  # whole points print as whole numbers
        ranking = ranking.with_columns(pl.col(c).cast(pl.Int64) for c in WHOLE_WHEN_WHOLE)
    return ranking


# points columns that are whole numbers when the ruleset's points are
WHOLE_WHEN_WHOLE = ["match_points", "buchholz", "buchholz_cut1", "median_buchholz",
                    "progressive", "head_to_head", "carried_points"]


def key_columns(keys: list[str]) -> list[str]:
    """The columns that show each ranking key's value, in the ruleset's order, after the
    standard columns (team_no and the standard ones are there already).

    >>> key_columns(["level_points", "head_to_head", "net_levels", "team_no"])
    ['level_points', 'head_to_head']
    """
    return [k for k in keys if k not in STANDINGS_COLUMNS]
