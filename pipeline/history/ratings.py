"""Player ratings across events: a level-margin model, fitted by weighted least squares.

Every played table (forfeits and byes are not games) says how much stronger one pair was
than the other: East-West's strength minus North-South's ≈ the levels between them at the
end (capped at ±MARGIN_CAP). A pair's strength is the sum of its players' ratings, so changing
partners, teams and clubs costs nothing: each game tells about all four players. The ratings
are the ridge least-squares fit of all games up to a date:

    minimise  Σ_games w·(margin − (Σ r_EW − Σ r_NS))²  +  PRIOR_GAMES · Σ_players r²

with w = ½^(age / HALF_LIFE_DAYS): older games count less, so a player who stops playing
grows less certain (σ = the games' residual spread / √(PRIOR_GAMES + Σ w of their games)).
The list is ordered by the rating itself (1500 + 100 × levels a game, an integer), players
with fewer than MIN_GAMES games or MIN_EVENTS events are marked provisional, those with no
event in the INACTIVE_MONTHS before the list inactive; the change is against the list as of
the day before the latest event. Solved by conjugate gradients on the sparse system (each
step two `bincount`s over the games' seats), so the whole history is refitted in seconds.
"""

from __future__ import annotations

import datetime as dt

import duckdb
import numpy as np
import polars as pl

from pipeline.base import db

MARGIN_CAP = 6  # levels: a rout says no more than this about strength
HALF_LIFE_DAYS = 730  # a game two years old counts half
PRIOR_GAMES = 2.0  # ridge: a newcomer is pulled to the average as if by two level games
MIN_GAMES = 10  # fewer games: provisional
MIN_EVENTS = 4  # or fewer events: provisional (ten games in two events say little)
INACTIVE_MONTHS = 12  # no event in this many months before the list: marked inactive
BASE, SCALE = 1500, 100  # displayed: BASE + SCALE × (levels a game)
HISTORY_POINTS = 40  # a history of more event days is refitted at this many, evenly spread

class Games:
    """The rated games in order, as the arrays a fit reads: each seat's game, player (an
    index into `players`, every player of the whole history) and side (+1 East-West, −1
    North-South). Built once; a fit as of a day reads the games up to it, a prefix.
    `frame`: one row per game, in order, with its event_id and day."""

    def __init__(self, frame: pl.DataFrame, seats: pl.DataFrame, players: pl.Series):
        seats = seats.sort("game", "sign", "slot", descending=[False, True, False])
        self.frame = frame
        self.player_ids = players
        self.g = seats["game"].cast(pl.Int64).to_numpy()
        self.p = seats["index"].cast(pl.Int64).to_numpy()
        self.s = seats["sign"].cast(pl.Float64).to_numpy()
        self.day = frame["day"].cast(pl.Int64).to_numpy() if frame.height else \
            np.zeros(0, dtype=np.int64)  # days since 1970-01-01, in game order
        self.y = np.clip(frame["margin"].to_numpy().astype(float), -MARGIN_CAP, MARGIN_CAP)

    @classmethod
    def read(cls, con: duckdb.DuckDBPyConnection) -> Games:
        """Every rated game in the file (rating_games.sql, rating_seats.sql)."""
        played = db.frame(con, db.sql("rating_games")).with_row_index("game")
        registered = db.frame(con, db.sql("rating_seats"))
        seats = pl.concat([
            played.select("game", "event_id", pl.col("ew_team").alias("team_no"),
                          pl.lit(1.0).alias("sign")),
            played.select("game", "event_id", pl.col("ns_team").alias("team_no"),
                          pl.lit(-1.0).alias("sign"))]).join(
            registered, on=["event_id", "team_no"])
        players = registered.select("index", "player_id").unique("index").sort("index")
        return cls(played.drop("game"), seats, players["player_id"])

    @classmethod
    def of(cls, played: pl.DataFrame) -> Games:
        """From a frame of games with each side's players as lists (ew_players,
        ns_players), in order."""
        numbered = played.with_row_index("game")
        seats = pl.concat([
            numbered.select("game", pl.col("ew_players").alias("player_id"),
                            pl.lit(1.0).alias("sign")),
            numbered.select("game", pl.col("ns_players").alias("player_id"),
                            pl.lit(-1.0).alias("sign"))]).explode("player_id").with_columns(
            pl.int_range(pl.len()).over("game", "sign").alias("slot"))
        people = seats.select(pl.col("player_id").unique().sort()).with_row_index("index")
        return cls(played, seats.join(people, on="player_id"), people["player_id"])


def _day_number(day: dt.date) -> int:
    return (day - dt.date(1970, 1, 1)).days


class Fit:
    """Ratings as of one day, from the games up to it (`played`: a Games, or the frame of
    games with each side's players as lists, see `Games.of`). `start`: a first guess for
    every player of the Games (a warm start)."""

    def __init__(self, played: Games | pl.DataFrame, as_of: dt.date,
                 start: np.ndarray | None = None):
        every = played if isinstance(played, Games) else Games.of(played)
        self.as_of = as_of
        self.every = every
        self.n_games = n = int(np.searchsorted(every.day, _day_number(as_of), side="right"))
        k = int(np.searchsorted(every.g, n, side="left"))
        self.g, self.p, self.s = every.g[:k], every.p[:k], every.s[:k]
        self.m = every.player_ids.len()
        self.w = 0.5 ** ((_day_number(as_of) - every.day[:n]).astype(float) / HALF_LIFE_DAYS)
        self.y = every.y[:n]
        self.games = np.bincount(self.p, minlength=self.m)
        x0 = np.zeros(self.m) if start is None else np.where(self.games > 0, start, 0.0)
        self.r = self._solve(x0) if n else x0
        predicted = self._x(self.r)
        spread = float(np.sqrt(np.sum(self.w * (self.y - predicted) ** 2) / max(self.w.sum(),
                                                                                1e-9)))
        weight = np.bincount(self.p, weights=self.w[self.g], minlength=self.m)
        self.sigma = spread / np.sqrt(PRIOR_GAMES + weight)
        last_game = np.full(self.m, -1, dtype=np.int64)
        np.maximum.at(last_game, self.p, self.g)
        self.last_game = last_game  # the index of each player's last game, −1: none yet

    def _x(self, r: np.ndarray) -> np.ndarray:
        return np.bincount(self.g, weights=self.s * r[self.p], minlength=self.n_games)

    def _xt(self, v: np.ndarray) -> np.ndarray:
        return np.bincount(self.p, weights=self.s * v[self.g], minlength=self.m)

    def _solve(self, x: np.ndarray, steps: int = 300, tolerance: float = 1e-8) -> np.ndarray:
        """Conjugate gradients on (XᵀWX + λI) r = XᵀWy."""
        def apply(v: np.ndarray) -> np.ndarray:
            return self._xt(self.w * self._x(v)) + PRIOR_GAMES * v

        b = self._xt(self.w * self.y)
        residual = b - apply(x)
        direction = residual.copy()
        size = residual @ residual
        limit = tolerance * max(b @ b, 1e-12)
        for _ in range(steps):
            if size <= limit:
                break
            step = apply(direction)
            alpha = size / (direction @ step)
            x = x + alpha * direction
            residual = residual - alpha * step
            new_size = residual @ residual
            direction = residual + (new_size / size) * direction
            size = new_size
        return x

    def frame(self) -> pl.DataFrame:
        """One row per player who had played by the day."""
        played = np.flatnonzero(self.games > 0)
        last = self.every.frame["day"].gather(self.last_game[played]) if played.size else \
            pl.Series([], dtype=pl.Date)
        return pl.DataFrame({
            "player_id": self.every.player_ids.gather(played), "level_rating": self.r[played],
            "sigma": self.sigma[played],
            "rating": np.rint(BASE + SCALE * self.r[played]).astype(np.int64),
            "games": self.games[played], "last_played": last}, schema={
            "player_id": pl.String, "level_rating": pl.Float64, "sigma": pl.Float64,
            "rating": pl.Int64, "games": pl.Int64, "last_played": pl.Date})


def fit(con: duckdb.DuckDBPyConnection, as_of: dt.date | None = None) -> Fit:
    every = Games.read(con)
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
MODEL = f"level-margin cap={MARGIN_CAP} half-life={HALF_LIFE_DAYS} prior={PRIOR_GAMES}"


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
    now = db.frame(con, db.sql("rating_fingerprints"))
    stored = db.frame(con, "select event_id, day, fingerprint from rating_events")
    differ = pl.concat([now.join(stored, on=["event_id", "fingerprint"], how="anti"),
                        stored.join(now, on=["event_id", "fingerprint"], how="anti")])
    return now, differ["day"].to_list()


def is_stale(con: duckdb.DuckDBPyConnection) -> bool:
    state = db.scalar(con, "select max(fingerprint) from rating_state")
    return not (state or "").startswith(MODEL + ";") or bool(_changed(con)[1])


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
    if not full and not changed_days and (stored_state or "").startswith(MODEL + ";"):
        return db.scalar(con, "select count(*) from results where forfeit is null "
                              "and ew_level is not null and ns_level is not null")
    every = Games.read(con)
    played = every.frame
    days = played["day"].unique().sort().to_list()
    grain, points = history_points(days)
    state = f"{MODEL};{grain}"
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
    for _, day in refit:
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
    con.execute("delete from rating_state")
    con.execute("insert into rating_state values (?)", [state])
    return played.height


def _store_history(con, every: Games, grain: str, points: dict, fitted: dict,
                   first: tuple | None) -> None:
    """Each player's rating after each refitted event: the fit at the event's point."""
    seats = pl.DataFrame({"game": every.g, "index": every.p}).join(
        every.frame.with_row_index("game").select(pl.col("game").cast(pl.Int64), "event_id",
                                                  "day"), on="game")
    seats = seats.unique(["event_id", "index"], keep="first", maintain_order=True)
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
    rated = np.flatnonzero(final.games > 0)
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
    con.register("new_rows", frame)
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
        every = Games.read(con)
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
