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
with fewer than MIN_GAMES games are marked provisional; the change is against the list as of
the day before the latest event. Solved by conjugate gradients on the sparse system (each
step two `bincount`s over the games' seats), so the whole history is refitted in seconds.
"""

from __future__ import annotations

import bisect
import datetime as dt

import duckdb
import numpy as np
import polars as pl

from pipeline import db

MARGIN_CAP = 6  # levels: a rout says no more than this about strength
HALF_LIFE_DAYS = 730  # a game two years old counts half
PRIOR_GAMES = 2.0  # ridge: a newcomer is pulled to the average as if by two level games
MIN_GAMES = 10  # fewer games: provisional
BASE, SCALE = 1500, 100  # displayed: BASE + SCALE × (levels a game)
HISTORY_POINTS = 40  # a history of more event days is refitted at this many, evenly spread

GAMES = """
    select r.event_id, coalesce(e.event_date, e.created_at::date) as day, r.round,
           r.table_no, r.ew_level - r.ns_level as margin,
           (select list(player_id order by slot) from player_map m
            where m.event_id = r.event_id and m.team_no = r.ew_team) as ew_players,
           (select list(player_id order by slot) from player_map m
            where m.event_id = r.event_id and m.team_no = r.ns_team) as ns_players
    from results r join events e using (event_id)
    where r.forfeit is null and r.ew_level is not null and r.ns_level is not null
    order by day, e.created_at, r.event_id, r.round, r.table_no
"""


def games(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every rated game: event, day, round, table, margin (EW − NS levels), the players."""
    found = db.frame(con, GAMES)
    return found.filter(pl.col("ew_players").list.len() > 0,
                        pl.col("ns_players").list.len() > 0)


class Fit:
    """Ratings as of one day, from the games up to it."""

    def __init__(self, played: pl.DataFrame, as_of: dt.date, start: dict | None = None):
        played = played.filter(pl.col("day") <= as_of).with_row_index("game")
        self.as_of = as_of
        self.n_games = played.height
        seats = pl.concat([
            played.select("game", pl.col("ew_players").alias("player_id"),
                          pl.lit(1.0).alias("sign")),
            played.select("game", pl.col("ns_players").alias("player_id"),
                          pl.lit(-1.0).alias("sign"))]).explode("player_id")
        people = seats.select(pl.col("player_id").unique().sort()).with_row_index("index")
        self.players = people["player_id"].to_list()
        seats = seats.join(people, on="player_id")
        self.g = seats["game"].cast(pl.Int64).to_numpy()
        self.p = seats["index"].cast(pl.Int64).to_numpy()
        self.s = seats["sign"].to_numpy()
        ages = played.select((pl.lit(as_of) - pl.col("day")).dt.total_days()).to_series()
        self.w = 0.5 ** (ages.to_numpy().astype(float) / HALF_LIFE_DAYS)
        self.y = np.clip(played["margin"].to_numpy().astype(float), -MARGIN_CAP, MARGIN_CAP)
        x0 = np.array([(start or {}).get(p, 0.0) for p in self.players]) if start else \
            np.zeros(len(self.players))
        self.r = self._solve(x0) if self.players else x0
        predicted = self._x(self.r)
        spread = float(np.sqrt(np.sum(self.w * (self.y - predicted) ** 2) / max(self.w.sum(),
                                                                                1e-9)))
        weight = np.bincount(self.p, weights=self.w[self.g], minlength=len(self.players))
        self.sigma = spread / np.sqrt(PRIOR_GAMES + weight)
        self.games = np.bincount(self.p, minlength=len(self.players))
        last = seats.join(played.select("game", "day"), on="game").group_by("index").agg(
            pl.col("day").max()).sort("index")
        self.last = last["day"].to_list()

    def _x(self, r: np.ndarray) -> np.ndarray:
        return np.bincount(self.g, weights=self.s * r[self.p], minlength=self.n_games)

    def _xt(self, v: np.ndarray) -> np.ndarray:
        return np.bincount(self.p, weights=self.s * v[self.g], minlength=len(self.players))

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
        return pl.DataFrame({
            "player_id": self.players, "level_rating": self.r, "sigma": self.sigma,
            "rating": np.rint(BASE + SCALE * self.r).astype(np.int64), "games": self.games,
            "last_played": self.last}, schema={
            "player_id": pl.String, "level_rating": pl.Float64, "sigma": pl.Float64,
            "rating": pl.Int64, "games": pl.Int64, "last_played": pl.Date})


def fit(con: duckdb.DuckDBPyConnection, as_of: dt.date | None = None) -> Fit:
    played = games(con)
    if as_of is None:
        as_of = played["day"].max() if played.height else dt.date.today()
    return Fit(played, as_of)


def fingerprint(con: duckdb.DuckDBPyConnection) -> str:
    return "|".join(str(x) for x in db.rows(con, """
        select (select count(*) from results), (select max(updated_at) from results),
               (select count(*) from identity_overrides), (select count(*) from player_map),
               (select count(*) from events)""")[0])


def is_stale(con: duckdb.DuckDBPyConnection) -> bool:
    return db.scalar(con, "select max(fingerprint) from rating_state") != fingerprint(con)


def keep_current(path) -> None:
    """Before reading the stored ratings: refit them when results or identities changed
    (a short write, only then)."""
    with db.reading(path) as con:
        stale = is_stale(con)
    if stale:
        with db.writing(path) as con:
            recompute(con)


def recompute(con: duckdb.DuckDBPyConnection) -> int:
    """Rebuild `ratings` (the list as of the latest game) and `rating_history` (each
    player's rating after each event they played: a fit as of each event day, each starting
    from the one before; beyond HISTORY_POINTS days, as of the next of that many evenly
    spread days). Returns the games rated."""
    played = games(con)
    con.execute("delete from ratings")
    con.execute("delete from rating_history")
    con.execute("delete from rating_state")
    if played.height:
        days = played["day"].unique().sort().to_list()
        if len(days) > HISTORY_POINTS:  # a long history: refitted at evenly spread days
            days = sorted({days[round(i * (len(days) - 1) / (HISTORY_POINTS - 1))]
                           for i in range(HISTORY_POINTS)})
        fitted: dict[dt.date, dict[str, float]] = {}
        start: dict[str, float] = {}
        for day in days:
            current = Fit(played, day, start)
            start = fitted[day] = dict(zip(current.players, current.r.tolist(), strict=True))
        history = []
        seen: set[tuple[str, str]] = set()
        for event_id, day, ew, ns in played.select("event_id", "day", "ew_players",
                                                   "ns_players").iter_rows():
            after = fitted[days[bisect.bisect_left(days, day)]]  # as of the event, or just after
            for p in ew + ns:
                if (event_id, p) not in seen:
                    seen.add((event_id, p))
                    history.append((p, event_id, after[p]))
        final = current.frame()
        numbered = played.with_row_index("game")
        last_event = pl.concat([
            numbered.select("game", "event_id", pl.col("ew_players").alias("player_id")),
            numbered.select("game", "event_id", pl.col("ns_players").alias("player_id"))]
        ).explode("player_id").sort("game").group_by("player_id", maintain_order=True).last()
        table = final.join(last_event, on="player_id", how="left").select(
            "player_id", pl.col("level_rating").alias("mu"), "sigma",
            pl.col("rating").cast(pl.Float64).alias("ordinal"), "games",
            pl.col("event_id").alias("last_event"))
        steps = pl.DataFrame(history, schema=["player_id", "event_id", "mu"], orient="row"
                             ).with_columns(pl.lit(0).alias("round"),
                                            pl.lit(0.0).alias("sigma"),
                                            (BASE + SCALE * pl.col("mu")).round(0)
                                            .alias("ordinal")).select(
            "player_id", "event_id", "round", "mu", "sigma", "ordinal")
        con.register("new_ratings", table)
        con.register("new_history", steps)
        try:
            con.execute("insert into ratings select * from new_ratings")
            con.execute("insert into rating_history select * from new_history")
        finally:
            con.unregister("new_ratings")
            con.unregister("new_history")
    con.execute("insert into rating_state values (?)", [fingerprint(con)])
    return played.height


def leaderboard(con: duckdb.DuckDBPyConnection, limit: int | None = None,
                as_of: dt.date | None = None, min_games: int = 0,
                unit: str | None = None) -> pl.DataFrame:
    """The list as an association publishes it: rank (ties share it), person, current unit,
    rating, games, events, last played, change since the list before the latest event,
    provisional."""
    from pipeline.history.identity import normalize_name

    played = games(con)
    if not played.height:
        return pl.DataFrame(schema={c: pl.String for c in LIST_COLUMNS})
    if as_of is None:
        as_of = played["day"].max()
    now = Fit(played, as_of)
    latest = played.filter(pl.col("day") <= as_of)["day"].max()
    before = Fit(played, latest - dt.timedelta(days=1),
                 dict(zip(now.players, now.r.tolist(), strict=True)))
    people = db.frame(con, """
        select m.player_id, arg_max(m.name, coalesce(e.event_date, e.created_at::date)) as name,
               arg_max(m.affiliation, coalesce(e.event_date, e.created_at::date)) as affiliation,
               count(distinct m.event_id) as events
        from player_map m join events e using (event_id)
        where coalesce(e.event_date, e.created_at::date) <= $d
        group by m.player_id""", {"d": as_of})
    board = now.frame().join(people, on="player_id", how="left").join(
        before.frame().select("player_id", pl.col("rating").alias("previous")),
        on="player_id", how="left").with_columns(
        (pl.col("rating") - pl.col("previous")).alias("change"),
        (pl.col("games") < MIN_GAMES).alias("provisional")).filter(
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
                "last_played", "change", "provisional"]
