"""The rating list and its history, stored and kept current (the model itself:
`rating_model.py`; the association's settings: `rating_settings`, `paisai rating-settings`).

The list is ordered by the rating itself (1500 + 100 × levels a game, an integer), players
with fewer than MIN_GAMES games or MIN_EVENTS events are marked provisional, those with no
event in the INACTIVE_MONTHS before the list inactive; the change is against the list as of
the day before the latest event. The per-event history is fitted at rating_points.HISTORY_POINTS days at
most, from the first changed event on.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

import duckdb
import numpy as np
import polars as pl

from pipeline.base import db
from pipeline.base.progress import progress
from pipeline.history.evidence import UNCLEAR
from pipeline.history.rating_games import (
    appended,
    cached_games,
    keep_games,
    read_games,
    rewrite,
    settings,
    store_settings,
)
from pipeline.history.rating_model import BASE, SCALE, Fit, Games, Settings, day_number
from pipeline.history.rating_points import bucket, history_points

if TYPE_CHECKING:
    from pipeline.history.fits_ahead import FitsAhead

__all__ = ["BASE", "SCALE", "Fit", "Games", "Settings", "read_games", "settings", "store_settings"]

MIN_GAMES = 10  # fewer games: provisional
MIN_EVENTS = 4  # or fewer events: provisional (ten games in two events say little)
INACTIVE_MONTHS = 12  # no event in this many months before the list: marked inactive


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


def _changed(con: duckdb.DuckDBPyConnection) -> tuple[pl.DataFrame, list[dt.date]]:
    """The events' fingerprints now, and the days of events new, changed or gone since the
    stored fit."""
    now = db.frame(con, db.sql("rating_fingerprints"), {"unclear": UNCLEAR})
    stored = db.frame(con, "select event_id, day, fingerprint from rating_events")
    differ = pl.concat(
        [
            now.join(stored, on=["event_id", "fingerprint"], how="anti"),
            stored.join(now, on=["event_id", "fingerprint"], how="anti"),
        ]
    )
    return now, differ["day"].to_list()


def is_stale(con: duckdb.DuckDBPyConnection) -> bool:
    state = db.scalar(con, "select max(fingerprint) from rating_state")
    return not (state or "").startswith(settings(con).model() + ";") or bool(_changed(con)[1])


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


def refresh(
    con: duckdb.DuckDBPyConnection, full: bool = False, ahead: FitsAhead | None = None
) -> int:
    """Keep `ratings` (the list as of the latest game, with the rating the day before it)
    and `rating_history` (each player's rating after each event: the fit as of the event's
    history point, see `history_points`) current. Refits the points from the first event that
    changed on, each fit starting from the one before; `full`: from the first game. `ahead`:
    the committed database's points fitted beforehand (`FitsAhead`), taken where nothing they
    read has changed since, when every point is to be fitted: as soon as they are made, their
    history written while the next are fitted. Returns the games rated."""
    now, changed_days = _changed(con)
    stored_state = db.scalar(con, "select max(fingerprint) from rating_state")
    model = settings(con).model()
    if not full and not changed_days and (stored_state or "").startswith(model + ";"):
        return db.scalar(
            con,
            "select count(*) from results where forfeit is null "
            "and ew_level is not null and ns_level is not null",
        )
    new_events = None if full else appended(con, now)
    read = (
        ahead.games(con, now) if ahead is not None and new_events is None and not full else None
    )  # read ahead on another connection, this transaction's events appended
    if read is not None:
        every, cached = read, (0, 0)
    elif new_events is None:  # every game read again
        every, cached = read_games(con), (0, 0)
    else:  # the games the last fit read, and the new events' after them
        every = cached_games(con, new_events)
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
        first = bucket(min(changed_days), grain)
    # what the fits do not change is written first: with fits made ahead, while they end
    kept_events = [
        e
        for e, d in now.select("event_id", "day").iter_rows()
        if first is not None and bucket(d, grain) < first
    ]
    con.execute(
        "delete from rating_history where event_id not in (select unnest($kept::varchar[]))",
        {"kept": kept_events},
    )
    rewrite(con, "rating_events", now.select("event_id", "day", "fingerprint"))
    keep_games(con, every, *cached)
    point_of = {d: points[bucket(d, grain)] for d in days}  # each day's history point
    fitted: dict[dt.date, np.ndarray] = {}
    if first is None and ahead is not None and not full:
        # the points fitted ahead as soon as they are made, their history rows written while
        # the next are fitted (only the points after the last are left for the end)
        for made in ahead.reused(
            now, state, points, every.player_ids, lambda day: bucket(day, grain)
        ):
            fitted.update(made)
            _store_history(con, every, point_of, made)
    refit = [
        (b, d)
        for b, d in sorted(points.items())
        if (first is None or b >= first) and d not in fitted
    ]
    start = fitted[max(fitted)] if fitted else None  # the last point fitted ahead
    if first is not None:  # a warm start: the stored list
        known = db.frame(con, "select player_id, mu from ratings")
        start = (
            pl.DataFrame({"player_id": every.player_ids})
            .join(known, on="player_id", how="left", maintain_order="left")["mu"]
            .fill_null(0.0)
            .to_numpy()
        )
    current = None
    refitted: dict[dt.date, np.ndarray] = {}
    with progress("评分 fitting the ratings", total=len(refit), show=len(refit) > 3) as step:
        for _, day in refit:  # a whole archive's history: a bar, point by point
            step(day.isoformat())
            current = Fit(every, day, start)
            start = refitted[day] = current.r
    if played.height:
        _store_history(con, every, point_of, refitted)
        if current is None or current.as_of != days[-1]:
            current = Fit(every, days[-1], start)
        _store_list(con, every, current)
    else:
        con.execute("delete from ratings")
    con.execute("delete from rating_state")
    con.execute("insert into rating_state values (?)", [state])
    return played.height


def _store_history(con, every: Games, point_of: dict[dt.date, dt.date], fitted: dict) -> None:
    """Each player's rating after each event of the points `fitted` ({point's day: its
    ratings}): the fit at the event's point. Only those points' games are read (each
    point's days are consecutive in a fit's order). `point_of`: each day played (ascending)
    and its point."""
    refit_days = [d for d, point in point_of.items() if point in fitted]
    if not refit_days:
        return
    first_game = int(np.searchsorted(every.day, day_number(refit_days[0]), side="left"))
    end_game = int(np.searchsorted(every.day, day_number(refit_days[-1]), side="right"))
    k, end = (int(i) for i in np.searchsorted(every.g, [first_game, end_game], side="left"))
    game, index = every.g[k:end] - first_game, every.p[k:end]
    # each event's games are consecutive in a fit's order: an event's number is the count of
    # event changes before its games; one row per event and player, at their first seat
    # (numpy on integer keys: a third of the history's writing, issue 52)
    events = every.frame["event_id"].slice(first_game, end_game - first_game)
    number = events.ne_missing(events.shift(1)).cum_sum().to_numpy().astype(np.int64)
    _, first = np.unique(number[game] * every.player_ids.len() + index, return_index=True)
    first.sort()
    game, index = game[first], index[first]
    named = ~every.anonymous[index]
    game, index = game[named], index[named]
    order = sorted(fitted)
    at_days, at = np.unique(every.day[first_game:end_game][game], return_inverse=True)
    epoch = dt.date(1970, 1, 1)
    code_of = np.array(
        [
            order.index(point_of[d]) if point_of[d] in fitted else -1
            for d in (epoch + dt.timedelta(days=int(n)) for n in at_days)
        ],
        dtype=np.int64,
    )
    code = code_of[at] if at_days.size else np.zeros(0, dtype=np.int64)
    kept = code >= 0
    game, index, code = game[kept], index[kept], code[kept]
    if not index.size:
        return
    mu = np.empty(index.size)
    for k, day in enumerate(order):
        mask = code == k
        mu[mask] = fitted[day][index[mask]]
    rows = pl.DataFrame(
        {
            "player_id": every.player_ids.gather(index),
            "event_id": events.gather(game),
            "round": np.zeros(index.size, dtype=np.int32),
            "mu": mu,
            "sigma": np.zeros(index.size),
            "ordinal": np.rint(BASE + SCALE * mu),
        }
    )
    rewrite(con, "rating_history", rows, keep=True)


def _store_list(con, every: Games, final: Fit) -> None:
    """The list as of the latest game, with each player's rating the day before it."""
    latest = final.as_of
    before = Fit(every, latest - dt.timedelta(days=1), final.r)
    events = every.frame["event_id"]
    rated = final.rated()
    previous = np.where(before.games[rated] > 0, np.rint(BASE + SCALE * before.r[rated]), np.nan)
    table = pl.DataFrame(
        {
            "player_id": every.player_ids.gather(rated),
            "mu": final.r[rated],
            "sigma": final.sigma[rated],
            "ordinal": np.rint(BASE + SCALE * final.r[rated]).astype(float),
            "games": final.games[rated].astype(np.int32),
            "last_event": events.gather(final.last_game[rated]),
            "previous": previous,
            "last_played": every.frame["day"].gather(final.last_game[rated]),
        },
        schema_overrides={"games": pl.Int32},
    ).with_columns(pl.col("previous").fill_nan(None))
    rewrite(con, "ratings", table)


def leaderboard(
    con: duckdb.DuckDBPyConnection,
    limit: int | None = None,
    as_of: dt.date | None = None,
    min_games: int = 0,
    unit: str | None = None,
    inactive_months: int = INACTIVE_MONTHS,
) -> pl.DataFrame:
    """The list as an association publishes it: rank (ties share it), person, current unit,
    rating, games, events, last played, change since the list before the latest event,
    provisional."""
    from pipeline.base.names import normalize_name

    if as_of is None and not is_stale(con):  # the stored list
        rated = db.frame(
            con,
            """
            select player_id, ordinal::bigint as rating, games::bigint as games, last_played,
                   previous::bigint as previous
            from ratings""",
        )
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
        rated = (
            now.frame()
            .select("player_id", "rating", "games", "last_played")
            .join(
                before.frame().select("player_id", pl.col("rating").alias("previous")),
                on="player_id",
                how="left",
            )
        )
    people = db.frame(con, db.sql("rating_people"), {"d": as_of})
    quiet_since = as_of - dt.timedelta(days=round(inactive_months * 30.44))
    board = (
        rated.join(people, on="player_id", how="left")
        .with_columns(
            (pl.col("rating") - pl.col("previous")).alias("change"),
            ((pl.col("games") < MIN_GAMES) | (pl.col("events") < MIN_EVENTS)).alias("provisional"),
            (pl.col("last_played") < quiet_since).alias("inactive"),
        )
        .filter(pl.col("games") >= min_games)
    )
    if unit:
        board = board.filter(
            pl.col("affiliation").map_elements(normalize_name, return_dtype=pl.String)
            == normalize_name(unit)
        )
    board = board.sort(
        ["rating", "games", "player_id"], descending=[True, True, False]
    ).with_columns(pl.col("rating").rank("min", descending=True).cast(pl.Int64).alias("rank"))
    shown = board.select(LIST_COLUMNS)
    return shown.head(limit) if limit else shown


LIST_COLUMNS = [
    "rank",
    "player_id",
    "name",
    "affiliation",
    "rating",
    "games",
    "events",
    "last_played",
    "change",
    "provisional",
    "inactive",
]
