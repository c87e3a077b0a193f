"""A stale archive's rating history fitted ahead (issue 52): when the stored fit is missing
(an archive written by other tools or an earlier version), every history point must be
fitted. The points before the imported event's do not depend on it: they are fitted on a
second connection to the same database (the file as last committed), in a thread, while
the import's transaction stores its sheets and brings its player map up (DuckDB and polars
do that work without Python's lock, so the two go side by side on two cores).

`ratings.refresh` then takes, of these fits, the points before the first event whose
ratings read something else in the transaction (`rating_fingerprints.sql`: its results,
who sat where), the same grain and settings, and fits the rest itself from the last of them.
It takes each as soon as it is made and writes its history rows while the next is fitted,
so that little is left to write once the last is made (issue 52). A fit taken from here is the same games' fit with the players numbered as the transaction
numbers them: the same sums player by player, and the same to within the fits' stopping
point (their dot products add the players in another order)."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import duckdb
import numpy as np
import polars as pl

from pipeline.base import db
from pipeline.history.ahead import Ahead
from pipeline.history.evidence import UNCLEAR
from pipeline.history.rating_model import Games, day_number


@dataclass(frozen=True)
class Plan:
    """What the committed database's history points are fitted from, known once its games
    are read: the fits themselves follow one by one (`FitsAhead.reused`)."""

    fingerprints: pl.DataFrame  # event_id, day, fingerprint (rating_fingerprints.sql)
    state: str  # the model and grain (rating_state's form)
    points: dict  # bucket → its day
    games: Games  # the games read


class FitsAhead(Ahead):
    """The history points of the committed database fitted in a thread from its creation,
    when its stored fit is missing or of other settings (else nothing: the stored fit is
    refitted from the changed event on). The games it reads first are the transaction's as
    soon as they are read (`games`), the fits one by one as they are made (`reused`). Use it as a
    context manager: leaving it (an error too) stops the fits at their next point and
    closes the connection."""

    name = "fits-ahead"

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self._plan: Plan | None = None  # set with the games read
        self._read: tuple[pl.DataFrame, Games] | None = None  # fingerprints, games read
        self._games_read = threading.Event()  # set once they are (or never will be)
        self._fitted: dict[dt.date, np.ndarray] = {}  # each point's fit, once made
        self._each = threading.Condition()  # told of each fit, and of the end
        self._ended = False
        self._stop = threading.Event()
        super().__init__(con)

    def _work(self) -> None:
        from pipeline.history.rating_games import read_games, settings
        from pipeline.history.rating_model import Fit
        from pipeline.history.rating_points import history_points

        try:
            model = settings(self._cursor).model()
            stored = db.scalar(self._cursor, "select max(fingerprint) from rating_state")
            if (stored or "").startswith(model + ";"):
                return  # a stored fit: refitted from the changed event on, not from here
            now = db.frame(self._cursor, db.sql("rating_fingerprints"), {"unclear": UNCLEAR})
            every = read_games(self._cursor)
            self._read = (now, every)
            if every.frame.height:
                grain, points = history_points(every.frame["day"].unique().sort().to_list())
                self._plan = Plan(now, f"{model};{grain}", points, every)
            self._games_read.set()  # the transaction may take them while the points are fitted
            if self._plan is None:
                return
            start = None
            for _, day in sorted(self._plan.points.items()):
                if self._stop.is_set():
                    return
                start = Fit(every, day, start).r
                with self._each:
                    self._fitted[day] = start
                    self._each.notify_all()
        except Exception:  # nothing more fitted ahead: the transaction fits the rest itself
            pass
        finally:
            self._games_read.set()
            with self._each:
                self._ended = True
                self._each.notify_all()

    def games(self, con: duckdb.DuckDBPyConnection, now: pl.DataFrame) -> Games | None:
        """The games read ahead with the transaction's new events' appended, when those are
        all it changed (`now`: its fingerprints) and come after every other in a fit's
        order; else None (the transaction reads every game itself)."""
        from pipeline.history.rating_games import extended

        self._games_read.wait()  # not the fits: they go on meanwhile
        if self._read is None:
            return None
        fingerprints, read = self._read
        key = ["event_id", "fingerprint"]
        before = fingerprints.select(key)
        if before.join(now.select(key), on=key, how="anti").height:
            return None  # an event changed or gone since
        new = now.join(before, on="event_id", how="anti")["event_id"].to_list()
        if not new:
            return read
        order = db.frame(
            con,
            "select event_id, coalesce(event_date, created_at::date) as day, "
            "created_at, event_id in (select unnest($new::varchar[])) as new "
            "from events",
            {"new": new},
        )
        key = ["day", "created_at", "event_id"]
        old_rows = order.filter(~pl.col("new")).sort(key).select(key).rows()
        new_rows = order.filter(pl.col("new")).sort(key).select(key).rows()
        if old_rows and new_rows[0] <= old_rows[-1]:
            return None  # an earlier event: its games are not last
        return extended(con, read, new)

    def reused(
        self, now: pl.DataFrame, state: str, points: dict, players: pl.Series, bucket
    ) -> Iterator[dict[dt.date, np.ndarray]]:
        """The fits ahead the transaction can take, {day: ratings by `players`' index} in the
        points' order, as soon as they are made (each time, those made since, at least one):
        the points before the bucket of the first event whose fingerprint differs (`now`: the
        transaction's), when the model, grain and those points are the same, and every player
        of their games is one of `players`; nothing else. The transaction fits the points
        after the last one itself, from it."""
        self._games_read.wait()
        plan = self._plan
        if plan is None or plan.state != state:
            return
        key = ["event_id", "day", "fingerprint"]
        differ = pl.concat(
            [
                now.select(key).join(plan.fingerprints.select(key), on=key, how="anti"),
                plan.fingerprints.select(key).join(now.select(key), on=key, how="anti"),
            ]
        )
        first = min((bucket(d) for d in differ["day"].to_list()), default=None)
        taken = [(b, d) for b, d in sorted(plan.points.items()) if first is None or b < first]
        if not taken or any(points.get(b) != d for b, d in taken):
            return
        at = pl.DataFrame({"player_id": players}).with_row_index("index")
        moved = pl.DataFrame({"player_id": plan.games.player_ids}).join(
            at, on="player_id", how="left", maintain_order="left"
        )["index"]
        known = moved.is_not_null().to_numpy()
        games = plan.games
        last = np.searchsorted(games.day, day_number(taken[-1][1]), side="right")
        seats = int(np.searchsorted(games.g, last))
        if not known[games.p[:seats]].all():  # a player of those games the transaction has not
            return
        target = moved.fill_null(0).to_numpy().astype(np.int64)[known]
        days = [d for _, d in taken]
        while days:
            with self._each:
                self._each.wait_for(lambda: days[0] in self._fitted or self._ended)
                made = {}
                while days and days[0] in self._fitted:
                    day = days.pop(0)
                    made[day] = self._fitted[day]
            if not made:  # the fits ended early: the transaction fits the rest
                return
            for day, ratings in made.items():
                made[day] = np.zeros(players.len())
                made[day][target] = ratings[known]
            yield made

    def stop(self, failed: bool) -> None:
        self._stop.set()  # the fits end at their next point
