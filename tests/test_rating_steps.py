"""The rating fit's steps (issue 52): pairs' tables (two seats a side) read team by team
give the same fit as the seats read one by one, and any other table falls back to them."""

from __future__ import annotations

import datetime as dt
import random

import numpy as np
import polars as pl
import pytest

from pipeline.history.rating_model import Fit, Games


def _league(seed: int, sides: list[int] | None = None, players: int = 40) -> pl.DataFrame:
    rng = random.Random(seed)
    people = [f"p{i}" for i in range(players)]
    rows = []
    for game in range(300):
        k = sides[game % len(sides)] if sides else 2
        four = rng.sample(people, 2 * k)
        rows.append(
            (
                f"e{game // 30}",
                dt.date(2024, 1, 1) + dt.timedelta(days=game // 30 * 20),
                rng.randint(-13, 13),
                four[:k],
                four[k:],
            )
        )
    return pl.DataFrame(
        rows, schema=["event_id", "day", "margin", "ew_players", "ns_players"], orient="row"
    )


def _seat_by_seat(every: Games) -> Games:
    plain = Games(
        every.frame,
        {"game": every.g, "index": every.p, "sign": every.s},
        every.player_ids,
        every.settings,
        every.anonymous,
    )
    plain.side = 0
    return plain


@pytest.mark.parametrize("day", [dt.date(2024, 3, 1), dt.date(2024, 12, 31)])
def test_pairs_tables_column_by_column_fit_as_seat_by_seat(day):
    every = Games.of(_league(3))
    assert every.side == 2
    fast, plain = Fit(every, day), Fit(_seat_by_seat(every), day)
    assert fast.members is not None and plain.members is None
    assert fast.n_games == plain.n_games > 0
    assert np.allclose(fast.r, plain.r, rtol=0, atol=1e-12)
    assert np.allclose(fast.sigma, plain.sigma, rtol=0, atol=1e-12)
    assert (fast.games == plain.games).all() and (fast.last_game == plain.last_game).all()
    shown = ["player_id", "rating", "games", "last_played"]  # the ratings to the last bit
    assert fast.frame().select(shown).equals(plain.frame().select(shown))
    warm = Fit(every, day, start=plain.r)  # a warm start reads the same teams
    assert np.allclose(warm.r, plain.r, rtol=0, atol=1e-6)


def test_tables_of_other_sizes_are_read_seat_by_seat():
    """A team of three at some tables: no uniform layout, the seats one by one."""
    every = Games.of(_league(5, sides=[2, 2, 3]))
    assert every.side == 0
    fit = Fit(every, dt.date(2024, 12, 31))
    assert fit.members is None
    assert np.isfinite(fit.r).all() and fit.steps > 0


@pytest.mark.parametrize("sides", [None, [2, 2, 3]])
def test_a_fit_solves_for_the_players_who_had_played_alone(sides):
    """Issue 52: an early point of a long history has a fraction of its players; its fit
    solves for those alone. The others are rated 0 with no weight, and the ratings are those
    of a history that ends on that day (its players numbered among themselves)."""
    day = dt.date(2024, 2, 1)  # three events of ten, among 16 of the 40 players
    early = _league(7, sides, players=16).filter(pl.col("day") <= day)
    league = pl.concat([early, _league(8, sides).filter(pl.col("day") > day)])
    whole, cut = Fit(Games.of(league), day), Fit(Games.of(early), day)
    assert 0 < whole.m_active == cut.m < whole.m
    idle = whole.games == 0
    assert idle.sum() == whole.m - whole.m_active
    assert not whole.r[idle].any() and not whole.weight[idle].any()
    rated = ["player_id", "level_rating", "sigma", "games", "last_played"]
    a, b = (f.frame().select(rated).sort("player_id") for f in (whole, cut))
    assert a["player_id"].equals(b["player_id"]) and a["games"].equals(b["games"])
    assert np.allclose(
        a["level_rating"].to_numpy(), b["level_rating"].to_numpy(), rtol=0, atol=1e-12
    )
    assert np.allclose(a["sigma"].to_numpy(), b["sigma"].to_numpy(), rtol=0, atol=1e-12)
