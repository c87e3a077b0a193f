"""The rating model: a level-margin model, fitted by weighted least squares (pure numpy).

Every played table (forfeits and byes are not games) says how much stronger one pair was
than the other: East-West's strength minus North-South's ≈ the levels between them at the
end (capped at ± the margin cap). A pair's strength is the sum of its players' ratings, so
changing partners, teams and clubs costs nothing: each game tells about all four players. The
ratings are the ridge least-squares fit of all games up to a date:

    minimise  Σ_games w·(margin − (Σ r_EW − Σ r_NS))²  +  prior_games · Σ_players r²

with w = ½^(age / half_life_days): older games count less, so a player who stops playing
grows less certain (σ = the games' residual spread / √(prior_games + Σ w of their games)).
The three numbers are the association's `Settings` (`paisai rating-settings`). Solved by
conjugate gradients on the sparse system (each step two `bincount`s over the games' seats; a
pairs' history, every table two a side, sums each team's two ratings once and reads each
game's two teams instead), so the whole
history is refitted in seconds. The steps' dot products are `np.einsum`, not BLAS:
OpenBLAS's threads, woken for every product between two `bincount`s, cost tens of
milliseconds each on a loaded machine (measured, issue 52).

A seat whose person is unclear (a namesake's seat that evidence could not place: the
UNCLEAR note of `evidence.py`) is rated as an anonymous player of its own: its game still
tells about the other three players, and it adds nothing wrong to either namesake.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import polars as pl

BASE, SCALE = 1500, 100  # displayed: BASE + SCALE × (levels a game)


@dataclass(frozen=True)
class Settings:
    """An association's rating settings (stored in `rating_settings`, migration 036)."""

    # tuned on the league bench's seeds 21–23 (never the seeds 11, 12 it reports), issue 52:
    # Spearman ρ 0.816 against 0.803 with the earlier cap 6 / prior 2; Brier 0.182 (Elo 0.188)
    margin_cap: int = 10  # levels: a game says no more than this about strength (13: no cap)
    half_life_days: int = 730  # a game two years old counts half
    prior_games: float = 3.0  # ridge: a newcomer is pulled to the average as if by three games

    def model(self) -> str:
        """The model's name with its settings: a stored fit of other settings is stale."""
        return (
            f"level-margin cap={self.margin_cap} half-life={self.half_life_days} "
            f"prior={self.prior_games:g}"
        )


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.einsum("i,i->", a, b))


class Games:
    """The rated games in order, as the arrays a fit reads: each seat's game, player (an
    index into `players`, every player of the whole history) and side (+1 East-West, −1
    North-South). Built once; a fit as of a day reads the games up to it, a prefix.
    `frame`: one row per game, in order, with its event_id and day. `anonymous`: for each
    player index, whether it stands for one unclear seat (never listed)."""

    def __init__(
        self,
        frame: pl.DataFrame,
        seats: dict[str, np.ndarray],
        players: pl.Series,
        settings: Settings | None = None,
        anonymous: np.ndarray | None = None,
    ):
        """`seats`: the arrays `game`, `index` and `sign`, sorted by game, East-West first."""
        self.settings = settings or Settings()
        self.frame = frame
        self.player_ids = players
        self.anonymous = np.zeros(players.len(), dtype=bool) if anonymous is None else anonymous
        self.cached = (0, 0)  # games and players of these read from the last fit's cache
        self.g = np.asarray(seats["game"], dtype=np.int64)
        self.p = np.asarray(seats["index"], dtype=np.int64)
        self.s = np.asarray(seats["sign"], dtype=np.float64)
        self.day = (
            frame["day"].cast(pl.Int64).to_numpy() if frame.height else np.zeros(0, dtype=np.int64)
        )  # days since 1970-01-01, in game order
        cap = self.settings.margin_cap
        self.y = np.clip(frame["margin"].to_numpy().astype(float), -cap, cap)
        self.side = _uniform_side(self.g, self.s, frame.height)

    @cached_property
    def teams(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Pairs' tables (every game `side` seats a side): the sides' teams, numbered in the
        order they first play, as (their players: one row per seat, one column per team;
        each game's East-West team; its North-South team); None otherwise. The games up to a
        day then seat the teams first met in them, a prefix of the numbers."""
        return self.teams_after(None, 0)

    def teams_after(self, before: tuple | None, since: int):
        """`teams` of these games, those of the games before `since` given (`before`: the
        `teams` of a Games whose games these begin with): the later games' teams are
        numbered after them, a team met again numbered anew (its players are the same)."""
        if not self.side:
            return None
        k, players = self.side, self.player_ids.len()
        seats = self.p[2 * k * since :].reshape(-1, k)  # game by game, East-West first
        if k == 1:
            key = seats[:, 0]
        elif k == 2:
            key = seats[:, 0] * players + seats[:, 1]
        else:
            key = np.unique(seats, axis=0, return_inverse=True)[1].reshape(-1)
        _, first, found = np.unique(key, return_index=True, return_inverse=True)
        number = np.empty_like(first)
        number[np.argsort(first)] = np.arange(first.size)  # by their first game
        members = seats[np.sort(first)].T
        team = number[found.reshape(-1)]
        if before is not None:
            members = np.concatenate([before[0], members], axis=1)
            team = team + before[0].shape[1]
            return (
                members,
                np.concatenate([before[1], team[0::2]]),
                np.concatenate([before[2], team[1::2]]),
            )
        return np.ascontiguousarray(members), team[0::2].copy(), team[1::2].copy()

    @cached_property
    def day_code(self) -> tuple[np.ndarray, np.ndarray]:
        """The days games were played on (ascending) and each game's place among them: a
        fit weighs each day once, not each game (issue 52)."""
        return np.unique(self.day, return_inverse=True)

    @classmethod
    def of(cls, played: pl.DataFrame, settings: Settings | None = None) -> Games:
        """From a frame of games with each side's players as lists (ew_players,
        ns_players), in order."""
        numbered = played.with_row_index("game")
        seats = (
            pl.concat(
                [
                    numbered.select(
                        "game", pl.col("ew_players").alias("player_id"), pl.lit(1.0).alias("sign")
                    ),
                    numbered.select(
                        "game", pl.col("ns_players").alias("player_id"), pl.lit(-1.0).alias("sign")
                    ),
                ]
            )
            .explode("player_id")
            .with_columns(pl.int_range(pl.len()).over("game", "sign").alias("slot"))
        )
        people = seats.select(pl.col("player_id").unique().sort()).with_row_index("index")
        ordered = seats.join(people, on="player_id").sort(
            "game", "sign", "slot", descending=[False, True, False]
        )
        return cls(
            played,
            {c: ordered[c].to_numpy() for c in ("game", "index", "sign")},
            people["player_id"],
            settings,
        )


def _uniform_side(g: np.ndarray, s: np.ndarray, games: int) -> int:
    """k when every game has k seats East-West then k North-South (a pairs event: 2),
    else 0 (a fit then reads the seats one by one)."""
    if not games or g.size % (2 * games):
        return 0
    k = g.size // (2 * games)
    table = np.asarray(g).reshape(games, 2 * k)
    if not (table == np.arange(games)[:, None]).all():
        return 0
    pattern = np.repeat([1.0, -1.0], k)
    return k if (np.asarray(s).reshape(games, 2 * k) == pattern).all() else 0


def day_number(day: dt.date) -> int:
    return (day - dt.date(1970, 1, 1)).days


class Fit:
    """Ratings as of one day, from the games up to it (`played`: a Games, or the frame of
    games with each side's players as lists, see `Games.of`). `start`: a first guess for
    every player of the Games (a warm start)."""

    def __init__(
        self,
        played: Games | pl.DataFrame,
        as_of: dt.date,
        start: np.ndarray | None = None,
        settings: Settings | None = None,
    ):
        every = played if isinstance(played, Games) else Games.of(played, settings)
        self.as_of = as_of
        self.every = every
        self.prior = every.settings.prior_games
        self.n_games = n = int(np.searchsorted(every.day, day_number(as_of), side="right"))
        k = int(np.searchsorted(every.g, n, side="left"))
        self.g, self.p, self.s = every.g[:k], every.p[:k], every.s[:k]
        self.m = every.player_ids.len()
        self.games = np.bincount(self.p, minlength=self.m)
        # the system is solved for the players who had played by the day alone, numbered
        # among themselves: the others' ratings are 0 and stay 0, and an early point of a
        # long history has a fraction of its players (issue 52)
        played = self.games > 0
        self.active = np.flatnonzero(played)
        self.m_active = self.active.size
        local = np.cumsum(played) - 1
        # pairs' tables (every game k seats a side): a step sums each team's ratings once, then
        # each game's two teams' (a third less CPU a step than each seat column of the tables
        # read for each game, half of seat by seat; measured, issue 52)
        teams = every.teams
        if teams is not None:
            members, ew, ns = teams
            count = int(max(ew[:n].max(), ns[:n].max())) + 1 if n else 0  # teams met by then
            self.members = local.take(members[:, :count])
            self.ew, self.ns = ew[:n], ns[:n]
            self._local = None
        else:
            self.members = None
            self._local = local.take(self.p)
        days, code = every.day_code
        self.w = (
            0.5 ** ((day_number(as_of) - days).astype(float) / every.settings.half_life_days)
        ).take(code[:n])
        self.y = every.y[:n]
        weight = self._xt(self.w, signed=False)  # each player's weight of games
        self.weight = np.zeros(self.m)
        self.weight[self.active] = weight
        self.r = np.zeros(self.m)
        if n:
            x0 = np.zeros(self.m_active) if start is None else start[self.active]  # a copy
            self.r[self.active] = self._solve(x0, weight + self.prior)  # updated in place

    # σ and the last games only where they are read (the list, a profile), not at each of a
    # history's points, which keep the ratings alone (issue 52: a tenth of a refit's steps)
    @cached_property
    def sigma(self) -> np.ndarray:
        """Each player's uncertainty: the games' residual spread / √(prior + weight)."""
        predicted = self._x(self.r[self.active])
        spread = float(
            np.sqrt(_dot(self.w, (self.y - predicted) ** 2) / max(float(self.w.sum()), 1e-9))
        )
        return spread / np.sqrt(self.prior + self.weight)

    @cached_property
    def last_game(self) -> np.ndarray:
        """The index of each player's last game, −1: none yet."""
        last_game = np.full(self.m, -1, dtype=np.int64)
        np.maximum.at(last_game, self.p, self.g)
        return last_game

    def _x(self, r: np.ndarray) -> np.ndarray:
        """Each game's East-West strength minus North-South's (`r`: the active players')."""
        if self.members is None:
            return np.bincount(self.g, weights=self.s * r[self._local], minlength=self.n_games)
        strength = r.take(self.members[0])  # each team's
        for seat in self.members[1:]:
            strength += r.take(seat)
        x = strength.take(self.ew)
        x -= strength.take(self.ns)
        return x

    def _xt(self, v: np.ndarray, signed: bool = True) -> np.ndarray:
        """Each active player's sum of their games' values, signed by side (`signed`)."""
        if self.members is None:
            return np.bincount(
                self._local,
                weights=self.s * v[self.g] if signed else v[self.g],
                minlength=self.m_active,
            )
        count = self.members.shape[1]
        team = np.bincount(self.ew, v, count)  # each team's sum
        if signed:
            team -= np.bincount(self.ns, v, count)
        else:
            team += np.bincount(self.ns, v, count)
        total = np.bincount(self.members[0], team, self.m_active)
        for seat in self.members[1:]:
            total += np.bincount(seat, team, self.m_active)
        return total

    def _solve(
        self, x: np.ndarray, diagonal: np.ndarray, steps: int = 300, tolerance: float = 1e-8
    ) -> np.ndarray:
        """Conjugate gradients on (XᵀWX + λI) r = XᵀWy over the active players, preconditioned
        by its diagonal (each player's weight of games plus λ: a player of many games and a
        newcomer converge alike)."""

        def apply(v: np.ndarray) -> np.ndarray:
            return self._xt(self.w * self._x(v)) + self.prior * v

        b = self._xt(self.w * self.y)
        residual = b - apply(x)
        z = residual / diagonal
        direction = z.copy()
        size = _dot(residual, z)
        limit = tolerance * max(_dot(b, b), 1e-12)
        self.steps = 0
        for _ in range(steps):
            if _dot(residual, residual) <= limit:
                break
            self.steps += 1
            step = apply(direction)
            alpha = size / _dot(direction, step)
            x += alpha * direction  # in place: the same sums, no new arrays a step
            step *= alpha
            residual -= step
            np.divide(residual, diagonal, out=z)
            new_size = _dot(residual, z)
            direction *= new_size / size
            direction += z
            size = new_size
        return x

    def rated(self) -> np.ndarray:
        """The indexes of the players listed: played by the day, not an anonymous seat."""
        return np.flatnonzero((self.games > 0) & ~self.every.anonymous)

    def frame(self) -> pl.DataFrame:
        """One row per player who had played by the day."""
        played = self.rated()
        last = (
            self.every.frame["day"].gather(self.last_game[played])
            if played.size
            else pl.Series([], dtype=pl.Date)
        )
        return pl.DataFrame(
            {
                "player_id": self.every.player_ids.gather(played),
                "level_rating": self.r[played],
                "sigma": self.sigma[played],
                "rating": np.rint(BASE + SCALE * self.r[played]).astype(np.int64),
                "games": self.games[played],
                "last_played": last,
            },
            schema={
                "player_id": pl.String,
                "level_rating": pl.Float64,
                "sigma": pl.Float64,
                "rating": pl.Int64,
                "games": pl.Int64,
                "last_played": pl.Date,
            },
        )
