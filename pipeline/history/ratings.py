"""Player ratings across events: OpenSkill (Plackett-Luce), two-player teams.

Method: every played table (forfeits and byes are not games) is a match of two teams of
their registered players, ranked by the levels reached (equal levels: a tie). Events are
taken by date (then creation), rounds and tables in order, so recomputing from the stored
results gives the same numbers every time. Parameters are OpenSkill's defaults: mu 25,
sigma 25/3, beta 25/6, tau 25/300; the leaderboard orders by the ordinal mu − 3·sigma.
"""

from __future__ import annotations

import duckdb
import polars as pl
from openskill.models import PlackettLuce

from pipeline import db

GAMES = """
    select r.event_id, r.round, r.table_no, r.ew_level, r.ns_level,
           (select list(player_id order by slot) from player_map m
            where m.event_id = r.event_id and m.team_no = r.ew_team) as ew_players,
           (select list(player_id order by slot) from player_map m
            where m.event_id = r.event_id and m.team_no = r.ns_team) as ns_players
    from results r join events e using (event_id)
    where r.forfeit is null
    order by e.event_date nulls last, e.created_at, r.event_id, r.round, r.table_no
"""


def fingerprint(con: duckdb.DuckDBPyConnection) -> str:
    return "|".join(str(x) for x in db.rows(con, """
        select (select count(*) from results), (select max(updated_at) from results),
               (select count(*) from identity_overrides), (select count(*) from player_map),
               (select count(*) from events)""")[0])


def is_stale(con: duckdb.DuckDBPyConnection) -> bool:
    return db.scalar(con, "select max(fingerprint) from rating_state") != fingerprint(con)


def recompute(con: duckdb.DuckDBPyConnection) -> int:
    """Rebuild `ratings` and `rating_history` from the stored results. Returns games rated."""
    model = PlackettLuce()
    current: dict[str, object] = {}
    games: dict[str, int] = {}
    last_event: dict[str, str] = {}
    history: dict[tuple[str, str, int], tuple[float, float, float]] = {}
    rated = 0
    for event_id, round_no, _, ew_level, ns_level, ew, ns in con.execute(GAMES).fetchall():
        if not ew or not ns:
            continue
        teams = [[current.get(p) or model.rating(name=p) for p in ew],
                 [current.get(p) or model.rating(name=p) for p in ns]]
        ranks = [1, 1] if ew_level == ns_level else ([1, 2] if ew_level > ns_level else [2, 1])
        for team in model.rate(teams, ranks=ranks):
            for player in team:
                current[player.name] = player
                games[player.name] = games.get(player.name, 0) + 1
                last_event[player.name] = event_id
                history[(player.name, event_id, round_no)] = (
                    player.mu, player.sigma, player.ordinal())
        rated += 1
    con.execute("delete from ratings")
    con.execute("delete from rating_history")
    con.execute("delete from rating_state")
    if current:
        table = pl.DataFrame(
            [(p, r.mu, r.sigma, r.ordinal(), games[p], last_event[p]) for p, r in current.items()],
            schema=["player_id", "mu", "sigma", "ordinal", "games", "last_event"], orient="row")
        steps = pl.DataFrame([(p, e, n, *v) for (p, e, n), v in history.items()],
                             schema=["player_id", "event_id", "round", "mu", "sigma", "ordinal"],
                             orient="row")
        con.register("new_ratings", table)
        con.register("new_history", steps)
        try:
            con.execute("insert into ratings select * from new_ratings")
            con.execute("insert into rating_history select * from new_history")
        finally:
            con.unregister("new_ratings")
            con.unregister("new_history")
    con.execute("insert into rating_state values (?)", [fingerprint(con)])
    return rated


def leaderboard(con: duckdb.DuckDBPyConnection, limit: int | None = None) -> pl.DataFrame:
    found = db.frame(con, """
        select rank() over (order by r.ordinal desc, r.player_id) as rank, r.player_id,
               (select arg_max(m.name, m.event_id) from player_map m
                where m.player_id = r.player_id) as name,
               (select arg_max(m.affiliation, m.event_id) from player_map m
                where m.player_id = r.player_id) as affiliation,
               round(r.mu, 3) as mu, round(r.sigma, 3) as sigma,
               round(r.ordinal, 3) as ordinal, r.games
        from ratings r order by rank""")
    return found.head(limit) if limit else found
