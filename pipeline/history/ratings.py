"""The rating list and its history, stored and kept current (the model itself:
`rating_model.py`; the association's settings: `rating_settings`, `paisai rating-settings`).

The list is ordered by the rating itself (1500 + 100 × levels a game, an integer), players
with fewer than MIN_GAMES games or MIN_EVENTS events are marked provisional, those with no
event in the INACTIVE_MONTHS before the list inactive; the change is against the list as of
the day before the latest event. The per-event history is fitted at HISTORY_POINTS days at
most, from the first changed event on.
"""

from __future__ import annotations

import datetime as dt

import duckdb
import numpy as np
import polars as pl

from pipeline.base import db
from pipeline.base.progress import progress
from pipeline.history.evidence import UNCLEAR
from pipeline.history.rating_model import BASE, SCALE, Fit, Games, Settings, day_number

__all__ = ["BASE", "SCALE", "Fit", "Games", "Settings"]

MIN_GAMES = 10  # fewer games: provisional
MIN_EVENTS = 4  # or fewer events: provisional (ten games in two events say little)
INACTIVE_MONTHS = 12  # no event in this many months before the list: marked inactive
HISTORY_POINTS = 40  # a history of more event days is refitted at this many, evenly spread


def settings(con: duckdb.DuckDBPyConnection) -> Settings:
    """The association's settings: the stored ones, each left unset at its default."""
    found = db.rows(con, "select margin_cap, half_life_days, prior_games from rating_settings")
    default = Settings()
    if not found:
        return default
    cap, half_life, prior = found[0]
    return Settings(default.margin_cap if cap is None else int(cap),
                    default.half_life_days if half_life is None else int(half_life),
                    default.prior_games if prior is None else float(prior))


def store_settings(con: duckdb.DuckDBPyConnection, chosen: Settings) -> None:
    """Keep the settings; the stored list is then stale (its model differs) until refitted."""
    con.execute("delete from rating_settings")
    con.execute("insert into rating_settings values (?, ?, ?)",
                [chosen.margin_cap, chosen.half_life_days, chosen.prior_games])


def read_games(con: duckdb.DuckDBPyConnection, chosen: Settings | None = None) -> Games:
    """Every rated game in the file (rating_games.sql: a table whose two teams both have
    registered players) and its seats (rating_seats.sql), with the file's settings; a seat
    marked UNCLEAR is an anonymous player of its own. The seats come out of one join in a
    fit's order (game, East-West first, slot), with no sort (measured: the sort and SQL semi
    joins were a third of an import's rating work)."""
    played = db.frame(con, db.sql("rating_games"))
    registered = db.frame(con, db.sql("rating_seats"), {"unclear": UNCLEAR})
    played, (g, p, s) = _seated(played, registered)
    players = registered.select("index", "player_id", "anonymous").unique("index").sort("index")
    return Games(played, {"game": g, "index": p, "sign": s}, players["player_id"],
                 chosen or settings(con), players["anonymous"].to_numpy())


def _seated(played: pl.DataFrame, registered: pl.DataFrame
            ) -> tuple[pl.DataFrame, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The games whose two teams both have registered players, and their seats' arrays
    (game, player index, sign) in a fit's order."""
    sides = played.with_row_index("game").select(
        pl.col("game").cast(pl.Int64), "event_id",
        pl.concat_list("ew_team", "ns_team").alias("team_no"),
        pl.lit([1.0, -1.0], dtype=pl.List(pl.Float64)).alias("sign")).explode("team_no", "sign")
    seats = sides.join(registered.select("event_id", "team_no", "index"),
                       on=["event_id", "team_no"], maintain_order="left_right")
    g, p, s = (seats[c].to_numpy() for c in ("game", "index", "sign"))
    both = np.zeros(played.height, dtype=bool)
    both[g[s > 0]] = True
    north = np.zeros(played.height, dtype=bool)
    north[g[s < 0]] = True
    both &= north
    if not both.all():  # tables whose team has nobody registered: not games
        keep = both[g]
        g, p, s = (np.cumsum(both) - 1)[g[keep]], p[keep], s[keep]
        played = played.filter(pl.Series(both))
    return played, (g, p, s)


def _cached_games(con: duckdb.DuckDBPyConnection, new_events: list[str]) -> Games:
    """The games the last fit read (rating_*_cache) with those of `new_events` appended
    (events after every stored one: their games come last in a fit's order); their new
    players numbered after the known ones."""
    kept = db.frame(con, "select event_id, day, margin from rating_game_cache order by game")
    arrays = db.rows(con, 'select game, "index", sign from rating_seat_cache')[0]
    cached = {"game": np.frombuffer(arrays[0], dtype="<i4"),
              "index": np.frombuffer(arrays[1], dtype="<i4"),
              "sign": np.frombuffer(arrays[2], dtype="<i1")}
    known = db.frame(con, 'select "index", player_id, anonymous from rating_player_cache '
                          'order by "index"')
    played = db.frame(con, db.sql("rating_games_of"), {"events": new_events})
    seated = db.frame(con, db.sql("rating_seats_of"), {"unclear": UNCLEAR, "events": new_events})
    fresh = seated.select("player_id", "anonymous").unique("player_id", maintain_order=True
                                                           ).join(known, on="player_id",
                                                                  how="anti")
    fresh = fresh.with_columns((pl.int_range(pl.len()) + known.height).alias("index"))
    players = pl.concat([known.select("index", "player_id", "anonymous"),
                         fresh.select(pl.col("index").cast(known["index"].dtype), "player_id",
                                      "anonymous")])
    registered = seated.join(players.select("player_id", "index"), on="player_id",
                             maintain_order="left")
    played, (g, p, s) = _seated(played, registered)
    frame = pl.concat([kept, played.select("event_id", "day", "margin")
                       .with_columns(pl.col("margin").cast(kept["margin"].dtype))])
    seats = {"game": np.concatenate([cached["game"].astype(np.int64), g + kept.height]),
             "index": np.concatenate([cached["index"].astype(np.int64), p]),
             "sign": np.concatenate([cached["sign"].astype(np.float64), s])}
    every = Games(frame, seats, players["player_id"], settings(con),
                  players["anonymous"].to_numpy())
    every.cached = (kept.height, known.height)  # the games and players read before
    return every


def _keep_games(con: duckdb.DuckDBPyConnection, every: Games, since: int = 0,
                players_since: int = 0) -> None:
    """The games read, for the next fit (`since`: the first new game; `players_since`: the
    first new player; 0: everything anew)."""
    if not since:
        for table in ("rating_game_cache", "rating_player_cache"):
            con.execute(f"delete from {table}")
    games = every.frame.slice(since).select(
        (pl.int_range(pl.len()) + since).cast(pl.Int32).alias("game"), "event_id", "day",
        pl.col("margin").cast(pl.Int32))
    players = pl.DataFrame({"index": np.arange(players_since, every.player_ids.len(),
                                               dtype=np.int32),
                            "player_id": every.player_ids.slice(players_since),
                            "anonymous": every.anonymous[players_since:]})
    for table, frame in (("rating_game_cache", games), ("rating_player_cache", players)):
        if frame.height:
            _rewrite(con, table, frame, keep=True)
    con.execute("delete from rating_seat_cache")
    con.execute("insert into rating_seat_cache values (?, ?, ?)",
                [every.g.astype("<i4").tobytes(), every.p.astype("<i4").tobytes(),
                 every.s.astype("<i1").tobytes()])


def _appended(con: duckdb.DuckDBPyConnection, now: pl.DataFrame) -> list[str] | None:
    """The events new since the stored fit when nothing else changed and each comes after
    every stored one in a fit's order (day, then when it was created); None otherwise."""
    stored = db.frame(con, "select event_id, fingerprint from rating_events")
    if stored.is_empty() or not db.scalar(con, "select count(*) from rating_player_cache") \
            or not db.scalar(con, "select count(*) from rating_seat_cache"):
        return None
    changed = now.select("event_id", "fingerprint").join(
        stored, on=["event_id", "fingerprint"], how="anti")
    gone = stored.join(now, on="event_id", how="anti")
    if gone.height or changed.join(stored, on="event_id", how="semi").height:
        return None
    new = changed["event_id"].to_list()
    order = db.frame(con, "select event_id, coalesce(event_date, created_at::date) as day, "
                          "created_at, event_id in (select unnest($new::varchar[])) as new "
                          "from events where event_id in (select event_id from rating_events) "
                          "or event_id in (select unnest($new::varchar[]))", {"new": new})
    key = ["day", "created_at", "event_id"]
    old_rows = order.filter(~pl.col("new")).sort(key).select(key).rows()
    new_rows = order.filter(pl.col("new")).sort(key).select(key).rows()
    if not old_rows or not new_rows or new_rows[0] <= old_rows[-1]:
        return None
    return new


def fit(con: duckdb.DuckDBPyConnection, as_of: dt.date | None = None) -> Fit:
    every = read_games(con)
    if as_of is None:
        as_of = every.frame["day"].max() if every.frame.height else dt.date.today()
    return Fit(every, as_of)


def current(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Today's list, player_id and rating: the stored one when current, else fitted."""
    if not is_stale(con):
        return db.frame(con, "select player_id, ordinal::bigint as rating from ratings")
    return fit(con).frame().select("player_id", "rating")


# -- the stored list and history, kept current ----------------------------------------------

GRAINS = ("day", "month", "quarter", "year")  # the finest with ≤ HISTORY_POINTS points is used


def _bucket(day: dt.date, grain: str) -> tuple:
    return {"day": (day,), "month": (day.year, day.month),
            "quarter": (day.year, (day.month - 1) // 3), "year": (day.year,)}[grain]


def history_points(days: list[dt.date]) -> tuple[str, dict[tuple, dt.date]]:
    """The days the history is fitted at: the last event day of each day, month, quarter or
    year, the finest of these with at most HISTORY_POINTS of them. A grain's points only
    change where events are added, so the history before a change is kept."""
    for grain in GRAINS:
        points: dict[tuple, dt.date] = {}
        for day in sorted(days):
            points[_bucket(day, grain)] = day
        if len(points) <= HISTORY_POINTS or grain == GRAINS[-1]:
            return grain, points
    raise AssertionError("unreachable")


def _changed(con: duckdb.DuckDBPyConnection) -> tuple[pl.DataFrame, list[dt.date]]:
    """The events' fingerprints now, and the days of events new, changed or gone since the
    stored fit."""
    now = db.frame(con, db.sql("rating_fingerprints"), {"unclear": UNCLEAR})
    stored = db.frame(con, "select event_id, day, fingerprint from rating_events")
    differ = pl.concat([now.join(stored, on=["event_id", "fingerprint"], how="anti"),
                        stored.join(now, on=["event_id", "fingerprint"], how="anti")])
    return now, differ["day"].to_list()


def is_stale(con: duckdb.DuckDBPyConnection) -> bool:
    state = db.scalar(con, "select max(fingerprint) from rating_state")
    return not (state or "").startswith(settings(con).model() + ";") or \
        bool(_changed(con)[1])


def keep_current(path) -> None:
    """Before reading the stored ratings: refit them when results or identities changed
    (a short write, only then, and only from the first changed event on)."""
    with db.reading(path) as con:
        stale = is_stale(con)
    if stale:
        with db.writing(path) as con:
            refresh(con)


def recompute(con: duckdb.DuckDBPyConnection) -> int:
    """Refit the whole list and history from the first game. Returns the games rated."""
    return refresh(con, full=True)


def refresh(con: duckdb.DuckDBPyConnection, full: bool = False) -> int:
    """Keep `ratings` (the list as of the latest game, with the rating the day before it)
    and `rating_history` (each player's rating after each event: the fit as of the event's
    history point, see `history_points`) current. Refits the points from the first event that
    changed on, each fit starting from the one before; `full`: from the first game. Returns
    the games rated."""
    now, changed_days = _changed(con)
    stored_state = db.scalar(con, "select max(fingerprint) from rating_state")
    model = settings(con).model()
    if not full and not changed_days and (stored_state or "").startswith(model + ";"):
        return db.scalar(con, "select count(*) from results where forfeit is null "
                              "and ew_level is not null and ns_level is not null")
    new_events = None if full else _appended(con, now)
    if new_events is None:  # every game read again
        every, cached = read_games(con), (0, 0)
    else:  # the games the last fit read, and the new events' after them
        every = _cached_games(con, new_events)
        cached = every.cached
    played = every.frame
    days = played["day"].unique().sort().to_list()
    grain, points = history_points(days)
    state = f"{model};{grain}"
    if full or stored_state != state:
        first: tuple | None = None  # everything
    elif not changed_days:
        return played.height
    else:
        first = _bucket(min(changed_days), grain)
    refit = [(b, d) for b, d in sorted(points.items()) if first is None or b >= first]
    start = None
    if first is not None:  # a warm start: the stored list
        known = db.frame(con, "select player_id, mu from ratings")
        start = pl.DataFrame({"player_id": every.player_ids}).join(
            known, on="player_id", how="left", maintain_order="left")["mu"].fill_null(0.0).to_numpy()
    fitted: dict[dt.date, np.ndarray] = {}
    current = None
    with progress("评分 fitting the ratings", total=len(refit), show=len(refit) > 3) as step:
        for _, day in refit:  # a whole archive's history: a bar, point by point
            step(day.isoformat())
            current = Fit(every, day, start)
            start = fitted[day] = current.r
    kept_events = [e for e, d in now.select("event_id", "day").iter_rows()
                   if first is not None and _bucket(d, grain) < first]
    con.execute("delete from rating_history where event_id not in "
                "(select unnest($kept::varchar[]))", {"kept": kept_events})
    if played.height:
        _store_history(con, every, grain, points, fitted, first)
        if current is None or current.as_of != days[-1]:
            current = Fit(every, days[-1], start)
        _store_list(con, every, current)
    else:
        con.execute("delete from ratings")
    _rewrite(con, "rating_events", now.select("event_id", "day", "fingerprint"))
    _keep_games(con, every, *cached)
    con.execute("delete from rating_state")
    con.execute("insert into rating_state values (?)", [state])
    return played.height


def _store_history(con, every: Games, grain: str, points: dict, fitted: dict,
                   first: tuple | None) -> None:
    """Each player's rating after each refitted event: the fit at the event's point. Only
    the games from the first refitted day on are read (the refitted days are the latest)."""
    refit_days = [d for d in every.frame["day"].unique().to_list()
                  if points[_bucket(d, grain)] in fitted]
    if not refit_days:
        return
    first_game = int(np.searchsorted(every.day, day_number(min(refit_days)), side="left"))
    k = int(np.searchsorted(every.g, first_game, side="left"))
    seats = pl.DataFrame({"game": every.g[k:], "index": every.p[k:]}).join(
        every.frame.with_row_index("game").slice(first_game).select(
            pl.col("game").cast(pl.Int64), "event_id", "day"), on="game")
    seats = seats.unique(["event_id", "index"], keep="first", maintain_order=True)
    seats = seats.filter(~every.anonymous[seats["index"].to_numpy()])
    order = sorted(fitted)
    code_of = {d: order.index(points[_bucket(d, grain)]) if points[_bucket(d, grain)] in
               fitted else -1 for d in seats["day"].unique().to_list()}
    seats = seats.with_columns(pl.col("day").replace_strict(code_of, return_dtype=pl.Int64)
                               .alias("point")).filter(pl.col("point") >= 0)
    if not seats.height:
        return
    code = seats["point"].to_numpy()
    index = seats["index"].to_numpy()
    mu = np.empty(seats.height)
    for k, day in enumerate(order):
        mask = code == k
        mu[mask] = fitted[day][index[mask]]
    rows = pl.DataFrame({
        "player_id": every.player_ids.gather(index),
        "event_id": seats["event_id"], "round": pl.Series([0] * seats.height, dtype=pl.Int32),
        "mu": mu, "sigma": np.zeros(seats.height), "ordinal": np.rint(BASE + SCALE * mu)})
    _rewrite(con, "rating_history", rows, keep=True)


def _store_list(con, every: Games, final: Fit) -> None:
    """The list as of the latest game, with each player's rating the day before it."""
    latest = final.as_of
    before = Fit(every, latest - dt.timedelta(days=1), final.r)
    events = every.frame["event_id"]
    rated = final.rated()
    previous = np.where(before.games[rated] > 0,
                        np.rint(BASE + SCALE * before.r[rated]), np.nan)
    table = pl.DataFrame({
        "player_id": every.player_ids.gather(rated),
        "mu": final.r[rated],
        "sigma": final.sigma[rated],
        "ordinal": np.rint(BASE + SCALE * final.r[rated]).astype(float),
        "games": final.games[rated].astype(np.int32),
        "last_event": events.gather(final.last_game[rated]),
        "previous": previous,
        "last_played": every.frame["day"].gather(final.last_game[rated])},
        schema_overrides={"games": pl.Int32}).with_columns(pl.col("previous").fill_nan(None))
    _rewrite(con, "ratings", table)


def _rewrite(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame,
             keep: bool = False) -> None:
    """Replace the table's rows by the frame's (its columns named as the table's); with
    `keep`, add them to the rows there."""
    if not keep:
        con.execute(f"delete from {table}")
    db.register(con, "new_rows", frame)
    try:
        con.execute(f"insert into {table} ({', '.join(frame.columns)}) "
                    "select * from new_rows")
    finally:
        con.unregister("new_rows")


def leaderboard(con: duckdb.DuckDBPyConnection, limit: int | None = None,
                as_of: dt.date | None = None, min_games: int = 0,
                unit: str | None = None, inactive_months: int = INACTIVE_MONTHS
                ) -> pl.DataFrame:
    """The list as an association publishes it: rank (ties share it), person, current unit,
    rating, games, events, last played, change since the list before the latest event,
    provisional."""
    from pipeline.base.names import normalize_name

    if as_of is None and not is_stale(con):  # the stored list
        rated = db.frame(con, """
            select player_id, ordinal::bigint as rating, games::bigint as games, last_played,
                   previous::bigint as previous
            from ratings""")
        if not rated.height:
            return pl.DataFrame(schema={c: pl.String for c in LIST_COLUMNS})
        as_of = rated["last_played"].max()
    else:
        every = read_games(con)
        played = every.frame
        if not played.height:
            return pl.DataFrame(schema={c: pl.String for c in LIST_COLUMNS})
        if as_of is None:
            as_of = played["day"].max()
        now = Fit(every, as_of)
        latest = played.filter(pl.col("day") <= as_of)["day"].max()
        before = Fit(every, latest - dt.timedelta(days=1), now.r)
        rated = now.frame().select("player_id", "rating", "games", "last_played").join(
            before.frame().select("player_id", pl.col("rating").alias("previous")),
            on="player_id", how="left")
    people = db.frame(con, """
        select m.player_id, arg_max(m.name, coalesce(e.event_date, e.created_at::date)) as name,
               arg_max(m.affiliation, coalesce(e.event_date, e.created_at::date)) as affiliation,
               count(distinct m.event_id) as events
        from player_map m join events e using (event_id)
        where coalesce(e.event_date, e.created_at::date) <= $d
        group by m.player_id""", {"d": as_of})
    quiet_since = as_of - dt.timedelta(days=round(inactive_months * 30.44))
    board = rated.join(people, on="player_id", how="left").with_columns(
        (pl.col("rating") - pl.col("previous")).alias("change"),
        ((pl.col("games") < MIN_GAMES) | (pl.col("events") < MIN_EVENTS)).alias("provisional"),
        (pl.col("last_played") < quiet_since).alias("inactive")).filter(
        pl.col("games") >= min_games)
    if unit:
        board = board.filter(pl.col("affiliation").map_elements(
            normalize_name, return_dtype=pl.String) == normalize_name(unit))
    board = board.sort(["rating", "games", "player_id"], descending=[True, True, False]
                       ).with_columns(pl.col("rating").rank("min", descending=True)
                                      .cast(pl.Int64).alias("rank"))
    shown = board.select(LIST_COLUMNS)
    return shown.head(limit) if limit else shown


LIST_COLUMNS = ["rank", "player_id", "name", "affiliation", "rating", "games", "events",
                "last_played", "change", "provisional", "inactive"]
