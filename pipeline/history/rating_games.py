"""The games a rating fit reads (issue 52): every rated game and its seats, read anew
(`read_games`) or from what the last fit kept with the new events' games appended
(`cached_games`, `keep_games`, when `appended` finds only later events); and the
association's settings the fit uses."""

from __future__ import annotations

import duckdb
import numpy as np
import polars as pl

from pipeline.base import db
from pipeline.history.evidence import UNCLEAR
from pipeline.history.rating_model import Games, Settings


def settings(con: duckdb.DuckDBPyConnection) -> Settings:
    """The association's settings: the stored ones, each left unset at its default."""
    found = db.rows(con, "select margin_cap, half_life_days, prior_games from rating_settings")
    default = Settings()
    if not found:
        return default
    cap, half_life, prior = found[0]
    return Settings(
        default.margin_cap if cap is None else int(cap),
        default.half_life_days if half_life is None else int(half_life),
        default.prior_games if prior is None else float(prior),
    )


def store_settings(con: duckdb.DuckDBPyConnection, chosen: Settings) -> None:
    """Keep the settings; the stored list is then stale (its model differs) until refitted."""
    con.execute("delete from rating_settings")
    con.execute(
        "insert into rating_settings values (?, ?, ?)",
        [chosen.margin_cap, chosen.half_life_days, chosen.prior_games],
    )


def read_games(con: duckdb.DuckDBPyConnection, chosen: Settings | None = None) -> Games:
    """Every rated game in the file (rating_games.sql: a table whose two teams both have
    registered players) and its seats (rating_seats.sql), with the file's settings; a seat
    marked UNCLEAR is an anonymous player of its own. The seats come out in a fit's order
    (game, East-West first, slot) from the teams' numbers, with no sort and no join of names
    (measured: the sort and SQL semi joins were a third of an import's rating work; the join
    of the teams' names half of a stale archive's games read, issue 52)."""
    played = db.frame(con, db.sql("rating_games"), {"events": None})
    registered = db.frame(con, db.sql("rating_seats"), {"unclear": UNCLEAR, "events": None})
    played, (g, p, s) = _seated(played, registered)
    index = registered["index"].to_numpy()
    _, first = np.unique(index, return_index=True)  # each player's first seat, by index
    ids, anonymous = (registered[c].gather(first) for c in ("player_id", "anonymous"))
    return Games(
        played,
        {"game": g, "index": p, "sign": s},
        ids,
        chosen or settings(con),
        anonymous.to_numpy(),
    )


def _seated(
    played: pl.DataFrame, registered: pl.DataFrame
) -> tuple[pl.DataFrame, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The games whose two teams both have registered players (`played`: rating_games.sql's
    rows), and their seats' arrays (game, player index, sign) in a fit's order, read by the
    teams' numbers (ew_key, ns_key) from `registered`: rating_seats.sql's rows, each team's
    seats together in the order the numbers count them (event, team), by slot."""
    teams = registered.select(
        (
            pl.col("event_id").ne_missing(pl.col("event_id").shift(1))
            | pl.col("team_no").ne_missing(pl.col("team_no").shift(1))
        ).alias("new")
    )["new"]
    first_seat = np.flatnonzero(teams.to_numpy())  # each team's first row, by its number
    seats = np.diff(first_seat, append=registered.height)  # and how many seats it has
    ew, ns = (played[c].fill_null(-1).to_numpy().astype(np.int64) for c in ("ew_key", "ns_key"))
    both = (ew >= 0) & (ns >= 0)
    if not both.all():  # tables whose team has nobody registered: not games
        played, ew, ns = played.filter(pl.Series(both)), ew[both], ns[both]
    sides = np.column_stack([ew, ns]).ravel()  # game by game, East-West first
    count = seats[sides]
    side = np.repeat(np.arange(sides.size), count)  # each seat's side
    row = np.repeat(first_seat[sides] - (np.cumsum(count) - count), count) + np.arange(
        side.size
    )  # each seat's row of `registered`
    p = registered["index"].to_numpy().astype(np.int64)[row]
    return played, (side // 2, p, np.where(side % 2 == 0, 1.0, -1.0))


def cached_games(con: duckdb.DuckDBPyConnection, new_events: list[str]) -> Games:
    """The games the last fit read (rating_*_cache) with those of `new_events` appended
    (events after every stored one: their games come last in a fit's order); their new
    players numbered after the known ones."""
    kept = db.frame(con, "select event_id, day, margin from rating_game_cache order by game")
    arrays = db.rows(con, 'select game, "index", sign from rating_seat_cache')[0]
    cached = {
        "game": np.frombuffer(arrays[0], dtype="<i4"),
        "index": np.frombuffer(arrays[1], dtype="<i4"),
        "sign": np.frombuffer(arrays[2], dtype="<i1"),
    }
    known = db.frame(
        con, 'select "index", player_id, anonymous from rating_player_cache order by "index"'
    )
    return _extended(con, kept, cached, known, new_events)


def extended(con: duckdb.DuckDBPyConnection, read: Games, new_events: list[str]) -> Games:
    """The games of `read` (read before, on another connection: `FitsAhead`) with those of
    `new_events` appended (events after every one of them in a fit's order), as
    `cached_games` appends them to the cache's."""
    kept = read.frame.select("event_id", "day", "margin")
    known = pl.DataFrame(
        {
            "index": np.arange(read.player_ids.len(), dtype=np.int64),
            "player_id": read.player_ids,
            "anonymous": read.anonymous,
        }
    )
    seats = {"game": read.g, "index": read.p, "sign": read.s}
    every = _extended(con, kept, seats, known, new_events)
    before = read.__dict__.get("teams")  # the teams a fit of `read` numbered, if it has
    if before is not None and every.side == read.side:
        every.teams = every.teams_after(before, read.frame.height)  # the new games' after
    return every


def _extended(
    con: duckdb.DuckDBPyConnection,
    kept: pl.DataFrame,
    cached: dict,
    known: pl.DataFrame,
    new_events: list[str],
) -> Games:
    played = db.frame(con, db.sql("rating_games"), {"events": new_events})
    seated = db.frame(con, db.sql("rating_seats"), {"unclear": UNCLEAR, "events": new_events}).drop(
        "index"
    )
    fresh = (
        seated.select("player_id", "anonymous")
        .unique("player_id", maintain_order=True)
        .join(known, on="player_id", how="anti")
    )
    fresh = fresh.with_columns((pl.int_range(pl.len()) + known.height).alias("index"))
    players = pl.concat(
        [
            known.select("index", "player_id", "anonymous"),
            fresh.select(pl.col("index").cast(known["index"].dtype), "player_id", "anonymous"),
        ]
    )
    registered = seated.join(
        players.select("player_id", "index"), on="player_id", maintain_order="left"
    )
    played, (g, p, s) = _seated(played, registered)
    frame = pl.concat(
        [
            kept,
            played.select("event_id", "day", "margin").with_columns(
                pl.col("margin").cast(kept["margin"].dtype)
            ),
        ]
    )
    seats = {
        "game": np.concatenate([cached["game"].astype(np.int64), g + kept.height]),
        "index": np.concatenate([cached["index"].astype(np.int64), p]),
        "sign": np.concatenate([cached["sign"].astype(np.float64), s]),
    }
    every = Games(
        frame, seats, players["player_id"], settings(con), players["anonymous"].to_numpy()
    )
    every.cached = (kept.height, known.height)  # the games and players read before
    return every


def keep_games(
    con: duckdb.DuckDBPyConnection, every: Games, since: int = 0, players_since: int = 0
) -> None:
    """The games read, for the next fit (`since`: the first new game; `players_since`: the
    first new player; 0: everything anew)."""
    if not since:
        for table in ("rating_game_cache", "rating_player_cache"):
            con.execute(f"delete from {table}")
    games = every.frame.slice(since).select(
        (pl.int_range(pl.len()) + since).cast(pl.Int32).alias("game"),
        "event_id",
        "day",
        pl.col("margin").cast(pl.Int32),
    )
    players = pl.DataFrame(
        {
            "index": np.arange(players_since, every.player_ids.len(), dtype=np.int32),
            "player_id": every.player_ids.slice(players_since),
            "anonymous": every.anonymous[players_since:],
        }
    )
    for table, frame in (("rating_game_cache", games), ("rating_player_cache", players)):
        if frame.height:
            rewrite(con, table, frame, keep=True)
    con.execute("delete from rating_seat_cache")
    con.execute(
        "insert into rating_seat_cache values (?, ?, ?)",
        [
            every.g.astype("<i4").tobytes(),
            every.p.astype("<i4").tobytes(),
            every.s.astype("<i1").tobytes(),
        ],
    )


def appended(con: duckdb.DuckDBPyConnection, now: pl.DataFrame) -> list[str] | None:
    """The events new since the stored fit when nothing else changed and each comes after
    every stored one in a fit's order (day, then when it was created); None otherwise."""
    stored = db.frame(con, "select event_id, fingerprint from rating_events")
    if (
        stored.is_empty()
        or not db.scalar(con, "select count(*) from rating_player_cache")
        or not db.scalar(con, "select count(*) from rating_seat_cache")
    ):
        return None
    changed = now.select("event_id", "fingerprint").join(
        stored, on=["event_id", "fingerprint"], how="anti"
    )
    gone = stored.join(now, on="event_id", how="anti")
    if gone.height or changed.join(stored, on="event_id", how="semi").height:
        return None
    new = changed["event_id"].to_list()
    order = db.frame(
        con,
        "select event_id, coalesce(event_date, created_at::date) as day, "
        "created_at, event_id in (select unnest($new::varchar[])) as new "
        "from events where event_id in (select event_id from rating_events) "
        "or event_id in (select unnest($new::varchar[]))",
        {"new": new},
    )
    key = ["day", "created_at", "event_id"]
    old_rows = order.filter(~pl.col("new")).sort(key).select(key).rows()
    new_rows = order.filter(pl.col("new")).sort(key).select(key).rows()
    if not old_rows or not new_rows or new_rows[0] <= old_rows[-1]:
        return None
    return new


def rewrite(
    con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame, keep: bool = False
) -> None:
    """Replace the table's rows by the frame's (its columns named as the table's); with
    `keep`, add them to the rows there."""
    if not keep:
        con.execute(f"delete from {table}")
    db.register(con, "new_rows", frame)
    try:
        con.execute(f"insert into {table} ({', '.join(frame.columns)}) select * from new_rows")
    finally:
        con.unregister("new_rows")
