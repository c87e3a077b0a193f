"""An event that starts from another's results (a final after qualifying rounds): its teams
and their totals carried over, added to the new event's totals and shown in their own column."""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.base import db, events
from pipeline.base.errors import UsageError
from pipeline.base.store import store_carried
from pipeline.ranking import scoring


def carry_from(con: duckdb.DuckDBPyConnection, event_id: str, source_id: str,
               top: int | None) -> int:
    """Register the source event's teams (its top `top` by final rank, ties included) in
    the event, with their final totals carried. Returns the number of teams carried."""
    source = events.load(con, source_id)
    if top is not None and top < 1:
        raise UsageError("--top 至少为 1 --top must be at least 1")
    ranking = scoring.standings(con, source)
    if top is not None:
        ranking = ranking.filter(pl.col("rank") <= top)
    if ranking.is_empty():
        raise UsageError(f"{source_id} 没有可带入的队伍 has no teams to carry over")
    teams = ranking.select("team_no", "team_name", "player1", "player2", "affiliation")
    db.register(con, "carried_teams", teams)
    try:
        con.execute("insert or replace into teams (event_id, team_no, team_name, player1, "
                    "player2, affiliation) select ?, * from carried_teams", [event_id])
    finally:
        con.unregister("carried_teams")
    totals = ranking.select(pl.col("team_no"), pl.col("match_points").cast(pl.Float64),
                            "level_diff_score", "levels", "net_levels", "levels_gained")
    store_carried(con, event_id, totals, f"带入 carried from {source_id}")
    from pipeline.history import identity

    identity.refresh(con)  # the carried teams' players are in this event's history too
    return ranking.height
